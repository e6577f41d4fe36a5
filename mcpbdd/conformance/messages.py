"""The checks that write their own JSON-RPC messages: the message rules, version negotiation, `server/discover`.

The SDK's client negotiates, numbers its requests and matches responses for every other check, so a server
that answers with the wrong id, answers a notification, or mishandles a version it does not know is never
seen by them. These checks send those messages themselves on a connection of their own (`raw.raw_line`) and
read every message that comes back.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_types import CLIENT_CAPABILITIES_META_KEY, INVALID_PARAMS

from mcpbdd.conformance.probe import Probe
from mcpbdd.conformance.raw import CLIENT_INFO, RawLine, modern_meta, raw_line
from mcpbdd.conformance.registry import ConformanceFailure, NotApplicable, check

__all__ = ["MODERN_VERSION", "UNSUPPORTED_VERSION"]

LEGACY_VERSION, MODERN_VERSION = "2025-11-25", "2026-07-28"
UNSUPPORTED_VERSION = "1999-01-01"
"""A protocol version no server supports (it predates MCP): what the negotiation check offers."""

_VERSION = re.compile(r"\d{4}-\d{2}-\d{2}")
_UNKNOWN_METHOD = "mcpbdd/no-such-method"
_UNKNOWN_NOTIFICATION = "notifications/mcpbdd-no-such-notification"


def _initialize(version: str) -> dict[str, Any]:
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}


async def _open_legacy(line: RawLine) -> None:
    """The 2025-11-25 handshake, with a string id (a request id may be a string or an integer)."""
    answer = await line.request("mcpbdd-initialize", "initialize", _initialize(LEGACY_VERSION))
    if answer.result is None:
        raise ConformanceFailure(f"{answer.request} was refused: {_error_text(answer.error)}")
    await line.notify("notifications/initialized")


def _error_text(error: Any) -> str:
    return f"{error.error.code} {error.error.message!r}" if error is not None else "no error"


@check(
    "jsonrpc-messages",
    sends="On a connection of its own: the handshake (2025-11-25, with a string id) or `server/discover` "
    "(2026-07-28); a request with an integer id; a request of a method nobody defines; a notification nobody "
    "defines, then one more request; on 2026-07-28, a request without the required "
    "`_meta['io.modelcontextprotocol/clientCapabilities']`. Each request waits for its own answer before the next "
    "is sent; after the last answer it reads on for up to a second (a second answer, or a late one to the "
    "notification, would come then).",
    blind="A response later than that second; batches and malformed JSON (it sends only well-formed messages, so "
    "the error for an unreadable request is not seen); ids the server reuses for its own requests; what the "
    "server does on other connections.",
    title="Responses carry their request's id; notifications get no response",
    section="messages",
    url="https://modelcontextprotocol.io/specification/2025-11-25/basic#messages",
    rule="Every message follows JSON-RPC 2.0: a response carries the id of the request it answers (a string or "
    "an integer, never null), has a `result` or an `error` with an integer `code` and a `message`; a "
    "notification is never answered. A response that answers nothing in flight, answers twice, or cannot be "
    "decoded is a broken message. On 2026-07-28 a request missing a required `_meta` field is malformed: refused "
    "with -32602.",
    fix="Answer each request once, echoing its `id` exactly as sent (a string stays a string); answer an unknown "
    "method with the error -32601; send nothing back for a notification, known or not; refuse a 2026-07-28 request "
    "without its `_meta` envelope with -32602. The SDK's server does all "
    "of this: a hand-rolled dispatcher is what usually breaks it.",
)
async def jsonrpc_messages(probe: Probe) -> None:
    modern = await probe.modern()
    async with raw_line(probe) as line:
        if modern:
            first = await line.request("mcpbdd-discover", "server/discover", {"_meta": modern_meta(MODERN_VERSION)})
            if first.result is None:
                raise ConformanceFailure(f"{first.request} was refused: {_error_text(first.error)}")
            params: dict[str, Any] | None = {"_meta": modern_meta(MODERN_VERSION)}
            again = "server/discover"
        else:
            await _open_legacy(line)
            params, again = None, "ping"
        numbered = await line.request(1, again, params)
        if numbered.result is None:
            raise ConformanceFailure(f"{numbered.request} was refused: {_error_text(numbered.error)}")
        unknown = await line.request(2, _UNKNOWN_METHOD, params)
        if unknown.error is None:
            raise ConformanceFailure(
                f"{unknown.request}: a method nobody defines came back as a result ({unknown.result!r}), not an error"
            )
        await line.notify(_UNKNOWN_NOTIFICATION, params)
        await line.request(3, again, params)  # a response to the notification would come first, and fail here
        if modern:
            await _refuses_missing_meta(line, again)
        await line.settle()  # a second answer to the last request, or a late one to the notification, comes now


async def _refuses_missing_meta(line: RawLine, method: str) -> None:
    """A 2026-07-28 request without a required `_meta` field is malformed: refused with -32602."""
    meta = {k: v for k, v in modern_meta(MODERN_VERSION).items() if k != CLIENT_CAPABILITIES_META_KEY}
    answer = await line.request(4, method, {"_meta": meta})
    if answer.error is None or answer.error.error.code != INVALID_PARAMS:
        got = f"the result {answer.result!r}" if answer.error is None else _error_text(answer.error)
        raise ConformanceFailure(
            f"{answer.request} without _meta[{CLIENT_CAPABILITIES_META_KEY!r}]: {got}, not the error -32602 a "
            "request missing a required field gets"
        )


@check(
    "version-negotiation",
    sends=f"On connections of their own, 2025-11-25 only: `initialize` offering {UNSUPPORTED_VERSION} (a version "
    "no server supports), then `initialize` offering the version the server answered with.",
    blind="Whether the version the server answers with is its latest; 2026-07-28 sessions (no handshake: "
    "`server-discover` checks their versions).",
    title="An initialize offering an unsupported version is answered with a version the server supports",
    section="lifecycle",
    url="https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation",
    rule="When the client's version is not one the server supports, the server MUST answer the `initialize` with "
    "another version it supports (not an error, not the client's version echoed back); when it is one it "
    "supports, the server MUST answer with that same version.",
    fix="Answer `initialize` with a version from your supported list when the client's is not in it (the SDK's "
    "server answers its latest); never echo back a version you do not speak.",
)
async def version_negotiation(probe: Probe) -> None:
    if await probe.modern():
        raise NotApplicable(
            f"version-negotiation checks the {LEGACY_VERSION} handshake and this session speaks {MODERN_VERSION}"
        )
    async with raw_line(probe) as line:
        answer = await line.request("mcpbdd-initialize", "initialize", _initialize(UNSUPPORTED_VERSION))
    if answer.result is None:
        raise ConformanceFailure(
            f"{answer.request} offering {UNSUPPORTED_VERSION}: refused with {_error_text(answer.error)}; the server "
            "MUST answer with a version it supports"
        )
    chosen = answer.result.get("protocolVersion")
    if not isinstance(chosen, str) or not _VERSION.fullmatch(chosen):
        raise ConformanceFailure(f"{answer.request} offering {UNSUPPORTED_VERSION}: protocolVersion {chosen!r}")
    if chosen == UNSUPPORTED_VERSION:
        raise ConformanceFailure(
            f"{answer.request}: the server echoed back {UNSUPPORTED_VERSION}, which no server supports"
        )
    async with raw_line(probe) as line:
        again = await line.request("mcpbdd-initialize", "initialize", _initialize(chosen))
    agreed = again.result.get("protocolVersion") if again.result is not None else _error_text(again.error)
    if agreed != chosen:
        raise ConformanceFailure(
            f"{again.request} offering {chosen} (the version it answered with to {UNSUPPORTED_VERSION}): "
            f"answered {agreed!r}; a supported version MUST be answered with the same version"
        )


@check(
    "server-discover",
    sends=f"On a connection of its own, 2026-07-28 only: `server/discover` with the request `_meta` of "
    f"{MODERN_VERSION}.",
    blind="Whether the capabilities it lists are the ones its other methods serve (`capabilities-served` checks "
    "the lists); its answer to a version it does not support.",
    title="server/discover names the versions the server supports and its capabilities",
    section="versioning",
    url="https://modelcontextprotocol.io/specification/2026-07-28/server/discover",
    rule="Servers MUST implement `server/discover`: a result listing `supportedVersions` (which include the "
    "version the session speaks) and the server's `capabilities`.",
    fix="Use the SDK's server (it answers `server/discover`), or answer it with `supportedVersions` and "
    "`capabilities` on a hand-rolled one.",
    modern_only=True,
)
async def server_discover(probe: Probe) -> None:
    async with raw_line(probe) as line:
        answer = await line.request("mcpbdd-discover", "server/discover", {"_meta": modern_meta(MODERN_VERSION)})
    if answer.result is None:
        raise ConformanceFailure(f"{answer.request} was refused: {_error_text(answer.error)}")
    versions, capabilities = answer.result.get("supportedVersions"), answer.result.get("capabilities")
    problems = []
    if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
        problems.append(f"supportedVersions is {versions!r}, not a list of versions")
    elif MODERN_VERSION not in versions:
        problems.append(f"supportedVersions {versions!r} leaves out {MODERN_VERSION}, which the session speaks")
    if not isinstance(capabilities, dict):
        problems.append(f"capabilities is {capabilities!r}, not an object")
    if problems:
        raise ConformanceFailure(f"{answer.request}: " + "; ".join(problems))
