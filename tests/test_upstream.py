"""Upstream doubles: the route table, the in-process transport, the loopback server, and the World's check.

The tests of this concern that start processes are in tests/spawning/test_upstream.py.
"""

from __future__ import annotations

import gc
import json
import re
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from processes import port_of, refused

from mcpbdd.examples.notes import mcp, notes_lifespan
from mcpbdd.harness import ContextHarness
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles, providing
from mcpbdd.kit.principals import Principal
from mcpbdd.kit.upstream import ENV_ALL, env_var, origin_of, upstream_base
from mcpbdd.model.config import Settings
from mcpbdd.model.kinds import HarnessKind
from mcpbdd.scenario.runtime import RunLoop
from mcpbdd.scenario.world import World
from mcpbdd.storage import InMemoryProvider, StorageService
from mcpbdd.upstream import NO_BODY, LoopbackServer, UnmatchedUpstreamRequest, Upstream

API = "https://api.example"


def send(upstream: Upstream, method: str, url: str, **kwargs: object) -> httpx.Response:
    """One request through the in-process transport (a sync client over the same MockTransport)."""
    with httpx.Client(transport=upstream.transport()) as client:  # type: ignore[arg-type]
        return client.request(method, url, **kwargs)  # type: ignore[arg-type]


# -- matching ------------------------------------------------------------------------------------------


def test_routes_match_in_the_order_they_were_declared() -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/items", 200, {"from": "first"})
    upstream.answer(API, "GET", "/items", 200, {"from": "second"})
    assert send(upstream, "GET", f"{API}/items").json() == {"from": "first"}
    assert send(upstream, "GET", f"{API}/items").json() == {"from": "first"}
    assert [r.route for r in upstream.requests] == [1, 1]


def test_a_once_route_answers_one_request_then_the_next_route_answers() -> None:
    upstream = Upstream()
    upstream.fail(API, "GET", "/items", 503, once=True)
    upstream.answer(API, "GET", "/items", 200, {"ok": True})
    assert send(upstream, "GET", f"{API}/items").status_code == 503
    assert send(upstream, "GET", f"{API}/items").json() == {"ok": True}
    assert send(upstream, "GET", f"{API}/items").json() == {"ok": True}
    assert [r.answer for r in upstream.requests] == ["fails with 503", "200", "200"]


def test_a_used_up_once_route_leaves_the_request_unmatched() -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/items", 200, [], once=True)
    assert send(upstream, "GET", f"{API}/items").status_code == 200
    second = send(upstream, "GET", f"{API}/items")
    assert second.status_code == 502 and second.headers["x-mcpbdd-unmatched"] == "true"
    with pytest.raises(UnmatchedUpstreamRequest, match="answers 200, once, already used"):
        upstream.check()


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.evil/items",  # the string-prefix trap
        "https://api.example.evil.com/items",
        "https://api.example@evil.example/items",  # userinfo: the host is evil.example
        "http://api.example/items",  # another scheme
        "https://api.example:8443/items",  # another port
        "https://sub.api.example/items",
    ],
)
def test_routes_match_the_whole_origin_never_a_prefix_of_the_url(url: str) -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/items", 200, {"ok": True})
    assert send(upstream, "GET", url).status_code == 502
    assert len(upstream.take_unmatched()) == 1


def test_an_origin_matches_whatever_way_it_is_written() -> None:
    upstream = Upstream()
    upstream.answer("HTTPS://API.Example:443/", "GET", "/items", 200, {"ok": True})
    assert send(upstream, "GET", "https://api.example/items").status_code == 200
    assert origin_of("https://API.example:443") == "https://api.example"
    assert origin_of("http://localhost:8080/") == "http://localhost:8080"


@pytest.mark.parametrize("path", ["/items/", "/items/1", "/item", "/", "/ITEMS", "/v1/items"])
def test_paths_match_exactly(path: str) -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/items", 200, {"ok": True})
    assert send(upstream, "GET", API + path).status_code == 502


def test_the_method_must_match() -> None:
    upstream = Upstream()
    upstream.answer(API, "get", "/items", 200, {"ok": True})  # written in lower case, still GET
    assert send(upstream, "GET", f"{API}/items").status_code == 200
    assert send(upstream, "POST", f"{API}/items").status_code == 502
    assert send(upstream, "HEAD", f"{API}/items").status_code == 502


