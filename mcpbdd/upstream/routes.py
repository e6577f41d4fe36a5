"""The upstream route table: the server's outbound HTTP, answered from one table per scenario.

A scenario declares what the services its server calls will answer:

    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "Plan"})
    upstream.fail("https://docs.example.com", "GET", "/documents/d-2", 503, once=True)
    upstream.time_out("https://docs.example.com", "POST", "/search")
    upstream.unreachable("https://billing.example.com")

and the server under test reaches that table in one of two ways:

- **in-process** (the context harness, the in-process client harness): the server's lifespan
  builds its `httpx.AsyncClient` with `transport=doubles.upstream.transport()` (see
  `mcpbdd.kit.doubles`). That transport is an `httpx.MockTransport` over the table: no sockets,
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

import json as jsonlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Literal

import httpx

from mcpbdd.kit.upstream import origin_of, origin_of_url
from mcpbdd.model import matching

__all__ = ["METHODS", "NO_BODY", "UNMATCHED_STATUS", "Route", "UnmatchedUpstreamRequest", "Upstream", "UpstreamRequest"]

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

UNMATCHED_STATUS = 502
"""What a request no route matches is answered (Bad Gateway: the double had nothing to send)."""


class _NoBody:
    def __repr__(self) -> str:
        return "NO_BODY"


NO_BODY: Any = _NoBody()
"""`answer(..., json=NO_BODY)`: an empty response body (JSON `null` is `json=None`)."""


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
        """A JSON-able record for the report (`mcpbdd.reporting.attachments.attach_upstream_requests`)."""
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
        origin, path, query = origin_of_url(url), url.path, _query(url)
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

    def assert_received_with(self, base: str, method: str, path: str, body: Any) -> None:
        """`base` received `method path` with a JSON body containing `body` (only the keys given; markers allowed).

        At least one such request must carry it; the failure shows each one's body and where it
        differs. A request with no body, or one that is not JSON, never matches.
        """
        origin = origin_of(base)
        self.check()
        wanted_method = _method(method)
        wanted_path, wanted_query = _path(origin, path)
        sent = [
            r
            for r in self.requests_to(origin)
            if r.reached
            and r.method == wanted_method
            and r.path == wanted_path
            and (wanted_query is None or r.query == wanted_query)
        ]
        if not sent:
            raise AssertionError(
                f"Expected the upstream {origin} to receive {wanted_method} {path} with a body, but it received "
                f"no such request. {self._listing(origin)}"
            )
        differences: list[str] = []
        for number, request in enumerate(sent, 1):
            try:
                actual = jsonlib.loads(request.body) if request.body else None
            except ValueError:
                differences.append(f"  {number}. its body is not JSON: {_clip(request.body)}")
                continue
            if actual is None and not request.body:
                differences.append(f"  {number}. it has no body")
                continue
            mismatches = matching.contains(body, actual)
            if not mismatches:
                return
            shown = matching.render(mismatches, limit=5).replace("\n", "\n       ")
            differences.append(f"  {number}. {_clip(request.body)}\n       {shown}")
        raise AssertionError(
            f"Expected the upstream {origin} to receive {wanted_method} {path} with a body containing "
            f"{jsonlib.dumps(body)}, but none of the {len(sent)} such request(s) does:\n" + "\n".join(differences)
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

    def held_after(self, count: int, timeout: float) -> str | None:
        """Why a call that timed out did: the held (`times out`) requests sent after the first `count`, or None.

        In-process a route that times out raises `httpx.ReadTimeout` at once; a server in another
        process gets a real connection held open, so it waits its own upstream timeout, and a
        call timeout shorter than that fails the call first (and costs it whole).
        """
        with self._lock:
            held = [r for r in self.requests[count:] if r.answer == "timed out"]
        if not held:
            return None
        named = ", ".join(r.describe_request() for r in held)
        return (
            f"the server was still waiting on {named}, which the scenario holds without an answer (times out): "
            f"over stdio or HTTP the server waits its own upstream timeout, longer here than the call timeout of "
            f"{timeout:g} s (in-process it gets httpx.ReadTimeout at once); make the server's upstream timeout "
            "shorter than the call timeout, or raise `timeout` under [tool.mcpbdd]"
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


def _clip(body: bytes, limit: int = 300) -> str:
    text = body.decode("utf-8", errors="replace")
    return text if len(text) <= limit else text[:limit] + "…"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"
