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

import contextlib
import json as jsonlib
import select
import socket
import struct
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from mcpbdd.kit.upstream import ENV_ALL, ENV_OTHER, env_var, origin_of
from mcpbdd.upstream.routes import Upstream

__all__ = ["MAX_BODY", "LoopbackServer"]

MAX_BODY = 16 * 1024 * 1024
"""The largest request body the loopback server reads (a bigger one is answered 413)."""


class _Server(ThreadingHTTPServer):
    """One upstream origin, served on 127.0.0.1 from the shared route table."""

    daemon_threads = False  # handler threads are joined by server_close(): nothing outlives stop()
    block_on_close = True

    def __init__(self, upstream: Upstream, origin: str | None, hold: float, stopping: threading.Event) -> None:
        self.upstream = upstream
        self.origin = origin
        self.hold = hold
        self.stopping = stopping
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection: no idle keep-alive thread to wait for
    timeout = 5.0  # a client that connects and stalls cannot hold a thread for long
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the route table records everything
        pass

    def _serve(self) -> None:
        if not self.path.startswith("/"):
            self.send_error(400, "mcpbdd loopback upstream: expected an origin-form request target")
            return
        origin, path = self.server.origin, self.path
        if origin is None:  # the catch-all: /<scheme>/<host[:port]>/<path>, an origin the scenario did not name
            parts = [*path.split("/", 3), "", "", ""]
            scheme, where, rest = parts[1], parts[2], parts[3]
            if scheme not in ("http", "https") or not where:
                self.send_error(400, "mcpbdd loopback upstream: expected /<scheme>/<host[:port]>/<path>")
                return
            origin, path = f"{scheme}://{where}", "/" + rest
        body = self._read_body()
        if body is None:
            return
        # Host is the loopback's; the request is recorded with its upstream's (as in-process)
        skipped = ("host", "content-length", "transfer-encoding")
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in skipped]
        try:
            request = httpx.Request(self.command, origin + path, headers=headers, content=body)
        except httpx.InvalidURL:
            self.send_error(400, "mcpbdd loopback upstream: not a URL")
            return
        route, record = self.server.upstream.decide(request)
        if route is not None and route.kind == "timeout":
            self._hold()
        elif route is not None and route.kind == "unreachable":
            self._reset()
        else:
            self._send(self.server.upstream.response(route, record))

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _serve

    def _read_body(self) -> bytes | None:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                if sum(map(len, chunks)) + size > MAX_BODY:
                    self.send_error(413)
                    return None
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            self.send_error(413)
            return None
        return self.rfile.read(length) if length else b""

    def _send(self, response: httpx.Response) -> None:
        self.send_response(response.status_code)
        for name, value in response.headers.multi_items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(response.content)))
        self.send_header("connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.content)

    def _hold(self) -> None:
        """Never answer: keep the connection open until the client gives up, the hold ends or the server stops."""
        deadline = time.monotonic() + self.server.hold
        while not self.server.stopping.is_set() and time.monotonic() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable:  # the client closed its end (it timed out), or sent something unexpected
                break
        self.close_connection = True  # close without a response

    def _reset(self) -> None:
        """Drop the connection with a TCP reset: the server sees the upstream vanish."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def finish(self) -> None:
        with contextlib.suppress(OSError):  # the connection was reset on purpose (unreachable) or the client left
            super().finish()


def _shut_down_now(server: _Server) -> None:
    """`server.shutdown()` without waiting out serve_forever's poll interval (50 ms, so 25 ms a stop on average,
    which every scenario paid once the catch-all listener ran in each one: bench/bench_spawn.py showed a forked
    stdio scenario at 54 ms instead of 29). A connection wakes its select at once; serve_forever sees the
    shutdown request and returns. A wake-up that arrives first is served as an empty request, which the handler
    drops, and the next one follows within 2 ms."""
    stopper = threading.Thread(target=server.shutdown, name="mcpbdd-upstream-stop", daemon=True)
    stopper.start()
    host, port = server.server_address[:2]
    while stopper.is_alive():
        with contextlib.suppress(OSError):
            socket.create_connection((str(host), int(port)), timeout=0.5).close()
        stopper.join(0.002)


@dataclass
class _Listener:
    origin: str
    url: str
    server: _Server | None = None
    thread: threading.Thread | None = None
    refusing: socket.socket | None = None
    """A bound socket that never listens: connecting to it is refused (an upstream unreachable from the start)."""

    def stop(self) -> None:
        if self.server is not None:
            _shut_down_now(self.server)  # serve_forever returns
            self.server.server_close()  # the port closes; handler threads are joined
        if self.thread is not None:
            self.thread.join(timeout=10)
        if self.refusing is not None:
            self.refusing.close()


@dataclass
class _Listeners:
    """What a LoopbackServer holds, apart from itself (so a finalizer can stop it without keeping it alive)."""

    by_origin: dict[str, _Listener] = field(default_factory=dict)
    other: _Listener | None = None
    """The catch-all, for the origins the scenario did not name."""
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            listeners, self.by_origin = list(self.by_origin.values()), {}
            if self.other is not None:
                listeners.append(self.other)
                self.other = None
        for listener in listeners:
            listener.stop()


class LoopbackServer:
    """The route table served over real HTTP on 127.0.0.1, for a server under test in another process.

    Each upstream origin gets its own random port, so the server's requests keep their own
    paths; `environment()` is what to add to the server's environment (see `env_var`).
    The route table is the same object the steps fill, so routes declared after `start()`
    apply at once. A stdlib `ThreadingHTTPServer` per origin, each in a thread: serving must
    not depend on the scenario's event loop, which only runs while a step drives it, while a
    server in another process may call its upstream at any moment (at start-up, in the
    background, between steps). Everything it starts, `stop()` ends: the ports close and
    every thread is joined. Use it as a context manager (sync or async) in the scenario's
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
        """A listener serving `origin` from the route table (None: the catch-all, for every unnamed origin)."""
        server = _Server(self.upstream, origin, self.hold, self._state.stopping)
        port = server.server_address[1]
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"mcpbdd-upstream-{port}", daemon=True
        )
        thread.start()
        return _Listener(origin or "", f"http://127.0.0.1:{port}", server=server, thread=thread)

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
        self.stop()  # shutdown is quick: serve_forever polls every 50 ms, holds end on the stop event
