"""The loopback server: the scenario's upstream route table served over real HTTP on 127.0.0.1.

For a server under test in another process (stdio, HTTP), which cannot share the in-process
`httpx.MockTransport`: one random port per upstream origin, handed to the process in its
environment (`LoopbackServer.environment()`, variables named by `mcpbdd.kit.upstream.env_var`),
and one more, the catch-all (`ENV_OTHER`), for every origin the scenario did not name: a request
there (`/<scheme>/<host[:port]>/<path>`, written so by `upstream_base` and the loopback routes) is
matched against the same table as a request for that origin, so it is recorded and answered 502
"no route matches", and the scenario fails as it does in-process, instead of the request going
to the network (or to whatever listens on that port of 127.0.0.1) unseen.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import socket
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

from mcpbdd._loopback_http import ASGIApp, LoopbackHttp, Scope
from mcpbdd.kit.upstream import ENV_ALL, ENV_OTHER, env_var, origin_of
from mcpbdd.upstream.routes import Upstream

__all__ = ["BODY_DEADLINE", "MAX_BODY", "MAX_HEADERS", "LoopbackServer"]

MAX_BODY = 16 * 1024 * 1024
"""The largest request body the loopback server reads (a bigger one is answered 413)."""

MAX_HEADERS = 64 * 1024
"""The largest request head (names and values of every header) the loopback server takes (a bigger one: 431)."""

BODY_DEADLINE = 10.0
"""Seconds a client has to send its whole request body (a client that stalls is answered 408)."""

_SKIPPED = (b"host", b"content-length", b"transfer-encoding")
"""Request headers not recorded: Host is the loopback's (the request is recorded with its upstream's, as
in-process), the framing is the loopback connection's."""


def _app(upstream: Upstream, origin: str | None, hold: float, http: LoopbackHttp) -> ASGIApp:
    """One upstream origin (None: the catch-all), served from the shared route table."""

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        target = scope.get("raw_path", b"").decode("latin-1")
        if not target.startswith("/"):
            await _plain(send, 400, "mcpbdd loopback upstream: expected an origin-form request target")
            return
        where, path = origin, target + (f"?{scope['query_string'].decode('latin-1')}" if scope["query_string"] else "")
        if where is None:  # the catch-all: /<scheme>/<host[:port]>/<path>, an origin the scenario did not name
            parts = [*path.split("/", 3), "", "", ""]
            scheme, host, rest = parts[1], parts[2], parts[3]
            if scheme not in ("http", "https") or not host:
                await _plain(send, 400, "mcpbdd loopback upstream: expected /<scheme>/<host[:port]>/<path>")
                return
            where, path = f"{scheme}://{host}", "/" + rest
        if sum(len(k) + len(v) for k, v in scope["headers"]) > MAX_HEADERS:
            await _plain(send, 431, f"mcpbdd loopback upstream: request headers over {MAX_HEADERS} bytes")
            return
        body = await _read_body(scope, receive, send)
        if body is None:
            return
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"] if k.lower() not in _SKIPPED]
        try:
            request = httpx.Request(scope["method"], where + path, headers=headers, content=body)
        except httpx.InvalidURL:
            await _plain(send, 400, "mcpbdd loopback upstream: not a URL")
            return
        route, record = upstream.decide(request)
        if route is not None and route.kind == "timeout":
            await _hold(receive, http.stopping, hold)
            await http.drop(scope)  # close without a response
        elif route is not None and route.kind == "unreachable":
            await http.drop(scope, reset=True)  # the server sees the upstream vanish
        else:
            await _send(send, upstream.response(route, record), head=scope["method"] == "HEAD")

    return app


async def _read_body(scope: Scope, receive: Any, send: Any) -> bytes | None:
    """The whole request body, or None once answered 413 (too big) or 408 (too slow), or the client left."""
    declared = dict(scope["headers"]).get(b"content-length", b"0")
    if declared.isdigit() and int(declared) > MAX_BODY:
        await _plain(send, 413, f"mcpbdd loopback upstream: a body over {MAX_BODY} bytes")
        return None
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_DEADLINE):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                body += message.get("body", b"")
                if len(body) > MAX_BODY:
                    await _plain(send, 413, f"mcpbdd loopback upstream: a body over {MAX_BODY} bytes")
                    return None
                if not message.get("more_body", False):
                    return bytes(body)
    except TimeoutError:
        await _plain(send, 408, f"mcpbdd loopback upstream: the body did not arrive within {BODY_DEADLINE:g} s")
        return None


async def _send(send: Any, response: httpx.Response, *, head: bool = False) -> None:
    """`response` as the answer: its status, its headers (repeated ones kept), its body; one request per connection."""
    framing = ("content-length", "connection", "transfer-encoding")
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.multi_items()]
    headers = [(k, v) for k, v in headers if k.lower().decode() not in framing]
    headers += [(b"content-length", str(len(response.content)).encode()), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else response.content})


async def _plain(send: Any, status: int, text: str) -> None:
    await _send(send, httpx.Response(status, text=text))


