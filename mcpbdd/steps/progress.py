"""Progress: what a long tool call told its user while it ran (the last call's progress reports).

A tool call always asks for progress (the client sends the progress token both eras need),
so a server that reports none has sent none. Checks that would compare nothing ("never went
backwards" with fewer than two reports, an empty message) fail as a broken specification.
"""

from __future__ import annotations

from typing import Any

from behave import then

from mcpbdd.steps._world import world


@then("the call reported progress {times:d} times")
def call_reported_progress(context: Any, times: int) -> None:
    """Then the call reported progress 3 times"""
    from mcpbdd.checks import progress as check

    check.reported_progress(world(context).last, times)


@then("the call reported progress {times:d} time")
def call_reported_progress_singular(context: Any, times: int) -> None:
    """Then the call reported progress 1 time"""
    from mcpbdd.checks import progress as check

    check.reported_progress(world(context).last, times)


@then("the progress reached {progress:g} of {total:g}")
def progress_reached(context: Any, progress: float, total: float) -> None:
    """Then the progress reached 3 of 3"""
    from mcpbdd.checks import progress as check

    check.progress_reached(world(context).last, progress, total)


@then("the progress never went backwards")
def progress_never_went_backwards(context: Any) -> None:
    """Then the progress never went backwards  (needs at least two reports)"""
    from mcpbdd.checks import progress as check

    check.progress_never_went_backwards(world(context).last)


@then('a progress message says "{text:Text}"')
def progress_message_says(context: Any, text: str) -> None:
    """Then a progress message says "Imported 'Milk'\""""
    from mcpbdd.checks import progress as check

    check.progress_message_says(world(context).last, text)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
