"""`mcpbdd record --listen HOST:PORT --to URL`: a reverse proxy for a Streamable HTTP server.

Every request is forwarded to the server at the same path (headers and body unchanged, but
`Accept-Encoding: identity`, so event streams can be read as they pass); JSON answers and SSE
streams (answers, and a 2025-11-25 server's requests mid-call) go back to the client chunk by
chunk while the `Recorder` reads the JSON-RPC messages in them. The bearer token never reaches
the cassette: each token seen joins the redacted secrets, and only the caller's identity it
carries (subject and tenant claim: an mcpbdd test token, or a JWT's claims, read unverified)
is kept on each exchange. Stop it with Ctrl-C (SIGINT) or SIGTERM; the cassette is closed then.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from mcpbdd.kit.principals import TOKEN_PREFIX
from mcpbdd.model.redaction import Redactor
from mcpbdd.record.assembler import now_iso
from mcpbdd.record.cassette import Header
from mcpbdd.record.recorder import Recorder

HOP_BY_HOP = {"host", "content-length", "connection", "transfer-encoding", "keep-alive", "accept-encoding"}
METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]


def identity(token: str | None, tenant_claim: str = "tenant") -> dict[str, Any] | None:
    """The caller a bearer token names (`{"subject", "tenant"}`), without the token; None when it says nothing."""
    if not token:
        return None
    if token.startswith(TOKEN_PREFIX):
        parts = token[len(TOKEN_PREFIX) :].split(":", 2)
        return {"subject": parts[1], "tenant": parts[0]} if len(parts) >= 2 else None
    pieces = token.split(".")
    if len(pieces) == 3:  # a JWT: its claims are readable (not verified here: only recorded)
        try:
            claims = json.loads(base64.urlsafe_b64decode(pieces[1] + "=" * (-len(pieces[1]) % 4)))
        except ValueError:
            return None
        if isinstance(claims, dict):
            found = {"subject": claims.get("sub"), "tenant": claims.get(tenant_claim)}
            return {k: v for k, v in found.items() if v is not None} or None
    return None


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    return value[7:].strip() if value.lower().startswith("bearer ") else None


def _messages(body: bytes) -> list[bytes]:
    """The JSON-RPC messages in a body: one object, or a batch (array) of them."""
    try:
        value = json.loads(body)
    except ValueError:
        return [body]
    items = value if isinstance(value, list) else [value]
    return [json.dumps(item).encode() for item in items]


class _Events:
    """Reads SSE `data:` payloads out of a byte stream as it passes."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        self.buffer += chunk.replace(b"\r\n", b"\n")
        out = []
        while b"\n\n" in self.buffer:
            event, self.buffer = self.buffer.split(b"\n\n", 1)
            data = b"\n".join(line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:"))
            if data.strip():
                out.append(data)
        return out


def build_app(to: str, recorder: Recorder, *, tenant_claim: str = "tenant") -> Starlette:
    """The proxy as a Starlette app (for pytest: serve it with any ASGI server)."""
    upstream = urlsplit(to)
    client = httpx.AsyncClient(timeout=None)

    async def forward(request: Request) -> Response:
        body = await request.body()
        token = _bearer(request)
        if token and token not in recorder.redactor.secrets:
            recorder.redactor = Redactor([*recorder.redactor.secrets, token])
        recorder.assembler.caller = identity(token, tenant_claim)
        if request.method == "POST" and body:
            for message in _messages(body):
                recorder.from_client(message)
        url = urlunsplit((upstream.scheme, upstream.netloc, request.url.path, request.url.query, ""))
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["accept-encoding"] = "identity"
        sent = client.build_request(request.method, url, headers=headers, content=body)
        answer = await client.send(sent, stream=True)
        back = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_BY_HOP}
        if answer.headers.get("content-type", "").startswith("text/event-stream"):

            async def stream() -> Any:
                events = _Events()
                try:
                    async for chunk in answer.aiter_raw():
                        yield chunk
                        for data in events.feed(chunk):
                            recorder.from_server(data)
                finally:
                    await answer.aclose()

            return StreamingResponse(stream(), status_code=answer.status_code, headers=back)
        content = await answer.aread()
        await answer.aclose()
        if answer.headers.get("content-type", "").startswith("application/json") and content:
            for message in _messages(content):
                recorder.from_server(message)
        return Response(content, status_code=answer.status_code, headers=back)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await client.aclose()

    return Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)], lifespan=lifespan)


def record_http(listen: str, to: str, out: Any, *, redactor: Redactor | None = None) -> int:
    """Serve the proxy until interrupted, then close the cassette; the blocking entry point of `mcpbdd record`."""
    host, _, port = listen.rpartition(":")
    recorder = Recorder(out, Header("http", {"url": to}, now_iso()), redactor=redactor)
    app = build_app(to, recorder)
    config = uvicorn.Config(app, host=host or "127.0.0.1", port=int(port), log_level="warning", lifespan="on")
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a recording ends: uvicorn has shut down gracefully and re-raised it
    finally:
        recorder.close(None)
    return 0


__all__ = ["build_app", "identity", "record_http"]
