"""A multi-tenant notes server: the bundled example that mcpbdd's own specifications describe.

It is the kind of server a team actually ships: every caller belongs to a tenant (read
from the authenticated access token, never from tool arguments), each tenant sees only
its own notes, a destructive tool asks for confirmation first, and failures use the
channel a client can act on: a domain failure ("no such note") is a tool error the
model can read and recover from, a request the server refuses outright (an export
format it does not support) is a JSON-RPC protocol error.

State lives in a `StorageService` built in the server's lifespan (SQLite at $NOTES_DB in
production, memory otherwise), scoped to the caller's tenant; under mcpbdd the lifespan
takes the scenario's storage and clock instead (`mcpbdd.kit.doubles.scenario_doubles()`), so
a scenario can seed it, inspect it and move time, and nothing is a module global.

`import_note` reads a document from the team's document service (https://docs.example.com,
or $NOTES_DOCS_URL) with an `httpx.AsyncClient` built in the lifespan too: a real client in
production, one over the scenario's upstream doubles under mcpbdd (`doubles.upstream.transport()`),
so a scenario decides what the service answers, or that it is down, slow or unreachable.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, cast

import httpx
from mcp.server import CacheHint
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resolve import ListRoots, Resolve, Sample
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    CreateMessageResult,
    InputRequiredResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel, Field, ValidationError

from mcpbdd.examples import arguments as arg
from mcpbdd.examples import note_changes, note_ids, note_tags, notebook_import
from mcpbdd_kit.clock import Clock, SystemClock
from mcpbdd_kit.consent import DECLINED, ConsentGate, Shown
from mcpbdd_kit.doubles import scenario_doubles
from mcpbdd_kit.errors import ErrorContract, Failure
from mcpbdd_kit.storage import (
    InMemoryProvider,
    InvalidKeyError,
    SQLiteProvider,
    StorageError,
    StorageService,
    TenantStorage,
)
from mcpbdd_kit.upstream import upstream_base

TENANT_CLAIM = "tenant"
"""The access-token claim naming the caller's tenant."""

EXPORT_FORMATS = ("markdown", "json")

DOCS_URL = "https://docs.example.com"
"""The team's document service, where `import_note` reads documents ($NOTES_DOCS_URL overrides it)."""


class Note(BaseModel):
    """One note as the tools return it (and as it is stored, under `notes/<id>`)."""

    id: str
    title: str
    body: str
    tags: list[str] = Field(default_factory=list)
    author: str
    created_at: str


class NoteList(BaseModel):
    """The notes of the caller's tenant, optionally filtered by tag."""

    notes: list[Note]
    count: int


class Deleted(BaseModel):
    """What a confirmed delete removed."""

    id: str
    deleted: bool


@dataclass(frozen=True)
class NotesState:
    """What the tools need, built once per lifespan: tenant-scoped storage, a clock, the document service."""

    storage: StorageService
    clock: Clock
    docs: httpx.AsyncClient | None = None
    """The document service's client (None: no document service, every import is refused)."""


