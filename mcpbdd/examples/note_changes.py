"""What the notes server announces on its own: a tool turned on per tenant, and a note that changed.

- `set_archiving(enabled)` turns the tenant's archive on or off: `archive_note` works only while it
  is on, so a change is announced as a change of the tools list (and nothing is announced when the
  setting stays as it was);
- `edit_note(note_id, body)` rewrites a note's body and announces that the resource
  `notes://<id>` changed, to the clients that subscribed to it.

The era decides how an announcement travels; `mcpbdd.kit.announce` picks the way for the caller's
era (the subscription bus on 2026-07-28; on 2025-11-25 a notification on the caller's connection,
and a resource update to every connection that sent `resources/subscribe` for it, which
`serve_subscriptions` serves).

Kept apart from `notes.py` so the server module stays small; `notes.py` calls `register(globals())`
(see `notebook_import` for why this module reads the server from the namespace it is handed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcpbdd.examples.arguments import NoteId
from mcpbdd_kit.announce import resource_updated, serve_subscriptions, tools_changed

__all__ = ["ARCHIVING", "register"]

ARCHIVING: Final = "settings/archiving"
"""The tenant's storage key that says whether its archive is on."""


def register(namespace: Mapping[str, Any]) -> None:
    """Add `set_archiving`, `archive_note` and `edit_note`, and the 2025-11-25 subscription handlers, to the
    notes server of `namespace` (its `mcp`), using its `_notebook`, `_find` and `Note` when they run."""
    server = namespace["mcp"]
    subscriptions = serve_subscriptions(server)

    async def set_archiving(enabled: bool, ctx: Context) -> str:
        """Turn the tenant's archive on or off; `archive_note` works only while it is on (a tools-list change)."""
        notebook = namespace["_notebook"](ctx)
        if bool(await notebook.get(ARCHIVING, False)) == enabled:
            return f"Archiving is already {'on' if enabled else 'off'}."
        await notebook.set(ARCHIVING, enabled)
        await tools_changed(ctx)
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
        await resource_updated(ctx, f"notes://{note.id}", subscriptions)
        return edited

    # The annotations as objects (this module's are strings, and `Note` is not a name here): the SDK reads them.
    body = Annotated[str, Field(description="The note's new text, replacing the old.")]
    enabled = Annotated[bool, Field(description="true turns the archive on, false turns it off.")]
    edit_note.__annotations__ = {"note_id": NoteId, "body": body, "ctx": Context, "return": namespace["Note"]}
    set_archiving.__annotations__ = {"enabled": enabled, "ctx": Context, "return": str}
    archive_note.__annotations__ = {"note_id": NoteId, "ctx": Context, "return": str}
    for tool in (set_archiving, archive_note, edit_note):
        server.tool()(tool)
