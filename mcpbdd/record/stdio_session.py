"""One stdio server process behind the loopback HTTP bridge, and the requests in flight to it.

The process runs through the stdio proxy's pump (`mcpbdd.record.stdio_proxy.pump`): what the bridge
receives over HTTP is queued as lines on its stdin, and each line it writes on stdout is routed back.
Several HTTP clients may share one process (the sessionless 2026-07-28 requests do), and each numbers its
requests from 1, so every request gets an id of the bridge's own on the way in and its own id back on
the way out; nothing else of a message is changed, so the server's answers (its errors above all) reach
the client as the server wrote them. A message the server sends while requests are in flight goes to the
request it names: a `subscriptions/listen` stream's frames by their subscription id (the listen request's
id, the bridge's on this side: given back as the client's), a progress notification by its progress
token; one that names none (a log message, a 2025-11-25 server's question mid-call) goes to the oldest
request in flight that is not a listen stream. With none in flight it has nowhere to go over this
bridge (it serves no standalone GET stream) and is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY

from mcpbdd.record.stdio_proxy import pump

__all__ = ["Exchange", "Lost", "StdioSession"]

LISTEN = "subscriptions/listen"
"""A request whose answer is a stream of the server's events, each tagged with its id (SEP-2575)."""
CLOSE_GRACE = 10.0
"""Seconds a closed session's process has to end (the pump gives it its own grace, then kills it)."""


@dataclass(frozen=True)
class Lost:
    """Why a request got no answer: the server process ended first."""

    why: str


@dataclass
class Exchange:
    """One request in flight: the messages routed to it, its answer last (or why there is none)."""

    client_id: Any
    method: str = ""
    progress_token: Any = None
    queue: asyncio.Queue[dict[str, Any] | Lost] = field(default_factory=asyncio.Queue)
    answered: bool = False

    async def next(self) -> dict[str, Any] | Lost:
        """The next message for this request: a notification or request of the server's, then its answer."""
        return await self.queue.get()

    def is_answer(self, message: dict[str, Any] | Lost) -> bool:
        return isinstance(message, Lost) or ("method" not in message and message.get("id") == self.client_id)


class _Inbox:
    """The pump's client side: lines put here reach the server's stdin; `close()` closes it."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()

    def put(self, message: dict[str, Any]) -> None:
        self._queue.put_nowait(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def close(self) -> None:
        self._queue.put_nowait(b"")

    async def readline(self) -> bytes:
        return await self._queue.get()


class StdioSession:
    """A stdio server process the bridge relays to: started with `start()`, ended with `close()`."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.command = list(command)
        self.env = env
        self._inbox = _Inbox()
        self._pending: dict[int, Exchange] = {}
        self._next_id = 0
        self._task: asyncio.Task[int] | None = None
        self.ended: str | None = None
        """Why the process is gone (its exit code and the end of its stderr), once it is."""

    def start(self) -> None:
        self._task = asyncio.create_task(
            pump(self.command, self._inbox, self._from_server, env=self.env, on_exit=self._exited)
        )
        self._task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[int]) -> None:
        """A process that could not start (no such program) never reaches `_exited`: its requests fail here."""
        if self.ended is None and not task.cancelled() and task.exception() is not None:
            self._lose(f"the stdio server could not start: {task.exception()}")

    def request(self, message: dict[str, Any]) -> Exchange:
        """Send a request under an id of the bridge's own; the exchange yields what comes back for it."""
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        exchange = Exchange(message.get("id"), str(message.get("method", "")), token)
        if self.ended is not None:
            exchange.queue.put_nowait(Lost(self.ended))
            return exchange
        self._next_id += 1
        self._pending[self._next_id] = exchange
        self._inbox.put({**message, "id": self._next_id})
        return exchange

    def notify(self, message: dict[str, Any]) -> None:
        """Send a notification, or an answer to one of the server's own requests, as it came."""
        if message.get("method") == "notifications/cancelled":
            message = self._cancelled(message)
        if self.ended is None:
            self._inbox.put(message)

    def _cancelled(self, message: dict[str, Any]) -> dict[str, Any]:
        """A cancellation names the request by the client's id: the server knows it by the bridge's."""
        params = message.get("params")
        if not isinstance(params, dict):
            return message
        for ours, exchange in self._pending.items():
            if exchange.client_id == params.get("requestId"):
                return {**message, "params": {**params, "requestId": ours}}
        return message

    def _from_server(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return  # not JSON-RPC (a server printing to stdout): no client could read it either
        if not isinstance(message, dict):
            return
        if "method" not in message and isinstance(message.get("id"), int) and message["id"] in self._pending:
            exchange = self._pending.pop(message["id"])
            exchange.answered = True
            exchange.queue.put_nowait({**message, "id": exchange.client_id})
            return
        routed = self._routed(message)  # the server's own notification or request, while a request is in flight
        if routed is not None:
            routed[0].queue.put_nowait(routed[1])

    def _routed(self, message: dict[str, Any]) -> tuple[Exchange, dict[str, Any]] | None:
        """The request in flight a message of the server's belongs to, and the message as its client knows it."""
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        raw_meta = params.get("_meta")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        tag = meta.get(SUBSCRIPTION_ID_META_KEY)
        if isinstance(tag, int) and tag in self._pending:
            listen = self._pending[tag]
            params = {**params, "_meta": {**meta, SUBSCRIPTION_ID_META_KEY: listen.client_id}}
            return listen, {**message, "params": params}
        token = params.get("progressToken")
        for exchange in self._pending.values():
            if token is not None and exchange.progress_token == token:
                return exchange, message
        others = [exchange for exchange in self._pending.values() if exchange.method != LISTEN]
        fallback = others or list(self._pending.values())
        return (fallback[0], message) if fallback else None

    def _exited(self, code: int | None, stderr: str) -> None:
        tail = "\n".join(stderr.splitlines()[-20:])
        self._lose(f"the stdio server exited with code {code}" + (f"; the end of its stderr:\n{tail}" if tail else ""))

    def _lose(self, why: str) -> None:
        self.ended = why
        for exchange in self._pending.values():
            exchange.queue.put_nowait(Lost(self.ended))
        self._pending.clear()

    async def close(self) -> None:
        """Close the server's stdin and wait for it to end (terminated, then killed, if it does not)."""
        self._inbox.close()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._task, CLOSE_GRACE)
