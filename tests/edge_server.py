"""A hand-rolled HTTP edge that gets one rule of MCP authorization wrong, named on its command line.

`python edge_server.py MODE PORT`: the standard library's HTTP server answering what a protected MCP server's
edge answers before any MCP (the `protected-resource-metadata` check never gets past it): 401 without a token,
the RFC 9728 document at its well-known URI. `ok` gets everything right; each other mode breaks one thing.
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, PORT = sys.argv[1], int(sys.argv[2])
BASE = f"http://127.0.0.1:{PORT}"
METADATA = "/.well-known/oauth-protected-resource/mcp"
INSTANCE_METADATA = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
"""A cloud's instance-metadata address (link-local): what a hostile server names to make a client fetch credentials."""
DOCUMENT = {"resource": f"{BASE}/mcp", "authorization_servers": ["https://auth.example.com"]}


class Edge(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads verdicts, not access logs."""

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in {**headers, "content-length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _drip(self, body: bytes) -> None:
        """The document one byte every 0.2 s: each read is quick, the whole answer takes ~20 s (a real drip: hours)."""
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        for byte in body:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.2)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        token = self.headers.get("authorization")
        if token and MODE == "accepts-any-token":
            return self._send(200, b'{"jsonrpc": "2.0", "id": "mcpbdd-edge", "result": {}}', {})
        named = {
            "names-instance-metadata": INSTANCE_METADATA,
            "names-instance-metadata-decimal": INSTANCE_METADATA.replace("169.254.169.254", str(0xA9FEA9FE)),
        }.get(MODE, f"{BASE}{METADATA}")
        challenge = {} if MODE == "no-challenge" else {"www-authenticate": f'Bearer resource_metadata="{named}"'}
        if MODE == "open":
            return self._send(200, b'{"jsonrpc": "2.0", "id": "mcpbdd-edge", "result": {}}', {})
        self._send(401, b'{"error": "unauthorized"}', challenge)

    def do_GET(self) -> None:
        if self.path != METADATA or MODE == "no-challenge":
            return self._send(404, b"", {})
        document: object = DOCUMENT
        if MODE == "no-servers":
            document = {"resource": f"{BASE}/mcp"}
        if MODE == "flood":
            document = {**DOCUMENT, "padding": "x" * (1024 * 1024)}
        if MODE == "drip":
            return self._drip(json.dumps(document).encode())
        self._send(200, json.dumps(document).encode(), {"content-type": "application/json"})


ThreadingHTTPServer(("127.0.0.1", PORT), Edge).serve_forever()
