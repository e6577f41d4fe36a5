"""The scenario's journal: what the server sent on its own, in the order it arrived, grouped by the step it arrived in.

A server sends things besides its answers: progress reports and log messages during a call, and
(through an open listen) announcements that a list or a resource changed. The reports show each
where a reader looks for it, on the step during which it arrived. The journal is that record:
whatever hears something from the server calls `World.hear(kind, payload)` (the World's own
calls feed the progress reports and log messages of each Outcome as they are recorded), and the
behave hooks `take` each step's entries when the step ends, for the formatters to attach
(`mcpbdd.reporting.attachments.attach_heard`). What arrives outside any step (before the first,
during cleanup) is taken at the scenario's end and attached to the scenario.

The API is small on purpose, so that every source of events can feed it:

- `hear(kind, payload)`: one thing heard now. `kind` is a short phrase a reader understands
  (`progress`, `log message`, `tools list changed`, `resource updated`); `payload` is plain JSON
  (what it said: its fields in the protocol's spelling, and where known the `call` it belongs to).
- `take()`: every entry heard since the last take, oldest first (the hooks call it at a step's end).
- `entries`: everything heard in the scenario (taken or not).

Redaction is the writers' (`mcpbdd.model.redaction`): the journal keeps what arrived, and every
attachment made of it is redacted like every response.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from mcpbdd.model.outcome import Outcome

__all__ = ["LOG_MESSAGE", "PROGRESS", "Heard", "Journal"]

PROGRESS: Final = "progress"
LOG_MESSAGE: Final = "log message"


@dataclass(frozen=True, slots=True)
class Heard:
    """One thing the server sent on its own: its kind, what it said (plain JSON) and when it arrived (epoch seconds)."""

    kind: str
    payload: Mapping[str, Any]
    at: float

    def to_json(self) -> dict[str, Any]:
        """How an attachment shows it: the kind first, then what it said."""
        return {"kind": self.kind, **self.payload}


class Journal:
    """What a scenario heard from its server, in order; `take` hands over what arrived since it was last called."""

    def __init__(self) -> None:
        self._entries: list[Heard] = []
        self._taken = 0

    def hear(self, kind: str, payload: Mapping[str, Any]) -> Heard:
        """Record one thing heard now (`kind`: a short phrase; `payload`: plain JSON)."""
        if not kind.strip():
            raise ValueError("a journal entry needs a kind (a short phrase a reader understands, e.g. 'progress')")
        heard = Heard(kind, dict(payload), time.time())
        self._entries.append(heard)
        return heard

    def hear_outcome(self, outcome: Outcome) -> None:
        """The progress reports and log messages a call's Outcome gathered, each naming the call (and its caller)."""
        if not (outcome.progress or outcome.log_messages):
            return
        call = {"call": str(outcome.call), **({"caller": outcome.caller} if outcome.caller else {})}
        for report in outcome.progress:
            self.hear(PROGRESS, {**call, "progress": report.progress, "total": report.total, "message": report.message})
        for message in outcome.log_messages:
            self.hear(LOG_MESSAGE, {**call, "level": message.level, "data": message.data, "logger": message.logger})

    def take(self) -> list[Heard]:
        """Every entry heard since the last take, oldest first (the step that just ended heard them)."""
        new, self._taken = self._entries[self._taken :], len(self._entries)
        return new

    @property
    def entries(self) -> tuple[Heard, ...]:
        """Everything heard in the scenario so far, taken or not."""
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
