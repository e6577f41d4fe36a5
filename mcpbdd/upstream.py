"""Upstream doubles: the server's outbound HTTP, answered from one route table per scenario.

A scenario declares what the services its server calls will answer:

    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "Plan"})
    upstream.fail("https://docs.example.com", "GET", "/documents/d-2", 503, once=True)
    upstream.time_out("https://docs.example.com", "POST", "/search")
    upstream.unreachable("https://billing.example.com")

and the server under test reaches that table in one of two ways:

- **in-process** (the context harness, the in-process client harness): the server's lifespan
  builds its `httpx.AsyncClient` with `transport=doubles.upstream.transport()` (see
  `mcpbdd.wiring`). That transport is an `httpx.MockTransport` over the table: no sockets,
  no monkey-patching of httpx, and a time-out or an unreachable host is the exception
  httpx itself raises (`httpx.ReadTimeout`, `httpx.ConnectError`), at once, without waiting.
- **in another process** (stdio, HTTP): `LoopbackServer(upstream)` serves the same table
  over real HTTP on 127.0.0.1, one random port per upstream origin, and hands the server
  its URLs in environment variables (`environment()`, named by `env_var()`):

      https://docs.example.com       -> MCPBDD_UPSTREAM_DOCS_EXAMPLE_COM=http://127.0.0.1:41234
      http://localhost:8080          -> MCPBDD_UPSTREAM_LOCALHOST_8080=http://127.0.0.1:41235
      every origin, as one JSON map  -> MCPBDD_UPSTREAMS={"https://docs.example.com": "http://127.0.0.1:41234", ...}

  A server reads its base URL through `upstream_base("https://docs.example.com")` (the
  loopback URL when the variable is set, the production URL otherwise) or reads the
  variable itself.

Matching: routes are tried in the order they were declared; a route matches on the
request's origin (scheme, host and port, compared whole: `https://api.example` never
matches `https://api.example.evil`), its method and its exact path (no prefixes, no
trailing-slash guessing). The query string is ignored unless the route's path has one
(`/search?q=milk`), in which case the request's parameters must be exactly those (in any
order). A route declared `once=True` answers one request and is then used up.

Every request is recorded (`requests`), whatever answered it. A request no route matches
is answered `502 Bad Gateway` (so the server sees a failure) and kept until `check()`,
which the World calls after every exchange: the step that made the call then fails,
naming the request and listing the routes.

Why `httpx.MockTransport` and not respx: httpx ships the transport seam we need, and it is
already a dependency. respx's strength is patching httpx globally (which we must not do)
and its pattern router has its own semantics (prefix and partial URL patterns, no
"once, then the next route"), and it cannot serve another process anyway; the route table
here is the one thing both the transport and the loopback server read.
"""

from __future__ import annotations

import contextlib
import json as jsonlib
import os
import re
import select
import socket
import struct
import threading
import time
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import httpx

__all__ = [
    "ENV_ALL",
    "ENV_PREFIX",
    "METHODS",
    "NO_BODY",
    "LoopbackServer",
    "Route",
    "UnmatchedUpstreamRequest",
    "Upstream",
    "UpstreamRequest",
    "env_var",
    "origin_of",
    "upstream_base",
]

ENV_PREFIX = "MCPBDD_UPSTREAM_"
"""`MCPBDD_UPSTREAM_<HOST>[_<PORT>]`: one variable per upstream origin, holding its loopback URL."""
ENV_ALL = "MCPBDD_UPSTREAMS"
"""Every upstream origin and its loopback URL, as one JSON object."""

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

UNMATCHED_STATUS = 502
"""What a request no route matches is answered (Bad Gateway: the double had nothing to send)."""

MAX_BODY = 16 * 1024 * 1024
"""The largest request body the loopback server reads (a bigger one is answered 413)."""


class _NoBody:
    def __repr__(self) -> str:
        return "NO_BODY"


NO_BODY: Any = _NoBody()
"""`answer(..., json=NO_BODY)`: an empty response body (JSON `null` is `json=None`)."""


# -- origins and paths ------------------------------------------------------------------------------


def _origin(url: httpx.URL) -> str:
    """`https://docs.example.com`, `http://localhost:8080`: scheme, host and port (default ports left out)."""
    scheme, port = url.scheme.lower(), url.port
    host = url.raw_host.decode("ascii").lower()
    host = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


