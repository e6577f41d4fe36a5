"""The one loopback HTTP stack (`mcpbdd._loopback_http.LoopbackHttp`): uvicorn in a thread, started and stopped cleanly.

Real sockets and real clients. What it promises: the URL listens when `serve()` returns; `stop()` closes
every port and every connection (idle, in a request, or an app that never returns, after its grace), joins
the thread and leaves the process's logging as it was; an app can drop a connection without an answer or
with a reset. The upstream loopback server's own limits (body size and deadline) and the fake
authorization server's answers are here too, since both moved onto it.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from processes import port_of, refused

from mcpbdd import _loopback_http
from mcpbdd._loopback_http import LoopbackHttp
from mcpbdd.authorization.server import FakeAuthorizationServer
from mcpbdd.upstream import LoopbackServer, Upstream, loopback

API = "https://api.example"


def new_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t not in before and t.is_alive()]


@pytest.fixture
def threads_before() -> Iterator[set[threading.Thread]]:
    before = set(threading.enumerate())
    yield before
    assert not new_threads(before), f"threads left running: {new_threads(before)}"


async def ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_url_listens_when_serve_returns_and_stop_closes_it_and_joins_the_thread(
    threads_before: set[threading.Thread],
) -> None:
    http = LoopbackHttp("test-loopback-http")
    urls = [http.serve(ok), http.serve(ok)]
    assert len({port_of(url) for url in urls}) == 2, "a port of its own per app"
    assert all(httpx.get(url + "/x").text == "ok" for url in urls)
    assert [t.name for t in new_threads(threads_before)] == ["test-loopback-http"], "one thread for every app"
    http.stop()
    http.stop()  # idempotent
    assert all(refused(port_of(url)) for url in urls)
    assert http.connections == 0 and not new_threads(threads_before)
    with pytest.raises(RuntimeError, match="was stopped; start a new one"):
        http.serve(ok)


def test_a_thread_left_running_is_seen() -> None:
    """The leak check above fails when a server is not stopped (then this test stops it)."""
    before = set(threading.enumerate())
    http = LoopbackHttp("test-forgotten")
    try:
        http.serve(ok)
        assert [t.name for t in new_threads(before)] == ["test-forgotten"]
    finally:
        http.stop()


def test_stop_closes_an_idle_keep_alive_connection_at_once(threads_before: set[threading.Thread]) -> None:
    http = LoopbackHttp("test-keep-alive")
    with httpx.Client() as client:
        url = http.serve(ok)
        assert client.get(url).text == "ok"
        assert http.connections == 1, "the client keeps its connection open"
        started = time.monotonic()
        http.stop()
        assert time.monotonic() - started < 0.5, "uvicorn's own shutdown waits at least 100 ms; this one does not"
        assert http.connections == 0


def test_a_request_waiting_on_stopping_ends_when_stop_begins(threads_before: set[threading.Thread]) -> None:
    http = LoopbackHttp("test-stopping")
    waiting = threading.Event()

    async def waits(scope: Any, receive: Any, send: Any) -> None:
        waiting.set()
        await http.stopping.wait()
        await send({"type": "http.response.start", "status": 503, "headers": []})
        await send({"type": "http.response.body", "body": b"stopping"})

    url = http.serve(waits)
    answers: list[httpx.Response] = []
    caller = threading.Thread(target=lambda: answers.append(httpx.get(url, timeout=10)))
    caller.start()
    assert waiting.wait(5)
    started = time.monotonic()
    http.stop()
    caller.join(5)
    assert time.monotonic() - started < 1
    assert [(a.status_code, a.text) for a in answers] == [(503, "stopping")], "an answer in progress is finished"


def test_an_app_that_never_returns_is_dropped_after_the_grace(threads_before: set[threading.Thread]) -> None:
    http = LoopbackHttp("test-stubborn")
    waiting = threading.Event()

    async def stubborn(scope: Any, receive: Any, send: Any) -> None:
        waiting.set()
        await asyncio.sleep(3600)

    url = http.serve(stubborn)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            httpx.get(url, timeout=10)
        except httpx.HTTPError as exc:
            errors.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    assert waiting.wait(5)
    started = time.monotonic()
    http.stop(grace=0.2)
    caller.join(5)
    assert 0.2 <= time.monotonic() - started < 2
    assert errors and isinstance(errors[0], httpx.RemoteProtocolError), errors
    assert http.connections == 0


@pytest.mark.parametrize(("reset", "error"), [(False, httpx.RemoteProtocolError), (True, httpx.ReadError)])
def test_an_app_drops_its_connection_without_an_answer_or_with_a_reset(
    threads_before: set[threading.Thread], reset: bool, error: type[Exception], caplog: pytest.LogCaptureFixture
) -> None:
    http = LoopbackHttp("test-drop")

    async def drops(scope: Any, receive: Any, send: Any) -> None:
        await http.drop(scope, reset=reset)

    try:
        url = http.serve(drops)
        with caplog.at_level(logging.ERROR), pytest.raises(error):
            httpx.get(url)
    finally:
        http.stop()
    assert not caplog.records, "no 500 and no 'returned without starting response' from uvicorn"


def test_serving_leaves_the_logging_configuration_alone_and_logs_no_request(
    threads_before: set[threading.Thread], caplog: pytest.LogCaptureFixture
) -> None:
    loggers = [logging.getLogger(name) for name in ("uvicorn", "uvicorn.error", "uvicorn.access")]
    before = [(lg.level, list(lg.handlers), lg.propagate) for lg in loggers]
    http = LoopbackHttp("test-logging")
    try:
        with caplog.at_level(logging.DEBUG):
            assert httpx.get(http.serve(ok)).text == "ok"
    finally:
        http.stop()
    assert [(lg.level, list(lg.handlers), lg.propagate) for lg in loggers] == before
    assert not [r for r in caplog.records if r.name.startswith("uvicorn")], "no access line per request"


def test_serve_and_stop_from_the_loop_thread_itself_are_refused(threads_before: set[threading.Thread]) -> None:
    http = LoopbackHttp("test-reentry")
    seen: list[str] = []

    async def reenters(scope: Any, receive: Any, send: Any) -> None:
        try:
            http.serve(ok)
        except RuntimeError as exc:
            seen.append(str(exc))
        await ok(scope, receive, send)

    try:
        assert httpx.get(http.serve(reenters)).text == "ok"
    finally:
        http.stop()
    assert seen == ["test-reentry: serve() and stop() are called from outside the loop's thread"]


# the upstream loopback server's limits ----------------------------------------------------------------------


@pytest.fixture
def upstream_url(threads_before: set[threading.Thread]) -> Iterator[tuple[Upstream, str]]:
    upstream = Upstream()
    upstream.answer(API, "POST", "/upload", 200, {"ok": True})
    with LoopbackServer(upstream) as server:
        yield upstream, server.url_for(API) + "/upload"


def test_a_body_over_the_limit_is_refused_413_by_its_declared_length(
    upstream_url: tuple[Upstream, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream, url = upstream_url
    monkeypatch.setattr(loopback, "MAX_BODY", 1000)
    assert httpx.post(url, content=b"x" * 1000).status_code == 200
    too_big = httpx.post(url, content=b"x" * 1001)
    assert too_big.status_code == 413 and "a body over 1000 bytes" in too_big.text
    assert upstream.received(API, "POST", "/upload") == 1, "a refused body is not a request the upstream saw"


def test_a_chunked_body_over_the_limit_is_refused_413_as_it_arrives(
    upstream_url: tuple[Upstream, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream, url = upstream_url
    monkeypatch.setattr(loopback, "MAX_BODY", 1000)
    chunks = iter([b"x" * 600, b"x" * 600])  # no length: sent chunked
    assert httpx.post(url, content=chunks).status_code == 413
    assert upstream.received(API, "POST", "/upload") == 0


def test_a_body_that_stalls_is_answered_408_at_the_deadline(
    upstream_url: tuple[Upstream, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream, url = upstream_url
    monkeypatch.setattr(loopback, "BODY_DEADLINE", 0.3)
    port = port_of(url)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\nabc")  # 7 bytes never come
        started = time.monotonic()
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408 ") and time.monotonic() - started < 3
    assert upstream.received(API) == 0


def test_headers_over_the_limit_are_refused_431(
    upstream_url: tuple[Upstream, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream, url = upstream_url
    monkeypatch.setattr(loopback, "MAX_HEADERS", 2000)
    assert httpx.post(url, headers={"x-big": "y" * 1000}).status_code == 200
    answer = httpx.post(url, headers={"x-big": "y" * 2000})
    assert answer.status_code == 431 and "request headers over 2000 bytes" in answer.text
    assert upstream.received(API) == 1


# the fake authorization server ------------------------------------------------------------------------------


def test_the_fake_authorization_server_answers_json_for_what_it_does_not_serve(
    threads_before: set[threading.Thread],
) -> None:
    fake = FakeAuthorizationServer()
    try:
        assert httpx.get(fake.metadata_url).headers["cache-control"] == "no-store"
        missing = httpx.get(fake.issuer + "/authorize")
        assert missing.status_code == 404
        assert missing.json()["error_description"] == "the fake authorization server has no /authorize"
        token = httpx.post(fake.issuer + "/token", data={"grant_type": "client_credentials"})
        assert (token.status_code, token.json()["error"]) == (400, "unsupported_grant_type")
        assert httpx.delete(fake.jwks_url).status_code == 405
        assert httpx.get(fake.jwks_url + "/").status_code == 404, "no redirect to the document"
        assert httpx.get(fake.jwks_url + "?x=1").json() == fake.jwks(), "a query changes nothing"
    finally:
        fake.stop()
    assert refused(port_of(fake.issuer))


def test_the_stop_grace_is_a_few_seconds() -> None:
    assert 1 <= _loopback_http.STOP_GRACE <= 10


def raw_request(url: str, head: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=5) as sock:
        sock.sendall(head)
        return sock.recv(4096).split(b"\r\n", 1)[0]


def test_a_target_that_is_not_a_path_under_the_origin_is_refused_400(threads_before: set[threading.Thread]) -> None:
    upstream = Upstream()
    with LoopbackServer(upstream, bases=[API]) as server:
        named, other = server.url_for(API), server.other_url
        assert other is not None
        absolute = b"GET http://evil.example/x HTTP/1.1\r\nhost: x\r\n\r\n"
        assert raw_request(named, absolute) == raw_request(other, absolute) == b"HTTP/1.1 400 Bad Request"
        not_web = b"GET /ftp/host/x HTTP/1.1\r\nhost: x\r\n\r\n"
        assert raw_request(other, not_web) == b"HTTP/1.1 400 Bad Request", "the catch-all takes http(s) only"
        kept = b"GET /https/other.example/a%2F..?q=1 HTTP/1.1\r\nhost: x\r\n\r\n"
        assert raw_request(other, kept) == b"HTTP/1.1 502 Bad Gateway"
    assert [r.url for r in upstream.requests] == ["https://other.example/a%2F..?q=1"], "recorded as sent, not decoded"
