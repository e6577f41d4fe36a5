"""The notes server's completions: the `tag` argument of the prompt `summarize_notes`, from the caller's notes' tags.

An assistant offers the tags a user has already used as they type, instead of letting them guess
a tag no note has. Kept apart from `notes.py` so the server module stays small: `notes.py` calls
`register(globals())`, and this module reads the server and its helpers from the namespace it is
handed (as `notebook_import` does), when a completion is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcp_types import CompleteRequestParams, CompleteResult, Completion, PromptReference

from mcpbdd._sdk import lowlevel_server

__all__ = ["MAX_COMPLETIONS", "register"]

MAX_COMPLETIONS: Final = 100
"""The protocol's cap on the values of one completion."""


def register(namespace: Mapping[str, Any]) -> None:
    """Serve `completion/complete` on the server in `namespace` (which then declares the completions capability)."""
    server = namespace["mcp"]

    async def complete(ctx: Any, params: CompleteRequestParams) -> CompleteResult:
        """The caller's tags starting with what they typed, sorted; nothing for another prompt or argument."""
        ref, argument = params.ref, params.argument
        if not (isinstance(ref, PromptReference) and ref.name == "summarize_notes" and argument.name == "tag"):
            return CompleteResult(completion=Completion(values=[]))
        tenant, _ = namespace["_caller"]()
        notes = await namespace["_all_notes"](ctx.lifespan_context.storage.tenant(tenant))
        tags = sorted({tag for note in notes for tag in note.tags if tag.startswith(argument.value)})
        shown = tags[:MAX_COMPLETIONS]
        return CompleteResult(completion=Completion(values=shown, total=len(tags), has_more=len(tags) > len(shown)))

    lowlevel_server(server).add_request_handler("completion/complete", CompleteRequestParams, complete)