def origin_of(base: str) -> str:
    """The normalised origin of an upstream named in a scenario, or a ValueError saying what is wrong with it."""
    example = "like https://api.example.com or http://localhost:8080"
    try:
        url = httpx.URL(base.strip())
    except (httpx.InvalidURL, TypeError) as exc:
        raise ValueError(f"the upstream {base!r} is not a URL ({exc}): write its origin, {example}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"the upstream {base!r} must be an http:// or https:// origin, {example}")
    if url.userinfo or url.path not in ("", "/") or url.query or url.fragment:
        raise ValueError(
            f"the upstream {base!r} must be an origin only (scheme, host, port), {example}; "
            "put the path in the route instead"
        )
    return _origin(url)


def _method(method: str) -> str:
    upper = method.strip().upper()
    if upper not in METHODS:
        raise ValueError(f"unknown HTTP method {method!r}: use one of {', '.join(METHODS)}")
    return upper


def _path(origin: str, path: str) -> tuple[str, tuple[tuple[str, str], ...] | None]:
    """A route's exact path (normalised as httpx normalises a request's) and its query, if it names one."""
    if not path.startswith("/"):
        raise ValueError(f"the path {path!r} must start with '/' (the origin goes in the upstream's name)")
    if "#" in path:
        raise ValueError(f"the path {path!r} has a fragment ('#'), which a request never sends")
    url = httpx.URL(origin + path)
    return url.path, (_query(url) if "?" in path else None)


def _query(url: httpx.URL) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(url.params.multi_items()))


def env_var(base: str) -> str:
    """The environment variable carrying an upstream's loopback URL: `MCPBDD_UPSTREAM_DOCS_EXAMPLE_COM`.

    The host, upper-cased, every run of other characters turned into one `_`, then the port
    when it is not the scheme's default (`http://localhost:8080` -> `MCPBDD_UPSTREAM_LOCALHOST_8080`).
    The scheme is not part of the name: `http://` and `https://` of one host in one scenario
    is refused by the loopback server as ambiguous.
    """
    origin = origin_of(base)
    url = httpx.URL(origin)
    name = re.sub(r"[^A-Z0-9]+", "_", url.raw_host.decode("ascii").upper()).strip("_")
    port = origin.rsplit(":", 1)[1] if re.search(r":\d+$", origin) else ""
    return f"{ENV_PREFIX}{name}" + (f"_{port}" if port else "")


def upstream_base(base: str, environ: Mapping[str, str] | None = None) -> str:
    """The URL a server should call for the upstream `base`: its loopback URL under mcpbdd, `base` otherwise.

    For servers that run in another process during a scenario:
    `httpx.AsyncClient(base_url=upstream_base("https://docs.example.com"))`. A base with a
    path keeps it (`https://docs.example.com/api` -> `http://127.0.0.1:41234/api`).
    """
    env = os.environ if environ is None else environ
    url = httpx.URL(base)
    if url.scheme not in ("http", "https") or not url.host:
        return base
    loopback = env.get(env_var(_origin(url)))
    if not loopback:
        return base
    path = url.raw_path.decode("ascii")
    return loopback.rstrip("/") + ("" if path == "/" and not base.endswith("/") else path)


# -- the route table ---------------------------------------------------------------------------------

Kind = Literal["answer", "fail", "timeout", "unreachable"]


@dataclass
class Route:
    """One declared answer of an upstream: what it matches and what it does."""

    origin: str
    method: str | None
    """None: any method (an unreachable upstream refuses everything)."""
    path: str | None
    """None: any path."""
    query: tuple[tuple[str, str], ...] | None
    """None: any query string; otherwise exactly these parameters."""
    kind: Kind
    status: int = 0
    content: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    once: bool = False
    hits: int = 0

    @property
    def used_up(self) -> bool:
        return self.once and self.hits > 0

    def matches(self, origin: str, method: str, path: str, query: tuple[tuple[str, str], ...]) -> bool:
        return (
            not self.used_up
            and origin == self.origin
            and (self.method is None or method == self.method)
            and (self.path is None or path == self.path)
            and (self.query is None or query == self.query)
        )

    def target(self) -> str:
        if self.path is None:
            return f"{self.origin} (any request)"
        query = "?" + str(httpx.QueryParams(list(self.query))) if self.query else ""
        return f"{self.method} {self.origin}{self.path}{query}"

    def outcome(self) -> str:
        return {
            "answer": f"answers {self.status}",
            "fail": f"fails with {self.status}",
            "timeout": "times out",
            "unreachable": "is unreachable",
        }[self.kind]

    def describe(self) -> str:
        once = (", once, already used" if self.used_up else ", once") if self.once else ""
        return f"{self.target()} → {self.outcome()}{once}"


