"""A scenario's events: what happened, told to whoever subscribed (the report, a project's own hooks).

The report used to read the World's insides at the right moment (which conversation is
open, how many rounds it has had) to guess what just happened. Events say it outright:
the trace emits `ExchangeRecorded` for every request and answer (`mcpbdd.trace`), the
input-rounds driver emits `RoundAnswered` when it sends a round's answers
(`mcpbdd.conversation`). Listeners subscribe per event type:

    world.events.subscribe(ExchangeRecorded, lambda event: print(event.exchange.to_json()))

Listeners run synchronously, in the step that caused the event, in subscription order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Events"]

E = TypeVar("E")


class Events:
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
