"""Cancellation: a call the client gives up part-way, and whether the server stopped (the next call's cancel).

A step's call runs to its end, so the cancel is arranged in a Given before the call; the
harness carries it out while the call runs and watches, for a short grace
(`cancel_grace`), what the server still sends. With the storage and upstream steps a
scenario then shows that a cancelled call left nothing half-done.
"""

from __future__ import annotations

from typing import Any

from behave import given, then

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import spec_errors


@given("the client cancels its next call after {reports:d} progress reports")
def cancel_after_reports(context: Any, reports: int) -> None:
    """Given the client cancels its next call after 2 progress reports"""
    with spec_errors(context):
        world(context).cancel_next_call(after_reports=reports)


@given("the client cancels its next call after {reports:d} progress report")
def cancel_after_one_report(context: Any, reports: int) -> None:
    """Given the client cancels its next call after 1 progress report"""
    with spec_errors(context):
        world(context).cancel_next_call(after_reports=reports)


@given("the client cancels its next call after {ms:d} milliseconds")
def cancel_after_milliseconds(context: Any, ms: int) -> None:
    """Given the client cancels its next call after 150 milliseconds"""
    with spec_errors(context):
        world(context).cancel_next_call(after_ms=ms)


@then("the call was cancelled")
def call_was_cancelled(context: Any) -> None:
    """Then the call was cancelled  (the server stopped: no answer came after the client's cancel)"""
    from mcpbdd.checks import cancellation

    cancellation.was_cancelled(world(context).last)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