@dataclass(frozen=True)
class UpstreamRequest:
    """One request the server sent to an upstream, and what the double did with it."""

    method: str
    url: str
    origin: str
    path: str
    query: tuple[tuple[str, str], ...]
    headers: tuple[tuple[str, str], ...]
    body: bytes
    answer: str
    """What the server got: `200`, `fails with 503`, `timed out`, `unreachable`, `no route matches (502)`."""
    route: int | None = None
    """The 1-based number of the route that answered (None: no route matched)."""

    @property
    def matched(self) -> bool:
        return self.route is not None

    @property
    def reached(self) -> bool:
        """Whether the request reached the upstream (a refused connection to an unreachable one did not)."""
        return self.answer != "unreachable"

    def describe_request(self) -> str:
        return f"{self.method} {self.url}"

    def describe(self) -> str:
        return f"{self.describe_request()} → {self.answer}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-able record for the report (`mcpbdd.report.attach_upstream_requests`)."""
        text = self.body[:65536].decode("utf-8", errors="replace")
        return {
            "method": self.method,
            "url": self.url,
            "headers": dict(self.headers),
            "body": text + ("…" if len(self.body) > 65536 else ""),
            "answer": self.answer,
            "route": self.route,
        }


class UnmatchedUpstreamRequest(AssertionError):
    """The server sent a request no declared route matches."""


