"""A loopback Streamable HTTP endpoint in front of a stdio server: how a URL-only client reaches it.

    python -m mcpbdd.record.bridge --port PORT -- COMMAND...

`mcpbdd conformance --official` runs the official suite, which speaks only HTTP, against a stdio
server through this bridge: it starts it as an `http:` command (`HttpProcess`, its own process group,
stopped when the suite is done, and the stdio servers with it), at `http://127.0.0.1:PORT/mcp`.

It relays, it does not serve: each JSON-RPC message a POST carries becomes a line on a stdio server's
stdin (the stdio proxy of `mcpbdd record`, `stdio_session.py`), and what the server writes back is the
answer, as JSON, or as an event stream when the server sends other messages first and the client
accepts one. A stdio connection serves the era its first request opens (the SDK's runner), so the
bridge keeps the eras apart: a 2025-11-25 `initialize` starts a process of its own, named by the
`Mcp-Session-Id` the bridge answers with (a stdio process is one session), which DELETE ends; a
sessionless request carrying the 2026-07-28 envelope goes to one process shared by all of them; any
other sessionless message (a malformed probe) gets a process of its own, ended once it is answered, so
it cannot change the era of the shared one. A message the server
sends with no request in flight is dropped (there is no standalone GET stream: GET is 405). A server
that has exited is 502, naming its exit code and the end of its stderr, never an answer made up here.

A fresh process costs what a start costs, and some clients open many (the official suite's `server-stateless`
sends one malformed probe after another, each a one-off process): so a Python command is forked from a warm
parent (the fork server, `spawn = "auto"`, as the pack's own stdio processes are), and the bridge keeps one
process started ahead, which the next `initialize` or one-off request takes while another starts behind it.

What the bridge cannot carry is the server's HTTP layer: header validation, Host and Origin checks,
session management over HTTP are the bridge's here, not the server's (so the official suite's
scenarios of them do not apply over stdio, `mcpbdd.runner.official`). It validates nothing of that kind,
and listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

import uvicorn
from mcp_types import PROTOCOL_VERSION_META_KEY
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from mcpbdd.harness.processes.parent_death import die_with_parent
from mcpbdd.harness.processes.spawn import SPAWN_MODES, prepare, stop_all
from mcpbdd.record.stdio_session import Exchange, Lost, StdioSession

__all__ = ["MCP_PATH", "build_app", "main"]

MCP_PATH = "/mcp"
SESSION_HEADER = "mcp-session-id"


def _enveloped(message: dict[str, Any]) -> bool:
    """Whether a message carries the 2026-07-28 envelope (`_meta`'s protocol-version key), as the SDK tells."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


def _json(message: dict[str, Any], headers: dict[str, str]) -> Response:
    return Response(json.dumps(message).encode(), media_type="application/json", headers=headers)


def _event(message: dict[str, Any]) -> bytes:
    return b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n"


def _refused(status: int, why: str) -> Response:
    """An error answer, also written to the bridge's stderr: a client's SDK shows only "Server returned an error
    response", and the harness reports the end of the bridge's stderr with it (`HttpProcess.diagnose`)."""
    sys.stderr.write(f"mcpbdd bridge: answered {status}: {why}\n")
    sys.stderr.flush()
    return Response(why, status_code=status, media_type="text/plain")


def _lost(lost: Lost) -> Response:
    return _refused(502, lost.why)


class Bridge:
    """The sessions a bridge relays to: one per `initialize`, and one shared by sessionless requests."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.command = list(command)
        self.env = env
        self.sessions: dict[str, StdioSession] = {}
        self.shared: StdioSession | None = None
        self.spare: StdioSession | None = None
        """A process started ahead for the next session, so its start overlaps the requests before it."""

    def _new(self) -> StdioSession:
        session = StdioSession(self.command, self.env)
        session.start()
        return session

    def _started(self) -> StdioSession:
        """A running session: the spare when it is still alive, and a new spare behind it."""
        spare, self.spare = self.spare, None
        session = spare if spare is not None and spare.ended is None else self._new()
        self.spare = self._new()
        return session

    def session_for(self, message: dict[str, Any], session_id: str | None) -> tuple[StdioSession | None, str | None]:
        """The session a message goes to (None: an unknown session id), and a new session's id to announce."""
        if message.get("method") == "initialize":
            new_id = uuid.uuid4().hex
            self.sessions[new_id] = self._started()
            return self.sessions[new_id], new_id
        if session_id is not None:
            return self.sessions.get(session_id), None
        if not _enveloped(message):
            return self._started(), None  # one-off: the caller closes it once answered
        if self.shared is None or self.shared.ended is not None:
            self.shared = self._started()  # started on first use; again if the last one exited
        return self.shared, None

    def one_off(self, session: StdioSession) -> bool:
        return session is not self.shared and session not in self.sessions.values()

    async def close(self) -> None:
        extra = [session for session in (self.shared, self.spare) if session is not None]
        for session in [*self.sessions.values(), *extra]:
            await session.close()
        self.sessions.clear()
        self.shared = self.spare = None

    async def post(self, request: Request) -> Response:
        try:
            message = json.loads(await request.body())
        except ValueError:
            return _refused(400, "the body is not JSON")
        if not isinstance(message, dict):
            return _refused(400, "the bridge relays one JSON-RPC message per request (no batches)")
        session, new_id = self.session_for(message, request.headers.get(SESSION_HEADER))
        if session is None:
            return _refused(404, "no such session")
        headers = {SESSION_HEADER: new_id} if new_id else {}
        closing = BackgroundTask(session.close) if self.one_off(session) else None
        if "method" not in message or "id" not in message:  # a notification, or an answer to the server's request
            session.notify(message)
            return Response(status_code=202, headers=headers, background=closing)
        exchange = session.request(message)
        first = await exchange.next()
        streams = "text/event-stream" in request.headers.get("accept", "")
        if isinstance(first, Lost) or exchange.is_answer(first) or not streams:
            while not exchange.is_answer(first):
                first = await exchange.next()  # a client that takes JSON only gets the answer alone
            answer = _lost(first) if isinstance(first, Lost) else _json(first, headers)
            answer.background = closing
            return answer
        return StreamingResponse(
            _stream(first, exchange), media_type="text/event-stream", headers=headers, background=closing
        )

    async def delete(self, request: Request) -> Response:
        session_id = request.headers.get(SESSION_HEADER)
        session = self.sessions.pop(session_id, None) if session_id else None
        if session is None:
            return Response("no such session", status_code=404, media_type="text/plain")
        await session.close()
        return Response(status_code=200)


async def _stream(first: dict[str, Any], exchange: Exchange) -> AsyncIterator[bytes]:
    """The server's messages for one request as events, its answer last (a lost answer ends the stream)."""
    message: dict[str, Any] | Lost = first
    while True:
        if isinstance(message, Lost):
            return
        yield _event(message)
        if exchange.is_answer(message):
            return
        message = await exchange.next()


def build_app(command: Sequence[str], env: dict[str, str] | None = None) -> Starlette:
    """The bridge as a Starlette app relaying to `command` (a stdio server)."""
    bridge = Bridge(command, env)

    async def endpoint(request: Request) -> Response:
        if request.method == "POST":
            return await bridge.post(request)
        if request.method == "DELETE":
            return await bridge.delete(request)
        return Response(status_code=405, headers={"allow": "POST, DELETE"})

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await asyncio.to_thread(stop_all)  # forks first (their sessions then end at once), waited for
            await bridge.close()

    return Starlette(routes=[Route(MCP_PATH, endpoint, methods=["GET", "POST", "DELETE"])], lifespan=lifespan)


def main(argv: list[str] | None = None) -> int:
    """Serve the bridge on 127.0.0.1 until SIGTERM (or the parent's death), then close every session."""
    parser = argparse.ArgumentParser(prog="python -m mcpbdd.record.bridge")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--spawn",
        choices=SPAWN_MODES,
        default="auto",
        help="how each stdio process starts: auto (a fork of a warm parent for a Python command), plain, ...",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the stdio server's command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no stdio server command after --")
    die_with_parent(signal.SIGTERM, os.getppid())
    command = prepare(args.spawn, command, cwd=os.getcwd(), env=os.environ)  # a warm fork's launcher, or as is
    config = uvicorn.Config(build_app(command), host="127.0.0.1", port=args.port, log_level="warning", lifespan="on")
    try:
        uvicorn.Server(config).run()
    finally:
        stop_all()  # the warm parent and its forks end with the bridge, waited for (not left to exit handlers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
