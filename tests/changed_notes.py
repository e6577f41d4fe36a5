"""A changed build of the notes example, for `mcpbdd verify` to find drift in.

Two changes a reviewer would care about: `get_note` now reports a missing note as a protocol
error (a channel change) and returns titles in capitals (a value change at one JSON path).
Run as `python tests/changed_notes.py` (stdio), like the example itself.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError

from mcpbdd.examples import notes
from mcpbdd.examples.arguments import NoteId  # the same argument, described as the example describes it

notes.mcp.remove_tool("get_note")


@notes.mcp.tool()
async def get_note(note_id: NoteId, ctx: Context) -> notes.Note:
    """Return one note of the caller's tenant (changed: capitals; a missing note is a protocol error)."""
    try:
        found = await notes._find(ctx, note_id)
    except notes.NoteNotFound:
        raise MCPError(-32602, f"Note {note_id} not found.") from None
    return found.model_copy(update={"title": found.title.upper()})


if __name__ == "__main__":
    notes.main()
