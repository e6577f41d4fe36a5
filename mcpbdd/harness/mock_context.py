"""MockContext: a *real* `mcp.server.mcpserver.Context` for calling a server's handlers without a transport.

Nothing here imitates the SDK's Context: we build the genuine article over a genuine
`ServerRequestContext` and `ServerSession`. Only the outermost layer, the dispatch
context a transport would supply, is ours: it records what the handler sends (progress,
log messages, notifications) instead of putting it on a wire, and it has no
back-channel, exactly like a 2026-07-28 connection (so `ctx.elicit()` raises
`NoBackChannelError` as it would in production, and `Resolve(...)` dependencies return
an `InputRequiredResult`).

Use it from pytest like `createMockContext` in the TypeScript framework mcp-ts-core:

    mock = MockContext(server, lifespan=state, capabilities={"elicitation"})
    with acting_as(Principal("alice", "acme")):
        result = await server.call_tool("create_note", {...}, mock.for_tool("create_note", {...}))
    mock.notifications  # what the tool sent
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Unpack

import anyio
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.session import ServerSession
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    CallToolRequestParams,
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    GetPromptRequestParams,
    Implementation,
    ReadResourceRequestParams,
    RequestParamsMeta,
    RootsCapability,
    SamplingCapability,
)
from mcp_types.version import LATEST_MODERN_VERSION

from mcpbdd._sdk import subscription_bus
from mcpbdd.harness.base import Rounds, round_options
from mcpbdd.model.kinds import CAPABILITIES, Capability, check_capabilities

MOCK_TRANSPORT = TransportContext(kind="mcpbdd-mock", can_send_request=False)

_request_ids = itertools.count(1)


def client_capabilities(names: Iterable[str]) -> ClientCapabilities:
    """The SDK's `ClientCapabilities` for capability names (`elicitation`, `sampling`, `roots`)."""
    chosen = set(check_capabilities(names))
    return ClientCapabilities(
        elicitation=ElicitationCapability(form=FormElicitationCapability())
        if Capability.ELICITATION in chosen
        else None,
        sampling=SamplingCapability() if Capability.SAMPLING in chosen else None,
        roots=RootsCapability(list_changed=True) if Capability.ROOTS in chosen else None,
    )


@dataclass
class Recorder:
    """What a handler sent back while it ran: notifications (log messages among them) and progress."""

    notifications: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)
    progressed: Callable[[], None] | None = None
    """Told of each progress report as it is recorded (a harness cancelling a call after so many reports)."""

    @property
    def log_messages(self) -> list[dict[str, Any]]:
        return [params for method, params in self.notifications if method == "notifications/message"]


@dataclass
class RecordingDispatchContext:
    """The transport seam: satisfies the SDK's `DispatchContext` protocol and records instead of sending."""

    recorder: Recorder
    request_id: int | str | None
    transport: TransportContext = MOCK_TRANSPORT
    message_metadata: None = None
    _cancel_requested: anyio.Event | None = None

    @property
    def cancel_requested(self) -> anyio.Event:
        """Created on first use: most handlers never look, and an Event per call is measurable."""
        if self._cancel_requested is None:
            self._cancel_requested = anyio.Event()
        return self._cancel_requested

    @property
    def can_send_request(self) -> bool:
        return False

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        self.recorder.notifications.append((method, dict(params or {})))

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        self.recorder.progress.append((progress, total, message))
        if self.recorder.progressed is not None:
            self.recorder.progressed()


class MockContext:
    """Builds real SDK Contexts for one (mock) client connection.

    Options: `lifespan` (the server's lifespan state; the harness enters the lifespan
    for you), `capabilities` (names the client declares; all three by default),
    `protocol_version` (2026-07-28 by default), `session_id`, `client_info`, `meta`.
    Each `for_tool` / `for_resource` / `for_prompt` makes a fresh request context with its
    own request id; `input_responses` and `request_state` carry a retry round.
    """

    def __init__(
        self,
        server: MCPServer[Any],
        *,
        lifespan: Any = None,
        capabilities: Iterable[str] = CAPABILITIES,
        protocol_version: str = LATEST_MODERN_VERSION,
        session_id: str | None = None,
        client_info: Implementation | None = None,
        meta: RequestParamsMeta | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        self.server = server
        self.lifespan = lifespan
        self.protocol_version = protocol_version
        self.meta = meta
        self.recorder = recorder or Recorder()
        self.connection = Connection.from_envelope(
            protocol_version,
            (client_info or Implementation(name="mcpbdd", version="0")).model_dump(mode="json"),
            client_capabilities(capabilities).model_dump(mode="json", by_alias=True, exclude_none=True),
        )
        self.connection.session_id = session_id

    @property
    def notifications(self) -> list[tuple[str, dict[str, Any]]]:
        return self.recorder.notifications

    def request_context(
        self, method: str, params: Mapping[str, Any] | None, recorder: Recorder | None = None
    ) -> ServerRequestContext[Any, Any]:
        """A fresh `ServerRequestContext` for one request, as `ServerRunner` would build it.

        `recorder`: where what the handler sends on this request goes (a listen's stream has its own)."""
        dctx = RecordingDispatchContext(recorder or self.recorder, request_id=next(_request_ids))
        session = ServerSession(dctx, self.connection, request_meta=self.meta)
        return ServerRequestContext(
            session=session,
            lifespan_context=self.lifespan,
            protocol_version=self.protocol_version,
            method=method,
            params=params,
            request_id=dctx.request_id,
            meta=self.meta,
        )

    def _context(self, method: str, params: Any) -> Context[Any, Any]:
        return Context(
            request_context=self.request_context(method, _wire_params(params)),
            mcp_server=self.server,
            input_params=params,
            subscriptions=subscription_bus(self.server),  # the server's own bus, as _handle_call_tool passes it
        )

    def for_tool(
        self, name: str, arguments: dict[str, Any] | None = None, **rounds: Unpack[Rounds]
    ) -> Context[Any, Any]:
        params = CallToolRequestParams(name=name, arguments=arguments, **round_options(rounds))
        return self._context("tools/call", params)

    def for_resource(self, uri: str, **rounds: Unpack[Rounds]) -> Context[Any, Any]:
        return self._context("resources/read", ReadResourceRequestParams(uri=uri, **round_options(rounds)))

    def for_prompt(
        self, name: str, arguments: dict[str, str] | None = None, **rounds: Unpack[Rounds]
    ) -> Context[Any, Any]:
        params = GetPromptRequestParams(name=name, arguments=arguments, **round_options(rounds))
        return self._context("prompts/get", params)


def _wire_params(params: Any) -> dict[str, Any]:
    """The raw params mapping a transport would have delivered (what `ctx.params` shows a handler)."""
    wire: dict[str, Any] = params.model_dump(mode="json", by_alias=True, exclude_none=True)
    return wire


__all__ = ["MOCK_TRANSPORT", "MockContext", "Recorder", "RecordingDispatchContext", "client_capabilities"]