def test_the_query_is_ignored_unless_the_route_names_one() -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/search?q=milk&page=1", 200, {"hit": "milk"})
    upstream.answer(API, "GET", "/search", 200, {"hit": "any"})
    assert send(upstream, "GET", f"{API}/search?page=1&q=milk").json() == {"hit": "milk"}  # any order
    assert send(upstream, "GET", f"{API}/search?q=eggs&page=1").json() == {"hit": "any"}
    assert send(upstream, "GET", f"{API}/search").json() == {"hit": "any"}
    assert upstream.received(API, "GET", "/search") == 3
    assert upstream.received(API, "GET", "/search?q=milk&page=1") == 1


def test_answers_carry_json_no_body_or_headers() -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/null", 200, None)
    upstream.answer(API, "DELETE", "/items/1", 204, NO_BODY)
    upstream.answer(API, "GET", "/h", 200, {"a": 1}, headers={"etag": '"v1"'})
    null = send(upstream, "GET", f"{API}/null")
    assert null.content == b"null" and null.headers["content-type"] == "application/json"
    assert send(upstream, "DELETE", f"{API}/items/1").content == b""
    assert send(upstream, "GET", f"{API}/h").headers["etag"] == '"v1"'


def test_a_failure_answers_its_status_with_a_small_json_error() -> None:
    upstream = Upstream()
    upstream.fail(API, "GET", "/items", 503)
    response = send(upstream, "GET", f"{API}/items")
    assert response.status_code == 503
    assert response.json() == {"error": "Service Unavailable", "status": 503}


@pytest.mark.anyio
async def test_a_time_out_and_an_unreachable_upstream_raise_what_httpx_raises() -> None:
    upstream = Upstream()
    upstream.time_out(API, "GET", "/slow")
    upstream.unreachable("https://down.example")
    async with httpx.AsyncClient(transport=upstream.transport()) as client:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout, match=re.escape("GET https://api.example/slow times out")):
            await client.get(f"{API}/slow")
        assert time.monotonic() - started < 1, "an in-process time-out is immediate"
        with pytest.raises(httpx.ConnectError, match=re.escape("https://down.example is unreachable")):
            await client.post("https://down.example/anything", json={})
    assert [r.answer for r in upstream.requests] == ["timed out", "unreachable"]
    assert upstream.received(API, "GET", "/slow") == 1
    assert upstream.received("https://down.example") == 0, "a refused connection never reached the upstream"
    upstream.check()  # both were matched


def test_every_request_is_recorded_with_what_it_got() -> None:
    upstream = Upstream()
    upstream.answer(API, "POST", "/items", 201, {"id": 7})
    send(upstream, "POST", f"{API}/items?dry=1", json={"name": "milk"}, headers={"authorization": "Bearer t"})
    send(upstream, "GET", f"{API}/other")
    first, second = upstream.requests
    assert (first.method, first.url, first.path) == ("POST", f"{API}/items?dry=1", "/items")
    assert first.query == (("dry", "1"),)
    assert json.loads(first.body) == {"name": "milk"} and ("authorization", "Bearer t") in first.headers
    assert (first.answer, first.route, first.matched) == ("201", 1, True)
    assert (second.answer, second.route, second.matched) == ("no route matches (502)", None, False)
    assert first.to_json()["body"] == '{"name":"milk"}'
    assert upstream.received(API) == 2 and upstream.received(API, "POST", "/items") == 1
    assert [r.url for r in upstream.requests_to(API)] == [f"{API}/items?dry=1", f"{API}/other"]


def test_check_names_the_unmatched_request_and_lists_the_routes_once() -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/items", 200, [])
    upstream.unreachable("https://down.example")
    send(upstream, "GET", f"{API}/items/9?full=1")
    with pytest.raises(UnmatchedUpstreamRequest) as raised:
        upstream.check()
    message = str(raised.value)
    assert "no route matches: GET https://api.example/items/9?full=1" in message
    assert (
        "  1. GET https://api.example/items → answers 200\n  2. https://down.example (any request) → is unreachable"
        in message
    )
    assert 'Given the upstream "https://api.example" answers GET "/items/9?full=1" with status 200' in message
    upstream.check()  # reported once: the next step does not fail for it again
    assert isinstance(raised.value, AssertionError)


