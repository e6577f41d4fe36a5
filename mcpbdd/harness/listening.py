"""What a listening connection hears: every frame about listens, in the order it arrived, as the wire had it.

A harness opens a listen (`Harness.listen`) as an async context manager that the scenario's
owner task enters and, at the scenario's end (failed or not), exits. While it is open, the
connection's `Ear` keeps each notification a listen is about (acknowledgements, list changes,
resource updates) with how many calls the scenario had made when it arrived. The client harness
fills it below the SDK client (`mcpbdd._sdk.spy_on_notifications`), because the SDK drops a
frame tagged with another id, or of a kind the listen did not ask for, without a word; the
context harness from what its mock connection records. The checks (`mcpbdd.checks.announcements`)
read `Listening.snapshot()`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mcpbdd.model.announcements import STREAM_METHODS, Frame, Listen, Topic

__all__ = ["Ear", "Listening", "Tap", "wait_for"]


def _no_calls() -> int:
    return 0


class Ear:
    """The frames about listens one connection received, in wire order; waiters wake as each arrives."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.now: Callable[[], int] = _no_calls
        """How many calls the scenario has made (the World's count; a shared connection follows each scenario)."""
        self.heard: Callable[[Frame], None] | None = None
        """Told of each frame as it arrives (the World's journal of what was heard per step)."""
        self.ids: set[Any] = set()
        """The ids of every listen opened on this connection (a frame tagged with one of them is that listen's)."""
        self._waiters: list[asyncio.Future[None]] = []

    def hear(self, method: str, params: Mapping[str, Any] | None) -> None:
        """One notification as it arrived (called synchronously in receive order; never raises on content)."""
        if method not in STREAM_METHODS:
            return
        frame = Frame(method, dict(params or {}), self.now())
        self.frames.append(frame)
        if self.heard is not None:
            self.heard(frame)
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def waiter(self) -> asyncio.Future[None]:
        """A future set when the next frame arrives."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        return future


async def wait_for(ears: Iterable[Ear], done: Callable[[], bool], timeout: float) -> bool:
    """Wait (at most `timeout` seconds) until `done()` holds, re-asking as each frame arrives; whether it held."""
    ears = list(ears)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not done():
        left = deadline - loop.time()
        if left <= 0 or not ears:
            return False
        waiters = [ear.waiter() for ear in ears]
        try:
            await asyncio.wait(waiters, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
    return True


class Tap(list[tuple[str, dict[str, Any]]]):
    """A recorder's notification list that also tells an `Ear` (the context harness's listen stream)."""

    def __init__(self, ear: Ear) -> None:
        super().__init__()
        self.ear = ear

    def append(self, item: tuple[str, dict[str, Any]]) -> None:
        super().append(item)
        self.ear.hear(*item)


@dataclass
class Listening:
    """One open listen: what it asked, on which era, its id (2026-07-28) and the connection's ear."""

    topic: Topic
    modern: bool
    subscription_id: Any
    ear: Ear
    start: int
    """Where in the ear's frames this listen's begin (the frames before it opened are not its)."""
    caller: str = "the client"
    opened_after: int = 0
    declared: str | None = None
    """What the server declared against announcing the topic, when it promised nothing (2025-11-25 lists)."""

    def snapshot(self) -> Listen:
        """What the listen received so far, as the checks take it."""
        return Listen(
            topic=self.topic,
            modern=self.modern,
            subscription_id=self.subscription_id,
            frames=tuple(self.ear.frames[self.start :]),
            opened_after=self.opened_after,
            caller=self.caller,
            others=frozenset(self.ear.ids - {self.subscription_id}),
            declared=self.declared,
        )
