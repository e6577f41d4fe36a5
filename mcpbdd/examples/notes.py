"""A multi-tenant notes server: the bundled example that mcpbdd's own specifications describe.

It is the kind of server a team actually ships: every caller belongs to a tenant (read
from the authenticated access token, never from tool arguments), each tenant sees only
its own notes, a destructive tool asks for confirmation first, and failures use the
channel a client can act on: a domain failure ("no such note") is a tool error the
model can read and recover from, a request the server refuses outright (an export
format it does not support) is a JSON-RPC protocol error.

State lives in the server's lifespan, so every scenario (and every production process)
starts from an empty notebook without module globals.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

TENANT_CLAIM = "tenant"
"""The access-token claim naming the caller's tenant."""

EXPORT_FORMATS = ("markdown", "json")


class Note(BaseModel):
    """One note as the tools return it."""

    id: str
    title: str
    body: str
    tags: list[str] = Field(default_factory=list)
    author: str


class NoteList(BaseModel):
    """The notes of the caller's tenant, optionally filtered by tag."""

    notes: list[Note]
    count: int


class Deleted(BaseModel):
    """What a confirmed delete removed."""

    id: str
    deleted: bool


class DeleteConfirmation(BaseModel):
    """The question a delete asks before it destroys anything."""

    confirm: bool = Field(description="Delete the note for good?")


@dataclass
class Notebook:
    """Every tenant's notes, held for the lifetime of one server lifespan."""

    notes: dict[str, dict[str, Note]] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def of(self, tenant: str) -> dict[str, Note]:
        return self.notes.setdefault(tenant, {})


@asynccontextmanager
async def notes_lifespan(_server: MCPServer[Notebook]) -> AsyncIterator[Notebook]:
    """A fresh notebook per lifespan: production process or test scenario alike."""
    yield Notebook()


mcp: MCPServer[Notebook] = MCPServer(
    "notes", instructions="Team notes, one notebook per tenant.", lifespan=notes_lifespan
)


def _caller() -> tuple[str, str]:
    """The caller's (tenant, user), from the access token the transport authenticated."""
    token = get_access_token()
    tenant = (token.claims or {}).get(TENANT_CLAIM) if token else None
    if token is None or not tenant:
        raise ToolError("Sign in first: notes belong to a tenant and this call carries no tenant.")
    return str(tenant), token.subject or token.client_id


def _notebook(ctx: Context) -> Notebook:
    return ctx.request_context.lifespan_context


def _find(ctx: Context, note_id: str) -> Note:
    tenant, _ = _caller()
    note = _notebook(ctx).of(tenant).get(note_id)
    if note is None:
        raise ToolError(f"Note {note_id} not found. List the notes to see which ids exist.")
    return note


@mcp.tool()
def create_note(title: str, body: str, ctx: Context, tags: list[str] | None = None) -> Note:
    """Create a note in the caller's tenant and return it with its new id."""
    tenant, user = _caller()
    if not title.strip():
        raise ToolError("A note needs a title.")
    notebook = _notebook(ctx)
    note = Note(id=f"n-{next(notebook.ids)}", title=title, body=body, tags=tags or [], author=user)
    notebook.of(tenant)[note.id] = note
    return note


@mcp.tool()
def get_note(note_id: str, ctx: Context) -> Note:
    """Return one note of the caller's tenant."""
    return _find(ctx, note_id)


@mcp.tool()
def list_notes(ctx: Context, tag: str | None = None) -> NoteList:
    """List the caller's notes, oldest first, optionally only those with a tag."""
    tenant, _ = _caller()
    notes = [n for n in _notebook(ctx).of(tenant).values() if tag is None or tag in n.tags]
    return NoteList(notes=notes, count=len(notes))


def confirm_delete(note_id: str, ctx: Context) -> Elicit[DeleteConfirmation]:
    """Ask the user before a note is destroyed (after checking the note exists)."""
    note = _find(ctx, note_id)
    return Elicit(f'Delete the note "{note.title}" ({note.id})? This cannot be undone.', DeleteConfirmation)


@mcp.tool()
def delete_note(note_id: str, ctx: Context, answer: Annotated[DeleteConfirmation, Resolve(confirm_delete)]) -> Deleted:
    """Delete a note of the caller's tenant once the user confirms."""
    tenant, _ = _caller()
    if not answer.confirm:
        return Deleted(id=note_id, deleted=False)
    del _notebook(ctx).of(tenant)[note_id]
    return Deleted(id=note_id, deleted=True)


@mcp.tool()
def export_notes(format: str, ctx: Context) -> str:
    """Export every note of the caller's tenant as one document (markdown or json)."""
    if format not in EXPORT_FORMATS:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Unsupported export format {format!r}",
            data={"format": format, "supported": list(EXPORT_FORMATS)},
        )
    tenant, _ = _caller()
    notes = list(_notebook(ctx).of(tenant).values())
    if format == "json":
        return NoteList(notes=notes, count=len(notes)).model_dump_json()
    return "\n\n".join(f"# {n.title}\n\n{n.body}" for n in notes)


class TitleSuggestion(BaseModel):
    """A title the client's model proposed for a note."""

    id: str
    suggested_title: str


def ask_model_for_title(note_id: str, ctx: Context) -> Sample:
    """Let the client's model (sampling) propose a title from the note's body."""
    note = _find(ctx, note_id)
    prompt = f"Suggest a short title for this note:\n\n{note.body}"
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))], max_tokens=30)


@mcp.tool()
def suggest_title(
    note_id: str, ctx: Context, proposal: Annotated[CreateMessageResult, Resolve(ask_model_for_title)]
) -> TitleSuggestion:
    """Ask the client's model for a better title for a note (the note is not changed)."""
    _find(ctx, note_id)
    text = proposal.content.text if isinstance(proposal.content, TextContent) else ""
    return TitleSuggestion(id=note_id, suggested_title=text.strip())


class Workspace(BaseModel):
    """The folders the client shared, where notes can be imported from."""

    folders: list[str]


def ask_for_roots() -> ListRoots:
    """Ask the client which folders (roots) it shares."""
    return ListRoots()


@mcp.tool()
def list_import_folders(roots: Annotated[ListRootsResult, Resolve(ask_for_roots)]) -> Workspace:
    """List the folders the client shares, from which notes could be imported."""
    _caller()
    return Workspace(folders=[str(root.uri) for root in roots.roots])


@mcp.resource("notes://{note_id}", mime_type="text/markdown")
def note_resource(note_id: str, ctx: Context) -> str:
    """A note as a markdown document, addressed by its id."""
    tenant, _ = _caller()
    note = _notebook(ctx).of(tenant).get(note_id)
    if note is None:
        raise ResourceNotFoundError(f"Note {note_id} not found")
    return f"# {note.title}\n\n{note.body}"


@mcp.prompt()
def summarize_notes(tag: str, ctx: Context) -> str:
    """Ask the model to summarise the caller's notes with a tag."""
    tenant, _ = _caller()
    notes = [n for n in _notebook(ctx).of(tenant).values() if tag in n.tags]
    listing = "\n".join(f"- {n.title}: {n.body}" for n in notes) or "(no notes)"
    return f"Summarise these notes tagged {tag!r} in three bullet points:\n{listing}"
