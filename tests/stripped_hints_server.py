"""An HTTP server whose list and read results lose their caching hints and resultType on the way out.

The Python SDK's server stamps `ttlMs`, `cacheScope` and `resultType` on every 2026-07-28 result,
whatever a handler returns, so a server that omits them is one built otherwise: here an ASGI
middleware strips them from the answers of the `conformance_servers.clean` server, as a proxy or
a hand-rolled implementation would send them. `python stripped_hints_server.py PORT`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import uvicorn
from conformance_servers import clean

__all__ = ["strip"]

STRIPPED = ("ttlMs", "cacheScope", "resultType")


def _stripped(message: Any) -> Any:
    result = message.get("result") if isinstance(message, dict) else None
    if isinstance(result, dict) and any(
        key in result for key in ("tools", "resources", "resourceTemplates", "prompts", "contents")
    ):
        for key in STRIPPED:
            result.pop(key, None)
    return message


def _rewrite(body: bytes, content_type: str) -> bytes:
    if "application/json" in content_type:
        return json.dumps(_stripped(json.loads(body))).encode()
    if "text/event-stream" in content_type:
        lines = []
        for line in body.decode().split("\n"):
            if line.startswith("data: ") and line[6:].strip().startswith("{"):
                line = "data: " + json.dumps(_stripped(json.loads(line[6:])))
            lines.append(line)
        return "\n".join(lines).encode()
    return body


def strip(app: Any) -> Any:
    """`app` with every response body buffered and its list and read results' hints removed."""

    async def middleware(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def buffered(message: Any) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                content_type = dict(headers).get(b"content-type", b"").decode()
                body = _rewrite(b"".join(chunks), content_type)
                headers.append((b"content-length", str(len(body)).encode()))
                await send({**start, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await app(scope, receive, buffered)

    return middleware


if __name__ == "__main__":
    uvicorn.run(
        strip(clean.streamable_http_app(host="127.0.0.1")), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning"
    )
