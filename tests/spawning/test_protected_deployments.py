"""The example server with `--auth jwks`, deployed as servers are deployed, refuses every request without a valid
token (401) and every token without the scope (403): mounted under a prefix, under uvicorn's root path, and
behind a real nginx reverse proxy that strips the prefix.

Each layout is one server process (and one nginx), shared by the module's tests. Tokens are real: the run's fake
authorization server (in this process) signs them, the server verifies them against its JWKS with the verifier
it ships. An honest token with the scope is served in every layout, so a 401 here is the door, not a deployment
that answers nothing. tests/test_protected_edge.py tries the same door in-process, over generated requests.

nginx: Debian's package (`apt-get install nginx`). Without it the nginx layout is skipped saying so, except
where `CI=true`, where a missing nginx fails the test: CI must not go green without the proxy.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from processes import TESTS, free_port

from mcpbdd.authorization.server import fake_authorization_server
from mcpbdd.authorization.tokens import TokenSpec, mint
from mcpbdd.kit.protected import ENV_ISSUER, ENV_JWKS, MAX_GATED_BODY

pytestmark = pytest.mark.timeout(120)

LAYOUTS = ["mount", "root-path", "nginx"]
NGINX_INSTALL = "apt-get install nginx"
METHODS = ["GET", "POST", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH"]
PATHS = ["/mcp", "/mcp/", "/%6dcp", "/%6Dcp/", "//mcp", "/MCP", "/mcp?x=1", "/", "/anything", "/.well-known/x"]
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass(frozen=True)
class Deployment:
    layout: str
    origin: str
    """What a client connects to: `http://127.0.0.1:PORT`."""
    base: str
    """Where a client finds the app: under `/notes` (mounted, proxied), or at the root (uvicorn's root path alone:
    the proxy that would strip the prefix is not there, so the server prepends it to every path it receives)."""
    metadata_url: str
    """Where the protected-resource metadata is served."""

    @property
    def resource(self) -> str:
        return self.base + "/mcp"


def _nginx() -> str | None:
    """The nginx to put in front: $MCPBDD_NGINX when set (as `.ci/nginx` reads it), else the PATH's or Debian's."""
    if os.environ.get("MCPBDD_NGINX"):
        return os.environ["MCPBDD_NGINX"] if os.access(os.environ["MCPBDD_NGINX"], os.X_OK) else None
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).is_file()), None)


def _nginx_or_skip(nginx: str | None, environ: Mapping[str, str]) -> str:
    """nginx's path; where it is missing, a skip with the install line, or a failure where CI requires it."""
    if nginx is None:
        missing = f"nginx is not installed ({NGINX_INSTALL}): the reverse-proxy deployment was not tried"
        if environ.get("CI") == "true":
            pytest.fail(f"{missing}; CI=true requires it")
        pytest.skip(missing)
    return nginx


def _wait_for(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"{what} exited with {process.returncode} before listening on {port}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on {port} within 30 s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _server(layout: str, port: int, resource: str) -> subprocess.Popen[bytes]:
    fake = fake_authorization_server()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)]),
        ENV_ISSUER: fake.issuer,
        ENV_JWKS: fake.jwks_url,
    }
    command = [sys.executable, "-m", "deployments", layout, "--http", f"127.0.0.1:{port}"]
    process = subprocess.Popen([*command, "--auth", f"jwks,resource={resource}"], env=env, cwd=TESTS.parent)
    _wait_for(port, process, f"the example ({layout})")
    return process


NGINX_CONF = """
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    large_client_header_buffers 4 32k;  # an oversized token reaches the server's verifier, not nginx's 400
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location /notes/ {{
            proxy_pass http://127.0.0.1:{upstream}/;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_buffering off;
        }}
        location /.well-known/oauth-protected-resource/notes/ {{
            proxy_pass http://127.0.0.1:{upstream}/.well-known/oauth-protected-resource/notes/;
        }}
    }}
}}
"""


