"""The notes example's ids (`mcpbdd.examples.note_ids`): each number once, no note replaced, a refusal changes nothing.

Callers of one tenant at once, over stdio (a server process each), are features/load.feature's stdio scenario;
the storage operations under processes are tests/spawning/test_storage_atomic_processes.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mcpbdd.examples.note_ids import NOTE_COUNTER, store_all_numbered, store_numbered
from mcpbdd.examples.notes import Note
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import StorageService, TenantStorage, ValueTooLargeError

pytestmark = pytest.mark.anyio

CREATED = "2026-01-01T00:00:00Z"


def note(body: str = "") -> Callable[[str], Note]:
    return lambda note_id: Note(id=note_id, title="T", body=body, created_at=CREATED, author="alice")


@pytest.fixture
def service() -> StorageService:
    return StorageService(clock=FrozenClock(), max_value_bytes=400)


@pytest.fixture
def acme(service: StorageService) -> TenantStorage:
    return service.tenant("acme")


async def test_numbers_skip_an_id_a_slug_note_holds(service: StorageService, acme: TenantStorage) -> None:
    await acme.set("notes/n-2", {"id": "n-2", "title": "a slug note"})
    ids = [(await store_numbered(acme, note(), None)).id for _ in range(3)]
    assert ids == ["n-1", "n-3", "n-4"]
    assert service.read("acme", "notes/n-2") == {"id": "n-2", "title": "a slug note"}  # kept, not replaced
    assert service.read("acme", NOTE_COUNTER) == 5


async def test_a_refused_note_gives_its_number_back(service: StorageService, acme: TenantStorage) -> None:
    await store_numbered(acme, note(), None)
    before = service.snapshot("acme")
    with pytest.raises(ValueTooLargeError):
        await store_numbered(acme, note("x" * 500), None)
    assert service.snapshot("acme") == before  # the counter too: the next note takes n-2
    assert (await store_numbered(acme, note(), None)).id == "n-2"


async def test_an_import_never_replaces_a_note_created_meanwhile(service: StorageService, acme: TenantStorage) -> None:
    drafts = [{"id": f"n-{number}", "title": f"imported {number}"} for number in (1, 2)]
    created = await store_numbered(acme, note(), None)  # another caller took n-1 after the import picked it
    stored, renumbered = await store_all_numbered(acme, drafts)
    assert renumbered is True
    assert [entry["id"] for entry in stored] == ["n-2", "n-3"]
    assert service.read("acme", "notes/n-1") == created.model_dump(mode="json")
    assert service.read("acme", NOTE_COUNTER) == 4
    assert (await store_numbered(acme, note(), None)).id == "n-4"


async def test_an_import_moves_the_counter_forward_only(service: StorageService, acme: TenantStorage) -> None:
    await acme.set(NOTE_COUNTER, 50)
    stored, renumbered = await store_all_numbered(acme, [{"id": "n-3", "title": "picked low"}])
    assert (stored, renumbered) == ([{"id": "n-3", "title": "picked low"}], False)
    assert service.read("acme", NOTE_COUNTER) == 50


async def test_an_import_whose_notes_are_stored_reports_them_though_the_counter_cannot_move(
    service: StorageService, acme: TenantStorage
) -> None:
    # The counter's move after the batch can fail (here a damaged counter; under load, another process holding
    # the SQLite file past busy_timeout). The notes are stored by then: the import must not say they were not.
    service.provider.set_many("acme", [(NOTE_COUNTER, "{not json", None)])
    stored, renumbered = await store_all_numbered(acme, [{"id": "n-1", "title": "imported"}])
    assert (stored, renumbered) == ([{"id": "n-1", "title": "imported"}], False)
    assert service.read("acme", "notes/n-1") == {"id": "n-1", "title": "imported"}
