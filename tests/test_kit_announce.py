"""`mcpbdd.kit.announce`: a change announced the right way for each era, and 2025-11-25 subscriptions served.

Real in-process `mcp.Client`s on a real `MCPServer`: on 2025-11-25 a resource update reaches every connection that
subscribed to the URI (the caller's and another's) and no other; a list change reaches the caller; the server declares
`resources.subscribe` once the handlers are served. 2026-07-28 listens are covered end to end by
features/announcements.feature on every harness.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from mcpbdd._sdk import connection_of
from mcpbdd.kit.announce import (
    MAX_SUBSCRIPTIONS,
    MAX_URI_LENGTH,
    Subscriptions,
    resource_updated,
    serve_subscriptions,
    tools_changed,
)

# The 2025-11-25 subscription calls are what this module serves; the SDK warns that 2026-07-28 removed them.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


def build() -> tuple[MCPServer, Subscriptions]:
    mcp = MCPServer("announcer")
    subscriptions = serve_subscriptions(mcp)

    @mcp.resource("docs://{name}")
    def doc(name: str) -> str:
        return f"the doc {name}"

    @mcp.tool()
    async def edit(name: str, ctx: Context) -> str:
        """Edit a doc; its subscribers hear of it."""
        await resource_updated(ctx, f"docs://{name}", subscriptions)
        return "edited"

    @mcp.tool()
    async def reconfigure(ctx: Context) -> str:
        """Change the tools list."""
        await tools_changed(ctx)
        return "done"

    return mcp, subscriptions


class Heard:
    """What one client's connection received, by method."""

    def __init__(self) -> None:
        self.methods: list[tuple[str, Any]] = []

    async def __call__(self, message: Any) -> None:
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if isinstance(method, str):
            self.methods.append((method, getattr(getattr(root, "params", None), "uri", None)))


@pytest.mark.anyio
async def test_on_2025_11_25_an_update_reaches_every_subscriber_and_nobody_else() -> None:
    mcp, _ = build()
    alice_heard, bob_heard, carol_heard = Heard(), Heard(), Heard()
    async with (
        Client(mcp, mode="legacy", message_handler=alice_heard) as alice,
        Client(mcp, mode="legacy", message_handler=bob_heard) as bob,
        Client(mcp, mode="legacy", message_handler=carol_heard) as carol,
    ):
        declared = alice.server_capabilities.resources
        assert declared is not None and declared.subscribe is True  # served, so declared
        await alice.subscribe_resource("docs://plan")
        await bob.subscribe_resource("docs://plan")
        await carol.subscribe_resource("docs://other")
        await alice.call_tool("edit", {"name": "plan"})
        await anyio.sleep(0.05)
        await bob.unsubscribe_resource("docs://plan")
        await alice.call_tool("edit", {"name": "plan"})
        await anyio.sleep(0.05)
    updated = ("notifications/resources/updated", "docs://plan")
    assert alice_heard.methods.count(updated) == 2
    assert bob_heard.methods.count(updated) == 1  # before unsubscribing, from alice's call, on its own channel
    assert not [m for m in carol_heard.methods if m[0] == "notifications/resources/updated"]


@pytest.mark.anyio
async def test_on_2025_11_25_a_list_change_reaches_the_caller() -> None:
    mcp, _ = build()
    heard = Heard()
    async with Client(mcp, mode="legacy", message_handler=heard) as client:
        await client.call_tool("reconfigure", {})
        await anyio.sleep(0.05)
    assert ("notifications/tools/list_changed", None) in heard.methods


@pytest.mark.anyio
async def test_a_closed_connection_is_forgotten_not_written_to() -> None:
    mcp, subscriptions = build()
    async with Client(mcp, mode="legacy") as gone:
        await gone.subscribe_resource("docs://plan")
    assert len(subscriptions.subscribers("docs://plan")) <= 1
    async with Client(mcp, mode="legacy") as alice:
        result = await alice.call_tool("edit", {"name": "plan"})  # must not fail on the closed subscriber
        assert not result.is_error


def test_the_seam_finds_the_connection_behind_a_session() -> None:
    class Session:
        _connection = object()

    assert connection_of(Session()) is Session._connection


@pytest.mark.anyio
async def test_a_flood_of_subscriptions_or_a_huge_uri_is_refused_and_holds_nothing() -> None:
    """A subscription is held for the connection's life: one connection cannot make the server hold an unbounded
    set of URIs, nor a URI of a megabyte; the refusal says which limit, and the connection stays usable."""
    mcp, subscriptions = build()
    async with Client(mcp, mode="legacy") as flooder:
        with pytest.raises(MCPError, match=f"at most {MAX_URI_LENGTH:,} may be subscribed") as huge:
            await flooder.subscribe_resource("docs://" + "x" * 1_000_000)
        assert huge.value.code == INVALID_PARAMS
        for number in range(MAX_SUBSCRIPTIONS):
            await flooder.subscribe_resource(f"docs://{number}")
        await flooder.subscribe_resource("docs://0")  # again: nothing new held
        with pytest.raises(MCPError, match="the most one may be: unsubscribe first"):
            await flooder.subscribe_resource("docs://one-too-many")
        (held,) = subscriptions._by_connection.values()
        assert len(held) == MAX_SUBSCRIPTIONS and "docs://one-too-many" not in held
        await flooder.unsubscribe_resource("docs://0")
        await flooder.subscribe_resource("docs://one-too-many")  # room again
        assert not (await flooder.call_tool("edit", {"name": "1"})).is_error
