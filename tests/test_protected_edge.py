"""The protected edge fails closed, tried as an attacker would: every path, method, mount, root path and kind of
ASGI scope, with every kind of missing or bad credential, against the app `protect()` wraps.

The app behind the edge is a catch-all that records every request reaching it (`Recorder`), so a request
the edge let through is seen, whatever route it took. The deployments are the ones servers meet: the app
served at the root, mounted under `/notes` (`Mount`), and served under a root path (uvicorn's `root_path`
puts it in front of the path, as here). The tokens are real (the run's fake authorization server signs
them; the production verifier checks them). tests/spawning/test_protected_deployments.py serves the example
server so, in processes, behind a real nginx.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import Message, Receive, Scope, Send

from mcpbdd.authorization.server import fake_authorization_server
from mcpbdd.authorization.tokens import TokenSpec, mint
from mcpbdd.kit.auth import mount_test_auth
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.jwks import JwksVerifier
from mcpbdd.kit.protected import ENV_ISSUER, ENV_JWKS, authorization_server, protect
from mcpbdd_kit.protected import called_tools  # not in the module's __all__ (nor its stub under the old name)

RESOURCE = "https://notes.example.test/mcp"
METADATA = "/.well-known/oauth-protected-resource/mcp"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
METHODS = ["GET", "POST", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH", "TRACE", "CONNECT", "PROPFIND", "get"]
PREFIX = "/notes"


class Recorder:
    """The app behind the edge: answers 200 to anything, and remembers what reached it (method, path, body)."""

    def __init__(self) -> None:
        self.reached: list[tuple[str, str, bytes]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            self.reached.append((scope["type"], scope.get("path", ""), b""))
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.reached.append((scope["method"], scope["path"], body))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"reached"})


def _token(*, scopes: tuple[str, ...] = ("notes:write",), **changes: Any) -> str:
    start = NOW.timestamp()
    spec = TokenSpec("alice", "acme", scopes, "client-1", start, start + 3600)
    spec = spec.spoilt("hostile", **changes) if changes else spec
    return mint(spec, resource=RESOURCE, issuer=fake_authorization_server().issuer)


def _edge(recorder: Recorder, **options: Any) -> Starlette:
    fake = fake_authorization_server()
    verifier = JwksVerifier(fake.jwks_url, issuer=fake.issuer, audience=RESOURCE, clock=FrozenClock(NOW))
    app = Starlette(routes=[Mount("/", app=recorder)])  # a catch-all: it would shadow any route added after it
    edge: Starlette = protect(
        app,
        verifier,
        resource_url=RESOURCE,
        authorization_servers=[fake.issuer],
        tool_scopes={"delete_note": ("notes:delete",), "create_note": ("notes:write",)},
        **options,
    )
    return edge


RECORDER = Recorder()
EDGE = _edge(RECORDER)
MOUNTED = Starlette(routes=[Mount(PREFIX, app=EDGE)])
DEPLOYMENTS = {
    "root": (EDGE, "", ""),
    "mount": (MOUNTED, "", PREFIX),
    "root_path": (EDGE, PREFIX, PREFIX),
    "mount under a root path": (MOUNTED, "/api", "/api" + PREFIX),
}
"""(app, root_path, path prefix): the app at the root, mounted, under a root path, and both."""


def _scope(kind: str, method: str, path: str, root_path: str, headers: Sequence[tuple[bytes, bytes]]) -> Scope:
    return {
        "type": kind,
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": quote(path, safe="/%").encode("ascii"),
        "root_path": root_path,
        "query_string": b"",
        "headers": list(headers),
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }


async def _call(app: Any, scope: Scope, chunks: Sequence[bytes] = (b"",)) -> list[Message]:
    pending = [
        {"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1} for n, chunk in enumerate(chunks)
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


def _request(
    deployment: str, method: str, suffix: str, headers: Sequence[tuple[bytes, bytes]], chunks: Sequence[bytes] = (b"",)
) -> tuple[int, dict[bytes, bytes], bool]:
    """(status, headers, whether the app behind the edge was reached) for one HTTP request."""
    app, root_path, prefix = DEPLOYMENTS[deployment]
    before = len(RECORDER.reached)
    sent = anyio.run(_call, app, _scope("http", method, prefix + suffix, root_path, headers), chunks)
    start = next(message for message in sent if message["type"] == "http.response.start")
    return start["status"], dict(start["headers"]), len(RECORDER.reached) > before


def _public(method: str, suffix: str) -> bool:
    """The spec's one public document: the RFC 9728 metadata, exactly its path, read (or CORS-preflighted)."""
    return method in ("GET", "HEAD", "OPTIONS") and suffix == METADATA


