"""The notes server's ids `n-<number>`: each handed out once, whoever else creates notes at the same moment.

A tenant's next number is a counter in its storage. Read it, then write it back one higher, and two callers
can read the same number and store two notes under one id, the second replacing the first: in one server
only when a tool awaits between the two, but always a risk for servers of one tenant in several processes
on one database (over stdio each client has its own server process). So the counter moves with `increment`,
which hands each caller a different number, and a note is stored with `add`, which refuses an id a note
already holds (a note created with a slug like `n-3` keeps it; the next number is tried).

Kept apart from `notes.py` so the server module stays small; it imports nothing of it (`notebook_import`
says why), and takes the note to store as a function of its id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import Any, Final, TypeVar

from pydantic import BaseModel

from mcpbdd_kit.storage import StorageError, TenantStorage

__all__ = ["NOTE_COUNTER", "first_free_number", "store_all_numbered", "store_numbered"]

NOTE_COUNTER: Final = "meta/next-note-number"
"""The storage key of a tenant's next note number (1 when absent)."""

_Model = TypeVar("_Model", bound=BaseModel)

_CLAIM_ATTEMPTS = 20
"""How often an import picks new numbers when other callers keep taking the ones it picked, before it gives up."""


async def first_free_number(notebook: TenantStorage) -> int:
    """The first `n-<number>` worth trying: the counter's number, past the notes that hold one.

    Only a guess while others write: notes are stored with `add`, which refuses a taken id, never by
    trusting this.
    """
    number = int(await notebook.get(NOTE_COUNTER, 1))
    while await notebook.get(f"notes/n-{number}") is not None:
        number += 1
    return number


def _give_back(number: int) -> Callable[[int], int]:
    """The counter's change that returns `number` unused: only if no caller has taken a later one meanwhile."""
    return lambda counter: number if counter == number + 1 else counter


def _at_least(number: int) -> Callable[[int], int]:
    """The counter's change that moves it to `number` unless it is past it already (it never goes back)."""
    return lambda counter: max(counter, number)


async def store_numbered(notebook: TenantStorage, note_for: Callable[[str], _Model], ttl: int | None) -> _Model:
    """Store `note_for("n-<number>")` under the next number no note holds, and return it.

    A note the storage refuses (too large) gives its number back, so a refused note leaves the storage as
    it was (unless another caller took a number meanwhile: then the refused one stays unused).
    """
    while True:
        number = await notebook.increment(NOTE_COUNTER, initial=1) - 1
        note = note_for(f"n-{number}")
        try:
            if await notebook.add(f"notes/n-{number}", note.model_dump(mode="json"), ttl=ttl):
                return note
        except StorageError:
            await notebook.update(NOTE_COUNTER, _give_back(number), default=number + 1)
            raise


async def _renumbered(notebook: TenantStorage, notes: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`notes` with fresh ids `n-<number>`, each one no note holds right now."""
    number, fresh = await first_free_number(notebook), []
    for note in notes:
        while await notebook.get(f"notes/n-{number}") is not None:
            number += 1
        fresh.append({**note, "id": f"n-{number}"})
        number += 1
    return fresh


async def store_all_numbered(
    notebook: TenantStorage, notes: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], bool]:
    """Store `notes` (each with the id `n-<number>` picked for it) all or none, and move the counter past them.

    The notes are written with `add_many`, so a note another caller created meanwhile is never replaced: if
    one took a picked id, every note gets a fresh one and the write is tried again. Then the counter moves to
    after the last number, never back (a note being created meanwhile may try a number the import took, and
    moves on). Returns the stored notes and whether they had to be renumbered. The counter only saves a
    later note some tries (`add` refuses a taken id whatever it says), so once the notes are stored a counter
    that cannot move (damaged, or the file busy past its timeout) does not make the import report a failure.
    """
    stored = [dict(note) for note in notes]
    for attempt in range(_CLAIM_ATTEMPTS):
        if attempt:
            stored = await _renumbered(notebook, stored)
        if not await notebook.add_many({f"notes/{note['id']}": note for note in stored}):
            last = max((int(str(note["id"]).removeprefix("n-")) for note in stored), default=0)
            with suppress(StorageError):  # stored already: "not imported" would be untrue
                await notebook.update(NOTE_COUNTER, _at_least(last + 1), default=1)
            return stored, attempt > 0
    raise StorageError(
        f"other callers kept taking the note numbers this import picked ({_CLAIM_ATTEMPTS} tries); "
        "nothing was imported: try again"
    )
