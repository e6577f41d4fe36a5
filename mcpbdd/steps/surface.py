"""The tool surface: what a model reads (names, descriptions, schemas) judged by the lint rules and a token budget.

The lint rules, each with a page under Reference, Lint rules, are `mcpbdd.surface_lint`'s; `mcpbdd lint`
runs the same rules from the command line. Tokens are counted with tiktoken's cl100k_base, offline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from behave import then

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, location, spec_errors

if TYPE_CHECKING:
    from types import ModuleType


def _checks() -> ModuleType:
    """`mcpbdd.checks.tool_surface`, imported when a phrase runs: loading the steps compiles no lint pattern."""
    from mcpbdd.checks import tool_surface

    return tool_surface


def _listings(context: Any) -> list[dict[str, Any]]:
    from mcpbdd.surface_lint import listings_of

    return listings_of(world(context).offered_tools())


def _budget(context: Any, budget: int) -> int:
    if budget < 1:
        raise SpecError(f"{location(context)}: a token budget must be at least 1, got {budget}")
    return budget


@then("the tool surface passes the lint rules")
def passes_the_lint_rules(context: Any) -> None:
    """Then the tool surface passes the lint rules  (errors and warnings fail; each finding named with its fix)"""
    _checks().assert_passes_lint(_listings(context))


@then('the tool surface passes the lint rule "{rule:Text}"')
def passes_the_lint_rule(context: Any, rule: str) -> None:
    """Then the tool surface passes the lint rule "parameter-undocumented\""""
    with spec_errors(context):  # an unknown rule id is the specification's mistake
        _checks().rule_named(rule)
    _checks().assert_passes_lint(_listings(context), rule)


@then("no tool description hides instructions")
def no_description_hides_instructions(context: Any) -> None:
    """Then no tool description hides instructions  (nor invisible characters, steering, exfiltrating URLs, markup)"""
    _checks().assert_hides_nothing(_listings(context))


@then("the tool surface costs at most {budget:d} tokens")
def surface_costs_at_most(context: Any, budget: int) -> None:
    """Then the tool surface costs at most 4000 tokens  (tiktoken's cl100k_base, counted offline)"""
    _checks().assert_surface_costs_at_most(_listings(context), _budget(context, budget))


@then('the description of "{tool:Text}" costs at most {budget:d} tokens')
def description_costs_at_most(context: Any, tool: str, budget: int) -> None:
    """Then the description of "create_note" costs at most 200 tokens"""
    _checks().assert_description_costs_at_most(_listings(context), tool, _budget(context, budget))


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
