"""The checks of what a server stored, tenant by tenant (`mcpbdd/steps/storage.py`).

A failure names the tenant, the key and what the tenant does hold (every key when few, else the
nearest to the one asked for). A claim about a tenant nobody knows, or "unchanged" before any
When step, would hold whatever the server does: it raises `VacuousCheck`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from mcpbdd.checks.guards import json_text, needs_content
from mcpbdd.model import matching
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.storage import MISSING, StorageDiff


def storage_holds(value: Any, expected: Any, tenant: str, key: str, held: Sequence[str] = ()) -> None:
    """The stored value equals `expected` (exact JSON, markers allowed); a missing key says so, with `held`'s keys."""
    if value is MISSING:
        raise AssertionError(f"The storage of tenant {tenant!r} has no key {key!r}; {_keys_held(key, held)}")
    matching.assert_matches(expected, value, what=f"value of {key!r} in tenant {tenant!r}")


def storage_contains(value: Any, expected: Any, tenant: str, key: str, held: Sequence[str] = ()) -> None:
    """The stored value contains `expected` (only the keys given, markers allowed); a missing key says so."""
    needs_content(expected, contains=True, what="stored value", instead=f"use 'holds {key!r} equal to:' for all of it")
    if value is MISSING:
        raise AssertionError(f"The storage of tenant {tenant!r} has no key {key!r}; {_keys_held(key, held)}")
    matching.assert_contains(expected, value, what=f"value of {key!r} in tenant {tenant!r}")


def _keys_held(key: str, held: Sequence[str], shown: int = 10) -> str:
    """What the tenant does hold: every key when few, else the nearest to `key` (a typo shows at once)."""
    if not held:
        return "it holds no key at all"
    if len(held) <= shown:
        return f"it holds: {', '.join(sorted(held))}"
    nearest = difflib.get_close_matches(key, held, n=shown, cutoff=0.0)
    return f"the nearest of the {len(held)} keys it holds: {', '.join(nearest)}"


def storage_empty(held: Sequence[str], tenant: str) -> None:
    """The tenant's storage holds no key at all (`held`: the keys it holds now)."""
    if held:
        raise AssertionError(
            f"Expected the storage of tenant {tenant!r} to be empty, but it holds {len(held)} key(s): "
            f"{_keys_held('', held).removeprefix('it holds: ')}"
        )


def storage_lacks(value: Any, tenant: str, key: str) -> None:
    if value is not MISSING:
        raise AssertionError(
            f"Expected the storage of tenant {tenant!r} to have no key {key!r}, but it holds {json_text(value)}"
        )


def storage_known(tenant: str, known: Sequence[str], claim: str) -> None:
    """`tenant` is one the scenario named or whose storage holds something; else `claim` holds whatever happens."""
    if tenant not in known:
        raise VacuousCheck(
            f"The scenario knows no tenant {tenant!r} (known: {', '.join(known) or 'none'}) and its storage holds "
            f"nothing, so {claim} whatever the server does: check the tenant's name, or introduce it with "
            f'Given the tenant "{tenant}"'
        )


def storage_baseline_taken(baseline: Mapping[str, Any] | None) -> None:
    """ "Unchanged" compares with the storage just before the first When step; before it, nothing can have changed."""
    if baseline is None:
        raise VacuousCheck(
            "'Unchanged' compares with the storage just before the first When step, and no When step has run yet, "
            "so nothing can have changed: put this step after the When step whose effect it checks"
        )


def other_tenants_exist(others: Sequence[str], in_play: Sequence[str]) -> None:
    """There is at least one tenant besides the caller's to compare; otherwise "every other" means none."""
    if not others:
        own = ", ".join(repr(t) for t in in_play)
        knows = f"knows only {own} (the last call's caller's tenant)" if own else "knows no tenant at all"
        raise VacuousCheck(
            f"There is no other tenant to compare: the scenario {knows} and no other tenant's storage holds "
            "anything, so 'every other tenant is unchanged' checks nothing. Introduce another tenant "
            '(Given the user "erin" of tenant "globex") or seed one (Given the storage of tenant "globex" holds: ...)'
        )


def storage_unchanged(changes: Mapping[str, StorageDiff], *, except_under: str | None = None) -> None:
    """No tenant in `changes` has a difference; the failure shows each tenant's diff.

    `except_under`: the prefix already left out of `changes` (`StorageDiff.outside`), named in the failure.
    """
    changed = {tenant: d for tenant, d in changes.items() if d}
    outside = f" outside {except_under!r}" if except_under else ""
    if changed:
        parts = [
            f"The storage of tenant {tenant!r} changed{outside}:\n{d.render()}" for tenant, d in sorted(changed.items())
        ]
        raise AssertionError("\n".join(parts))


__all__ = [
    "other_tenants_exist",
    "storage_baseline_taken",
    "storage_contains",
    "storage_empty",
    "storage_holds",
    "storage_known",
    "storage_lacks",
    "storage_unchanged",
]