def _docs_client(transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The document service's client; in another process under mcpbdd, `upstream_base` points it at the loopback."""
    base = upstream_base(os.environ.get("NOTES_DOCS_URL", DOCS_URL))
    # Shorter than a client's patience, so a slow document service becomes a tool error the model can read.
    timeout = float(os.environ.get("NOTES_DOCS_TIMEOUT", "3"))
    headers = {"accept": "application/json"}
    return httpx.AsyncClient(base_url=base, transport=transport, timeout=timeout, headers=headers)


@asynccontextmanager
async def notes_lifespan(_server: MCPServer[NotesState]) -> AsyncIterator[NotesState]:
    """Production storage (SQLite at $NOTES_DB, else memory) and real time, unless a scenario provides its own."""
    doubles = scenario_doubles()
    if doubles is not None:
        async with _docs_client(doubles.upstream.transport()) as docs:
            yield NotesState(doubles.storage, doubles.clock, docs)
        return
    path = os.environ.get("NOTES_DB")
    storage = StorageService(SQLiteProvider(path) if path else InMemoryProvider(), SystemClock())
    try:
        async with _docs_client() as docs:
            yield NotesState(storage, storage.clock, docs)
    finally:
        storage.close()


# How long a client may keep each listing and read (SEP-2549, 2026-07-28): what a tenant sees is its own (private); the
# tools, prompts and templates change with a release, the resources list (no static resources yet) and a note at any
# moment, so a read is kept a minute at most.
mcp: MCPServer[NotesState] = MCPServer(
    "notes",
    instructions="Team notes, one notebook per tenant.",
    lifespan=notes_lifespan,
    cache_hints={
        "tools/list": CacheHint(ttl_ms=300_000),
        "prompts/list": CacheHint(ttl_ms=300_000),
        "resources/templates/list": CacheHint(ttl_ms=300_000, scope="public"),  # the same for every caller
        "resources/list": CacheHint(ttl_ms=0),
        "resources/read": CacheHint(ttl_ms=60_000),
    },
)


def _caller() -> tuple[str, str]:
    """The caller's (tenant, user): from the access token the transport authenticated.

    Over stdio there is no token: a stdio server serves one local user, named by the
    environment that started it (`NOTES_TENANT`, `NOTES_USER`).
    """
    token = get_access_token()
    if token is None:
        tenant, user = os.environ.get("NOTES_TENANT"), os.environ.get("NOTES_USER")
        if tenant and user:
            return tenant, user
        raise ToolError("Sign in first: notes belong to a tenant and this call carries no tenant.")
    tenant = (token.claims or {}).get(TENANT_CLAIM)
    if not tenant:
        raise ToolError("Sign in first: notes belong to a tenant and this call carries no tenant.")
    return str(tenant), token.subject or token.client_id


def _state(ctx: Context) -> NotesState:
    # The tools take the SDK's bare `Context`, whose lifespan type defaults to a dict; this server's lifespan
    # (`notes_lifespan`, `MCPServer[NotesState]`) yields a NotesState.
    return cast(NotesState, ctx.request_context.lifespan_context)


def _notebook(ctx: Context) -> TenantStorage:
    """The caller's tenant's storage: the only storage a tool ever touches."""
    tenant, _ = _caller()
    return _state(ctx).storage.tenant(tenant)


class NoteNotFound(ToolError):
    """A note id the caller's tenant does not have."""


NOTE_NOT_FOUND = Failure("note_not_found", "The note does not exist.", hint="List the notes to see which ids exist.")


async def _find(ctx: Context, note_id: str) -> Note:
    try:
        stored = await _notebook(ctx).get(f"notes/{note_id}")
    except InvalidKeyError:
        stored = None
    if stored is None:
        raise NoteNotFound(f"Note {note_id} not found. List the notes to see which ids exist.")
    return Note.model_validate(stored)


MAX_EXPIRY_MINUTES = 525_600
NOTE_COUNTER = note_ids.NOTE_COUNTER


NOTE_EXISTS = Failure(
    "note_exists",
    "A note with this id already exists; it was not changed.",
    hint="Pick another slug, or leave the slug out to get a new id like n-7; to replace the note, delete it first.",
)
CREATE_NOTE = ErrorContract("create_note", NOTE_EXISTS)


async def _save_new_note(
    ctx: Context, fields: dict[str, Any], *, slug: str | None, ttl: int | None = None
) -> Note | CallToolResult:
    """Store a new note under its slug or the next free `n-<number>`; a refused note changes nothing.

    A new note never replaces one: an existing slug is the declared `note_exists` failure, since
    an overwrite would destroy a note without the consent `delete_note` asks for. Both checks are
    part of the write (`add` stores only into a free id), so callers creating notes at once, in
    one server or in several sharing a database, never take the same id or overwrite each other.
    """
    notebook = _notebook(ctx)
    created = _state(ctx).clock.now().isoformat().replace("+00:00", "Z")

    def note_for(note_id: str) -> Note:
        return Note(id=note_id, created_at=created, **fields)

    try:
        if slug is None:
            return await note_ids.store_numbered(notebook, note_for, ttl)
        note = note_for(slug)
        if not await notebook.add(f"notes/{slug}", note.model_dump(mode="json"), ttl=ttl):
            return CREATE_NOTE.fail("note_exists", f"A note with the id {slug!r} already exists; it was not changed.")
    except StorageError as exc:
        raise ToolError(f"The note was not saved: {exc}") from exc
    return note


@mcp.tool()
async def create_note(
    title: arg.Title,
    body: arg.Body,
    ctx: Context,
    tags: arg.Tags = None,
    slug: arg.Slug = None,
    expires_in_minutes: arg.ExpiresIn = None,
) -> Note:
    """Create a note in the caller's tenant; `slug` picks an unused id, `expires_in_minutes` makes it temporary."""
    _, user = _caller()
    if not title.strip():
        raise ToolError("A note needs a title.")
    if slug is not None and not slug.strip():
        raise ToolError("A slug, when given, cannot be empty: leave it out to get an id like n-7.")
    if expires_in_minutes is not None and not 0 < expires_in_minutes <= MAX_EXPIRY_MINUTES:
        raise ToolError(f"expires_in_minutes must be between 1 and {MAX_EXPIRY_MINUTES} (a year).")
    ttl = expires_in_minutes * 60 if expires_in_minutes else None
    fields = {"title": title, "body": body, "tags": tags or [], "author": user}
    return await _save_new_note(ctx, fields, slug=slug, ttl=ttl)  # type: ignore[return-value]  # or note_exists


GET_NOTE = ErrorContract("get_note", NOTE_NOT_FOUND)


@mcp.tool()
@GET_NOTE.raises
async def get_note(note_id: arg.NoteId, ctx: Context) -> Note:
    """Return one note of the caller's tenant."""
    try:
        return await _find(ctx, note_id)
    except NoteNotFound:
        raise GET_NOTE.error("note_not_found", f"Note {note_id} not found.") from None


async def _all_notes(notebook: TenantStorage) -> list[Note]:
    notes: list[Note] = []
    cursor: str | None = None
    while True:
        page = await notebook.list("notes/", cursor=cursor, limit=100)
        notes.extend(Note.model_validate(value) for _, value in page.items)
        cursor = page.next_cursor
        if cursor is None:
            return sorted(notes, key=lambda n: (n.created_at, len(n.id), n.id))


@mcp.tool()
async def list_notes(ctx: Context, tag: arg.TagFilter = None) -> NoteList:
    """List the caller's notes, oldest first, optionally only those with a tag."""
    notes = [n for n in await _all_notes(_notebook(ctx)) if tag is None or tag in n.tags]
    return NoteList(notes=notes, count=len(notes))


DELETE_NOTE = ErrorContract("delete_note", NOTE_NOT_FOUND, DECLINED)
DELETE_CONSENT = ConsentGate("delete the note")


@mcp.tool()
async def delete_note(note_id: arg.NoteId, ctx: Context) -> Deleted | InputRequiredResult:
    """Delete a note of the caller's tenant, after the user consents (each consent deletes once)."""
    notebook, clock = _notebook(ctx), _state(ctx).clock

    async def shown() -> Shown:
        """The note as it is now: a consent deletes only the note its question showed."""
        note = await _find(ctx, note_id)
        return Shown(f'"{note.title}" ({note.id})', facts=note.model_dump(mode="json"))

    try:
        decision = await DELETE_CONSENT.check(ctx, notebook, clock, arguments={"note_id": note_id}, shown=shown)
    except NoteNotFound:
        return DELETE_NOTE.fail("note_not_found", f"Note {note_id} not found.")  # type: ignore[return-value]
    if not decision.granted:
        return decision.response  # type: ignore[return-value]  # the question, or the refusal
    _, user = _caller()
    await notebook.delete(f"notes/{note_id}")
    entry = {"note": note_id, "by": user, "at": clock.now().isoformat().replace("+00:00", "Z")}
    # One step, not a get and a set: two deletions at once (two servers of the tenant) both land in the audit.
    await notebook.update("audit/deletions", lambda audit: [*audit, entry], default=[])
    return Deleted(id=note_id, deleted=True)


EXPORT_NOTES = ErrorContract(
    "export_notes",
    Failure(
        "export_format_unsupported",
        "The export format is not supported.",
        channel="protocol",
        code=INVALID_PARAMS,
        hint="Export as markdown or json.",
    ),
)


@mcp.tool()
async def export_notes(format: arg.ExportFormat, ctx: Context) -> str:
    """Export every note of the caller's tenant as one document (markdown or json)."""
    if format not in EXPORT_FORMATS:
        EXPORT_NOTES.fail(
            "export_format_unsupported",
            f"Unsupported export format {format!r}",
            data={"format": format, "supported": list(EXPORT_FORMATS)},
        )
    notes = await _all_notes(_notebook(ctx))
    if format == "json":
        return NoteList(notes=notes, count=len(notes)).model_dump_json()
    return "\n\n".join(f"# {n.title}\n\n{n.body}" for n in notes)


class TitleSuggestion(BaseModel):
    """A title the client's model proposed for a note."""

    id: str
    suggested_title: str


async def ask_model_for_title(note_id: str, ctx: Context) -> Sample:
    """Let the client's model (sampling) propose a title from the note's body."""
    note = await _find(ctx, note_id)
    prompt = f"Suggest a short title for this note:\n\n{note.body}"
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))], max_tokens=30)


