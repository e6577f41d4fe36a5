"""An upstream the scenario never named gets the same verdict on every target.

In-process a request to an origin the scenario never named failed the step ("no route matches");
over stdio the same scenario passed, and a request through `upstream_base` reached a real listener
on 127.0.0.1. Now a server process under mcpbdd sends such a request to the loopback's catch-all
(`MCPBDD_UPSTREAMS_OTHER`), which records it in the scenario's route table: the step fails the same
way, and nothing reaches the listener.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator

import httpx
import pytest

from mcpbdd.kit.upstream import ENV_OTHER, LoopbackRoutes, upstream_base
from mcpbdd.scenario.world import World
from mcpbdd.upstream import LoopbackServer, Upstream
from mcpbdd.upstream.routes import UnmatchedUpstreamRequest

STDIO = f"stdio: {sys.executable} tests/servers.py fetcher"
TARGETS = [
    ("servers:fetcher", "context", None),
    ("servers:fetcher", "client", "auto"),
    ("servers:fetcher", "client", "legacy"),
    (STDIO, "client", "auto"),
]
IDS = ["context", "client", "client-legacy", "stdio"]


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A real listener on 127.0.0.1 that no scenario names: nothing may reach it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        sock.settimeout(0.5)
        yield sock


def _reached(sock: socket.socket) -> bool:
    try:
        connection, _ = sock.accept()
    except TimeoutError:
        return False
    connection.close()
    return True


@pytest.mark.parametrize(("server", "kind", "mode"), TARGETS, ids=IDS)
def test_a_request_to_an_unnamed_origin_fails_the_step_on_every_target(
    make_world: Callable[..., World], listener: socket.socket, server: str, kind: str, mode: str | None
) -> None:
    world = make_world(server=server, timeout=20)
    world.use_harness(kind, mode)
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        with pytest.raises(UnmatchedUpstreamRequest, match=f"no route matches: GET {base}/secrets"):
            world.call_tool("fetch", {"base": base, "path": "/secrets"})
    finally:
        world.close()
    assert not _reached(listener), "the request reached a listener the scenario never named"


def test_upstream_base_alone_reaches_the_doubles_over_stdio(
    make_world: Callable[..., World], listener: socket.socket
) -> None:
    """A server in a process that reads its base through `upstream_base` and builds its client without the doubles'
    transport (the kit's own example) still never reaches an origin the scenario did not name."""
    world = make_world(server=STDIO, timeout=20)
    world.use_harness("client", "auto")
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        with pytest.raises(UnmatchedUpstreamRequest, match=f"GET {base}/secrets"):
            world.call_tool("fetch", {"base": base, "path": "/secrets", "through_doubles": False})
    finally:
        world.close()
    assert not _reached(listener)


def test_the_catch_all_serves_a_later_route_and_records_with_the_origin() -> None:
    upstream = Upstream()
    with LoopbackServer(upstream) as loopback:
        env = loopback.environment()
        assert env[ENV_OTHER].startswith("http://127.0.0.1:")
        url = upstream_base("https://billing.example.com/api", env)
        assert url == f"{env[ENV_OTHER]}/https/billing.example.com/api"
        assert httpx.get(url + "/invoices?page=2").status_code == 502
        upstream.answer("https://billing.example.com", "GET", "/api/invoices", 200, {"n": 1})
        routes = LoopbackRoutes.from_environment(env)
        import asyncio

        async def fetch() -> httpx.Response:
            async with httpx.AsyncClient(transport=routes.transport()) as client:
                return await client.get("https://billing.example.com/api/invoices")

        assert asyncio.run(fetch()).json() == {"n": 1}
    assert [r.describe_request() for r in upstream.requests] == [
        "GET https://billing.example.com/api/invoices?page=2",
        "GET https://billing.example.com/api/invoices",
    ]
