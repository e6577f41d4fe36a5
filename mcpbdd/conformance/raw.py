"""A raw JSON-RPC line to the server: the messages a check writes itself, and every message that came back.

The SDK's client never sends what the message checks need (an id of its choosing, an unsupported protocol
version, a notification nobody knows) and hides what they read (which id a response carried, a response that
answers nothing). So these checks open their own connection, the same way the scenario reaches the server
(`Probe.harness.connector`: the server's own stream loop in-process, a fresh process over stdio, a fresh
session at the URL over HTTP, with the probe's caller), and exchange `JSONRPCMessage`s on it, decoded by the
SDK's transport exactly as any client decodes them.

Every read is bounded: an exchange waits at most the harness's call timeout for its answer (the first, its start
timeout: over stdio it waits for a process just started, as a session's first request does), and reads at most
`MAX_MESSAGES` messages before it (a server that floods notifications instead of answering fails, it does not
hold the check). A message the transport cannot decode is one of the things a check reports.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server import Server
from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

from mcpbdd.conformance.probe import Probe
from mcpbdd.conformance.registry import ConformanceFailure
from mcpbdd.kit.principals import acting_as

__all__ = ["CLIENT_INFO", "MAX_MESSAGES", "SETTLE", "Answer", "RawLine", "modern_meta", "raw_line"]

MAX_MESSAGES = 1000
"""Messages read while waiting for one answer before the server is judged to flood instead of answering."""

SETTLE = 1.0
"""Seconds `RawLine.settle` keeps reading after the last answer (at most the call timeout): a second answer to
the last request, or a late answer to a notification, arrives after everything the check waited for."""

CLIENT_INFO = {"name": "mcpbdd-conformance", "version": "1"}


def modern_meta(version: str) -> dict[str, Any]:
    """The `_meta` every 2026-07-28 request carries (no handshake: the version and the client ride each request)."""
    return {
        PROTOCOL_VERSION_META_KEY: version,
        CLIENT_INFO_META_KEY: CLIENT_INFO,
        CLIENT_CAPABILITIES_META_KEY: {},
    }


@dataclass
class Answer:
    """What came back for one request: its response (or error), and what arrived before it."""

    request: str
    """The request as a failure names it: `ping (id 3)`."""
    response: JSONRPCResponse | JSONRPCError
    before: list[Any] = field(default_factory=list)
    """Notifications and server requests that arrived first (never responses: a stray one fails the exchange)."""

    @property
    def result(self) -> dict[str, Any] | None:
        return self.response.result if isinstance(self.response, JSONRPCResponse) else None

    @property
    def error(self) -> JSONRPCError | None:
        return self.response if isinstance(self.response, JSONRPCError) else None


class RawLine:
    """One connection to the server on which a check writes JSON-RPC messages of its own."""

    def __init__(self, read: Any, write: Any, timeout: float, http: bool, start_timeout: float | None = None) -> None:
        self._read = read
        self._write = write
        self.timeout = timeout
        self.start_timeout = timeout if start_timeout is None else start_timeout
        """The first request's bound: over stdio it waits for a process just started, as a session's first does."""
        self._http = http
        self.sent: list[str] = []
        """Every request sent so far, as failures name them."""
        self._answered: set[Any] = set()

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (no id: nothing may answer it)."""
        # `params` left unset when there are none: `"params": null` is no valid JSON-RPC, and a strict server drops it.
        message = JSONRPCNotification(jsonrpc="2.0", method=method, **_params(params))
        await self._write.send(SessionMessage(message, metadata=self._metadata(method, params)))
        self.sent.append(f"the notification {method}")

    async def request(self, id: str | int, method: str, params: dict[str, Any] | None = None) -> Answer:
        """Send a request and read up to its answer; a `ConformanceFailure` for any response that answers
        something else, a message the transport could not decode, a flood, or no answer in time."""
        what = f"{method} (id {id!r})"
        message = JSONRPCRequest(jsonrpc="2.0", id=id, method=method, **_params(params))
        await self._write.send(SessionMessage(message, metadata=self._metadata(method, params)))
        self.sent.append(what)
        before: list[Any] = []
        timeout = self.start_timeout if len(self.sent) == 1 else self.timeout
        try:
            with anyio.fail_after(timeout):
                while len(before) < MAX_MESSAGES:
                    received = await self._read.receive()
                    if isinstance(received, Exception):
                        raise ConformanceFailure(
                            f"waiting for the answer to {what}: the transport could not decode a message of the "
                            f"server: {str(received)[:300]}"
                        )
                    incoming = received.message
                    if not isinstance(incoming, JSONRPCResponse | JSONRPCError):
                        before.append(incoming)
                        continue
                    if incoming.id == id and id not in self._answered:
                        self._answered.add(id)
                        return Answer(what, incoming, before)
                    raise ConformanceFailure(self._stray(f"waiting for the answer to {what}", incoming))
        except TimeoutError:
            raise ConformanceFailure(
                f"no answer to {what} within {timeout:g} s ({len(before)} other messages came meanwhile)"
            ) from None
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            raise ConformanceFailure(f"the server closed the connection instead of answering {what}") from None
        raise ConformanceFailure(
            f"flood: {MAX_MESSAGES} messages and still no answer to {what} (notifications or requests, never it)"
        )

    async def settle(self) -> None:
        """Read what the server sends for `SETTLE` seconds after the last answer: a `ConformanceFailure` for a
        response among it (nothing is in flight, so every response answers twice, or answers a notification)."""
        window = min(SETTLE, self.timeout)
        when = f"after the last answer (to {self.sent[-1]}), within {window:g} s" if self.sent else "unasked"
        with anyio.move_on_after(window):
            for _ in range(MAX_MESSAGES):
                try:
                    received = await self._read.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # closing after its last answer breaks no message rule
                if isinstance(received, Exception):
                    raise ConformanceFailure(
                        f"{when}: the transport could not decode a message of the server: {str(received)[:300]}"
                    )
                if isinstance(received.message, JSONRPCResponse | JSONRPCError):
                    raise ConformanceFailure(self._stray(when, received.message))

    def _stray(self, when: str, incoming: JSONRPCResponse | JSONRPCError) -> str:
        kind = "an error" if isinstance(incoming, JSONRPCError) else "a response"
        if incoming.id is None:
            return f"{when}: {kind} with a null id (only a request the server could not read "
            "may be answered so, and every message sent was well formed)"
        if incoming.id in self._answered:
            return f"{when}: {kind} with the id {incoming.id!r}, already answered once"
        sent = "; ".join(self.sent)
        return (
            f"{when}: {kind} with the id {incoming.id!r}, which no request in flight "
            f"carries (a response must carry its request's id; what was sent: {sent})"
        )

    def _metadata(self, method: str, params: dict[str, Any] | None) -> ClientMessageMetadata | None:
        """The headers a 2026-07-28 request carries over HTTP (its version and method), as the SDK's client sets."""
        version = ((params or {}).get("_meta") or {}).get(PROTOCOL_VERSION_META_KEY)
        if not self._http or version is None:
            return None
        return ClientMessageMetadata(headers={MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: method})


