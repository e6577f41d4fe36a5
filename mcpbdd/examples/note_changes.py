"""What the notes server announces on its own: a tool turned on per tenant, and a note that changed.

- `set_archiving(enabled)` turns the tenant's archive on or off: `archive_note` works only while it
  is on, so a change is announced as a change of the tools list (and nothing is announced when the
  setting stays as it was);
- `edit_note(note_id, body)` rewrites a note's body and announces that the resource
  `notes://<id>` changed, to the clients that subscribed to it.

The era decides how an announcement travels. On 2026-07-28 it is published on the server's
subscription bus (`ctx.notify_tools_changed()`, `ctx.notify_resource_updated(uri)`), which the SDK's
`subscriptions/listen` handler delivers to the streams that asked for it. On 2025-11-25 it is a
notification on the caller's connection (`send_tool_list_changed()`), and a resource update goes
only to a connection that sent `resources/subscribe` for it (the handlers below keep the URIs).

Kept apart from `notes.py` so the server module stays small; `notes.py` calls `register(globals())`
(see `notebook_import` for why this module reads the server from the namespace it is handed).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Annotated, Any, Final

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from mcpbdd._sdk import lowlevel_server
from mcpbdd.examples.arguments import NoteId

__all__ = ["ARCHIVING", "announce_note_changed", "announce_tools_changed", "register"]

ARCHIVING: Final = "settings/archiving"
"""The tenant's storage key that says whether its archive is on."""


def _modern(ctx: Context) -> bool:
    return ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS


async def announce_tools_changed(ctx: Context) -> None:
    """The tools list changed: on the bus (2026-07-28) or to the caller's connection (2025-11-25)."""
    if _modern(ctx):
        await ctx.notify_tools_changed()
    else:
        await ctx.request_context.session.send_tool_list_changed()


async def announce_note_changed(ctx: Context, note_id: str, subscribed: set[str]) -> None:
    """`notes://<id>` changed: on the bus (2026-07-28), or to the caller's connection if it subscribed (2025-11-25)."""
    uri = f"notes://{note_id}"
    if _modern(ctx):
        await ctx.notify_resource_updated(uri)
    elif uri in subscribed:
        await ctx.request_context.session.send_resource_updated(uri)


def register(namespace: Mapping[str, Any]) -> None:
    """Add `set_archiving`, `archive_note` and `edit_note`, and the 2025-11-25 subscription handlers, to the
    notes server of `namespace` (its `mcp`), using its `_notebook`, `_find`, `_state` and `Note` when they run."""
    server = namespace["mcp"]

    async def set_archiving(enabled: bool, ctx: Context) -> str:
        """Turn the tenant's archive on or off; `archive_note` works only while it is on (a tools-list change)."""
        notebook = namespace["_notebook"](ctx)
        if bool(await notebook.get(ARCHIVING, False)) == enabled:
            return f"Archiving is already {'on' if enabled else 'off'}."
        await notebook.set(ARCHIVING, enabled)
        await announce_tools_changed(ctx)
        return f"Archiving is now {'on' if enabled else 'off'}."

    async def archive_note(note_id: str, ctx: Context) -> str:
        """Move a note to the tenant's archive (only while `set_archiving` has turned the archive on)."""
        notebook = namespace["_notebook"](ctx)
        if not await notebook.get(ARCHIVING, False):
            raise ToolError("Archiving is off for this tenant; turn it on with set_archiving first.")
        note = await namespace["_find"](ctx, note_id)
        await notebook.set(f"archive/{note.id}", note.model_dump(mode="json"))
        await notebook.delete(f"notes/{note.id}")
        return f"Archived {note.id}."

    async def edit_note(note_id: str, body: str, ctx: Context) -> Any:
        """Replace a note's body; the clients subscribed to `notes://<id>` are told it changed."""
        note = await namespace["_find"](ctx, note_id)
        edited = note.model_copy(update={"body": body})
        await namespace["_notebook"](ctx).set(f"notes/{note.id}", edited.model_dump(mode="json"))
        await announce_note_changed(ctx, note.id, namespace["_state"](ctx).subscriptions)
        return edited

    # The annotations as objects (this module's are strings, and `Note` is not a name here): the SDK reads them.
    body = Annotated[str, Field(description="The note's new text, replacing the old.")]
    enabled = Annotated[bool, Field(description="true turns the archive on, false turns it off.")]
    edit_note.__annotations__ = {"note_id": NoteId, "body": body, "ctx": Context, "return": namespace["Note"]}
    set_archiving.__annotations__ = {"enabled": enabled, "ctx": Context, "return": str}
    archive_note.__annotations__ = {"note_id": NoteId, "ctx": Context, "return": str}
    for tool in (set_archiving, archive_note, edit_note):
        server.tool()(tool)

    async def subscribe(ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        ctx.lifespan_context.subscriptions.add(str(params.uri))
        return EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        ctx.lifespan_context.subscriptions.discard(str(params.uri))
        return EmptyResult()

    with warnings.catch_warnings():  # resources/subscribe is the 2025-11-25 way, deprecated as of 2026-07-28
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        lowlevel = lowlevel_server(server)
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
