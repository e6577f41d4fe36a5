"""JSON-RPC error codes by name, so a specification can say `InvalidParams` instead of -32602.

The names come from the SDK's own constants (`mcp_types`), so a code the SDK defines is
always nameable; specifications may also write the number, or the spaced form
("invalid params").
"""

from __future__ import annotations

import re

import mcp_types

_SDK_CONSTANTS = (
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "CONNECTION_CLOSED",
    "REQUEST_TIMEOUT",
    "HEADER_MISMATCH",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
)


def _camel(constant: str) -> str:
    return "".join(part.capitalize() for part in constant.split("_"))


CODES: dict[str, int] = {_camel(name): getattr(mcp_types, name) for name in _SDK_CONSTANTS if hasattr(mcp_types, name)}
"""`InvalidParams` -> -32602, and so on for every code the SDK names."""

_BY_NUMBER: dict[int, str] = {number: name for name, number in CODES.items()}


def _normal(word: str) -> str:
    return re.sub(r"[\s_\-]", "", word).lower()


_BY_NORMAL: dict[str, int] = {_normal(name): number for name, number in CODES.items()}


def parse_code(text: str) -> int:
    """A JSON-RPC code from a number (`-32602`) or a name (`InvalidParams`, `invalid params`)."""
    stripped = text.strip()
    if re.fullmatch(r"[+-]?\d+", stripped):
        return int(stripped)
    number = _BY_NORMAL.get(_normal(stripped))
    if number is None:
        known = ", ".join(f"{name} ({code})" for name, code in CODES.items())
        raise ValueError(f"unknown JSON-RPC error {text!r}: write a number or one of {known}")
    return number


def code_name(code: int) -> str:
    """`-32602 (InvalidParams)` for a known code, the bare number otherwise."""
    name = _BY_NUMBER.get(code)
    return f"{code} ({name})" if name else str(code)
