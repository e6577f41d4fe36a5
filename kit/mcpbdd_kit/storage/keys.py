"""Key, prefix and tenant-id rules.

Keys are deliberately boring (`^[a-zA-Z0-9_.\\-/]+$`, at most 1024 characters, no `..`):
they end up in SQLite, in file paths of other backends, in cursors and in report text, and
a boring key is safe in all of them. `/` is the one separator, so `cache:v1:abc` is refused
with a hint to write `cache/v1/abc`, rather than one backend accepting what another rejects.

The check runs on every call, so the accepting path is one precompiled `fullmatch` plus a
substring test; the wording of a refusal is worked out only when something is refused.
"""

from __future__ import annotations

import re

from mcpbdd_kit._text import clip
from mcpbdd_kit.storage.errors import InvalidKeyError

__all__ = ["MAX_KEY_LENGTH", "MAX_TENANT_LENGTH", "validate_key", "validate_prefix", "validate_tenant"]

MAX_KEY_LENGTH = 1024
MAX_TENANT_LENGTH = 128

# fullmatch, not `$`: `$` also matches before a trailing newline, so "a\n" would pass.
_ALLOWED = re.compile(r"[a-zA-Z0-9_.\-/]+")
_ALLOWED_CHAR = re.compile(r"[a-zA-Z0-9_.\-/]")
_CHARSET = "letters a-z A-Z, digits 0-9 and _ . - /"


def validate_key(key: str) -> str:
    """Return `key` unchanged if it is a valid storage key, else raise `InvalidKeyError`."""
    if isinstance(key, str) and len(key) <= MAX_KEY_LENGTH and _ALLOWED.fullmatch(key) and ".." not in key:
        return key
    raise _refusal(key, "key", MAX_KEY_LENGTH)


def validate_tenant(tenant: str) -> str:
    """Return `tenant` unchanged if it is a valid tenant id (same rules as keys, at most 128 characters)."""
    if (
        isinstance(tenant, str)
        and len(tenant) <= MAX_TENANT_LENGTH
        and ".." not in tenant
        and _ALLOWED.fullmatch(tenant)
    ):
        return tenant
    raise _refusal(tenant, "tenant id", MAX_TENANT_LENGTH)


def validate_prefix(prefix: str) -> str:
    """A listing prefix: empty (everything) or the start of a valid key."""
    if prefix == "":
        return prefix
    if isinstance(prefix, str) and len(prefix) <= MAX_KEY_LENGTH and _ALLOWED.fullmatch(prefix) and ".." not in prefix:
        return prefix
    raise _refusal(prefix, "prefix", MAX_KEY_LENGTH)


def _refusal(value: object, what: str, limit: int) -> InvalidKeyError:
    """Explain which rule `value` broke, with a corrected spelling when there is an obvious one."""
    if not isinstance(value, str):
        return InvalidKeyError(
            f"{value!r} is refused as a {what}: a {what} must be a string, not {type(value).__name__}",
            key=value,
            rule="type",
        )
    if value == "":
        return InvalidKeyError(f"'' is refused as a {what}: a {what} must not be empty", key=value, rule="empty")
    if len(value) > limit:
        return InvalidKeyError(
            f"{_short(value)} is refused as a {what}: it is {len(value)} characters long, the limit is {limit}",
            key=value,
            rule="length",
        )
    bad = sorted({ch for ch in value if not _ALLOWED_CHAR.fullmatch(ch)})
    if bad:
        listed = ", ".join(repr(ch) for ch in bad)
        message = f"{value!r} is refused as a {what}: only {_CHARSET} are allowed (found {listed})"
        suggestion = value.replace(":", "/")
        if ":" in bad and _ALLOWED.fullmatch(suggestion) and ".." not in suggestion:
            message += f"; use {suggestion} ('/' is the separator)"
        return InvalidKeyError(message, key=value, rule="characters")
    return InvalidKeyError(
        f"{value!r} is refused as a {what}: it must never contain '..' (it reads as a parent-directory step)",
        key=value,
        rule="dot-dot",
    )


def _short(value: str) -> str:
    """A long key shortened for an error message, so the message stays readable."""
    return repr(value if len(value) <= 60 else clip(value, 41, flat=False))
