"""What the "Tool surface" phrases assert: the lint rules pass, nothing is hidden, the token budgets hold.

Each check takes the listings a client receives (`mcpbdd.surface_lint.listings_of`) and raises
`SurfaceFailure` naming every finding (tool, JSON path, what was hidden made visible) and its fix. A
surface with no tool fails rather than passing: there was nothing to judge.

    assert_passes_lint(listings)                     # every rule; errors and warnings fail, notes do not
    assert_passes_lint(listings, rule="description-missing")
    assert_hides_nothing(listings)                   # the poisoning rules
    assert_surface_costs_at_most(listings, 4000)
    assert_description_costs_at_most(listings, "create_note", 200)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcpbdd.surface_lint import RULES, Finding, lint_surface, rule_named
from mcpbdd.surface_lint.visible import reveal

__all__ = [
    "SurfaceFailure",
    "assert_description_costs_at_most",
    "assert_hides_nothing",
    "assert_passes_lint",
    "assert_surface_costs_at_most",
    "rule_named",
]

Listings = Sequence[Mapping[str, Any]]
POISONING = frozenset(rule.id for rule in RULES if rule.family == "poisoning")


class SurfaceFailure(AssertionError):
    """The tool surface breaks a lint rule or a budget."""


def _some(listings: Listings) -> None:
    if not listings:
        raise SurfaceFailure("the server offers no tools: there is no tool surface to judge")


def _failing(findings: Sequence[Finding], what: str) -> None:
    if findings:
        lines = [f"The tool surface {what}: {len(findings)} finding(s):"]
        for found in findings:
            lines += [f"  {found}", f"    fix: {found.rule.fix}"]
        raise SurfaceFailure("\n".join(lines))


def assert_passes_lint(listings: Listings, rule: str | None = None) -> None:
    """No error- or warning-level finding (of `rule` only, when given; an unknown rule is a ValueError)."""
    chosen = rule_named(rule).id if rule is not None else None
    _some(listings)
    report = lint_surface(listings, tokens=False)
    found = [f for f in report.open if f.severity != "note" and chosen in (None, f.rule.id)]
    _failing(found, f'breaks the lint rule "{chosen}"' if chosen else "breaks the lint rules")


def assert_hides_nothing(listings: Listings) -> None:
    """No hidden instructions, invisible characters, steering, exfiltrating URL or deceptive markup anywhere."""
    _some(listings)
    found = [f for f in lint_surface(listings, tokens=False).open if f.rule.id in POISONING]
    _failing(found, "hides instructions from its reader")


def assert_surface_costs_at_most(listings: Listings, budget: int) -> int:
    """The whole surface costs at most `budget` tokens; returns what it costs. The failure names the dearest tools."""
    from mcpbdd.surface_lint.tokens import surface_tokens

    _some(listings)
    costs = surface_tokens(listings)
    total = sum(costs.values())
    if total > budget:
        dearest = sorted(costs.items(), key=lambda item: -item[1])[:5]
        named = ", ".join(f"{reveal(name, 80)} {cost}" for name, cost in dearest)
        raise SurfaceFailure(
            f"The tool surface costs {total} tokens ({len(costs)} tools), over the budget of {budget} by "
            f"{total - budget}. The dearest tools: {named}. Shorten their descriptions and schemas, or split "
            "the server."
        )
    return total


def assert_description_costs_at_most(listings: Listings, tool: str, budget: int) -> int:
    """The description of `tool` costs at most `budget` tokens; returns what it costs. A tool the server does not
    offer, or one without a description, fails (nothing to measure)."""
    from mcpbdd.surface_lint.tokens import count_tokens

    listing = next((item for item in listings if item.get("name") == tool), None)
    if listing is None:
        offered = ", ".join(reveal(str(item.get("name")), 80) for item in listings) or "none"
        raise SurfaceFailure(f"the server offers no tool {tool!r}; it offers: {offered}")
    text = listing.get("description")
    if not isinstance(text, str) or not text.strip():
        raise SurfaceFailure(f'"{tool}" has no description: there is nothing to measure (see description-missing)')
    cost = count_tokens(text)
    if cost > budget:
        raise SurfaceFailure(
            f'The description of "{tool}" costs {cost} tokens, over the budget of {budget} by {cost - budget}: '
            f"{reveal(text, 300)}"
        )
    return cost
