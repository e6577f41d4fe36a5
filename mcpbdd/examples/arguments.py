"""What the example server's tool arguments mean, said once: a model reads each description to fill them in.

`mcpbdd lint` (rule parameter-undocumented) asks every parameter for a description; the example's tools
share these annotated types, so `note_id` means the same thing on every tool that takes one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

__all__ = ["NoteId"]

NoteId = Annotated[str, Field(description="The note's id, as create_note or list_notes gave it (e.g. n-1).")]
