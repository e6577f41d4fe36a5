"""Conformance: the bundled pack's checks, from any feature (`mcpbdd.conformance` does the work).

A check that finds nothing to exercise on this server (no resources, no tool asking for input,
a 2026-07-28 rule on a 2025-11-25 session) skips the scenario with its reason: never a green
that checked nothing.
"""

from __future__ import annotations

from typing import Any

from behave import then

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, location


@then('the server passes the conformance check "{name:Text}"')
def passes_the_conformance_check(context: Any, name: str) -> None:
    """Then the server passes the conformance check "unknown-tool"  (one check of the pack, by its id)"""
    from mcpbdd import conformance

    try:
        conformance.check_named(name)
    except ValueError as exc:
        raise SpecError(f"{location(context)}: {exc}") from None
    try:
        conformance.check_in_world(world(context), name)
    except conformance.NotApplicable as reason:
        context.scenario.skip(f"not applicable: {reason}")


@then("the server passes the conformance checks")
def passes_the_conformance_checks(context: Any) -> None:
    """Then the server passes the conformance checks  (every check of the pack; those that do not apply are named)"""
    from mcpbdd import conformance
    from mcpbdd.reporting import attachments as report

    try:
        skipped = conformance.check_all_in_world(world(context))
    except conformance.NotApplicable as reason:  # the context harness: no wire to check
        context.scenario.skip(f"not applicable: {reason}")
        return
    if skipped:
        report.attach_text("not applicable to this server:\n" + "\n".join(skipped), "conformance checks skipped")


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