def test_several_unmatched_requests_are_all_named() -> None:
    upstream = Upstream()
    send(upstream, "GET", f"{API}/a")
    send(upstream, "PUT", f"{API}/b")
    with pytest.raises(UnmatchedUpstreamRequest, match=r"sent 2 upstream requests") as raised:
        upstream.check()
    assert "  - GET https://api.example/a\n  - PUT https://api.example/b" in str(raised.value)
    assert "(none: no upstream route is declared in this scenario)" in str(raised.value)


def test_received_assertions_say_what_was_received() -> None:
    upstream = Upstream()
    upstream.fail(API, "GET", "/items", 503)
    send(upstream, "GET", f"{API}/items")
    upstream.assert_received(API, "GET", "/items", 1)
    with pytest.raises(AssertionError, match=r"to receive GET /items 2 times, but it received it once"):
        upstream.assert_received(API, "GET", "/items", 2)
    with pytest.raises(AssertionError, match=r"to receive no request, but it received 1"):
        upstream.assert_no_request(API)
    upstream.assert_no_request("https://elsewhere.example")


@pytest.mark.parametrize(
    ("base", "problem"),
    [
        ("api.example", "must be an http:// or https:// origin"),
        ("ftp://api.example", "must be an http:// or https:// origin"),
        ("https://api.example/v1", "must be an origin only"),
        ("https://api.example?x=1", "must be an origin only"),
        ("https://user@api.example", "must be an origin only"),
    ],
)
def test_an_upstream_that_is_not_an_origin_is_refused(base: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Upstream().answer(base, "GET", "/x", 200, {})


def test_bad_routes_are_refused_with_what_is_accepted() -> None:
    upstream = Upstream()
    with pytest.raises(ValueError, match="unknown HTTP method 'FETCH'"):
        upstream.fail(API, "FETCH", "/x", 503)
    with pytest.raises(ValueError, match="must start with '/'"):
        upstream.time_out(API, "GET", "x")
    with pytest.raises(ValueError, match="from 400 to 599, got 200"):
        upstream.fail(API, "GET", "/x", 200)
    with pytest.raises(ValueError, match="from 100 to 599"):
        upstream.answer(API, "GET", "/x", 700, {})
    assert upstream.routes == []


def test_environment_variable_names_and_the_base_a_server_reads() -> None:
    assert env_var("https://docs.example.com") == "MCPBDD_UPSTREAM_DOCS_EXAMPLE_COM"
    assert env_var("http://localhost:8080") == "MCPBDD_UPSTREAM_LOCALHOST_8080"
    assert env_var("https://api-v2.example.com:443") == "MCPBDD_UPSTREAM_API_V2_EXAMPLE_COM"
    environ = {"MCPBDD_UPSTREAM_DOCS_EXAMPLE_COM": "http://127.0.0.1:4000"}
    assert upstream_base("https://docs.example.com", environ) == "http://127.0.0.1:4000"
    assert upstream_base("https://docs.example.com/api", environ) == "http://127.0.0.1:4000/api"
    assert upstream_base("https://other.example", environ) == "https://other.example"


# -- the loopback server ------------------------------------------------------------------------------------


@pytest.fixture
def threads_before() -> Iterator[set[threading.Thread]]:
    before = set(threading.enumerate())
    yield before
    left = [t for t in threading.enumerate() if t not in before]
    assert not left, f"threads left running: {left}"


def test_the_loopback_server_serves_the_same_route_table(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "Plan"})
    upstream.fail("https://docs.example.com", "GET", "/documents/d-2", 503)
    upstream.answer("https://docs.example.com", "POST", "/search?q=milk", 200, {"hits": 1})
    upstream.answer("https://docs.example.com", "HEAD", "/documents/d-1", 200, {"ignored": True})
    with LoopbackServer(upstream) as loopback, httpx.Client(base_url=loopback.url_for("https://docs.example.com")) as c:
        got = c.get("/documents/d-1")
        assert (got.status_code, got.json()) == (200, {"title": "Plan"})
        assert c.get("/documents/d-2").status_code == 503
        assert c.post("/search", params={"q": "milk"}, json={"lang": "en"}).json() == {"hits": 1}
        head = c.head("/documents/d-1")
        assert head.status_code == 200 and head.content == b""
        unmatched = c.get("/documents/d-3")
        assert unmatched.status_code == 502 and "no upstream route matches" in unmatched.text
    assert [r.describe() for r in upstream.requests] == [
        "GET https://docs.example.com/documents/d-1 → 200",
        "GET https://docs.example.com/documents/d-2 → fails with 503",
        "POST https://docs.example.com/search?q=milk → 200",
        "HEAD https://docs.example.com/documents/d-1 → 200",
        "GET https://docs.example.com/documents/d-3 → no route matches (502)",
    ]
    search = upstream.requests[2]
    assert json.loads(search.body) == {"lang": "en"}
    assert ("host", "docs.example.com") in search.headers, "recorded with its upstream's host, as in-process"
    with pytest.raises(UnmatchedUpstreamRequest, match=re.escape("GET https://docs.example.com/documents/d-3")):
        upstream.check()


