"""The notes server's long import (`import_notebook`): progress after each note, log messages, all or nothing.

What the example shows a client can observe of a long call besides its answer: a progress
report per note (`ctx.report_progress`), log messages at several levels under the logger
`notes.import` (info at the start and the end, debug per note, a warning for a note with no
body; never a note's body, which is the tenant's data), and a single all-or-nothing write at
the end, so an import that fails or is cancelled part-way leaves no half of a notebook.

Kept apart from `notes.py` so the server module stays small. `notes.py` calls
`register(globals())`: this module imports nothing of it (`python -m mcpbdd.examples.notes`
runs it as `__main__`, and an import would load a second copy), it reads the server, its
models and its helpers from the namespace it is handed, the helpers when the tool runs.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Annotated, Any, Final

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, Field

from mcpbdd.examples.note_ids import first_free_number, store_all_numbered
from mcpbdd_kit.storage import StorageError, TenantStorage

__all__ = ["IMPORT_LOGGER", "Draft", "import_drafts", "register"]

IMPORT_LOGGER: Final = "notes.import"
"""The logger name of `import_notebook`'s log messages."""

# The SDK marks its logging API deprecated as of 2026-07-28 (SEP-2577) and warns on first use; both eras
# still deliver log messages to a client that asks, and this example logs on purpose to show it.
warnings.filterwarnings("ignore", "The logging capability is deprecated", MCPDeprecationWarning)


class Draft(BaseModel):
    """One note to import: what `import_notebook` takes per note."""

    title: str
    body: str = ""
    tags: list[str] = Field(default_factory=list)


async def import_drafts(
    ctx: Context,
    notebook: TenantStorage,
    drafts: list[Draft],
    *,
    fields: dict[str, Any],
    pace: float = 0.0,
) -> list[dict[str, Any]]:
    """Store `drafts` as notes `n-<number>` (the next free numbers) with `fields` added to each.

    Reports progress and logs as it goes; writes every note in one all-or-nothing batch after the
    last draft and only then moves the tenant's note counter, so a refused or cancelled import stores
    nothing. The batch never replaces a note: if another caller created one under a number picked
    here meanwhile, the import takes fresh numbers (`note_ids.store_all_numbered`, logged at debug).
    `pace` (seconds) is a pause after each note's report, before the next note or the write: an
    import that takes its time, which a client can cancel part-way (no pause by default).
    """
    await ctx.info(f"Importing {len(drafts)} notes", logger_name=IMPORT_LOGGER)
    number = await first_free_number(notebook)
    imported: list[dict[str, Any]] = []
    for done, draft in enumerate(drafts, 1):
        if not draft.title.strip():
            raise ToolError(f"Note {done} has no title; nothing was imported.")
        while await notebook.get(f"notes/n-{number}") is not None:
            number += 1
        imported.append({"id": f"n-{number}", **draft.model_dump(), **fields})
        if not draft.body.strip():
            await ctx.warning(f"Note {draft.title!r} has no body", logger_name=IMPORT_LOGGER)
        await ctx.debug(f"Imported {draft.title!r} as n-{number}", logger_name=IMPORT_LOGGER)
        number += 1
        await ctx.report_progress(done, len(drafts), f"Imported {draft.title!r}")
        if pace > 0:
            await anyio.sleep(pace)
    try:
        stored, renumbered = await store_all_numbered(notebook, imported)
    except StorageError as exc:
        raise ToolError(f"The notes were not imported: {exc}") from exc
    if renumbered:
        ids = ", ".join(note["id"] for note in stored)
        await ctx.debug(f"Another caller took a number meanwhile; stored as {ids}", logger_name=IMPORT_LOGGER)
    await ctx.info(f"Imported {len(stored)} notes", logger_name=IMPORT_LOGGER)
    return stored


def register(namespace: Mapping[str, Any]) -> None:
    """Add `import_notebook` to the notes server of the module namespace `namespace` (its `mcp`).

    Uses its `NoteList` and `Note` models and, when the tool runs, its `_caller`, `_notebook` and
    `_state` helpers: the same tenant, author and clock as `create_note`, and the same numbering
    (`note_ids`).
    """
    note_list, note = namespace["NoteList"], namespace["Note"]

    async def import_notebook(notes: list[Draft], ctx: Context, pace_ms: int = 0) -> Any:
        """Import several notes at once, reporting progress after each; they are stored together, or none is.

        A long import tells the user how far it got (`ctx.report_progress`) and logs what it does
        (`notes.import`: info at the start and the end, debug per note, a warning for a note with no
        body; never a note's body, which is the tenant's data); the notes are written in one
        all-or-nothing batch at the end, so an import cancelled or failing part-way leaves no half
        of a notebook behind. `pace_ms` pauses that many milliseconds after each note (none by default):
        a slow import, for a client to cancel part-way.
        """
        _, user = namespace["_caller"]()
        notebook = namespace["_notebook"](ctx)
        created = namespace["_state"](ctx).clock.now().isoformat().replace("+00:00", "Z")
        fields = {"author": user, "created_at": created}
        stored = await import_drafts(ctx, notebook, notes, fields=fields, pace=max(pace_ms, 0) / 1000)
        return note_list(notes=[note.model_validate(one) for one in stored], count=len(stored))

    # The annotations as objects (this module's are strings, and `NoteList` is not a name here): the SDK reads
    # the argument schema and the output schema from them.
    drafts = Annotated[list[Draft], Field(description="The notes to import, each a title, body and tags.")]
    pace = Annotated[int, Field(description="Milliseconds to wait after each note (0: no wait).")]
    import_notebook.__annotations__ = {"notes": drafts, "ctx": Context, "pace_ms": pace, "return": note_list}
    namespace["mcp"].tool()(import_notebook)