@mcp.tool()
async def suggest_title(
    note_id: arg.NoteId, ctx: Context, proposal: Annotated[CreateMessageResult, Resolve(ask_model_for_title)]
) -> TitleSuggestion:
    """Ask the client's model for a better title for a note (the note is not changed)."""
    await _find(ctx, note_id)
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


class Document(BaseModel):
    """A document as the document service returns it (`GET /documents/<id>`)."""

    title: str = Field(min_length=1)
    body: str
    tags: list[str] = Field(default_factory=list)


DOCUMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

IMPORT_NOTE = ErrorContract(
    "import_note",
    Failure(
        "upstream_unavailable",
        "The document service is not answering.",
        retryable=True,
        hint="Try again in a minute: the document service is down or slow, and no note was created.",
    ),
    Failure(
        "document_not_found",
        "The document service has no such document.",
        hint="Check the document id in the document service.",
    ),
    Failure(
        "document_unreadable",
        "The document cannot be imported as a note.",
        hint="Import a document that has a title and a body, or create the note with create_note.",
    ),
)


async def _fetch_document(docs: httpx.AsyncClient | None, document_id: str) -> Document | CallToolResult:
    """The document, or the declared failure that says why it cannot be had."""
    if docs is None:
        return IMPORT_NOTE.fail("upstream_unavailable", "No document service is configured.")
    try:
        response = await docs.get(f"/documents/{document_id}")
    except httpx.TimeoutException:
        return IMPORT_NOTE.fail("upstream_unavailable", "The document service did not answer in time.")
    except httpx.TransportError:
        return IMPORT_NOTE.fail("upstream_unavailable", "The document service cannot be reached.")
    status = response.status_code
    if status == 404:
        return IMPORT_NOTE.fail("document_not_found", f"Document {document_id} not found in the document service.")
    if status >= 500 or status == 429:
        return IMPORT_NOTE.fail("upstream_unavailable", f"The document service failed (HTTP {status}).")
    if not response.is_success:
        return IMPORT_NOTE.fail("document_unreadable", f"The document service refused {document_id} (HTTP {status}).")
    try:
        return Document.model_validate_json(response.content)
    except ValidationError:
        return IMPORT_NOTE.fail("document_unreadable", f"Document {document_id} has no title or body.")


