"""The baseline file: findings a project accepts, reported but never failing, and entries that match nothing now.

YAML like the conformance pack's expected-failures file: a list (or a mapping whose `accepted` key holds
it) of entries, each a rule id (every tool) or `rule:tool` (one tool). A rule id that does not exist is
refused when the file is read; an entry that no finding matches any more is reported so the file
shrinks as the surface improves (`mcpbdd lint` exits 1 on it, like the pack on a stale expected failure).

    accepted:
      - parameter-undocumented            # the generated tools describe their arguments in the tool text
      - description-short:ping
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mcpbdd.surface_lint.rules import rule_named

if TYPE_CHECKING:
    from mcpbdd.surface_lint.findings import Finding

__all__ = ["Accepted", "load_accepted"]


@dataclass(frozen=True)
class Accepted:
    """The entries, as (rule id, tool or None for every tool), in the file's order."""

    entries: tuple[tuple[str, str | None], ...] = ()

    def accepts(self, found: Finding) -> bool:
        return any(rule == found.rule.id and tool in (None, found.tool) for rule, tool in self.entries)

    def unused(self, findings: Sequence[Finding]) -> tuple[str, ...]:
        """The entries no finding matches (as written in the file)."""
        return tuple(
            rule if tool is None else f"{rule}:{tool}"
            for rule, tool in self.entries
            if not any(f.rule.id == rule and tool in (None, f.tool) for f in findings)
        )


def load_accepted(path: Path | None) -> Accepted:
    """Read the baseline file (ValueError naming the file and what is wrong; no file: nothing accepted)."""
    if path is None:
        return Accepted()
    from mcpbdd._listed import read_listed

    listed = read_listed(
        path, key="accepted", what="the lint baseline", shape="`rule` or `rule:tool` entries (under `accepted:`)"
    )
    entries: list[tuple[str, str | None]] = []
    for entry in listed:
        rule, _, tool = entry.partition(":")
        try:
            rule_named(rule)
        except ValueError as exc:
            raise ValueError(f"the lint baseline {path}: {exc}") from None
        entries.append((rule, tool or None))
    return Accepted(tuple(entries))
