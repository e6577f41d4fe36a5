"""Attacks on the writes no other writer can come between, where they could fail open or fail unclearly.

A change that writes the storage itself, a third-party provider written before `add_many` and `update`
existed, and a SQLite writer that waits past its busy timeout: each must end in a `StorageError` that says
what happened and what to do, the same on every provider, with nothing half written.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import (
    InMemoryProvider,
    SQLiteProvider,
    StorageError,
    StorageService,
)
from mcpbdd_kit.storage.providers import Entry

pytestmark = pytest.mark.anyio


# -- a change that writes the storage ------------------------------------------------------


@pytest.mark.parametrize("write", ["one key", "two keys", "purge"])
async def test_a_change_that_writes_the_storage_is_refused_and_nothing_is_written(
    service: StorageService, write: str
) -> None:
    store = service.tenant("acme")
    await store.set("audit", ["kept"])

    def change(entries: list[str]) -> list[str]:
        if write == "one key":
            service.seed("acme", {"side": 1})
        elif write == "two keys":
            service.seed("acme", {"side": 1, "other": 2})
        else:
            service.purge_expired()
        return [*entries, "new"]

    # In memory the side write used to stay (even when the change went on to fail) while SQLite rolled it
    # back or refused it with "cannot start a transaction within a transaction": one verdict per provider.
    with pytest.raises(StorageError, match=r"a change passed to update .*must not write to the storage"):
        await store.update("audit", change)
    assert service.snapshot("acme") == {"audit": ["kept"]}
    assert await store.update("audit", lambda entries: [*entries, "after"]) == ["kept", "after"]  # lock released


async def test_a_change_that_swallows_the_refusal_still_writes_nothing_else(service: StorageService) -> None:
    store = service.tenant("acme")

    def change(value: int) -> int:
        with contextlib.suppress(StorageError):
            service.seed("acme", {"side": 1})
        return value + 1

    assert await store.update("count", change, default=0) == 1
    assert service.snapshot("acme") == {"count": 1}


# -- a provider written before the atomic writes -----------------------------------------


class _OlderProvider:
    """A third-party provider of the contract before `add_many` and `update`: every other method, in memory."""

    def __init__(self) -> None:
        self._inner = InMemoryProvider()

    def get(self, tenant: str, key: str, now: float) -> str | None:
        return self._inner.get(tenant, key, now)

    def get_many(self, tenant: str, keys: Sequence[str], now: float) -> dict[str, str]:
        return self._inner.get_many(tenant, keys, now)

    def set_many(self, tenant: str, entries: Sequence[Entry]) -> None:
        self._inner.set_many(tenant, entries)

    def delete_many(self, tenant: str, keys: Sequence[str], now: float) -> int:
        return self._inner.delete_many(tenant, keys, now)

    def list_keys(
        self, tenant: str, prefix: str, after_key: str | None, limit: int, now: float
    ) -> list[tuple[str, str]]:
        return self._inner.list_keys(tenant, prefix, after_key, limit, now)

    def tenants(self, now: float) -> list[str]:
        return self._inner.tenants(now)

    def snapshot(self, tenant: str, now: float) -> dict[str, str]:
        return self._inner.snapshot(tenant, now)

    def close(self) -> None:
        self._inner.close()


@pytest.mark.parametrize(
    ("call", "method"),
    [
        (lambda store: store.add("k", 1), "add_many"),
        (lambda store: store.add_many({"k": 1}), "add_many"),
        (lambda store: store.increment("k"), "update"),
        (lambda store: store.update("k", lambda value: 1, default=0), "update"),
    ],
)
async def test_a_provider_without_the_atomic_writes_is_named_with_the_fix(call: Any, method: str) -> None:
    older: Any = _OlderProvider()  # it no longer type-checks as a StorageProvider, as a real one would not
    service = StorageService(older, FrozenClock())
    store = service.tenant("acme")
    await store.set("before", 1)  # what it always did still works
    with pytest.raises(StorageError, match=rf"provider _OlderProvider has no {method}\(\).*implement {method}"):
        await call(store)
    assert service.snapshot("acme") == {"before": 1}


# -- a SQLite writer that waits past its busy timeout --------------------------------------


@pytest.fixture
def locked_file(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A SQLite storage file whose write lock another connection (as another process would) holds."""
    path = tmp_path / "busy.db"
    SQLiteProvider(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    yield path, holder
    holder.close()


@pytest.mark.parametrize(
    "call",
    [
        lambda store: store.set("k", 1),
        lambda store: store.set_many({"a": 1, "b": 2}),
        lambda store: store.delete("k"),
        lambda store: store.add("k", 1),
        lambda store: store.increment("k"),
        lambda store: store.update("k", lambda value: 1, default=0),
    ],
)
async def test_a_writer_that_waits_past_the_busy_timeout_gets_a_storage_error_naming_the_file(
    locked_file: tuple[Path, sqlite3.Connection], call: Any
) -> None:
    path, holder = locked_file
    provider = SQLiteProvider(path, busy_timeout=0.05)
    try:
        store = StorageService(provider, FrozenClock()).tenant("acme")
        # A raw sqlite3.OperationalError ("database is locked") escaped before: a server catching StorageError
        # (as the notes example does) crashed instead of answering, and nothing named the file or the fix.
        with pytest.raises(StorageError, match=r"another writer held the SQLite file .*busy\.db.*0\.05 s"):
            await call(store)
        holder.execute("ROLLBACK")
        await store.set("k", 7)  # the provider is usable once the other writer is done
        assert await store.get("k") == 7
    finally:
        provider.close()


# -- a default shared between calls ------------------------------------------------------------


async def test_a_change_mutating_a_shared_default_carries_nothing_to_another_tenant(service: StorageService) -> None:
    empty: list[str] = []  # one default a server passes to every call, as a module constant would be

    def appending(entry: str) -> Any:
        def change(entries: list[str]) -> list[str]:
            entries.append(entry)  # in place: fine on a fresh copy, a leak on a shared object
            return entries

        return change

    assert await service.tenant("acme").update("audit", appending("acme's secret"), default=empty) == ["acme's secret"]
    assert await service.tenant("globex").update("audit", appending("globex's"), default=empty) == ["globex's"]
    assert service.snapshot("globex") == {"audit": ["globex's"]}
    assert empty == []


# -- add under threads, with a hand-over between the check and the write ------------------------


class _HandingOverKey(str):
    """A key that hands the interpreter to another thread whenever it is hashed.

    In memory, `add_many` hashes a key to check it is free and again to store it; without the provider's lock
    another thread's add comes between the two. Plain keys almost never switch threads there, so the thread
    test of `add` in test_storage_atomic.py passes with that lock taken out; this one does not.
    """

    __slots__ = ()

    def __hash__(self) -> int:
        time.sleep(0)
        return str.__hash__(self)


def test_threads_adding_one_key_at_once_store_it_once_even_when_switched_mid_add(service: StorageService) -> None:
    store = service.tenant("acme")
    rounds, threads = 60, 4
    start = threading.Barrier(threads)
    wins: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def claim(number: int) -> None:
        async def claims() -> None:
            for slot in range(rounds):
                if await store.add(_HandingOverKey(f"slot/{slot}"), number):
                    wins.append((slot, number))

        start.wait()
        try:
            asyncio.run(claims())
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=claim, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert errors == []
    assert sorted(slot for slot, _ in wins) == list(range(rounds))  # each slot won once, by one thread
    assert service.snapshot("acme") == {f"slot/{slot}": number for slot, number in wins}
