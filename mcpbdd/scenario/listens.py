"""The scenario's listens: opened on the harness, owned by the scenario's owner task, checked from plain data.

`When the client listens for changes to the tools list` opens a listen (`Listens.listen_for`); the
owner task enters it and exits it when the scenario ends, whether it passed or failed, so no
stream outlives its scenario. What each listen received, and after how many calls, is
`Listens.received()`; the checks wait for an announcement at most the call timeout (a frame can
arrive just after the call's answer, over a process's pipe or an HTTP stream) and say what arrived
instead.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from mcpbdd.checks import announcements
from mcpbdd.harness.listening import Listening, wait_for
from mcpbdd.model.announcements import Frame, Listen, Topic

if TYPE_CHECKING:
    from mcpbdd.kit.principals import Principal
    from mcpbdd.scenario.world import World

__all__ = ["Listens"]


class Listens:
    """Every listen one scenario opened, in order (the World's `listens`)."""

    def __init__(self, world: World) -> None:
        self._world = world
        self.open: list[Listening] = []
        self._callers: dict[str, Principal | None] = {}
        """Who opened each listen, by the name a listen gives them (a settle goes over their connection)."""

    def listen_for(self, topic: Topic) -> Listening:
        """Open a listen for `topic` as the current caller; it stays open until the scenario ends."""
        world = self._world
        harness = world.harness

        def calls() -> int:
            return len(world.trace)

        async def opened() -> Listening:  # one drive of the loop: ready the caller's connection, then enter
            return await world.owner.enter_async(await harness.listen(world.caller, topic, calls))

        listening = world.run(opened())
        if listening.ear.heard != self._hear:  # the connection's first listen here: its acknowledgement came unheard
            for frame in listening.ear.frames[listening.start :]:
                self._hear(frame)
        listening.ear.heard = self._hear  # from now on each frame as it arrives: the reports attach it to its step
        self.open.append(listening)
        self._callers[listening.caller] = world.caller
        return listening

    def _hear(self, frame: Frame) -> None:
        self._world.hear(*frame.journal_entry())

    def received(self) -> list[Listen]:
        """What each listen received so far (its connection's frames since it opened), as the checks take it."""
        return [listening.snapshot() for listening in self.open]

    def check_announced(self, topic: Topic) -> None:
        """Some listen for `topic` received the announcement that it changed, waiting at most the call timeout."""
        phrase = f"the server announces that {topic} changed"
        chosen = announcements.needs_listen(self.received(), topic, phrase)  # none open: broken, no wait

        def told() -> bool:
            for listen in self.received():
                if listen.topic.covers(topic) and any(f.topic and topic.covers(f.topic) for f in listen.own):
                    return True
            return False

        started = time.perf_counter()
        if any(listen.declared is None for listen in chosen):
            timeout = self._world.settings.timeout
            self._world.run(wait_for({listening.ear for listening in self.open}, told, timeout))
        elif not told():  # the server declared it would not announce this: one round trip, not the whole timeout
            for principal in self._callers.values():
                self._world.run(self._world.harness.settle(principal))
        waited = round(time.perf_counter() - started, 2) if chosen else 0.0
        announcements.announced(self.received(), topic, waited=waited)

    def check_nothing(self) -> None:
        """No listen received an announcement of what it asked for, after a round trip to the server."""
        world = self._world
        received = self.received()
        announcements.needs_listen(received, None, "the server announces nothing")
        if any(len(world.trace) > listen.opened_after for listen in received):  # else: vacuous, said below
            for principal in self._callers.values():
                world.run(world.harness.settle(principal))
        announcements.announced_nothing(self.received(), len(world.trace))
