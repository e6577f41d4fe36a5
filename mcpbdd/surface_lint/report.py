"""Linting a surface: every rule's findings, the token costs, the baseline applied, and the verdict.

report = lint_surface(listings, max_total=4000, max_tool=600, baseline=load_accepted(path))
report.failed          # an error-level finding the baseline does not accept (mcpbdd lint exits 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mcpbdd.surface_lint.accepted import Accepted
from mcpbdd.surface_lint.findings import Finding, finding
from mcpbdd.surface_lint.hidden import hidden_findings
from mcpbdd.surface_lint.quality import quality_findings
from mcpbdd.surface_lint.rules import RULES

__all__ = ["LintReport", "lint_surface", "listings_of"]

_ORDER = {rule.id: index for index, rule in enumerate(RULES)}
_RANK = {"error": 0, "warning": 1, "note": 2}


@dataclass(frozen=True)
class LintReport:
    """The findings (most severe first), each tool's token cost, the total, and baseline entries found no more."""

    findings: tuple[Finding, ...]
    tokens: Mapping[str, int] = field(default_factory=dict)
    stale: tuple[str, ...] = ()

    @property
    def total_tokens(self) -> int:
        return sum(self.tokens.values())

    @property
    def open(self) -> list[Finding]:
        """The findings the baseline does not accept."""
        return [f for f in self.findings if not f.accepted]

    @property
    def failed(self) -> bool:
        """An error-level finding not accepted, or a baseline entry that matches nothing any more."""
        return any(f.severity == "error" for f in self.open) or bool(self.stale)

    def of_rule(self, rule_id: str) -> list[Finding]:
        return [f for f in self.open if f.rule.id == rule_id]


def listings_of(tools: Iterable[Any]) -> list[dict[str, Any]]:
    """Tool listings as a client receives them (an SDK `Tool`, or a dict already), in the server's order."""
    listed: list[dict[str, Any]] = []
    for tool in tools:
        if isinstance(tool, Mapping):
            listed.append(dict(tool))
        else:
            listed.append(tool.model_dump(mode="json", by_alias=True, exclude_none=True))
    return listed


def lint_surface(
    listings: Sequence[Mapping[str, Any]],
    *,
    max_total: int | None = None,
    max_tool: int | None = None,
    accepted: Accepted | None = None,
    tokens: bool = True,
) -> LintReport:
    """Every finding of every rule; with `tokens` each tool's cost too, and the budgets (when given) checked."""
    found = [*quality_findings(listings), *hidden_findings(listings)]
    costs: dict[str, int] = {}
    if tokens or max_total is not None or max_tool is not None:
        from mcpbdd.surface_lint.tokens import surface_tokens

        costs = surface_tokens(listings)
        if max_tool is not None:
            for name, cost in costs.items():
                if cost > max_tool:
                    found.append(finding("token-budget", name, "$", f"the tool costs {cost} tokens, over {max_tool}"))
        if max_total is not None and sum(costs.values()) > max_total:
            found.append(
                finding("token-budget", None, "$", f"the surface costs {sum(costs.values())} tokens, over {max_total}")
            )
    stale: tuple[str, ...] = ()
    if accepted is not None:
        found = [replace(f, accepted=accepted.accepts(f)) for f in found]
        stale = accepted.unused(found)
    found.sort(key=lambda f: (_RANK[f.severity], _ORDER[f.rule.id], f.tool or "", f.path))
    return LintReport(tuple(found), costs, stale)
