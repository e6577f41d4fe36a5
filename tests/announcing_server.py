"""Test-only MCP servers whose `subscriptions/listen` streams break what a 2026-07-28 client relies on.

tests/behave_cases/features/failing_announcements.feature runs against them (tests/ is on the
PYTHONPATH there) to show each announcement check failing with a message naming what arrived.
Each serves its own listen handler in place of the SDK's (`ListenHandler`), over the server's own
subscription bus, and has two tools: `change` announces that the tools list changed, `touch` that
the resource `notes://elsewhere` changed (on 2025-11-25 too, to a client that never subscribed to it:
the servers accept `resources/subscribe` and then ignore what was subscribed to):

- `unrequested` forwards every event to every stream, whatever the stream asked for;
- `mistagged` tags its events with an id that is not the listen's (the acknowledgement is right);
- `eager` sends an event before its acknowledgement.
"""

from __future__ import annotations

import warnings
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY, ServerEvent, ToolsListChanged, event_to_notification
from mcp_types import (
    EmptyResult,
    SubscribeRequestParams,
    SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd._sdk import lowlevel_server, subscription_bus

__all__ = ["ELSEWHERE", "OTHER_ID", "eager", "mistagged", "unrequested"]

ELSEWHERE = "notes://elsewhere"
"""The resource `touch` announces, which no scenario listens to."""
OTHER_ID = "listen-of-someone-else"
"""The id `mistagged` stamps on its events."""


def _server(name: str) -> MCPServer[Any]:
    server = MCPServer(name)
    bus = subscription_bus(server)

    async def listen(ctx: ServerRequestContext[Any], params: SubscriptionsListenRequestParams) -> Any:
        own = {SUBSCRIPTION_ID_META_KEY: ctx.request_id}
        tagged = {SUBSCRIPTION_ID_META_KEY: OTHER_ID} if name == "mistagged" else own
        send, receive = anyio.create_memory_object_stream[ServerEvent](64)
        unsubscribe = bus.subscribe(send.send_nowait)
        ack = SubscriptionsAcknowledgedNotification(
            params=SubscriptionsAcknowledgedNotificationParams(notifications=params.notifications, _meta=own)
        )
        try:
            if name == "eager":
                await ctx.session.send_notification(event_to_notification(ToolsListChanged(), own), ctx.request_id)
            await ctx.session.send_notification(ack, related_request_id=ctx.request_id)
            async for event in receive:  # every event, asked for or not (`unrequested` shows it)
                await ctx.session.send_notification(event_to_notification(event, tagged), ctx.request_id)
        finally:
            unsubscribe()
        return SubscriptionsListenResult(_meta=own)

    lowlevel_server(server).add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, listen)

    async def subscribe(_ctx: ServerRequestContext[Any], _params: SubscribeRequestParams) -> EmptyResult:
        return EmptyResult()

    with warnings.catch_warnings():  # resources/subscribe is deprecated as of 2026-07-28; this serves 2025-11-25
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        lowlevel_server(server).add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)

    @server.tool()
    async def change(ctx: Context) -> str:
        """Announces that the tools list changed."""
        await ctx.notify_tools_changed()
        return "changed"

    @server.tool()
    async def touch(ctx: Context) -> str:
        """Announces that `notes://elsewhere` changed, the era's way, whoever subscribed to what."""
        if ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await ctx.notify_resource_updated(ELSEWHERE)
        else:
            await ctx.request_context.session.send_resource_updated(ELSEWHERE)
        return "touched"

    return server


unrequested = _server("unrequested")
mistagged = _server("mistagged")
eager = _server("eager")
