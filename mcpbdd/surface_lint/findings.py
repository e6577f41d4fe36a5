"""A finding of the lint: which rule, which tool, where in its listing, what was found (revealed)."""

from __future__ import annotations

from dataclasses import dataclass

from mcpbdd.surface_lint.rules import Rule, Severity, rule_named
from mcpbdd.surface_lint.visible import reveal

__all__ = ["Finding", "finding"]


@dataclass(frozen=True)
class Finding:
    """One violation: `rule`, the `tool` (None for the surface as a whole), `path` (a JSON path in the tool's
    listing), a `message` and `quoted`, the offending text made visible (`visible.reveal`), when there is one.

    `accepted` marks a finding the baseline file accepts: reported, never failing."""

    rule: Rule
    tool: str | None
    path: str
    message: str
    quoted: str | None = None
    accepted: bool = False

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    @property
    def key(self) -> str:
        """How a baseline names it: `rule:tool` (or the rule alone for the surface as a whole)."""
        return f"{self.rule.id}:{self.tool}" if self.tool is not None else self.rule.id

    def __str__(self) -> str:
        where = f'"{reveal(self.tool, 120)}" {self.path}' if self.tool is not None else "the surface"
        quote = f" — {self.quoted}" if self.quoted else ""
        return f"{self.severity} {self.rule.id}: {where}: {self.message}{quote}"


def finding(rule_id: str, tool: str | None, path: str, message: str, quoted: str | None = None) -> Finding:
    """A finding of the rule named `rule_id` (a typo in a rule id is a bug: ValueError)."""
    return Finding(rule_named(rule_id), tool, path, message, quoted)