class Upstream:
    """The scenario's route table for every outbound request the server makes.

    Thread-safe: the loopback server answers from its own threads while a step reads counts.
    """

    def __init__(self) -> None:
        self.routes: list[Route] = []
        self.requests: list[UpstreamRequest] = []
        """Every request any upstream received, in order (what the report attaches)."""
        self.unmatched: list[UpstreamRequest] = []
        """Requests no route matched that `check()` has not reported yet."""
        self._lock = threading.Lock()

    # declaring routes --------------------------------------------------------------------------------

    def _add(self, base: str, method: str | None, path: str | None, kind: Kind, **details: Any) -> Route:
        origin = origin_of(base)
        route_path, query = _path(origin, path) if path is not None else (None, None)
        route = Route(origin, _method(method) if method is not None else None, route_path, query, kind, **details)
        with self._lock:
            self.routes.append(route)
        return route

    def answer(
        self,
        base: str,
        method: str,
        path: str,
        status: int = 200,
        json: Any = NO_BODY,
        *,
        headers: Mapping[str, str] | None = None,
        once: bool = False,
    ) -> Route:
        """`base` answers `method path` with `status` and the JSON body `json` (NO_BODY: no body at all)."""
        if not 100 <= status <= 599:
            raise ValueError(f"an HTTP status is a number from 100 to 599, got {status}")
        response_headers = dict(headers or {})
        content = b""
        if json is not NO_BODY:
            try:
                content = jsonlib.dumps(json).encode()
            except (TypeError, ValueError) as exc:
                raise ValueError(f"the answer of {method} {path} is not JSON: {exc}") from None
            response_headers.setdefault("content-type", "application/json")
        details = {"status": status, "content": content, "headers": tuple(response_headers.items())}
        return self._add(base, method, path, "answer", once=once, **details)

    def fail(
        self, base: str, method: str, path: str, status: int = 503, json: Any = NO_BODY, *, once: bool = False
    ) -> Route:
        """`base` fails `method path` with the error status `status` (400-599), with a small JSON error body."""
        if not 400 <= status <= 599:
            raise ValueError(
                f"a failing upstream answers a status from 400 to 599, got {status} (use 'answers' for others)"
            )
        if json is NO_BODY:
            try:
                phrase = HTTPStatus(status).phrase
            except ValueError:
                phrase = "Error"
            json = {"error": phrase, "status": status}
        content = jsonlib.dumps(json).encode()
        headers = (("content-type", "application/json"),)
        return self._add(base, method, path, "fail", status=status, content=content, headers=headers, once=once)

    def time_out(self, base: str, method: str, path: str, *, once: bool = False) -> Route:
        """`base` never answers `method path`: the client times out (in-process: `httpx.ReadTimeout`, at once)."""
        return self._add(base, method, path, "timeout", once=once)

    def unreachable(self, base: str, *, once: bool = False) -> Route:
        """`base` cannot be reached at all: any request to it fails to connect (`httpx.ConnectError`)."""
        return self._add(base, None, None, "unreachable", once=once)

    def routes_for(self, base: str) -> list[Route]:
        """The routes of one origin, in order."""
        origin = origin_of(base)
        with self._lock:
            return [route for route in self.routes if route.origin == origin]

    def bases(self) -> list[str]:
        """Every upstream origin the routes name, in the order first declared."""
        with self._lock:
            return list(dict.fromkeys(route.origin for route in self.routes))

    # answering ------------------------------------------------------------------------------------------

    def decide(self, request: httpx.Request) -> tuple[Route | None, UpstreamRequest]:
        """Match `request` against the routes (first match wins), use it up if `once`, and record the request."""
        method, url = request.method.upper(), request.url
        origin, path, query = _origin(url), url.path, _query(url)
        with self._lock:
            number, route = next(
                ((n, r) for n, r in enumerate(self.routes, 1) if r.matches(origin, method, path, query)), (None, None)
            )
            if route is not None:
                route.hits += 1
                answer = {
                    "answer": str(route.status),
                    "fail": f"fails with {route.status}",
                    "timeout": "timed out",
                    "unreachable": "unreachable",
                }[route.kind]
            else:
                answer = f"no route matches ({UNMATCHED_STATUS})"
            record = UpstreamRequest(
                method, str(url), origin, path, query, tuple(request.headers.items()), request.content, answer, number
            )
            self.requests.append(record)
            if route is None:
                self.unmatched.append(record)
        return route, record

    def response(self, route: Route | None, record: UpstreamRequest) -> httpx.Response:
        """The HTTP response for an answering or failing route, or the 502 for an unmatched request."""
        if route is None:
            text = f"mcpbdd: no upstream route matches {record.method} {record.url}"
            return httpx.Response(UNMATCHED_STATUS, text=text, headers={"x-mcpbdd-unmatched": "true"})
        return httpx.Response(route.status, content=route.content, headers=list(route.headers))

    def handle(self, request: httpx.Request) -> httpx.Response:
        """The `httpx.MockTransport` handler: answer, fail, or raise what httpx raises for a time-out or refusal."""
        route, record = self.decide(request)
        if route is not None and route.kind == "timeout":
            raise httpx.ReadTimeout(f"timed out (mcpbdd: {route.target()} times out)", request=request)
        if route is not None and route.kind == "unreachable":
            raise httpx.ConnectError(
                f"[Errno 111] Connection refused (mcpbdd: {route.origin} is unreachable)", request=request
            )
        return self.response(route, record)

    def transport(self) -> httpx.AsyncBaseTransport:
        """An httpx transport that answers from the route table (for an in-process server's client)."""
        return httpx.MockTransport(self.handle)

    # what was received ------------------------------------------------------------------------------------

    def requests_to(self, base: str) -> list[UpstreamRequest]:
        """Every request sent to the origin `base`, in order (refused connections included)."""
        origin = origin_of(base)
        with self._lock:
            return [r for r in self.requests if r.origin == origin]

    def received(self, base: str, method: str | None = None, path: str | None = None) -> int:
        """How many requests `base` received (for `method path`, when given; a query in `path` must match too).

        A request to an unreachable upstream never reached it, so it is not counted.
        """
        origin = origin_of(base)
        wanted_method = _method(method) if method is not None else None
        wanted_path, wanted_query = _path(origin, path) if path is not None else (None, None)
        return sum(
            1
            for r in self.requests_to(origin)
            if r.reached
            and (wanted_method is None or r.method == wanted_method)
            and (wanted_path is None or r.path == wanted_path)
            and (wanted_query is None or r.query == wanted_query)
        )

    def _listing(self, origin: str) -> str:
        sent = self.requests_to(origin)
        if not sent:
            return f"It received no request at all (declared routes:\n{self.describe_routes()})"
        lines = "\n".join(f"  {n}. {r.describe()}" for n, r in enumerate(sent, 1))
        return f"Requests sent to {origin}, in order:\n{lines}"

    def assert_received(self, base: str, method: str, path: str, times: int) -> None:
        """`base` received `method path` exactly `times` times, or an AssertionError listing what it received.

        Like every assertion about the upstreams, it first reports any request no route matched (`check()`).
        """
        if times < 0:
            raise ValueError(f"a number of requests cannot be negative, got {times}")
        origin = origin_of(base)
        self.check()
        actual = self.received(origin, method, path)
        if actual != times:
            raise AssertionError(
                f"Expected the upstream {origin} to receive {_method(method)} {path} {_times(times)}, "
                f"but it received it {_times(actual)}. {self._listing(origin)}"
            )

    def assert_no_request(self, base: str) -> None:
        """`base` received no request at all (after reporting any request no route matched)."""
        origin = origin_of(base)
        self.check()
        actual = self.received(origin)
        if actual:
            raise AssertionError(
                f"Expected the upstream {origin} to receive no request, but it received {actual}. "
                f"{self._listing(origin)}"
            )

    # unmatched requests ----------------------------------------------------------------------------------

    def describe_routes(self) -> str:
        with self._lock:
            routes = list(self.routes)
        if not routes:
            return "  (none: no upstream route is declared in this scenario)"
        return "\n".join(f"  {n}. {route.describe()}" for n, route in enumerate(routes, 1))

    def take_unmatched(self) -> list[UpstreamRequest]:
        """The requests no route matched since the last call (and forget them)."""
        with self._lock:
            taken, self.unmatched = self.unmatched, []
        return taken

    def check(self) -> None:
        """Fail (AssertionError) when a request no route matches was sent since the last check.

        The World calls this after every exchange, so the step that made the call fails.
        """
        unmatched = self.take_unmatched()
        if not unmatched:
            return
        if len(unmatched) == 1:
            head = f"The server sent an upstream request that no route matches: {unmatched[0].describe_request()}"
        else:
            listed = "\n".join(f"  - {r.describe_request()}" for r in unmatched)
            head = f"The server sent {len(unmatched)} upstream requests that no route matches:\n{listed}"
        first = unmatched[0]
        path = first.path + ("?" + str(httpx.QueryParams(list(first.query))) if first.query else "")
        raise UnmatchedUpstreamRequest(
            f"{head}\n(the server was answered {UNMATCHED_STATUS} Bad Gateway)\n"
            f"Routes, tried in order on origin, method and exact path:\n{self.describe_routes()}\n"
            f'To answer it, add: Given the upstream "{first.origin}" answers {first.method} "{path}" '
            "with status 200 and: (a JSON doc string)"
        )


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


