"""Assertions about what a server sends on its own during a call: its progress reports.

The steps and pytest alike call these with an `Outcome` (its `progress` holds the reports in
the order they arrived). Each failure names the call, who made it and every report the client
received, so a reader sees what the server did without re-running it. A check that could pass
while checking nothing ("never went backwards" with fewer than two reports, an empty message)
raises `VacuousCheck`: a broken specification, not a pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import TOOLS_CALL, Outcome, Progress


def _reports(progress: Sequence[Progress]) -> str:
    """`2 reports: 1 of 3 ('Imported ...'), 2 of 3 (...)`, or `no progress report`."""
    if not progress:
        return "no progress report"
    listed = ", ".join(str(report) for report in progress)
    return f"{len(progress)} progress report{'s' if len(progress) != 1 else ''}: {listed}"


def _about(outcome: Outcome) -> str:
    """What the call was and what it reported, for every message here."""
    return f"the call ({outcome.request_line}) sent {_reports(outcome.progress)}"


def _tool_call(outcome: Outcome, phrase: str) -> None:
    """Only a tool call asks for progress (the SDK's reads and prompts take no progress callback)."""
    if outcome.method != TOOLS_CALL:
        raise VacuousCheck(
            f"'{phrase}' is about a tool call's progress, but the last call was {outcome.request_line}, which a "
            "client makes without asking for progress, so no server can report any: check the progress of a "
            "tools/call"
        )


def reported_progress(outcome: Outcome, times: int) -> None:
    """The call sent exactly `times` progress reports (0: it reported none)."""
    _tool_call(outcome, f"reported progress {times} times")
    if len(outcome.progress) != times:
        raise AssertionError(f"Expected {times} progress report(s), but {_about(outcome)}")


def progress_reached(outcome: Outcome, progress: float, total: float) -> None:
    """Some report said `progress` of `total`: how far the user was told the work got."""
    _tool_call(outcome, f"the progress reached {progress:g} of {total:g}")
    if total <= 0 or not 0 <= progress <= total:
        raise VacuousCheck(
            f"'{progress:g} of {total:g}' is no point a progress can reach: write a progress between 0 and a "
            "positive total"
        )
    if not any(report.progress == progress and report.total == total for report in outcome.progress):
        raise AssertionError(f"Expected a progress report of {progress:g} of {total:g}, but {_about(outcome)}")


def progress_never_went_backwards(outcome: Outcome) -> None:
    """Every report is at least as far as the one before (the protocol says progress only increases)."""
    _tool_call(outcome, "the progress never went backwards")
    if len(outcome.progress) < 2:
        raise VacuousCheck(
            f"'Never went backwards' compares each progress report with the one before, but {_about(outcome)}, "
            "so there is nothing to compare and this checks nothing: make a call that reports progress at least "
            "twice, or check the count with 'Then the call reported progress N times'"
        )
    for before, after in zip(outcome.progress, outcome.progress[1:], strict=False):
        if after.progress < before.progress:
            raise AssertionError(
                f"Expected the progress never to go backwards, but it went back from {before} to {after}: "
                f"{_about(outcome)}"
            )


def progress_message_says(outcome: Outcome, text: str) -> None:
    """Some report's message contains `text`: what the user reads while they wait."""
    _tool_call(outcome, f'a progress message says "{text}"')
    if not text.strip():
        raise VacuousCheck(
            "The text the progress message must say is empty, and every text contains the empty text, so this "
            "checks nothing: write the words a progress message must say"
        )
    if not any(report.message is not None and text in report.message for report in outcome.progress):
        raise AssertionError(f"Expected a progress message saying {text!r}, but {_about(outcome)}")


__all__ = ["progress_message_says", "progress_never_went_backwards", "progress_reached", "reported_progress"]
