"""An HTTP server whose edge refuses every request without the bearer token `letmein` (401, as a protected
server answers): what `mcpbdd conformance` must report as "refused the caller", never as passed, and must not
take for a server that cannot start. `python protected_server.py PORT`.
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn
from conformance_servers import clean

__all__ = ["TOKEN", "protect"]

TOKEN = "letmein"


def protect(app: Any) -> Any:
    """`app` behind an edge that answers 401 with a challenge unless the request carries `Bearer letmein`."""

    async def edge(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != f"Bearer {TOKEN}".encode():
            challenge = b'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
            headers = [(b"www-authenticate", challenge), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        await app(scope, receive, send)

    return edge


if __name__ == "__main__":
    app = protect(clean.streamable_http_app(host="127.0.0.1"))
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
