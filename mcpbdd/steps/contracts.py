"""Contracts: results against the advertised output schema, calls generated from the input schema, the tool surface."""

from __future__ import annotations

from typing import Any

from behave import then

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, location


@then('every result of "{tool:Text}" matches its output schema')
def every_result_matches_output_schema(context: Any, tool: str) -> None:
    """Then every result of "create_note" matches its output schema"""
    world(context).check_output_schema(tool)


@then('"{tool:Text}" survives {count:d} generated calls')
def survives_generated_calls(context: Any, tool: str, count: int) -> None:
    """Then "create_note" survives 100 generated calls  (no crash, hang, or leaked stack, path or secret)"""
    if count < 1:
        raise SpecError(f"{location(context)}: the number of generated calls must be at least 1, got {count}")
    world(context).generated_calls(tool, count).assert_ok()


@then('the server\'s tools match the snapshot "{path:Text}"')
def tools_match_the_snapshot(context: Any, path: str) -> None:
    """Then the server's tools match the snapshot "features/snapshots/notes-tools.json"  (breaking changes named)"""
    from mcpbdd.reporting import attachments as report

    verdict = world(context).check_tool_snapshot(path)
    if verdict.action != "matched":  # recorded, not compared: the report says so, so the green is not mistaken
        changes = "".join(f"\n  {difference}" for difference in verdict.differences)
        report.attach_text(f"the snapshot {verdict.path} was {verdict.action}, not compared{changes}", "tool snapshot")


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