SEGMENTS = st.one_of(
    st.sampled_from(["mcp", "MCP", ".well-known", "oauth-protected-resource", "..", ".", "", "%2e", "%2F", "notes"]),
    # Control characters aside: a Mount's pattern does not match a newline, so the app around it answers 404
    # before the edge is involved (the edge never sees the request, which the assertions could not tell apart).
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=6),
)
SUFFIXES = st.one_of(
    st.lists(SEGMENTS, max_size=5).map(lambda parts: "/" + "/".join(parts)),
    st.sampled_from(
        [METADATA, METADATA + "/", METADATA.upper(), "/" + METADATA, METADATA + "%00", "/mcp", "/mcp/", "/", "//mcp"]
    ),
)
BAD_TOKENS = [
    None,
    b"Bearer",
    b"Bearer ",
    b"Basic YWxpY2U6c2VjcmV0",
    b"Bearer not-a-jwt",
    b"Bearer " + _token(expires_at=NOW.timestamp() - 120).encode(),
    b"Bearer " + _token(audience=RESOURCE + ".evil").encode(),
    b"Bearer " + _token(issuer="https://login.evil.example").encode(),
    b"Bearer " + _token(signing="none").encode(),
    b"Bearer " + _token(signing="hmac-public-key").encode(),
    b"Bearer " + _token(signing="stranger").encode(),
    b"Bearer " + _token(padding=9000).encode(),
    b"Bearer mcpbdd:acme:alice:notes:write,notes:delete",  # the test token: never accepted by a production edge
]
CREDENTIALS = st.one_of(
    st.sampled_from(BAD_TOKENS),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40).map(lambda t: b"Bearer " + t.encode()),
)


def _auth(credential: bytes | None) -> list[tuple[bytes, bytes]]:
    return [] if credential is None else [(b"authorization", credential)]


# 401: every request without an accepted token -----------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(list(DEPLOYMENTS)), st.sampled_from(METHODS), SUFFIXES, CREDENTIALS)
def test_every_request_without_an_accepted_token_is_refused_401(
    deployment: str, method: str, suffix: str, credential: bytes | None
) -> None:
    status, headers, reached = _request(deployment, method, suffix, _auth(credential))
    assert not reached, f"{method} {suffix} reached the app under the {deployment} deployment without a token"
    if _public(method, suffix):
        assert status == 200
        return
    assert status == 401, (deployment, method, suffix, status)
    challenge = headers[b"www-authenticate"].decode()
    assert challenge.startswith(f'Bearer resource_metadata="https://notes.example.test{METADATA}"')
    assert ('error="invalid_token"' in challenge) == (credential is not None)


@pytest.mark.parametrize("deployment", list(DEPLOYMENTS))
def test_the_metadata_is_public_and_names_the_resource(deployment: str) -> None:
    app, root_path, prefix = DEPLOYMENTS[deployment]
    sent = anyio.run(_call, app, _scope("http", "GET", prefix + METADATA, root_path, []))
    document = json.loads(b"".join(message.get("body", b"") for message in sent))
    assert document["resource"] == RESOURCE and document["scopes_supported"] == ["notes:delete", "notes:write"]


# 403: a token without the scope, whatever carries the call ---------------------------------------------


def _call_of(tool: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}}}


DELETE = json.dumps(_call_of("delete_note"))
BODIES = {
    "plain": DELETE.encode(),
    "byte-order mark": b"\xef\xbb\xbf" + DELETE.encode(),
    "UTF-16": DELETE.encode("utf-16"),
    "batch": json.dumps([_call_of("list_notes"), _call_of("delete_note")]).encode(),
    "duplicate name": DELETE.replace('"name": "delete_note"', '"name": "list_notes", "name": "delete_note"').encode(),
    "escaped": DELETE.replace("tools/call", "tools\\/call").replace("delete", "\\u0064elete").encode(),
    "padded": b" \n\t" + DELETE.encode() + b"\n ",
}


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(list(DEPLOYMENTS)),
    st.sampled_from(METHODS),
    SUFFIXES.filter(lambda suffix: suffix != METADATA),
    st.sampled_from(list(BODIES)),
    st.integers(min_value=1, max_value=7),
)
def test_a_gated_tool_without_its_scope_is_refused_403_however_it_is_sent(
    deployment: str, method: str, suffix: str, body: str, pieces: int
) -> None:
    whole = BODIES[body]
    size = -(-len(whole) // pieces)
    chunks = [whole[n : n + size] for n in range(0, len(whole), size)]
    status, headers, reached = _request(deployment, method, suffix, _auth(b"Bearer " + _token().encode()), chunks)
    assert (status, reached) == (403, False), (deployment, method, suffix, body)
    assert b'error="insufficient_scope", scope="notes:delete"' in headers[b"www-authenticate"]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(list(DEPLOYMENTS)), st.sampled_from(METHODS), SUFFIXES.filter(lambda s: s != METADATA))