@pytest.fixture(scope="module", params=LAYOUTS)
def deployment(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """One server process per layout (and nginx in front of the root-path one), shared by the module's tests."""
    layout: str = request.param
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    if layout == "mount":
        process = _server(layout, port, f"{origin}/notes/mcp")
        metadata = f"{origin}/notes/.well-known/oauth-protected-resource/notes/mcp"  # the mount holds every route
        deployed = Deployment(layout, origin, origin + "/notes", metadata)
    elif layout == "root-path":
        process = _server(layout, port, f"{origin}/mcp")
        deployed = Deployment(layout, origin, origin, f"{origin}/.well-known/oauth-protected-resource/mcp")
    if layout != "nginx":
        try:
            yield deployed
        finally:
            _stop(process)
        return
    nginx = _nginx_or_skip(_nginx(), os.environ)
    upstream = free_port()
    server = _server("root-path", upstream, f"{origin}/notes/mcp")
    tmp = tmp_path_factory.mktemp("nginx")
    (tmp / "nginx.conf").write_text(NGINX_CONF.format(tmp=tmp, port=port, upstream=upstream))
    proxy = subprocess.Popen([nginx, "-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(tmp / "nginx.conf")])
    try:
        _wait_for(port, proxy, "nginx")
        # RFC 9728: the well-known URL at the host's root, the resource's path after it (nginx routes it to the app).
        yield Deployment(layout, origin, origin + "/notes", f"{origin}/.well-known/oauth-protected-resource/notes/mcp")
    finally:
        _stop(proxy)
        _stop(server)


def _token(deployment: Deployment, *scopes: str, **changes: Any) -> str:
    now = time.time()
    spec = TokenSpec("alice", "acme", scopes, "client-1", now, now + 3600)
    spec = spec.spoilt("hostile", **changes) if changes else spec
    return mint(spec, resource=deployment.resource, issuer=fake_authorization_server().issuer)


def _message(method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


INITIALIZE = _message(
    "initialize",
    {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "deployment-test", "version": "1"}},
)
DELETE = _message("tools/call", {"name": "delete_note", "arguments": {"note_id": "n-1"}})


_HTTP = httpx.Client(timeout=30.0, trust_env=False)
"""One client for every request (a client per request loads the system's CA bundle each time)."""


def _send(method: str, url: str, token: str | None = None, body: bytes = b"") -> httpx.Response:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {token}"} if token is not None else {})}
    return _HTTP.request(method, url, headers=headers, content=body)


def test_an_honest_token_with_its_scopes_is_served(deployment: Deployment) -> None:
    token = _token(deployment, "notes:write", "notes:delete")
    answer = _send("POST", deployment.resource, token, INITIALIZE)
    assert answer.status_code == 200 and '"serverInfo"' in answer.text, (answer.status_code, answer.text[:300])
    reached = _send("POST", deployment.resource, token, DELETE)
    assert reached.status_code not in (401, 403), reached.text[:300]


def test_every_request_without_a_token_is_refused_401(deployment: Deployment) -> None:
    wrong: list[str] = []
    for method in METHODS:
        for path in PATHS:
            body = INITIALIZE if method in ("POST", "PUT", "PATCH") else b""
            answer = _send(method, deployment.base + path, None, body)
            challenge = answer.headers.get("www-authenticate", "")
            if answer.status_code != 401 or "resource_metadata=" not in challenge:
                wrong.append(f"{method} {path}: {answer.status_code} {challenge!r} {answer.text[:80]!r}")
        outside = _send(method, deployment.origin + "/mcp", None, INITIALIZE)  # the app's own path, unprefixed
        if outside.status_code < 300:  # the mount's 404, nginx's own answer (403, 405), or the door's 401
            wrong.append(f"{method} /mcp outside the prefix: {outside.status_code}")
    assert not wrong, f"{deployment.layout}: " + "\n".join(wrong)


def test_every_refused_token_is_refused_401(deployment: Deployment) -> None:
    tokens = {
        "expired": _token(deployment, "notes:write", expires_at=time.time() - 600),
        "another audience": _token(deployment, "notes:write", audience=deployment.resource + ".evil"),
        "the origin as audience": _token(deployment, "notes:write", audience=deployment.origin),
        "another issuer": _token(deployment, "notes:write", issuer="https://login.evil.example"),
        "unsigned": _token(deployment, "notes:write", signing="none"),
        "HMAC with the public key": _token(deployment, "notes:write", signing="hmac-public-key"),
        "a stranger's key": _token(deployment, "notes:write", signing="stranger"),
        "oversized": _token(deployment, "notes:write", padding=9000),
        "mcpbdd's test token": "mcpbdd:acme:alice:notes:write,notes:delete",
    }
    wrong = []
    for flaw, token in tokens.items():
        for method, body in (("POST", INITIALIZE), ("GET", b""), ("DELETE", b"")):
            answer = _send(method, deployment.resource, token, body)
            if answer.status_code != 401 or 'error="invalid_token"' not in answer.headers.get("www-authenticate", ""):
                wrong.append(f"{flaw} {method}: {answer.status_code}")
    assert not wrong, f"{deployment.layout}: " + ", ".join(wrong)


def test_a_token_without_the_scope_is_refused_403(deployment: Deployment) -> None:
    token = _token(deployment, "notes:write")
    for method in ("POST", "PUT", "PATCH", "DELETE", "GET"):
        for path in ("/mcp", "/mcp/", "/%6dcp", "/elsewhere"):
            answer = _send(method, deployment.base + path, token, DELETE)
            assert answer.status_code == 403, (deployment.layout, method, path, answer.status_code)
            challenge = answer.headers["www-authenticate"]
            assert 'error="insufficient_scope", scope="notes:delete"' in challenge


def test_the_protected_resource_metadata_is_public(deployment: Deployment) -> None:
    answer = _HTTP.get(deployment.metadata_url)
    assert answer.status_code == 200, (deployment.metadata_url, answer.status_code)
    assert answer.json()["resource"] == deployment.resource
    assert answer.json()["authorization_servers"] == [fake_authorization_server().issuer]


def test_a_missing_nginx_is_a_skip_saying_how_to_install_it_and_a_failure_in_ci() -> None:
    with pytest.raises(pytest.skip.Exception, match=r"nginx is not installed \(apt-get install nginx\)"):
        _nginx_or_skip(None, {})
    with pytest.raises(pytest.fail.Exception, match="CI=true requires it"):
        _nginx_or_skip(None, {"CI": "true"})
    assert _nginx_or_skip("/usr/sbin/nginx", {"CI": "true"}) == "/usr/sbin/nginx"


# the wire: request forms no client library writes, and bodies written to slip past the scope gate ----------------


def _raw(deployment: Deployment, request: bytes) -> list[tuple[int, bytes]]:
    """Every answer (status, head and body as received) to `request`, written to the socket byte for byte."""
    host, port = deployment.origin.removeprefix("http://").split(":")
    received = b""
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        sock.settimeout(2.0)
        with contextlib.suppress(TimeoutError, ConnectionResetError):
            while chunk := sock.recv(65536):
                received += chunk
    answers = [part for part in received.split(b"HTTP/1.1 ")[1:] if part[:3].isdigit()]
    return [(int(part[:3]), part) for part in answers]


def _wire_forms(deployment: Deployment, token: str) -> dict[str, bytes]:
    base = urlsplit(deployment.base).path
    metadata = urlsplit(deployment.metadata_url).path
    close = f"Host: {urlsplit(deployment.origin).netloc}\r\nConnection: close\r\n".encode()  # one the SDK accepts
    body = b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    post = b"Content-Length: %d\r\n" % len(INITIALIZE) + body + b"\r\n" + INITIALIZE

    def form(line: str, headers: bytes = close, rest: bytes = b"\r\n") -> bytes:
        return line.encode() + b"\r\n" + headers + rest

    return {
        "HTTP/1.0 without Host": f"POST {base}/mcp HTTP/1.0\r\n".encode() + post,
        "absolute form": form(f"POST http://x{base}/mcp HTTP/1.1", close, post),
        "//mcp": form(f"POST {base}//mcp HTTP/1.1", close, post),
        "/./mcp": form(f"POST {base}/./mcp HTTP/1.1", close, post),
        "/mcp;x": form(f"POST {base}/mcp;x HTTP/1.1", close, post),
        "/mcp%00": form(f"POST {base}/mcp%00 HTTP/1.1", close, post),
        "metadata/../mcp": form(f"POST {metadata}/../../mcp HTTP/1.1", close, post),
        "metadata%2F..%2Fmcp": form(f"GET {metadata}%2F..%2F..%2Fmcp HTTP/1.1"),
        "metadata prefix + X": form(f"GET {metadata}X HTTP/1.1"),
        "metadata + %0A": form(f"GET {metadata}%0A HTTP/1.1"),
        "metadata + /": form(f"GET {metadata}/ HTTP/1.1"),
        "chunked body": form(
            f"POST {base}/mcp HTTP/1.1",
            close + b"Transfer-Encoding: chunked\r\n" + body,
            b"\r\n%x\r\n" % len(INITIALIZE) + INITIALIZE + b"\r\n0\r\n\r\n",
        ),
        "bearer lowercase, refused token": form(
            f"POST {base}/mcp HTTP/1.1", close + b"Authorization: bearer x\r\n", post
        ),
        "Bearer with two spaces": form(
            f"POST {base}/mcp HTTP/1.1", close + f"Authorization: Bearer  {token}\r\n".encode(), post
        ),
        "a refused then an accepted Authorization": form(
            f"POST {base}/mcp HTTP/1.1",
            close + f"Authorization: Bearer x\r\nAuthorization: Bearer {token}\r\n".encode(),
            post,
        ),
        "token in the query": form(f"POST {base}/mcp?access_token={token} HTTP/1.1", close, post),
    }


def _refused_before_the_app(name: str, status: int, answer: bytes) -> bool:
    """An answer nginx or uvicorn writes itself (a malformed request: 400, a path nginx will not route: 403), or
    the outer app's 404 for an absolute-form target under a `Mount` (its path starts with `http:`, not `/notes`)."""
    return (
        status in (400, 403) and (b"<center>nginx/" in answer or answer.endswith(b"Invalid HTTP request received."))
    ) or (status == 404 and name == "absolute form" and answer.endswith(b"\r\n\r\nNot Found"))


def test_request_forms_no_client_library_writes_are_refused_401_on_the_wire(deployment: Deployment) -> None:
    """Raw bytes on the socket, as an attacker writes them: each is the door's 401, or refused before the app."""
    wrong = []
    for name, request in _wire_forms(deployment, _token(deployment, "notes:write")).items():
        answers = _raw(deployment, request)
        for status, answer in answers:
            if (status == 401 and b"resource_metadata=" in answer) or _refused_before_the_app(name, status, answer):
                continue
            wrong.append(f"{name}: {status} {answer[:160]!r}")
        if not answers:
            wrong.append(f"{name}: no answer")
    assert not wrong, f"{deployment.layout}:\n" + "\n".join(wrong)


def test_a_request_smuggled_behind_the_public_metadata_is_still_refused(deployment: Deployment) -> None:
    """The metadata is the one public document: a body sent to it (HEAD and OPTIONS with one, chunked or not) that
    holds a second request must not make that request public."""
    metadata = urlsplit(deployment.metadata_url).path
    host = urlsplit(deployment.origin).netloc
    inner = (
        f"POST {urlsplit(deployment.base).path}/mcp HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(INITIALIZE)}\r\n"
    )
    smuggled = inner.encode() + b"Content-Type: application/json\r\n\r\n" + INITIALIZE
    requests = {
        "OPTIONS with a length": f"OPTIONS {metadata} HTTP/1.1\r\nHost: {host}\r\n{_length(smuggled)}\r\n",
        "HEAD chunked": f"HEAD {metadata} HTTP/1.1\r\nHost: {host}\r\n{CHUNKED}\r\n0\r\n\r\n",
        "GET with both": f"GET {metadata} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\n{CHUNKED}\r\n0\r\n\r\n",
    }
    wrong = []
    for name, head in requests.items():
        answers = _raw(
            deployment,
            head.encode() + smuggled + f"GET /mcp HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode(),
        )
        wrong += [f"{name}: {status} {answer[:120]!r}" for status, answer in answers[1:] if status < 400]
        wrong += [f"{name}: {answer[:120]!r}" for _, answer in answers if b'"jsonrpc"' in answer]
    assert not wrong, f"{deployment.layout}:\n" + "\n".join(wrong)


CHUNKED = "Transfer-Encoding: chunked\r\n"


def _length(body: bytes) -> str:
    return f"Content-Length: {len(body)}\r\n"


MODERN = "2026-07-28"
_ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
CREATE = CALL + '"params":{"name":"create_note","arguments":{"title":"t","body":"b"}}}'
LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_notes","arguments":{}}}'
GATE_BODIES = {
    "plain": CREATE,
    "a batch with an ungated call first": f"[{LIST},{CREATE}]",
    "the method escaped": CREATE.replace("tools/call", "to\\u006fls/call"),
    "the name's key escaped": CREATE.replace('"name"', '"na\\u006de"'),
    "the name escaped": CREATE.replace("create_note", "create\\u005fnote"),
    "params twice, the gated last": LIST[:-1].replace('"id":2', '"id":1') + "," + CREATE[CREATE.index('"params"') :],
    "name twice, the gated last": CREATE.replace('{"name":', '{"name":"list_notes","name":'),
    "method twice, tools/call last": CREATE.replace('"method":', '"method":"tools/list","method":'),
    "a byte-order mark": "\ufeff" + CREATE,
    "nested 150 deep": CREATE.replace('"b"}', '"b","x":' + "[" * 150 + "]" * 150 + "}"),
    "nested 900 deep": CREATE.replace('"b"}', '"b","x":' + "[" * 900 + "]" * 900 + "}"),
    "an input-required retry": CREATE.replace('"arguments"', '"inputResponses":{"c":{"action":"accept"}},"arguments"'),
}
"""Bodies calling `create_note` (it needs notes:write) however either of the SDK's parsers reads them."""
RUNS = {
    "2025-11-25": {
        "plain",
        "the method escaped",
        "the name's key escaped",
        "the name escaped",
        "params twice, the gated last",
        "name twice, the gated last",
        "method twice, tools/call last",
        "nested 150 deep",
    },
    MODERN: {
        "plain",
        "the method escaped",
        "the name's key escaped",
        "the name escaped",
        "params twice, the gated last",
        "name twice, the gated last",
        "method twice, tools/call last",
        "a byte-order mark",
        "nested 150 deep",
        "nested 900 deep",
    },
}
"""The bodies the SDK runs in each era (with the scope): so the 403 without it is the gate's, not a parse error."""


def _era_headers(deployment: Deployment, era: str, token: str) -> dict[str, str]:
    headers = {**ACCEPT, "Authorization": f"Bearer {token}", "MCP-Protocol-Version": era}
    if era == MODERN:
        return {**headers, "Mcp-Method": "tools/call", "Mcp-Name": "create_note"}
    answer = _HTTP.post(deployment.resource, headers=headers, content=INITIALIZE)
    session = {"Mcp-Session-Id": answer.headers["mcp-session-id"]}
    initialized = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
    _HTTP.post(deployment.resource, headers={**headers, **session}, content=initialized)
    return {**headers, **session}


def _body(text: str, era: str) -> bytes:
    if era == MODERN:
        text = text.replace('"arguments":', f'"_meta":{json.dumps(_ENVELOPE)},"arguments":')
    return text.encode()


@pytest.mark.parametrize("era", sorted(RUNS))
def test_the_scope_gate_reads_every_body_the_sdk_runs_on_the_wire(deployment: Deployment, era: str) -> None:
    granted = _era_headers(deployment, era, _token(deployment, "notes:write"))
    lacking = _era_headers(deployment, era, _token(deployment))
    wrong = []
    for name, text in GATE_BODIES.items():
        body = _body(text, era)
        refused = _HTTP.post(deployment.resource, headers=lacking, content=body)
        if refused.status_code != 403 or 'scope="notes:write"' not in refused.headers.get("www-authenticate", ""):
            wrong.append(f"{name}: without the scope {refused.status_code} {refused.text[:160]!r}")
        if name in RUNS[era]:
            served = _HTTP.post(deployment.resource, headers=granted, content=body)
            if '"isError":false' not in served.text:
                wrong.append(
                    f"{name}: with the scope the SDK did not run it ({served.status_code} {served.text[:160]!r})"
                )
    assert not wrong, f"{deployment.layout} {era}:\n" + "\n".join(wrong)


def test_a_name_that_differs_by_unicode_normalisation_runs_no_gated_tool(deployment: Deployment) -> None:
    lacking = _era_headers(deployment, "2025-11-25", _token(deployment))
    for name in ("\uff43reate_note", "create_note\u0301", "create_note\u200b", "CREATE_NOTE"):
        answer = _HTTP.post(deployment.resource, headers=lacking, content=CREATE.replace("create_note", name).encode())
        assert answer.status_code == 200 and '"isError":true' in answer.text, (name, answer.status_code, answer.text)
        assert "Unknown tool" in answer.text or "not found" in answer.text.lower(), answer.text[:300]


def test_a_body_of_exactly_the_gates_cap_is_read_and_one_byte_more_is_413(deployment: Deployment) -> None:
    headers = _era_headers(deployment, "2025-11-25", _token(deployment))
    padded = LIST.encode().ljust(MAX_GATED_BODY, b" ")  # whitespace after the JSON: still one JSON-RPC request
    over = _HTTP.post(deployment.resource, headers=headers, content=padded + b" ")
    assert over.status_code == 413, (over.status_code, over.text[:200])
    if deployment.layout != "nginx":
        assert over.json() == {"error": "request_too_large"}, "the gate's answer, not the SDK's own cap behind it"
    if deployment.layout == "nginx":
        return  # nginx's own client_max_body_size (1 MiB) answers first: the gate's exact cap is not reached
    exact = _HTTP.post(deployment.resource, headers=headers, content=padded)
    assert exact.status_code == 200 and '"isError":false' in exact.text, (exact.status_code, exact.text[:200])
