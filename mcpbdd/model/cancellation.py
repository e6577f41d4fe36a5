"""Cancellation: a call the client gives up part-way, and what the client saw after it gave up.

A step's call runs to its end, so a cancel is arranged before the call (`CancelPlan`: after
so many progress reports, or after so many milliseconds) and the harness carries it out
while the call runs. The protocol says a server that receives `notifications/cancelled`
stops the work and sends no answer; the client, for its part, ignores whatever still comes.
So the harness watches for a short grace after the cancel and records in the call's
Outcome (`Outcome.cancellation`, a `Cancellation`) what arrived: nothing (the spec's
expectation), the SDK's "Request cancelled" error (how a 2025-11-25 HTTP server ends the
request's stream) or a late answer; in-process the harnesses cancel a handler as the wire does, so they see
what a client on the wire sees.

A cancelled call got no answer the client uses: its Outcome is a `transport-failure` whose
failure says it was cancelled, so every existing check keeps its meaning ("the call
succeeds" fails, saying the client cancelled it). A cancel the call never waited for (it
finished first, or made fewer progress reports than the plan counts) leaves the Outcome as
the server answered, with `Cancellation.sent` False: the check (`mcpbdd.checks.cancellation.was_cancelled`) then
says the specification is broken, not passed, because a cancel that comes too late means nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

from mcpbdd.model.outcome import Call, Channel, Outcome

__all__ = [
    "DEFAULT_GRACE",
    "NOTIFIED",
    "REQUEST_CANCELLED",
    "TASK_CANCELLED",
    "CancelPlan",
    "Cancellation",
    "Seen",
    "cancelled",
    "not_sent",
]

DEFAULT_GRACE: Final = 0.3
"""Seconds the client watches after its cancel for what the server still sends (`CancelPlan.grace`)."""

NOTIFIED: Final = "notifications/cancelled"
"""How a cancel goes over the wire: the notification with the request's id."""
TASK_CANCELLED: Final = "its handler's request scope cancelled, as notifications/cancelled does"
"""How a cancel reaches a handler running in the caller's task (the context harness, the in-process modern client):
the scope the handler runs in is cancelled, as the SDK's dispatcher cancels it on the wire's notification."""

REQUEST_CANCELLED: Final = -32800
"""The error a 2025-11-25 Streamable HTTP server (the SDK's) answers a cancelled request with, to end its stream."""


@dataclass(frozen=True, slots=True)
class CancelPlan:
    """When the client cancels its next call: after `after_reports` progress reports or `after_ms` milliseconds."""

    after_reports: int | None = None
    after_ms: float | None = None
    grace: float = DEFAULT_GRACE
    """Seconds to watch after the cancel for an answer the server should not send."""

    def __post_init__(self) -> None:
        if (self.after_reports is None) == (self.after_ms is None):
            raise ValueError("cancel after a number of progress reports or after a number of milliseconds (one)")
        if self.after_reports is not None and self.after_reports < 1:
            raise ValueError(
                f"a call cannot be cancelled after {self.after_reports} progress reports: count from 1 (to cancel "
                "before any report, cancel after a number of milliseconds)"
            )
        if self.after_ms is not None and self.after_ms <= 0:
            raise ValueError(f"a call cannot be cancelled after {self.after_ms:g} milliseconds: wait at least 1")
        if self.grace < 0:
            raise ValueError(f"the grace after a cancel is a number of seconds from 0 up, not {self.grace:g}")

    @classmethod
    def after_progress(cls, reports: int, grace: float = DEFAULT_GRACE) -> CancelPlan:
        return cls(after_reports=reports, grace=grace)

    @classmethod
    def after_milliseconds(cls, ms: float, grace: float = DEFAULT_GRACE) -> CancelPlan:
        return cls(after_ms=ms, grace=grace)

    def __str__(self) -> str:
        """`after 2 progress reports` / `after 150 milliseconds`: how messages say when the client cancelled."""
        if self.after_reports is not None:
            return f"after {self.after_reports} progress report{'s' if self.after_reports != 1 else ''}"
        return f"after {self.after_ms:g} milliseconds"


class Seen(StrEnum):
    """What the client saw in the grace after its cancel."""

    NOTHING = "nothing"
    """No answer (the protocol's expectation), in-process as over a wire."""
    CONFIRMED = "confirmed"
    """The SDK's `Request cancelled` error (-32800): a 2025-11-25 HTTP server ending the cancelled request's stream."""
    LATE_ANSWER = "late answer"
    """An answer (a result, a tool error, another error) the server sent although the call was cancelled."""


@dataclass(frozen=True)
class Cancellation:
    """How the client cancelled a call and what followed (on `Outcome.cancellation`)."""

    plan: CancelPlan
    sent: bool
    """Whether the cancel went out while the call ran (False: the call finished first)."""
    reports: int
    """The progress reports that had arrived when the client cancelled (or by the call's end, when it did not)."""
    at: float
    """Seconds from the call's start to the cancel (or to the call's end, when no cancel went out)."""
    seen: Seen = Seen.NOTHING
    late: Outcome | None = None
    """The answer that arrived after the cancel (LATE_ANSWER, CONFIRMED), classified like any answer."""
    late_after: float | None = None
    """Seconds from the cancel to that answer."""
    how: str = NOTIFIED
    """How the cancel was made: `notifications/cancelled` with the request's id, or the handler's task cancelled
    (in-process, where the SDK's client runs the handler in the caller's task and cancels by cancelling it)."""

    @property
    def honoured(self) -> bool:
        """The server stopped: nothing came back, or only the SDK's "Request cancelled"."""
        return self.sent and self.seen in (Seen.NOTHING, Seen.CONFIRMED)

    def after(self) -> str:
        """What followed the cancel, in words for a failure or a report."""
        grace = f"{self.plan.grace:g} s"
        if self.seen is Seen.NOTHING:
            return f"no answer came in the {grace} the client watched after it"
        late = self.late.describe() if self.late is not None else "an answer"
        when = f"{self.late_after:.2f} s after the cancel" if self.late_after is not None else "after the cancel"
        if self.seen is Seen.CONFIRMED:
            return f"the server ended the request {when} with 'Request cancelled' ({REQUEST_CANCELLED})"
        return f"the server ignored the cancellation: {when} it answered: {late}"


def cancelled(call: Call, cancellation: Cancellation, duration: float) -> Outcome:
    """The Outcome of a call the client cancelled: no answer it uses (`transport-failure`), saying so."""
    failure = (
        f"the client cancelled the call {cancellation.plan} ({cancellation.at * 1000:.0f} ms in, {cancellation.how}); "
        f"{cancellation.after()}"
    )
    return Outcome(Channel.TRANSPORT_FAILURE, call, failure=failure, duration=duration, cancellation=cancellation)


def not_sent(outcome: Outcome, plan: CancelPlan, reports: int, duration: float) -> Outcome:
    """The Outcome of a call that finished before its planned cancel: as the server answered, noting the plan."""
    return replace(outcome, cancellation=Cancellation(plan, sent=False, reports=reports, at=duration))