# -- the loopback server ------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    """One upstream origin, served on 127.0.0.1 from the shared route table."""

    daemon_threads = False  # handler threads are joined by server_close(): nothing outlives stop()
    block_on_close = True

    def __init__(self, upstream: Upstream, origin: str, hold: float, stopping: threading.Event) -> None:
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
        body = self._read_body()
        if body is None:
            return
        # Host is the loopback's; the request is recorded with its upstream's (as in-process)
        skipped = ("host", "content-length", "transfer-encoding")
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in skipped]
        request = httpx.Request(self.command, self.server.origin + self.path, headers=headers, content=body)
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
            self.server.shutdown()  # serve_forever returns
            self.server.server_close()  # the port closes; handler threads are joined
        if self.thread is not None:
            self.thread.join(timeout=10)
        if self.refusing is not None:
            self.refusing.close()


@dataclass
class _Listeners:
    """What a LoopbackServer holds, apart from itself (so a finalizer can stop it without keeping it alive)."""

    by_origin: dict[str, _Listener] = field(default_factory=dict)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            listeners, self.by_origin = list(self.by_origin.values()), {}
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
        server = _Server(self.upstream, origin, self.hold, self._state.stopping)
        port = server.server_address[1]
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"mcpbdd-upstream-{port}", daemon=True
        )
        thread.start()
        return _Listener(origin, f"http://127.0.0.1:{port}", server=server, thread=thread)

    @property
    def base_urls(self) -> dict[str, str]:
        """Upstream origin -> its loopback URL."""
        with self._state.lock:
            return {origin: listener.url for origin, listener in self._state.by_origin.items()}

    def environment(self) -> dict[str, str]:
        """What to add to the server's environment: `MCPBDD_UPSTREAM_<NAME>` per origin, and `MCPBDD_UPSTREAMS`."""
        urls = self.base_urls
        return {**{env_var(origin): url for origin, url in urls.items()}, ENV_ALL: jsonlib.dumps(urls)}

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