async def _hold(receive: Any, stopping: asyncio.Event, hold: float) -> None:
    """Never answer: wait until the client gives up (it disconnects), the hold ends or the server stops."""

    async def client_left() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    waits = [asyncio.ensure_future(client_left()), asyncio.ensure_future(stopping.wait())]
    try:
        await asyncio.wait(waits, timeout=hold, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


@dataclass
class _Listener:
    origin: str
    url: str
    refusing: socket.socket | None = None
    """A bound socket that never listens: connecting to it is refused (an upstream unreachable from the start)."""


@dataclass
class _Listeners:
    """What a LoopbackServer holds, apart from itself (so a finalizer can stop it without keeping it alive)."""

    by_origin: dict[str, _Listener] = field(default_factory=dict)
    other: _Listener | None = None
    """The catch-all, for the origins the scenario did not name."""
    http: LoopbackHttp | None = None
    """The thread serving every listener of this server, started with the server."""
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            listeners, self.by_origin = list(self.by_origin.values()), {}
            self.other = None
            http, self.http = self.http, None
        if http is not None:
            http.stop()  # every port closes, every connection ends (a hold at once), the thread is joined
        for listener in listeners:
            if listener.refusing is not None:
                listener.refusing.close()


class LoopbackServer:
    """The route table served over real HTTP on 127.0.0.1, for a server under test in another process.

    Each upstream origin gets its own random port, so the server's requests keep their own
    paths; `environment()` is what to add to the server's environment (see `env_var`).
    The route table is the same object the steps fill, so routes declared after `start()`
    apply at once. Served by uvicorn from an event loop in a thread of its own (`LoopbackHttp`):
    serving must not depend on the scenario's event loop, which only runs while a step drives
    it, while a server in another process may call its upstream at any moment (at start-up, in
    the background, between steps). Everything it starts, `stop()` ends: the ports close, the
    connections end and the thread is joined. Use it as a context manager (sync or async) in the scenario's
    owner task so it stops with the scenario; it also stops when garbage-collected.

    - an answering or failing route: that response;
    - a route that times out: the connection stays open without an answer until the client
      gives up, `hold` seconds pass (then it closes without a response) or the server stops;
    - an upstream unreachable from the start (its first route refuses every request): its
      port refuses connections (the server sees a connection error); one that becomes
      unreachable later (after a `once` route) resets the connection;
    - a request no route matches: `502 Bad Gateway`, recorded for `Upstream.check()`.
    """

    def __init__(self, upstream: Upstream, bases: Iterable[str] = (), *, hold: float = 30.0) -> None:
        self.upstream = upstream
        self.hold = hold
        self._extra = [origin_of(base) for base in bases]
        self._state = _Listeners()
        self._finalizer = weakref.finalize(self, _Listeners.stop, self._state)
        self.started = False

    def start(self) -> LoopbackServer:
        """Open a port for every origin in the route table and in `bases`."""
        if self._state.stopping.is_set():
            raise RuntimeError("this loopback server was stopped; start a new one")
        self.started = True
        for origin in [*self.upstream.bases(), *self._extra]:
            self.url_for(origin)
        with self._state.lock:
            if self._state.other is None and not self._state.stopping.is_set():
                self._state.other = self._serve(None)
        return self

    def url_for(self, base: str) -> str:
        """The loopback URL serving the upstream `base` (`http://127.0.0.1:<port>`), opened on first use."""
        if not self.started:
            raise RuntimeError("start the loopback server first")
        origin = origin_of(base)
        with self._state.lock:
            if self._state.stopping.is_set():
                raise RuntimeError("this loopback server was stopped")
            listener = self._state.by_origin.get(origin)
            if listener is None:
                name = env_var(origin)
                clash = next((o for o in self._state.by_origin if env_var(o) == name), None)
                if clash is not None:
                    raise ValueError(f"the upstreams {clash} and {origin} would share the variable {name}")
                listener = self._open(origin)
                self._state.by_origin[origin] = listener
            return listener.url

    def _open(self, origin: str) -> _Listener:
        routes = self.upstream.routes_for(origin)
        if routes and routes[0].kind == "unreachable" and not routes[0].once:
            refusing = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            refusing.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused, the port is ours
            return _Listener(origin, f"http://127.0.0.1:{refusing.getsockname()[1]}", refusing=refusing)
        return self._serve(origin)

    def _serve(self, origin: str | None) -> _Listener:
        """A listener serving `origin` from the route table (None: the catch-all, for every unnamed origin).

        Called with the lock held."""
        if self._state.http is None:
            self._state.http = LoopbackHttp("mcpbdd-upstream-http")
        url = self._state.http.serve(_app(self.upstream, origin, self.hold, self._state.http))
        return _Listener(origin or "", url)

    @property
    def base_urls(self) -> dict[str, str]:
        """Upstream origin -> its loopback URL."""
        with self._state.lock:
            return {origin: listener.url for origin, listener in self._state.by_origin.items()}

    @property
    def other_url(self) -> str | None:
        """The catch-all's URL (for origins the scenario did not name), once started."""
        with self._state.lock:
            return self._state.other.url if self._state.other is not None else None

    def environment(self) -> dict[str, str]:
        """What to add to the server's environment: `MCPBDD_UPSTREAM_<NAME>` per origin, `MCPBDD_UPSTREAMS`,
        and the catch-all, `MCPBDD_UPSTREAMS_OTHER`."""
        urls = self.base_urls
        other = {ENV_OTHER: self.other_url} if self.other_url else {}
        return {**{env_var(origin): url for origin, url in urls.items()}, ENV_ALL: jsonlib.dumps(urls), **other}

    def stop(self) -> None:
        """Close every port and join every thread (idempotent)."""
        self._finalizer()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> LoopbackServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        self.stop()  # quick: the ports close, idle connections close, holds end at once
