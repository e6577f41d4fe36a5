"""What only the SQLite provider promises: a real file that survives restarts and several processes.

The test with several processes is in tests/spawning/test_storage_sqlite.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import SQLiteProvider, StorageService

pytestmark = pytest.mark.anyio


async def test_entries_survive_close_and_reopen(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    clock = FrozenClock()
    first = StorageService(SQLiteProvider(db), clock, secret=b"same")
    store = first.tenant("acme")
    await store.set_many({"notes/n-1": {"title": "A"}, "notes/n-2": {"title": "B"}})
    await store.set("session", "s-1", ttl=60)
    await first.tenant("globex").set("k", [1, 2])
    cursor = (await store.list("notes/", limit=1)).next_cursor
    first.close()

    second = StorageService(SQLiteProvider(db), clock, secret=b"same")
    reopened = second.tenant("acme")
    assert await reopened.get("notes/n-1") == {"title": "A"}
    assert await reopened.get("session") == "s-1"
    assert second.tenants() == ["acme", "globex"]
    assert (await reopened.list("notes/", cursor=cursor, limit=1)).items == [("notes/n-2", {"title": "B"})]
    clock.advance(60)
    assert await reopened.get("session") is None  # the expiry was stored, not kept in memory
    second.close()


def test_file_uses_wal_and_one_table(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    with SQLiteProvider(db) as provider:
        provider.set_many("acme", [("k", '"v"', None)])
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            assert tables == ["mcpbdd_storage"]
            assert conn.execute("SELECT tenant, key, value, expires_at FROM mcpbdd_storage").fetchall() == [
                ("acme", "k", '"v"', None)
            ]
        finally:
            conn.close()


def test_a_failing_batch_rolls_back_entirely(tmp_path: Path) -> None:
    with SQLiteProvider(tmp_path / "state.db") as provider:
        provider.set_many("acme", [("kept", '"old"', None)])
        # The third row breaks the NOT NULL constraint inside the transaction, after two rows went in.
        bad_batch = [("kept", '"new"', None), ("added", '"new"', None), ("broken", None, None)]
        with pytest.raises(sqlite3.IntegrityError):
            provider.set_many("acme", bad_batch)  # type: ignore[arg-type]
        assert provider.snapshot("acme", 0.0) == {"kept": '"old"'}
        provider.set_many("acme", [("after", '"ok"', None)])  # the connection is usable afterwards
        assert provider.snapshot("acme", 0.0) == {"after": '"ok"', "kept": '"old"'}


def test_another_connection_sees_committed_batches_only_whole(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    with SQLiteProvider(db) as writer, SQLiteProvider(db) as reader:
        writer.set_many("acme", [(f"k{i:04d}", str(i), None) for i in range(1000)])
        assert len(reader.snapshot("acme", 0.0)) == 1000
        assert writer.delete_many("acme", [f"k{i:04d}" for i in range(500)], 0.0) == 500
        assert len(reader.snapshot("acme", 0.0)) == 500
