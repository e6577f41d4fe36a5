"""What changed in a tenant's storage between two snapshots, for assertions and the report.

"The storage of tenant X is unchanged" fails with this diff, and the Allure report
attaches it, so a reviewer sees `+ notes/n-3 = {...}` rather than two dumps to compare.

Comparison is JSON-strict: `1`, `1.0` and `true` are equal in Python but different JSON,
and a tool that turns a count into a boolean has changed the stored state.
"""

from __future__ import annotations

import json
import marshal
from dataclasses import dataclass, field
from typing import Any

from mcpbdd_kit._text import clip

__all__ = ["StorageDiff", "diff", "same_json"]

_MAX_RENDERED = 300
"""Longest value text shown in `render()` before it is cut (a report line, not a dump)."""


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON: like ==, but a bool, an int and a float are never equal to each other."""
    return a == b and _same_types(a, b)


def _same_types(a: Any, b: Any) -> bool:
    """Given a == b, whether every position also holds the same type (so True is not 1, 1.0 is not 1).

    Runs once per unchanged key of a snapshot, so it skips what == already proved (values,
    dict keys, lengths) and only recurses into containers.
    """
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        for key, x in a.items():
            y = b[key]
            if type(x) is not type(y) or (type(x) in _CONTAINERS and not _same_types(x, y)):
                return False
        return True
    if kind is list:
        for x, y in zip(a, b, strict=True):
            if type(x) is not type(y) or (type(x) in _CONTAINERS and not _same_types(x, y)):
                return False
    return True


_CONTAINERS = (dict, list)


@dataclass(frozen=True)
class StorageDiff:
    """Keys added, removed and changed (`key -> (before, after)`) between two snapshots."""

    added: dict[str, Any] = field(default_factory=dict)
    removed: dict[str, Any] = field(default_factory=dict)
    changed: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def outside(self, prefix: str) -> StorageDiff:
        """The differences of keys not under `prefix` (`consent/`): what "unchanged except under" compares.

        An empty prefix is refused: every key is under it, so nothing would be left to compare.
        """
        if not prefix:
            raise ValueError(
                "'except under \"\"' leaves out every key (each starts with the empty prefix), so nothing would be "
                'compared: name the prefix whose keys may change, like "consent/"'
            )

        def keep(key: str) -> bool:
            return not key.startswith(prefix)

        return StorageDiff(
            added={k: v for k, v in self.added.items() if keep(k)},
            removed={k: v for k, v in self.removed.items() if keep(k)},
            changed={k: v for k, v in self.changed.items() if keep(k)},
        )

    def render(self) -> str:
        """One line per difference, sorted by key: `+ k = v`, `- k (was v)`, `~ k: before -> after`."""
        lines: list[tuple[str, str]] = []
        lines += [(key, f"+ {key} = {_show(value)}") for key, value in self.added.items()]
        lines += [(key, f"- {key} (was {_show(value)})") for key, value in self.removed.items()]
        lines += [(key, f"~ {key}: {_show(before)} -> {_show(after)}") for key, (before, after) in self.changed.items()]
        if not lines:
            return "(no changes)"
        return "\n".join(line for _, line in sorted(lines))


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    return clip(text, _MAX_RENDERED, flat=False)


def diff(before: dict[str, Any], after: dict[str, Any]) -> StorageDiff:
    """Compare two decoded snapshots (`StorageService.snapshot`) of one tenant."""
    added = {key: after[key] for key in sorted(key for key in after if key not in before)}
    removed = {key: before[key] for key in sorted(key for key in before if key not in after)}
    changed: dict[str, tuple[Any, Any]] = {}
    equal: list[str] = []
    for key, old in before.items():
        if key in after:
            # == is the fast C path; it is looser than JSON equality, so matches are confirmed below.
            if old == after[key]:
                equal.append(key)
            else:
                changed[key] = (old, after[key])
    # marshal writes a type code for every bool, int and float, so equal bytes prove every
    # match strict at C speed; different bytes (also from mere dict order) mean: check each.
    if marshal.dumps([before[key] for key in equal], 2) != marshal.dumps([after[key] for key in equal], 2):
        for key in equal:
            if not _same_types(before[key], after[key]):
                changed[key] = (before[key], after[key])
    return StorageDiff(added=added, removed=removed, changed=dict(sorted(changed.items())))
