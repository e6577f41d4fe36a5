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

import httpx
import pytest
from processes import TESTS, free_port

from mcpbdd.authorization.server import fake_authorization_server
from mcpbdd.authorization.tokens import TokenSpec, mint
from mcpbdd.kit.protected import ENV_ISSUER, ENV_JWKS

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
