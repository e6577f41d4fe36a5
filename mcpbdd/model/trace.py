"""The trace: every exchange a scenario made, in order, and the events the report listens to.

Recording is cheap on purpose (a reference to the Outcome, no serialisation): the
JSON a reviewer reads is rendered only when a report attachment asks for it. Each
recorded exchange is announced as an `ExchangeRecorded` event (the report attaches it to
the step that made the call).

Events say outright what happened, so the report need not read the World's insides at the
right moment: the trace emits `ExchangeRecorded` for every request and answer, the
input-rounds driver (`mcpbdd.scenario.conversation`) emits `RoundAnswered` when it sends a round's
answers. Listeners subscribe per event type, run synchronously in the step that caused the
event, in subscription order:

    world.bus.subscribe(ExchangeRecorded, lambda event: print(event.exchange.to_json()))

(The bus is an `EventBus`, `world.bus`; `Events` and `world.events` are their old names. "Events" otherwise means
what a server sends on its own: progress, log messages, announcements.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from mcpbdd.model.outcome import Outcome

if TYPE_CHECKING:
    from mcpbdd.model.cancellation import Cancellation

__all__ = ["EventBus", "Events", "Exchange", "ExchangeRecorded", "Trace"]

E = TypeVar("E")


class EventBus:
    """Listeners by event type. One per scenario (the World's), so nothing outlives the scenario."""

    def __init__(self) -> None:
        self._listeners: dict[type[Any], list[Callable[[Any], None]]] = {}

    def subscribe(self, kind: type[E], listener: Callable[[E], None]) -> None:
        """Call `listener` with every event of exactly type `kind` from now on."""
        self._listeners.setdefault(kind, []).append(listener)

    def emit(self, event: object) -> None:
        """Tell every listener of the event's type, in subscription order (an exception propagates to the step)."""
        for listener in self._listeners.get(type(event), ()):
            listener(event)


Events = EventBus
"""The old name of `EventBus`, kept for code that imports it."""


@dataclass(frozen=True)
class Exchange:
    """One request and what came back, made by `caller` through `harness`."""

    harness: str
    caller: str | None
    outcome: Outcome

    def to_json(self) -> dict[str, Any]:
        """The exchange as plain JSON: request, then result or error, then duration."""
        o = self.outcome
        call = o.call
        request: dict[str, Any] = {"method": call.method, "target": call.target}
        if call.arguments is not None:
            request["arguments"] = call.arguments
        body: dict[str, Any] = {
            "harness": self.harness,
            "caller": self.caller,
            "request": request,
            "channel": o.channel.value,
            "duration_ms": round(o.duration * 1000, 3),
        }
        if o.result is not None:
            body["result"] = _plain(o.result)
        if o.error is not None:
            body["error"] = {"code": o.error.code, "message": o.error.message, "data": _plain(o.error.data)}
        if o.questions:
            body["questions"] = {k: {"kind": q.kind, "request": _plain(q.request)} for k, q in o.questions.items()}
        if o.failure:
            body["failure"] = o.failure
        if o.note:
            body["note"] = o.note
        if o.progress:  # what the server sent while the call ran, in the step during which it arrived
            body["progress"] = [{"progress": p.progress, "total": p.total, "message": p.message} for p in o.progress]
        if o.log_messages:
            body["log_messages"] = [{"level": m.level, "logger": m.logger, "data": m.data} for m in o.log_messages]
        if o.cancellation is not None:  # how the client cancelled the call and what still came
            body["cancellation"] = _cancellation(o.cancellation)
        return body


def _cancellation(c: Cancellation) -> dict[str, Any]:
    """A cancelled call's record in the trace: when the client cancelled, how, and what came after."""
    body: dict[str, Any] = {"plan": str(c.plan), "sent": c.sent, "at_ms": round(c.at * 1000, 3), "reports": c.reports}
    if c.sent:
        body.update(how=c.how, seen=c.seen.value, grace_s=c.plan.grace)
    if c.late is not None:
        late_after = round((c.late_after or 0.0) * 1000, 3)
        body["late"] = {"channel": c.late.channel.value, "text": c.late.text, "after_ms": late_after}
    return body


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


@dataclass(frozen=True, slots=True)
class ExchangeRecorded:
    """Event: an exchange was just recorded (emitted by `Trace.record`)."""

    exchange: Exchange


@dataclass
class Trace:
    """The exchanges of one scenario, announced on `events` as they are recorded."""

    exchanges: list[Exchange] = field(default_factory=list)
    events: EventBus = field(default_factory=EventBus)

    def record(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)
        self.events.emit(ExchangeRecorded(exchange))

    def __len__(self) -> int:
        return len(self.exchanges)

    def render(self, exchanges: list[Exchange] | None = None) -> str:
        """Pretty JSON of the given exchanges (all by default), for a report attachment."""
        chosen = self.exchanges if exchanges is None else exchanges
        return json.dumps([e.to_json() for e in chosen], indent=2, ensure_ascii=False, default=str)