@contextlib.asynccontextmanager
async def _served_in_process(server: Server[Any]) -> AsyncIterator[tuple[Any, Any]]:
    """The in-process server's own JSON-RPC stream loop on memory streams (what it runs over stdio), for this line."""
    streams = create_client_server_memory_streams()
    async with streams as (client_streams, server_streams), anyio.create_task_group() as group:
        options = server.create_initialization_options()
        group.start_soon(server.run, server_streams[0], server_streams[1], options)
        try:
            yield client_streams
        finally:
            group.cancel_scope.cancel()


def _params(params: dict[str, Any] | None) -> dict[str, Any]:
    return {} if params is None else {"params": params}


@contextlib.asynccontextmanager
async def raw_line(probe: Probe) -> AsyncIterator[RawLine]:
    """A new connection to the probe's server, the way its harness reaches it, as the probe's caller."""
    harness = probe.harness
    connector = harness.connector
    target = connector.target(probe.caller)
    transport = _served_in_process(target) if connector.kind == "inprocess" else target
    # Entered unbounded: every transport opens lazily (a process started, a client made); the exchanges are bounded.
    with acting_as(probe.caller, harness.tenant_claim):
        try:
            async with transport as (read, write):
                http = connector.kind in ("http", "http-command")
                yield RawLine(read, write, harness.timeout, http, start_timeout=harness.start_timeout)
        except BaseExceptionGroup as group:  # a transport's task group wraps the check's own verdict
            raise _verdict_in(group) from None


def _verdict_in(group: BaseExceptionGroup[Any]) -> BaseException:
    """The check's failure inside a transport's exception group (the first), or the group as it came."""
    found = group.subgroup(lambda exc: isinstance(exc, ConformanceFailure))
    while found is not None and isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    return found if found is not None else group
