"""Turning the messages of a session, in wire order, into exchanges with their rounds.

Both eras fold into the call they belong to:
- 2026-07-28: a result with `resultType: "input_required"` keeps the call open; the client's
  retry (same method, carrying `inputResponses` and the echoed `requestState`) is its round.
- 2025-11-25: a request the server sends while a client request is pending (elicitation,
  sampling, roots) is a round of that request; the client's response to it is the answer.

Messages are parsed with the SDK's JSON-RPC models (`mcp_types.jsonrpc_message_adapter`);
their `params` and `result` stay the dicts that were on the wire.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import mcp_types

from mcpbdd.record.cassette import LEGACY, MODERN, Exchange, Header

INPUT_REQUIRED = "input_required"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT = "io.modelcontextprotocol/clientInfo"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER = "io.modelcontextprotocol/serverInfo"


def now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def parse_message(raw: bytes | str) -> mcp_types.JSONRPCMessage | None:
    """One wire line as the SDK's JSON-RPC model, or None when it is not JSON-RPC."""
    try:
        return mcp_types.jsonrpc_message_adapter.validate_json(raw)
    except ValueError:
        return None


def _outcome(message: mcp_types.JSONRPCResponse | mcp_types.JSONRPCError) -> dict[str, Any]:
    if isinstance(message, mcp_types.JSONRPCResponse):
        return {"result": message.result}
    return {"error": message.error.model_dump(mode="json", exclude_none=True)}


@dataclass
class _Open:
    exchange: Exchange
    started: float
    awaiting_retry: str | None = None
    """The request state the client must echo to continue (a modern round is open)."""


@dataclass
class Assembler:
    """Feed it every message (`from_client` / `from_server`); it calls `emit` with each finished exchange."""

    emit: Callable[[Exchange], None]
    header: Header
    _seq: int = 0
    _by_id: dict[Any, _Open] = field(default_factory=dict)
    """Client request ids in flight (first requests and retries) -> their exchange."""
    _awaiting: list[_Open] = field(default_factory=list)
    """Exchanges whose last response asked for input and whose retry has not come yet."""
    _server_requests: dict[Any, tuple[_Open | None, dict[str, Any]]] = field(default_factory=dict)
    messages: int = 0
    unparsed: int = 0
    caller: dict[str, Any] | None = None
    """Who sends the client messages fed next (set per HTTP request by the reverse proxy)."""

    # client -> server ------------------------------------------------------------------------

    def from_client(self, raw: bytes) -> None:
        message = parse_message(raw)
        self.messages += 1
        if message is None:
            self.unparsed += 1
        elif isinstance(message, mcp_types.JSONRPCRequest):
            self._client_request(message)
        elif isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError):
            self._client_answer(message)

    def _client_request(self, message: mcp_types.JSONRPCRequest) -> None:
        params = message.params or {}
        self._learn_client(message.method, params)
        request = {"id": message.id, "method": message.method, "params": params}
        retried = self._retry_of(message.method, params)
        if retried is not None:
            retried.exchange.rounds[-1]["retry"] = {"id": message.id, "params": params}
            retried.awaiting_retry = None
            self._by_id[message.id] = retried
            return
        self._seq += 1
        exchange = Exchange(self._seq, request, started_at=now_iso(), caller=self.caller)
        self._by_id[message.id] = _Open(exchange, time.perf_counter())

    def _retry_of(self, method: str, params: dict[str, Any]) -> _Open | None:
        if "inputResponses" not in params and "requestState" not in params:
            return None
        state = params.get("requestState")
        candidates = [o for o in self._awaiting if o.exchange.method == method]
        match = next((o for o in candidates if state is not None and o.awaiting_retry == state), None)
        if match is None:
            name = params.get("name") or params.get("uri")
            match = next((o for o in reversed(candidates) if o.exchange.target == name), None)
        if match is not None:
            self._awaiting.remove(match)
        return match

    def _client_answer(self, message: mcp_types.JSONRPCResponse | mcp_types.JSONRPCError) -> None:
        found = self._server_requests.pop(message.id, None)
        if found is None:
            return
        owner, round_ = found
        round_["answer"] = _outcome(message)
        if owner is None:  # a request the server made outside any call: an exchange of its own, now complete
            self._seq += 1
            self.emit(Exchange(self._seq, round_["asked"], _outcome(message), started_at=now_iso(), origin="server"))

    def _learn_client(self, method: str, params: dict[str, Any]) -> None:
        header = self.header
        if method == "initialize":
            header.client = {
                "name": (params.get("clientInfo") or {}).get("name"),
                "version": (params.get("clientInfo") or {}).get("version"),
                "capabilities": params.get("capabilities") or {},
            }
            header.protocol_version = header.protocol_version or params.get("protocolVersion")
            return
        meta = params.get("_meta") or {}
        if META_VERSION in meta and not header.client:
            info = meta.get(META_CLIENT) or {}
            header.client = {
                "name": info.get("name"),
                "version": info.get("version"),
                "capabilities": meta.get(META_CAPABILITIES) or {},
            }
            header.protocol_version = meta[META_VERSION]

    # server -> client ------------------------------------------------------------------------

    def from_server(self, raw: bytes) -> None:
        message = parse_message(raw)
        self.messages += 1
        if message is None:
            self.unparsed += 1
        elif isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError):
            self._server_answer(message)
        elif isinstance(message, mcp_types.JSONRPCRequest):
            self._server_request(message)

    def _server_answer(self, message: mcp_types.JSONRPCResponse | mcp_types.JSONRPCError) -> None:
        open_ = self._by_id.pop(message.id, None)
        if open_ is None:
            return
        exchange = open_.exchange
        if isinstance(message, mcp_types.JSONRPCResponse):
            self._learn_server(exchange.method, message.result)
        if isinstance(message, mcp_types.JSONRPCResponse) and message.result.get("resultType") == INPUT_REQUIRED:
            exchange.rounds.append({"era": MODERN, "asked": message.result})
            open_.awaiting_retry = message.result.get("requestState")
            self._awaiting.append(open_)
            return
        exchange.response = _outcome(message)
        exchange.latency_ms = round((time.perf_counter() - open_.started) * 1000, 3)
        self.emit(exchange)

    def _learn_server(self, method: str, result: dict[str, Any]) -> None:
        """The server's name and version: from `initialize` (2025-11-25) or any result's `_meta` (2026-07-28)."""
        if method == "initialize":
            self.header.protocol_version = result.get("protocolVersion") or self.header.protocol_version
        info = result.get("serverInfo") or (result.get("_meta") or {}).get(META_SERVER)
        if isinstance(info, dict) and "info" not in self.header.server:
            self.header.server["info"] = {"name": info.get("name"), "version": info.get("version")}

    def _server_request(self, message: mcp_types.JSONRPCRequest) -> None:
        asked = {"id": message.id, "method": message.method, "params": message.params or {}}
        pending = [o for o in self._by_id.values() if o.exchange.response is None]
        owner = pending[-1] if pending else None
        round_: dict[str, Any] = {"era": LEGACY, "asked": asked}
        if owner is not None:
            owner.exchange.rounds.append(round_)
        self._server_requests[message.id] = (owner, round_)

    def unfinished(self) -> list[Exchange]:
        """Exchanges the session ended in the middle of (no final response), in order."""
        seen = {id(o.exchange): o.exchange for o in [*self._by_id.values(), *self._awaiting]}
        return sorted(seen.values(), key=lambda e: e.seq)


__all__ = ["INPUT_REQUIRED", "Assembler", "now_iso", "parse_message"]
