"""The trace: every exchange a scenario made, in order, for assertions and the report.

Recording is cheap on purpose (a reference to the Outcome, no serialisation): the
JSON a reviewer reads is rendered only when a report attachment asks for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from mcpbdd.outcome import Outcome


@dataclass(frozen=True)
class Exchange:
    """One request and what came back, made by `caller` through `harness`."""

    harness: str
    caller: str | None
    outcome: Outcome

    def to_json(self) -> dict[str, Any]:
        """The exchange as plain JSON: request, then result or error, then duration."""
        o = self.outcome
        request: dict[str, Any] = {"method": o.method, "target": o.target}
        if o.arguments is not None:
            request["arguments"] = o.arguments
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
        return body


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


@dataclass
class Trace:
    """The exchanges of one scenario."""

    exchanges: list[Exchange] = field(default_factory=list)

    def record(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)

    def __len__(self) -> int:
        return len(self.exchanges)

    def render(self, exchanges: list[Exchange] | None = None) -> str:
        """Pretty JSON of the given exchanges (all by default), for a report attachment."""
        chosen = self.exchanges if exchanges is None else exchanges
        return json.dumps([e.to_json() for e in chosen], indent=2, ensure_ascii=False, default=str)
