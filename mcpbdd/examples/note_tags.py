"""The notes server's completions: a prompt's tag and a note resource's id, from the caller's own notes.

An assistant offers what a user has already made as they type, instead of letting them guess: the
`tag` argument of the prompt `summarize_notes` completes from the caller's notes' tags, the
`note_id` variable of the note resource templates (`notes://{note_id}`, `note-data://{note_id}`)
from the caller's notes' ids, never another tenant's. Kept apart from `notes.py` so the server
module stays small: `notes.py` calls `register(globals())`, and this module reads the server and
its helpers from the namespace it is handed (as `notebook_import` does), when a completion is
asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcp_types import CompleteRequestParams, CompleteResult, Completion, PromptReference, ResourceTemplateReference

from mcpbdd._sdk import lowlevel_server

__all__ = ["MAX_COMPLETIONS", "NOTE_TEMPLATES", "register"]

MAX_COMPLETIONS: Final = 100
"""The protocol's cap on the values of one completion."""

NOTE_TEMPLATES: Final = frozenset({"notes://{note_id}", "note-data://{note_id}"})
"""The resource templates whose `note_id` completes from the caller's notes."""


def _completes(ref: object, argument: str) -> str | None:
    """What a reference's argument completes from (`tags`, `ids`), or None when this server completes nothing there."""
    if isinstance(ref, PromptReference) and ref.name == "summarize_notes" and argument == "tag":
        return "tags"
    if isinstance(ref, ResourceTemplateReference) and ref.uri in NOTE_TEMPLATES and argument == "note_id":
        return "ids"
    return None


def register(namespace: Mapping[str, Any]) -> None:
    """Serve `completion/complete` on the server in `namespace` (which then declares the completions capability)."""
    server = namespace["mcp"]

    async def complete(ctx: Any, params: CompleteRequestParams) -> CompleteResult:
        """The caller's tags (or note ids) starting with what they typed, sorted; nothing for anything else."""
        source = _completes(params.ref, params.argument.name)
        if source is None:
            return CompleteResult(completion=Completion(values=[]))
        tenant, _ = namespace["_caller"]()
        notes = await namespace["_all_notes"](ctx.lifespan_context.storage.tenant(tenant))
        known = {tag for note in notes for tag in note.tags} if source == "tags" else {note.id for note in notes}
        values = sorted(value for value in known if value.startswith(params.argument.value))
        shown = values[:MAX_COMPLETIONS]
        return CompleteResult(completion=Completion(values=shown, total=len(values), has_more=len(values) > len(shown)))

    lowlevel_server(server).add_request_handler("completion/complete", CompleteRequestParams, complete)
