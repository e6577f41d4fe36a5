"""A hand-rolled stdio MCP server that breaks one JSON-RPC or negotiation rule, named on its command line.

`python raw_jsonrpc_server.py MODE`: the way a dispatcher written by hand goes wrong (answers with a string
id, answers a notification, floods, stalls, dies, lies about versions). It misbehaves only towards the
conformance pack's own connection (the client named `mcpbdd-conformance`), so the SDK's client still opens its
session and the message checks are the ones that must find the defect. `ok` breaks nothing: the checks pass it.
`modern`, `discover-lies` and `lenient-meta` answer `server/discover` (2026-07-28); the others speak only
2025-11-25.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
MODERN = MODE in ("modern", "discover-lies", "lenient-meta")
pack = False
"""Whether this connection's client is the conformance pack's raw line (each connection is its own process)."""


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(id: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": id, "result": result})


def error(id: Any, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})


def discover(id: Any, meta: dict[str, Any]) -> None:
    global pack
    pack = meta.get("io.modelcontextprotocol/clientInfo", {}).get("name") == "mcpbdd-conformance"
    if "io.modelcontextprotocol/clientCapabilities" not in meta and MODE != "lenient-meta":
        return error(id, -32602, "Missing required _meta field: io.modelcontextprotocol/clientCapabilities")
    versions = ["2025-11-25"] if MODE == "discover-lies" and pack else ["2026-07-28"]
    info = {"io.modelcontextprotocol/serverInfo": {"name": "raw", "version": "1"}}
    answer(id, {"supportedVersions": versions, "capabilities": {}, "resultType": "complete", "_meta": info})


def initialize(id: Any, params: dict[str, Any]) -> None:
    global pack
    pack = params.get("clientInfo", {}).get("name") == "mcpbdd-conformance"
    offered = params.get("protocolVersion")
    if pack and offered == "1999-01-01":
        if MODE == "refuse-version":
            return error(id, -32602, "Unsupported protocol version")
        if MODE == "echo-version":
            return answer(id, _initialized(offered))
    if pack and MODE == "downgrade-supported" and offered == "2025-11-25" and isinstance(id, str):
        return answer(id, _initialized("2025-06-18"))
    answer(id, _initialized("2025-11-25"))


def _initialized(version: str) -> dict[str, Any]:
    return {"protocolVersion": version, "capabilities": {}, "serverInfo": {"name": "raw", "version": "1"}}


def misbehave(message: dict[str, Any]) -> bool:
    """Break this mode's rule on the pack's own connection; True when the message is handled so."""
    id, method = message.get("id"), message.get("method")
    if not pack:
        return False
    if (
        "id" not in message
        and method == "notifications/mcpbdd-no-such-notification"
        and MODE == "answers-notifications"
    ):
        error(None, -32601, "Method not found")
        return True
    if id == 1 and MODE == "wrong-id":
        answer(str(id), {})
        return True
    if id == 1 and MODE == "answers-twice":
        answer(id, {})
        answer(id, {})
        return True
    if id == 3 and MODE == "answers-last-twice":
        answer(id, {})
        answer(id, {})
        return True
    if id == 3 and MODE == "answers-notifications-late":
        answer(id, {})
        time.sleep(0.2)
        error(None, -32601, "Method not found")
        return True
    if id == 2 and MODE == "unknown-as-result":
        answer(id, {})
        return True
    if id == 1 and MODE == "flood":
        for number in range(5000):
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": number}})
        return False
    if id == 1 and MODE == "stall":
        time.sleep(60)
        return True
    if id == 1 and MODE == "crash":
        sys.exit(3)
    if id == 1 and MODE == "garbage":
        sys.stdout.write('{"jsonrpc": "2.0", "id": 1, "result"\n')
        sys.stdout.flush()
        return True
    return False


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "params" in message and not isinstance(message["params"], dict | list):
            continue  # `"params": null` is no valid JSON-RPC: dropped unanswered, as the TypeScript SDK's server does
        id, method, params = message.get("id"), message.get("method"), message.get("params") or {}
        if method is None or misbehave(message) or "id" not in message:
            continue  # a response from the client, a handled misdeed, or a notification: nothing to answer
        if method == "server/discover" and MODERN:
            discover(id, params.get("_meta", {}))
        elif method == "initialize" and not MODERN:
            initialize(id, params)
        elif method == "ping" or (MODERN and method == "server/discover"):
            answer(id, {})
        elif method == "tools/list":
            answer(id, {"tools": []})
        else:
            error(id, -32601, f"Method not found: {method}")


if __name__ == "__main__":
    main()