@mcp.tool()
async def import_note(document_id: arg.DocumentId, ctx: Context) -> Note:
    """Import a document from the team's document service as a new note (the caller becomes its author)."""
    _, user = _caller()
    if not DOCUMENT_ID.fullmatch(document_id):
        return IMPORT_NOTE.fail("document_not_found", f"{document_id!r} is not a document id.")  # type: ignore[return-value]
    document = await _fetch_document(_state(ctx).docs, document_id)
    if isinstance(document, CallToolResult):
        return document  # type: ignore[return-value]  # the declared failure; nothing was written
    fields = {"title": document.title, "body": document.body, "tags": document.tags, "author": user}
    return await _save_new_note(ctx, fields, slug=None)  # type: ignore[return-value]  # no slug: never note_exists


class Shared(BaseModel):
    """A note published to the document service, and the id the service gave it."""

    note_id: str
    document_id: str


UNPUBLISHED = "Try again in a minute: the document service is down or slow, and nothing was published."
SHARE_NOTE = ErrorContract(
    "share_note", NOTE_NOT_FOUND, Failure("upstream_unavailable", "No answer.", retryable=True, hint=UNPUBLISHED)
)
notebook_import.register(globals())  # `import_notebook`: a long import (progress, log messages)


@mcp.tool()
async def share_note(note_id: arg.NoteId, ctx: Context) -> Shared:
    """Publish a note to the team's document service (`POST /documents`) for readers outside the notebook."""
    try:
        note = await _find(ctx, note_id)
        docs = _state(ctx).docs
        document = {"title": note.title, "body": note.body, "tags": note.tags, "source": f"notes/{note.id}"}
        response = await docs.post("/documents", json=document) if docs else None
    except NoteNotFound:
        return SHARE_NOTE.fail("note_not_found", f"Note {note_id} not found.")  # type: ignore[return-value]
    except httpx.HTTPError:
        response = None
    if response is None or not response.is_success:
        why = f"failed (HTTP {response.status_code})" if response is not None else "cannot be reached"
        return SHARE_NOTE.fail("upstream_unavailable", f"The document service {why}.")  # type: ignore[return-value]
    return Shared(note_id=note.id, document_id=str(response.json().get("id", "")))


