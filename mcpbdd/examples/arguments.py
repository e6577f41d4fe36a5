"""What the example server's tool arguments mean, said once: a model reads each description to fill them in.

`mcpbdd lint` (rule parameter-undocumented) asks every parameter for a description; the example's tools
share these annotated types, so `note_id` means the same thing on every tool that takes one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

__all__ = [
    "Body",
    "Cursor",
    "DocumentId",
    "ExpiresIn",
    "ExportFormat",
    "NoteId",
    "PageSize",
    "Slug",
    "TagFilter",
    "Tags",
    "Title",
]

NoteId = Annotated[str, Field(description="The note's id, as create_note or list_notes gave it (e.g. n-1).")]
Title = Annotated[str, Field(description="The note's title, one line (e.g. Groceries).")]
Body = Annotated[str, Field(description="The note's text; Markdown is kept as written.")]
Tags = Annotated[list[str] | None, Field(description="Words to find the note by later (e.g. home).")]
Slug = Annotated[str | None, Field(description="An id to give the note instead of n-<number>.")]
ExpiresIn = Annotated[int | None, Field(description="Delete the note after this many minutes (at most a year).")]
TagFilter = Annotated[str | None, Field(description="Only the notes with this tag (e.g. home).")]
ExportFormat = Annotated[str, Field(description="The document's format: markdown or json.")]
DocumentId = Annotated[str, Field(description="The document's id in the document service (e.g. doc-7).")]
Cursor = Annotated[str | None, Field(description="Where to go on: a page's next_cursor; none for the first.")]
PageSize = Annotated[int, Field(description="How many notes a page holds, 1 to 100.")]