def test_a_token_with_the_scope_reaches_the_app_with_its_body_intact(deployment: str, method: str, suffix: str) -> None:
    token = _token(scopes=("notes:write", "notes:delete"))
    status, _, reached = _request(deployment, method, suffix, _auth(b"Bearer " + token.encode()), [DELETE.encode()])
    assert (status, reached) == (200, True)
    assert RECORDER.reached[-1][2] == DELETE.encode()


def test_the_gate_reads_what_either_of_the_sdks_parsers_reads() -> None:
    for name, body in BODIES.items():
        assert called_tools(body) == ({"list_notes", "delete_note"} if name == "batch" else {"delete_note"}), name
    assert called_tools(b"[" * 100_000) == set() and called_tools(b"\xff\xfe{") == set()


# bounded bodies ----------------------------------------------------------------------------------------


def test_a_body_past_the_cap_is_refused_413_unread_and_one_that_never_ends_408() -> None:
    recorder = Recorder()
    app = _edge(recorder, max_body=1024, body_timeout=0.3)
    headers = _auth(b"Bearer " + _token().encode())
    sent = anyio.run(_call, app, _scope("http", "POST", "/mcp", "", headers), [b"x" * 600, b"x" * 600, b"tail"])
    assert sent[0]["status"] == 413

    async def trickle() -> list[Message]:
        sent: list[Message] = []
        first = True

        async def receive() -> Message:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b"{", "more_body": True}
            await anyio.sleep_forever()
            raise AssertionError("unreachable")

        async def send(message: Message) -> None:
            sent.append(message)

        with anyio.fail_after(10):
            await app(_scope("http", "POST", "/mcp", "", headers), receive, send)
        return sent

    assert anyio.run(trickle)[0]["status"] == 408
    assert recorder.reached == []


# other kinds of scope -------------------------------------------------------------------------------------


@pytest.mark.parametrize("credential", [None, b"Bearer " + _token(scopes=("notes:write", "notes:delete")).encode()])
@pytest.mark.parametrize("deployment", list(DEPLOYMENTS))
def test_a_websocket_is_refused_with_or_without_a_token(deployment: str, credential: bytes | None) -> None:
    app, root_path, prefix = DEPLOYMENTS[deployment]
    before = len(RECORDER.reached)
    scope = _scope("websocket", "GET", prefix + "/mcp", root_path, _auth(credential))
    sent = anyio.run(_call, app, scope)
    assert sent[0]["type"] == "websocket.close" and len(RECORDER.reached) == before


def test_a_lifespan_passes_through_to_the_app() -> None:
    started: list[str] = []

    async def lifespan(app: Starlette) -> Any:
        started.append("up")
        yield

    app = Starlette(lifespan=asynccontextmanager(lifespan))
    fake = fake_authorization_server()
    verifier = JwksVerifier(fake.jwks_url, issuer=fake.issuer, audience=RESOURCE)
    protect(app, verifier, resource_url=RESOURCE, authorization_servers=[fake.issuer])
    messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[Message] = []

    async def receive() -> Message:
        return messages.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    anyio.run(app, {"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    assert started == ["up"]
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


def test_a_scope_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(RuntimeError, match="refuses an ASGI scope of type 'webtransport'"):
        anyio.run(_call, EDGE, _scope("webtransport", "GET", "/mcp", "", []))


# test-only switches are loud --------------------------------------------------------------------------------


def test_an_authorization_server_redirected_by_the_environment_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    env = {ENV_ISSUER: "http://127.0.0.1:9", ENV_JWKS: "http://127.0.0.1:9/jwks.json"}
    with caplog.at_level(logging.WARNING, logger="mcpbdd.kit.protected"):
        assert authorization_server("https://login.example.com", "https://login.example.com/jwks", env) == (
            "http://127.0.0.1:9",
            "http://127.0.0.1:9/jwks.json",
        )
        assert authorization_server("https://login.example.com", "https://login.example.com/jwks", {})
    assert len(caplog.records) == 1
    assert f"{ENV_ISSUER}=http://127.0.0.1:9, {ENV_JWKS}=http://127.0.0.1:9/jwks.json" in caplog.text
    assert "unset them in production" in caplog.text


def test_mounting_test_authentication_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcpbdd.kit.auth"):
        mount_test_auth(Starlette())
    assert "anyone can sign in as anyone" in caplog.text
