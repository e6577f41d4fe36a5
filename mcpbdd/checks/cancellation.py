"""The check of a call the client cancelled part-way: the server stopped (`mcpbdd/steps/cancellation.py`).

What the client saw after its cancel is data on the call's Outcome (`mcpbdd.model.cancellation.Cancellation`,
recorded by the harness). A cancel that never went out (the call finished first, or made fewer progress reports
than the plan counts) makes the check a broken specification, not a pass: a cancel that comes too late means
nothing.
"""

from __future__ import annotations

from mcpbdd.model.cancellation import Cancellation
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import Outcome

__all__ = ["was_cancelled"]


def _arranged(outcome: Outcome) -> Cancellation:
    if outcome.cancellation is None:
        raise VacuousCheck(
            f"The last call ({outcome.request_line}) was not cancelled by the client, so whether the server stopped "
            "says nothing: put 'Given the client cancels its next call after 1 progress report' (or 'after 100 "
            "milliseconds') before the call"
        )
    cancellation: Cancellation = outcome.cancellation
    return cancellation


def was_cancelled(outcome: Outcome) -> None:
    """The client cancelled the call while it ran, and the server stopped: no answer came (or only its end).

    A broken specification when the cancel never went out (the call finished first, or made fewer
    progress reports than the plan counts); a failure naming what came when the server went on.
    """
    cancellation = _arranged(outcome)
    plan = cancellation.plan
    if not cancellation.sent:
        answered = outcome.describe()
        if plan.after_reports is not None:
            raise VacuousCheck(
                f"The client was to cancel the call {plan}, but the call ({outcome.request_line}) made only "
                f"{cancellation.reports} and finished ({answered}), so there was nothing to cancel and this checks "
                f"nothing: cancel after at most {max(cancellation.reports, 1)}, or make a call that reports more"
            )
        raise VacuousCheck(
            f"The client was to cancel the call {plan}, but the call ({outcome.request_line}) had finished "
            f"{cancellation.at * 1000:.0f} ms in ({answered}): a cancel that comes too late means nothing, so "
            "the specification is broken, not passed: cancel sooner, or make the call take longer (the example "
            "import waits between notes when asked: its `pace_ms`)"
        )
    if not cancellation.honoured:
        raise AssertionError(
            f"Expected the server to stop the call the client cancelled {plan} ({outcome.request_line}, "
            f"{cancellation.at * 1000:.0f} ms in, {cancellation.reports} progress report(s) by then), but "
            f"{cancellation.after()}"
        )
