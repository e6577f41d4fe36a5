"""The protected edge attacked through what an ASGI server hands it but a client cannot write on the wire: a
`raw_path` that disagrees with `path`, HTTP/2 and HTTP/3 scopes, and a refused token's text looked for everywhere
it could leak (the answer's body and headers, every log record). tests/spawning/test_protected_deployments.py
attacks the same door with raw bytes on real sockets, behind uvicorn and nginx.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time

import anyio
import pytest
import uvicorn
from starlette.types import Scope
from test_protected_edge import EDGE, METADATA, NOW, RECORDER, RESOURCE, Recorder, _call, _edge, _scope, _token

from mcpbdd.kit.protected import MAX_GATED_BODY

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_note","arguments":{}}}'


def _answer(scope: Scope, body: bytes = b"") -> tuple[int, dict[bytes, bytes], bytes, bool]:
    """(status, headers, body, whether the app behind the edge was reached)."""
    before = len(RECORDER.reached)
    sent = anyio.run(_call, EDGE, scope, (body,))
    start = next(message for message in sent if message["type"] == "http.response.start")
    answer = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), answer, len(RECORDER.reached) > before


def test_a_raw_path_that_disagrees_with_the_path_changes_nothing() -> None:
    """Starlette routes on `path` and so does the door: a `raw_path` naming the metadata opens nothing, and one
    naming the app under the metadata's `path` reaches the metadata, not the app."""
    to_app = _scope("http", "POST", "/mcp", "", [])
    to_app["raw_path"] = METADATA.encode()
    status, _, _, reached = _answer(to_app, CALL)
    assert (status, reached) == (401, False)
    to_metadata = _scope("http", "GET", METADATA, "", [])
    to_metadata["raw_path"] = b"/mcp"
    status, _, body, reached = _answer(to_metadata)
    assert (status, reached) == (200, False) and RESOURCE.encode() in body


@pytest.mark.parametrize("version", ["1.0", "2", "3", "0.9", ""])
def test_every_http_version_meets_the_same_door(version: str) -> None:
    for method, path, expected in (("POST", "/mcp", 401), ("GET", "/mcp", 401), ("GET", METADATA, 200)):
        scope = _scope("http", method, path, "", [])
        scope["http_version"] = version
        status, _, _, reached = _answer(scope, CALL if method == "POST" else b"")
        assert (status, reached) == (expected, False), (version, method, path)
    granted = _scope("http", "POST", "/mcp", "", [(b"authorization", f"Bearer {_token()}".encode())])
    granted["http_version"] = version
    status, headers, _, reached = _answer(granted, CALL)
    assert (status, reached) == (403, False) and b'scope="notes:delete"' in headers[b"www-authenticate"]


REFUSED = {
    "expired": _token(expires_at=NOW.timestamp() - 120),
    "another audience": _token(audience=RESOURCE + ".evil"),
    "a stranger's key": _token(signing="stranger"),
    "HMAC with the public key": _token(signing="hmac-public-key"),
    "oversized": _token(padding=9000),
    "not a JWT": "sk-live-0123456789abcdefSECRET",
    "a JWT's shape, garbage inside": "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.c2lnbmF0dXJlLXNlY3JldA",
}


@pytest.mark.parametrize("token", list(REFUSED.values()), ids=list(REFUSED))
def test_a_refused_tokens_text_is_in_no_answer_and_no_log_record(token: str, caplog: pytest.LogCaptureFixture) -> None:
    """Neither the token nor its signature (the part that makes it a credential) appears in the 401's body or
    headers, nor in any record any logger writes at any level while it is refused."""
    secret_parts = {token, token.rsplit(".", 1)[-1]}
    with caplog.at_level(logging.DEBUG):
        status, headers, body, reached = _answer(
            _scope("http", "POST", "/mcp", "", [(b"authorization", f"Bearer {token}".encode())]), CALL
        )
    assert (status, reached) == (401, False)
    written = [body, *headers.values(), caplog.text.encode(), *(str(r.args).encode() for r in caplog.records)]
    leaked = [part[:24] for part in secret_parts for text in written if part.encode() in text]
    assert not leaked, f"the refused token leaked: {leaked}"
    assert caplog.records, "the refusal is logged (with its reason), so the search above read something"


def test_a_granted_tokens_text_is_in_no_refusal_for_a_scope() -> None:
    token = _token()
    status, headers, body, _ = _answer(
        _scope("http", "POST", "/mcp", "", [(b"authorization", f"Bearer {token}".encode())]), CALL
    )
    assert status == 403
    assert token.rsplit(".", 1)[-1].encode() not in body + b"".join(headers.values())


def test_the_body_cap_is_exact_and_counted_over_every_chunk() -> None:
    """Exactly `MAX_GATED_BODY` bytes are read (and reach the app); one more, in any chunk, is 413 unread."""
    headers = [(b"authorization", f"Bearer {_token(scopes=('notes:write', 'notes:delete'))}".encode())]
    exact = CALL.ljust(MAX_GATED_BODY, b" ")
    for chunks in ((exact,), (exact[:1000], exact[1000:]), (exact, b" "), (exact[:-1], b"  ")):
        before = len(RECORDER.reached)
        sent = anyio.run(_call, EDGE, _scope("http", "POST", "/mcp", "", headers), chunks)
        status = next(message for message in sent if message["type"] == "http.response.start")["status"]
        over = sum(map(len, chunks)) > MAX_GATED_BODY
        assert status == (413 if over else 200), (list(map(len, chunks)), status)
        assert (len(RECORDER.reached) > before) is not over


def test_a_body_trickled_over_a_real_socket_is_408_at_the_gates_deadline() -> None:
    """Slowloris on a real uvicorn socket: a token with every scope, a declared body sent a byte at a time; the
    gate answers 408 once `body_timeout` (here 1 s) has passed, and nothing reaches the app."""
    recorder = Recorder()
    server = uvicorn.Server(uvicorn.Config(_edge(recorder, body_timeout=1.0), port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, name="test-uvicorn", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        token = _token(scopes=("notes:write", "notes:delete"))
        head = f"POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: 1000\r\n\r\n"
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(head.encode())
            answer, sent = b"", 0
            sock.settimeout(0.2)
            while not answer and sent < 50:  # 50 bytes at 0.2 s each: 10 s, far past the 1 s deadline
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    sock.sendall(b" ")
                sent += 1
                with contextlib.suppress(TimeoutError):
                    answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert sent < 15, f"the 408 came after {sent} bytes at 0.2 s each, not at the 1 s deadline"
        assert recorder.reached == []
    finally:
        server.should_exit = True
        thread.join(10)
