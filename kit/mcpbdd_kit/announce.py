"""Announce a change on whichever protocol era the caller speaks, and serve 2025-11-25 resource subscriptions.

In mcp 2.3 a server tells its clients what changed in two ways, one per era:

- 2026-07-28: `ctx.notify_tools_changed()` (and prompts, resources, `notify_resource_updated(uri)`)
  publish on the server's subscription bus, which the SDK's `subscriptions/listen` handler delivers
  to the streams that asked for that kind of change;
- 2025-11-25: a notification on a connection (`session.send_tool_list_changed()`, ...), and a resource
  update only to the connections that sent `resources/subscribe` for its URI. The SDK's `MCPServer`
  has no public way to register that handler, and `ctx.notify_*` reaches no 2025-11-25 client.

A server serving both eras calls the functions here, which pick the way for the caller's era:

    subscriptions = serve_subscriptions(mcp)  # once, after MCPServer(...): 2025-11-25 resources/subscribe

    @mcp.tool()
    async def edit_note(note_id: str, body: str, ctx: Context) -> Note:
        ...
        await resource_updated(ctx, f"notes://{note_id}", subscriptions)

    @mcp.tool()
    async def set_archiving(enabled: bool, ctx: Context) -> str:
        ...
        await tools_changed(ctx)

On 2025-11-25 a list change goes to the caller's connection (the one whose request changed it); a
resource update goes to every live connection that subscribed to the URI. Connections are held weakly:
a closed one is forgotten, never written to. A subscription is remote input held for the connection's
life, so it is bounded: a URI longer than `MAX_URI_LENGTH` characters, or a subscription beyond
`MAX_SUBSCRIPTIONS` on one connection, is refused as invalid params, saying which limit.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any, Final

import anyio
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import INVALID_PARAMS, EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd_kit._sdk import connection_of, lowlevel_server

__all__ = [
    "MAX_SUBSCRIPTIONS",
    "MAX_URI_LENGTH",
    "Subscriptions",
    "prompts_changed",
    "resource_updated",
    "resources_changed",
    "serve_subscriptions",
    "tools_changed",
]

MAX_URI_LENGTH: Final = 8192
"""The longest resource URI a connection may subscribe to (characters): a URI is an address, not a payload."""
MAX_SUBSCRIPTIONS: Final = 1024
"""The most URIs one connection may be subscribed to at once: each is held until it unsubscribes or closes."""

_GONE: Final = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)
"""What writing to a connection that has closed raises: that subscriber is dropped, the others still hear."""


def speaks_modern(ctx: Context[Any, Any]) -> bool:
    """Whether the caller's request came over 2026-07-28 (events travel on the subscription bus)."""
    return ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS


async def tools_changed(ctx: Context[Any, Any]) -> None:
    """The tools list changed: on the bus (2026-07-28) or to the caller's connection (2025-11-25)."""
    if speaks_modern(ctx):
        await ctx.notify_tools_changed()
    else:
        await ctx.request_context.session.send_tool_list_changed()


async def prompts_changed(ctx: Context[Any, Any]) -> None:
    """The prompts list changed: on the bus (2026-07-28) or to the caller's connection (2025-11-25)."""
    if speaks_modern(ctx):
        await ctx.notify_prompts_changed()
    else:
        await ctx.request_context.session.send_prompt_list_changed()


async def resources_changed(ctx: Context[Any, Any]) -> None:
    """The resources list changed: on the bus (2026-07-28) or to the caller's connection (2025-11-25)."""
    if speaks_modern(ctx):
        await ctx.notify_resources_changed()
    else:
        await ctx.request_context.session.send_resource_list_changed()


class Subscriptions:
    """Which 2025-11-25 connections subscribed to which resource URIs (held weakly, by connection).

    Keyed by the SDK's per-client `Connection`: the `session` a handler gets is made afresh for each
    request, so it cannot say who subscribed.
    """

    def __init__(self) -> None:
        self._by_connection: weakref.WeakKeyDictionary[Connection, set[str]] = weakref.WeakKeyDictionary()

    def subscribe(self, connection: Connection, uri: str) -> None:
        """Remember that `connection` listens to `uri`; `ValueError` past `MAX_URI_LENGTH` or `MAX_SUBSCRIPTIONS`."""
        if len(uri) > MAX_URI_LENGTH:
            raise ValueError(f"a resource URI of {len(uri):,} characters: at most {MAX_URI_LENGTH:,} may be subscribed")
        uris = self._by_connection.setdefault(connection, set())
        if uri not in uris and len(uris) >= MAX_SUBSCRIPTIONS:
            raise ValueError(
                f"this connection is subscribed to {len(uris):,} resources, the most one may be: unsubscribe first"
            )
        uris.add(uri)

    def unsubscribe(self, connection: Connection, uri: str) -> None:
        uris = self._by_connection.get(connection)
        if uris is not None:
            uris.discard(uri)

    def subscribers(self, uri: str) -> list[Connection]:
        """The live connections subscribed to `uri`."""
        return [connection for connection, uris in list(self._by_connection.items()) if uri in uris]

    def forget(self, connection: Connection) -> None:
        self._by_connection.pop(connection, None)

    def __repr__(self) -> str:
        return f"Subscriptions({len(self._by_connection)} connection(s))"


async def resource_updated(ctx: Context[Any, Any], uri: str, subscriptions: Subscriptions) -> None:
    """`uri` changed: on the bus (2026-07-28), and to every 2025-11-25 connection subscribed to it.

    The caller's own connection hears it on the request's stream (as a notification of the request
    that made the change); another connection on its standalone channel.
    """
    if speaks_modern(ctx):
        await ctx.notify_resource_updated(uri)
    own = connection_of(ctx.request_context.session)
    for connection in subscriptions.subscribers(uri):
        try:
            if connection is own:
                await ctx.request_context.session.send_resource_updated(uri)
            else:
                await connection.send_resource_updated(uri)
        except _GONE:
            subscriptions.forget(connection)


def serve_subscriptions(server: MCPServer[Any]) -> Subscriptions:
    """Serve `resources/subscribe` and `resources/unsubscribe` (2025-11-25) on `server`; returns the registry.

    With the handlers registered the server declares `resources.subscribe: true` on 2025-11-25 (the SDK
    derives the capability from them); on 2026-07-28 the `subscriptions/listen` handler serves instead.
    """
    subscriptions = Subscriptions()

    async def subscribe(ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        try:
            subscriptions.subscribe(connection_of(ctx.session), str(params.uri))
        except ValueError as refused:
            raise MCPError(INVALID_PARAMS, f"resources/subscribe refused: {refused}") from None
        return EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        subscriptions.unsubscribe(connection_of(ctx.session), str(params.uri))
        return EmptyResult()

    with warnings.catch_warnings():  # resources/subscribe is the 2025-11-25 way, deprecated as of 2026-07-28
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        lowlevel = lowlevel_server(server)
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
    return subscriptions
