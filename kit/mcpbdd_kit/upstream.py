"""Where a server sends its outbound HTTP: its production URL, or the scenario's loopback double.

What a production server imports from mcpbdd's upstream doubles, and nothing more:
`upstream_base("https://docs.example.com")` is that URL itself in production and the
scenario's loopback server (`mcpbdd.upstream.LoopbackServer`) when mcpbdd started the
server in another process and named the double in its environment:

    https://docs.example.com       -> MCPBDD_UPSTREAM_DOCS_EXAMPLE_COM=http://127.0.0.1:41234
    http://localhost:8080          -> MCPBDD_UPSTREAM_LOCALHOST_8080=http://127.0.0.1:41235
    every origin, as one JSON map  -> MCPBDD_UPSTREAMS={"https://docs.example.com": "http://127.0.0.1:41234", ...}
    any other origin               -> MCPBDD_UPSTREAMS_OTHER=http://127.0.0.1:41236

An origin the scenario never named is not the network's either: under mcpbdd `upstream_base` and the
loopback routes send it to the loopback's catch-all (`http://127.0.0.1:41236/https/other.example/path`),
which records it and answers 502, so the scenario fails "no route matches", as it does in-process.

In such a process `scenario_doubles().upstream` is a `LoopbackRoutes`: its `transport()` sends each
request for a named origin to that origin's loopback URL, so a lifespan written for the in-process
case (`httpx.AsyncClient(transport=doubles.upstream.transport())`) works unchanged there.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping

import httpx

__all__ = [
    "ENV_ALL",
    "ENV_OTHER",
    "ENV_PREFIX",
    "LoopbackRoutes",
    "env_var",
    "origin_of",
    "origin_of_url",
    "other_origin_url",
    "upstream_base",
]

ENV_PREFIX = "MCPBDD_UPSTREAM_"
"""`MCPBDD_UPSTREAM_<HOST>[_<PORT>]`: one variable per upstream origin, holding its loopback URL."""
ENV_ALL = "MCPBDD_UPSTREAMS"
"""Every upstream origin and its loopback URL, as one JSON object."""
ENV_OTHER = "MCPBDD_UPSTREAMS_OTHER"
"""The loopback's catch-all: where a request for an origin the scenario did not name goes (never the network).
Not an `ENV_PREFIX` name: no host's variable can be it."""


logger = logging.getLogger("mcpbdd.kit.upstream")
_announced: set[tuple[str, str]] = set()


def _announce(variable: str, value: str) -> None:
    """Say once per process that an upstream is redirected by the environment (a test switch, loud in production)."""
    if (variable, value) not in _announced:
        _announced.add((variable, value))
        logger.warning(
            "outbound calls are redirected by the environment (%s=%s) to a scenario's loopback double: only mcpbdd "
            "sets this, for a test run; unset it in production",
            variable,
            value,
        )


def other_origin_url(catch_all: str, url: httpx.URL) -> httpx.URL:
    """`url` (of an origin the scenario did not name) as a request to the catch-all: `/<scheme>/<host[:port]>/path`."""
    origin = httpx.URL(origin_of_url(url))
    host = origin.raw_host.decode("ascii")
    host = f"[{host}]" if ":" in host else host
    where = f"{host}:{origin.port}" if origin.port is not None else host
    target = httpx.URL(catch_all.rstrip("/") + f"/{origin.scheme}/{where}")
    return target.copy_with(raw_path=target.raw_path.rstrip(b"/") + url.raw_path)


def origin_of_url(url: httpx.URL) -> str:
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
    return origin_of_url(url)


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
    variable = env_var(origin_of_url(url))
    loopback = env.get(variable)
    if not loopback:
        catch_all = env.get(ENV_OTHER)
        if not catch_all:
            return base  # not under mcpbdd (production), or an older mcpbdd: the base itself
        _announce(ENV_OTHER, catch_all)
        target = str(other_origin_url(catch_all, url))
        return target.rstrip("/") if not base.endswith("/") else target
    _announce(variable, loopback)
    path = url.raw_path.decode("ascii")
    return loopback.rstrip("/") + ("" if path == "/" and not base.endswith("/") else path)


class LoopbackRoutes:
    """The scenario's upstream doubles as a server process sees them: its origins served on loopback.

    `transport()` rewrites a request for a named origin to that origin's loopback URL (path and
    query kept) and lets a request already aimed at a loopback URL through. A request for any
    other origin goes to the loopback's catch-all (`ENV_OTHER`), which records it and answers 502,
    so the scenario fails "no route matches" as in-process; without a catch-all it is refused with
    `httpx.ConnectError` naming it. A server under test never reaches the real network behind a
    scenario's back (name the origin in a step, or list it under `upstreams` in `[tool.mcpbdd]`).
    """

    def __init__(self, urls: Mapping[str, str], other: str | None = None) -> None:
        self.urls = {origin_of(origin): url.rstrip("/") for origin, url in urls.items()}
        self.other = other.rstrip("/") if other else None
        """The catch-all loopback URL, for origins not in `urls` (None: refuse them)."""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> LoopbackRoutes:
        """The origins mcpbdd named in this process's environment (`MCPBDD_UPSTREAMS`; none when unset)."""
        env = os.environ if environ is None else environ
        for variable in (ENV_ALL, ENV_OTHER):
            if env.get(variable):
                _announce(variable, env[variable])
        return cls(json.loads(env.get(ENV_ALL) or "{}"), env.get(ENV_OTHER) or None)

    def transport(self) -> httpx.AsyncBaseTransport:
        """An httpx transport that sends every request to its origin's loopback double."""
        return _LoopbackTransport(self.urls, self.other)

    def __repr__(self) -> str:
        return f"LoopbackRoutes({self.urls!r})"


class _LoopbackTransport(httpx.AsyncBaseTransport):
    def __init__(self, urls: Mapping[str, str], other: str | None = None) -> None:
        self._urls = dict(urls)
        self._other = other
        self._loopbacks = {origin_of(url) for url in [*self._urls.values(), *([other] if other else [])]}
        # Built at the first request: an `AsyncHTTPTransport` loads the system's CA bundle (~15-60 ms), and most
        # lifespans that build a client over these routes never send anything (every scenario pays it otherwise).
        self._inner: httpx.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        origin = origin_of_url(request.url)
        if origin not in self._loopbacks:
            loopback = self._urls.get(origin)
            if loopback is None and self._other is not None:
                request.url = other_origin_url(self._other, request.url)
                request.headers["host"] = request.url.netloc.decode("ascii")
            elif loopback is None:
                named = ", ".join(self._urls) or "none"
                raise httpx.ConnectError(
                    f"mcpbdd: the scenario has no upstream double for {origin} (it names: {named}); "
                    "name it in a step, or list it under upstreams in [tool.mcpbdd]",
                    request=request,
                )
            else:
                target = httpx.URL(loopback)
                request.url = request.url.copy_with(scheme=target.scheme, host=target.host, port=target.port)
                request.headers["host"] = f"{target.host}:{target.port}"
        if self._inner is None:
            self._inner = httpx.AsyncHTTPTransport()
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