def test_the_loopback_server_hands_over_one_url_per_origin(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/a", 200, {})
    with LoopbackServer(upstream, bases=["http://localhost:8080"]) as loopback:
        env = loopback.environment()
        docs, local = env["MCPBDD_UPSTREAM_DOCS_EXAMPLE_COM"], env["MCPBDD_UPSTREAM_LOCALHOST_8080"]
        assert docs.startswith("http://127.0.0.1:") and local.startswith("http://127.0.0.1:") and docs != local
        assert json.loads(env[ENV_ALL]) == {"https://docs.example.com": docs, "http://localhost:8080": local}
        assert upstream_base("https://docs.example.com", env) == docs
        # a route for a new origin, after start: its URL opens on demand and the route applies at once
        upstream.answer("https://late.example", "GET", "/b", 200, {"late": True})
        assert httpx.get(loopback.url_for("https://late.example") + "/b").json() == {"late": True}


def test_two_schemes_of_one_host_would_share_a_variable_and_are_refused(threads_before: set[threading.Thread]) -> None:
    clash = "would share the variable MCPBDD_UPSTREAM_DOCS_EXAMPLE_COM"
    loopback = LoopbackServer(Upstream(), bases=["https://docs.example.com"])
    with loopback, pytest.raises(ValueError, match=clash):
        loopback.url_for("http://docs.example.com")


def test_a_route_that_times_out_holds_the_connection_until_the_client_gives_up(
    threads_before: set[threading.Thread],
) -> None:
    upstream = Upstream()
    upstream.time_out(API, "GET", "/slow")
    with LoopbackServer(upstream, hold=5) as loopback:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            httpx.get(loopback.url_for(API) + "/slow", timeout=0.3)
        assert time.monotonic() - started < 2
    assert upstream.received(API, "GET", "/slow") == 1


def test_a_hold_is_bounded_then_the_connection_closes_without_an_answer(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.time_out(API, "GET", "/slow")
    with LoopbackServer(upstream, hold=0.2) as loopback, pytest.raises(httpx.RemoteProtocolError):
        httpx.get(loopback.url_for(API) + "/slow", timeout=5)


def test_stopping_ends_a_hold_at_once(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.time_out(API, "GET", "/slow")
    loopback = LoopbackServer(upstream, hold=60).start()
    url = loopback.url_for(API) + "/slow"
    errors: list[BaseException] = []

    def call() -> None:
        try:
            httpx.get(url, timeout=30)
        except httpx.HTTPError as exc:
            errors.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    while not upstream.requests:
        time.sleep(0.01)
    started = time.monotonic()
    loopback.stop()
    assert time.monotonic() - started < 2, "stop() does not wait for the hold"
    caller.join(5)
    assert errors and isinstance(errors[0], httpx.RemoteProtocolError)


def test_an_upstream_unreachable_from_the_start_refuses_connections(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.unreachable("https://down.example")
    with LoopbackServer(upstream) as loopback:
        url = loopback.url_for("https://down.example")
        with pytest.raises(httpx.ConnectError):
            httpx.get(url + "/anything")
    assert upstream.received("https://down.example") == 0


def test_an_upstream_that_becomes_unreachable_drops_the_connection(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/items", 200, {"ok": True}, once=True)
    upstream.unreachable(API)
    with LoopbackServer(upstream) as loopback:
        url = loopback.url_for(API) + "/items"
        assert httpx.get(url).json() == {"ok": True}
        with pytest.raises(httpx.TransportError):
            httpx.get(url)
    assert [r.answer for r in upstream.requests] == ["200", "unreachable"]
    assert upstream.received(API, "GET", "/items") == 1


def test_stop_closes_every_port_and_joins_every_thread(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/a", 200, {})
    upstream.unreachable("https://down.example")
    loopback = LoopbackServer(upstream, bases=["https://more.example"]).start()
    ports = [port_of(url) for url in loopback.base_urls.values()]
    assert len(ports) == 3
    assert httpx.get(loopback.url_for(API) + "/a").status_code == 200
    assert any(t.name.startswith("mcpbdd-upstream-") for t in threading.enumerate())
    loopback.stop()
    loopback.stop()  # idempotent
    assert all(refused(port) for port in ports), "no port is left open"
    assert not [t for t in threading.enumerate() if t not in threads_before]
    with pytest.raises(RuntimeError, match="stopped"):
        loopback.start()


@pytest.mark.anyio
async def test_the_loopback_server_is_an_async_context_manager_too(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/a", 200, {"ok": True})
    async with LoopbackServer(upstream) as loopback, httpx.AsyncClient() as client:
        url = loopback.url_for(API)
        assert (await client.get(url + "/a")).json() == {"ok": True}
    assert refused(port_of(url))


def test_a_forgotten_loopback_server_stops_when_collected(threads_before: set[threading.Thread]) -> None:
    loopback = LoopbackServer(Upstream(), bases=[API]).start()
    port = port_of(loopback.url_for(API))
    del loopback
    gc.collect()
    assert refused(port)


# -- the example server and the World -------------------------------------------------------------------------


def doubles(upstream: Upstream | None) -> Doubles:
    """The scenario's doubles; without `upstream`, the default `NoUpstream`, which refuses every request."""
    clock = FrozenClock()
    storage = StorageService(InMemoryProvider(), clock)
    return Doubles(storage, clock) if upstream is None else Doubles(storage, clock, upstream)


@pytest.mark.anyio
async def test_the_notes_lifespan_builds_its_client_on_the_doubles_and_closes_it() -> None:
    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "T", "body": "B"})
    with providing(doubles(upstream)):
        lifespan = notes_lifespan(mcp)
        state = await lifespan.__aenter__()
    assert state.docs is not None
    assert (await state.docs.get("/documents/d-1")).json() == {"title": "T", "body": "B"}
    await lifespan.__aexit__(None, None, None)
    assert state.docs.is_closed


@pytest.mark.anyio
async def test_import_note_from_python_with_a_harness() -> None:
    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "T", "body": "B"})
    upstream.time_out("https://docs.example.com", "GET", "/documents/d-2")
    alice = Principal("alice", "acme")
    async with ContextHarness(mcp, doubles=doubles(upstream)) as harness:
        imported = await harness.call_tool(alice, "import_note", {"document_id": "d-1"})
        slow = await harness.call_tool(alice, "import_note", {"document_id": "d-2"})
    assert imported.ok and imported.structured["title"] == "T"
    assert not slow.ok and slow.structured["error"]["reason"] == "upstream_unavailable"
    assert slow.structured["error"]["retryable"] is True
    upstream.check()


@pytest.mark.anyio
async def test_a_server_given_doubles_without_an_upstream_never_reaches_the_network() -> None:
    async with ContextHarness(mcp, doubles=doubles(None)) as harness:
        outcome = await harness.call_tool(Principal("alice", "acme"), "import_note", {"document_id": "d-1"})
    assert outcome.structured["error"]["reason"] == "upstream_unavailable"


@pytest.mark.parametrize("harness", ["context", "client"])
def test_an_unmatched_request_fails_the_world_call_that_made_it(harness: str) -> None:
    run_loop = RunLoop()
    try:
        world = World(Settings(server="mcpbdd.examples.notes:mcp", harness=HarnessKind(harness)), run_loop.owner())
        world.add_user("alice", "acme")
        world.upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "T", "body": "B"})
        assert world.call_tool("import_note", {"document_id": "d-1"}).ok
        with pytest.raises(UnmatchedUpstreamRequest, match=re.escape("GET https://docs.example.com/documents/d-2")):
            world.call_tool("import_note", {"document_id": "d-2"})
        assert world.last.structured["error"]["reason"] == "upstream_unavailable", "the exchange is still recorded"
        assert world.call_tool("list_notes").ok, "reported once, the next call is not blamed for it"
        assert world.close() == []
    finally:
        run_loop.close()