class NotePage(BaseModel):
    """One page of the caller's notes, in id order, and the cursor of the next page (None on the last)."""

    notes: list[Note]
    next_cursor: str | None = None


@mcp.tool()
async def page_notes(ctx: Context, cursor: arg.Cursor = None, limit: arg.PageSize = 10) -> NotePage:
    """Page through the caller's notes in id order; a colleague in the same tenant may continue from a cursor."""
    try:
        page = await _notebook(ctx).list("notes/", cursor=cursor, limit=max(1, min(limit, 100)))
    except StorageError as exc:
        raise ToolError(f"That cursor cannot be used: {exc}") from exc
    return NotePage(notes=[Note.model_validate(value) for _, value in page.items], next_cursor=page.next_cursor)


async def _find_for_resource(ctx: Context, note_id: str) -> Note:
    """The note a resource URI names; a missing one is the resources' not-found error, not a tool error."""
    try:
        return await _find(ctx, note_id)
    except ToolError:
        raise ResourceNotFoundError(f"Note {note_id} not found") from None


@mcp.resource("notes://{note_id}", mime_type="text/markdown")
async def note_resource(note_id: str, ctx: Context) -> str:
    """A note as a markdown document, addressed by its id."""
    note = await _find_for_resource(ctx, note_id)
    return f"# {note.title}\n\n{note.body}"


@mcp.resource("note-data://{note_id}", mime_type="application/json")
async def note_data(note_id: str, ctx: Context) -> str:
    """A note as JSON (what an integration reads), addressed by its id."""
    return (await _find_for_resource(ctx, note_id)).model_dump_json()


@mcp.prompt()
async def summarize_notes(tag: str, ctx: Context) -> str:
    """Ask the model to summarise the caller's notes with a tag."""
    notes = [n for n in await _all_notes(_notebook(ctx)) if tag in n.tags]
    listing = "\n".join(f"- {n.title}: {n.body}" for n in notes) or "(no notes)"
    return f"Summarise these notes tagged {tag!r} in three bullet points:\n{listing}"


note_changes.register(globals())  # announcements: archiving turned on per tenant, an edited note
note_tags.register(globals())  # completions: a `summarize_notes` tag, a note resource's id, from the caller's notes


def main(argv: list[str] | None = None) -> None:
    """`python -m mcpbdd.examples.notes` serves stdio; `--http 127.0.0.1:8000` serves Streamable HTTP
    (`mcpbdd.examples.serving` says how, with and without `--auth`)."""
    from mcpbdd.examples.serving import serve

    serve(mcp, argv)


import mcpbdd.examples.notes_app  # noqa: E402, F401  (the note card app: its tools come after the ones above)

if __name__ == "__main__":  # as a script this module is __main__: run the module the app registered on
    __import__("mcpbdd.examples.notes", fromlist=["main"]).main()


__all__ = [
    "CREATE_NOTE",
    "DELETE_CONSENT",
    "DELETE_NOTE",
    "DOCS_URL",
    "DOCUMENT_ID",
    "EXPORT_FORMATS",
    "EXPORT_NOTES",
    "GET_NOTE",
    "IMPORT_NOTE",
    "MAX_EXPIRY_MINUTES",
    "NOTE_COUNTER",
    "NOTE_EXISTS",
    "NOTE_NOT_FOUND",
    "TENANT_CLAIM",
    "Deleted",
    "Document",
    "Note",
    "NoteList",
    "NotePage",
    "NoteNotFound",
    "NotesState",
    "SHARE_NOTE",
    "Shared",
    "TitleSuggestion",
    "UNPUBLISHED",
    "Workspace",
    "ask_for_roots",
    "ask_model_for_title",
    "create_note",
    "delete_note",
    "export_notes",
    "get_note",
    "import_note",
    "list_import_folders",
    "list_notes",
    "main",
    "mcp",
    "note_resource",
    "page_notes",
    "share_note",
    "notes_lifespan",
    "suggest_title",
    "summarize_notes",
]
