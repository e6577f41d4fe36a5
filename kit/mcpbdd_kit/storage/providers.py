"""Storage providers: where encoded entries actually live.

A provider is deliberately dumb. It stores `(tenant, key) -> (JSON text, expires_at)`
and answers queries; key rules, JSON encoding, TTL arithmetic, cursors and cancellation
all live in `StorageService`, so a new backend cannot get them subtly wrong and one test
suite covers every backend.

Three rules every provider keeps:
- an entry whose `expires_at` (seconds since the epoch) is not after `now` is never
  returned, counted or listed, whether or not it has been physically removed yet;
- `set_many` and `delete_many` are atomic: either every entry changes or none does;
- `add_many` and `update` read and write in one step no other writer can come between, in
  this process (threads) and, for SQLite, in every process sharing the file: of two callers
  adding one key at once exactly one stores it, and two updates of one key never both start
  from the same value. They are what a server uses instead of a `get` then a `set`.

Methods are synchronous: both built-in backends answer in microseconds, and a hop to a
worker thread would cost more than the work itself.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TypeVar, runtime_checkable

from mcpbdd_kit.storage.errors import StorageError

__all__ = ["Change", "Entry", "InMemoryProvider", "SQLiteProvider", "StorageProvider"]

Entry = tuple[str, str, float | None]
"""(key, encoded JSON text, absolute expiry in epoch seconds or None for 'never')."""

Change = Callable[[str | None, float | None], tuple[str, float | None]]
"""What `update` does to one entry: (its live text or None, its expiry) -> (new text, new expiry).

It runs while the provider holds the write lock, so it must be quick; it may read through the provider (the
lock is re-entrant for the thread holding it) but not write: a write from inside it is refused with a
`StorageError` (the built-in providers alike), so no provider keeps half of an update. If it raises, nothing is
written and the exception propagates."""

_T = TypeVar("_T")


@runtime_checkable
class StorageProvider(Protocol):
    """The contract a backend fulfils; `purge_expired(now) -> int` is an optional extra."""

    def get(self, tenant: str, key: str, now: float) -> str | None:
        """The live encoded value of `key`, or None."""
        ...

    def get_many(self, tenant: str, keys: Sequence[str], now: float) -> dict[str, str]:
        """Live encoded values of those `keys` that exist; missing keys are absent."""
        ...

    def set_many(self, tenant: str, entries: Sequence[Entry]) -> None:
        """Write every entry (replacing value and expiry), atomically."""
        ...

    def delete_many(self, tenant: str, keys: Sequence[str], now: float) -> int:
        """Delete `keys` atomically; return how many of them were live."""
        ...

    def add_many(self, tenant: str, entries: Sequence[Entry], now: float) -> list[str]:
        """Write every entry if none of their keys holds a live value, atomically, and return [];
        else write nothing and return the keys that hold one (in the order given). Expired means absent."""
        ...

    def update(self, tenant: str, key: str, change: Change, now: float) -> None:
        """Replace `key`'s entry with `change(live text or None, its expiry)`, atomically (see `Change`)."""
        ...

    def list_keys(
        self, tenant: str, prefix: str, after_key: str | None, limit: int, now: float
    ) -> list[tuple[str, str]]:
        """Up to `limit` live `(key, encoded)` pairs with `prefix`, keys > `after_key`, ascending by key."""
        ...

    def tenants(self, now: float) -> list[str]:
        """Tenants holding at least one live entry, sorted."""
        ...

    def snapshot(self, tenant: str, now: float) -> dict[str, str]:
        """Every live `key -> encoded` of `tenant`."""
        ...

    def close(self) -> None:
        """Release resources; the provider is not used afterwards."""
        ...


def _live(expires_at: float | None, now: float) -> bool:
    return expires_at is None or expires_at > now


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite gave up waiting for another connection's lock ("database is locked"/"busy")."""
    return exc.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _write_in_change(changing: tuple[str, str]) -> StorageError:
    """The refusal of a write made by an update's change, which runs while the write lock is held."""
    tenant, key = changing
    return StorageError(
        f"a change passed to update (or increment) for {key!r} in tenant {tenant!r} must not write to the storage: "
        "it runs while the storage holds its write lock; nothing was written. Read in the change, and write "
        "once update has returned"
    )


class InMemoryProvider:
    """Dicts in this process: the default, fast and gone when the process ends."""

    def __init__(self) -> None:
        self._data: dict[str, dict[str, tuple[str, float | None]]] = {}
        # Sorted key lists per tenant, rebuilt only after the key set changes, so paging
        # through a large tenant does not sort it again for every page.
        self._sorted: dict[str, list[str]] = {}
        # Re-entrant, as SQLiteProvider's is: an `update` change that reads through the service (a snapshot)
        # runs while this thread holds the lock, and must not wait for itself.
        self._lock = threading.RLock()
        # (tenant, key) while an update's change runs: only the thread holding the lock can see it set, and a
        # write from that thread then is the change writing, which is refused (the update would overwrite it).
        self._changing: tuple[str, str] | None = None

    def get(self, tenant: str, key: str, now: float) -> str | None:
        bucket = self._data.get(tenant)
        entry = bucket.get(key) if bucket is not None else None
        if entry is None or (entry[1] is not None and entry[1] <= now):
            return None
        return entry[0]

    def get_many(self, tenant: str, keys: Sequence[str], now: float) -> dict[str, str]:
        bucket = self._data.get(tenant) or {}
        found: dict[str, str] = {}
        for key in keys:
            entry = bucket.get(key)
            if entry is not None and _live(entry[1], now):
                found[key] = entry[0]
        return found

    def set_many(self, tenant: str, entries: Sequence[Entry]) -> None:
        with self._lock:
            self._refuse_in_change()
            self._store(tenant, entries)

    def _refuse_in_change(self) -> None:
        """Refuse a write made from inside an update's change; the caller holds the lock."""
        if self._changing is not None:
            raise _write_in_change(self._changing)

    def _store(self, tenant: str, entries: Iterable[Entry]) -> None:
        """Write `entries`; the caller holds the lock."""
        bucket = self._data.get(tenant)
        if bucket is None:
            bucket = self._data[tenant] = {}
        new_keys = False
        for key, text, expires_at in entries:
            if key not in bucket:
                new_keys = True
            bucket[key] = (text, expires_at)
        if new_keys:
            self._sorted.pop(tenant, None)

    def delete_many(self, tenant: str, keys: Sequence[str], now: float) -> int:
        with self._lock:
            self._refuse_in_change()
            bucket = self._data.get(tenant)
            if not bucket:
                return 0
            live = 0
            for key in keys:
                entry = bucket.pop(key, None)
                if entry is not None:
                    self._sorted.pop(tenant, None)
                    live += _live(entry[1], now)
            if not bucket:
                del self._data[tenant]
            return live

    def add_many(self, tenant: str, entries: Sequence[Entry], now: float) -> list[str]:
        with self._lock:
            self._refuse_in_change()
            bucket = self._data.get(tenant) or {}
            taken = [key for key, _, _ in entries if key in bucket and _live(bucket[key][1], now)]
            if taken:
                return taken
            self._store(tenant, entries)  # under the same lock: no writer comes between the check and the write
            return []

    def update(self, tenant: str, key: str, change: Change, now: float) -> None:
        with self._lock:
            self._refuse_in_change()
            bucket = self._data.get(tenant) or {}
            entry = bucket.get(key)
            current = entry if entry is not None and _live(entry[1], now) else (None, None)
            self._changing = (tenant, key)
            try:
                text, expires_at = change(*current)
            finally:
                self._changing = None
            self._store(tenant, ((key, text, expires_at),))

    def list_keys(
        self, tenant: str, prefix: str, after_key: str | None, limit: int, now: float
    ) -> list[tuple[str, str]]:
        with self._lock:
            bucket = self._data.get(tenant)
            if not bucket:
                return []
            keys = self._sorted.get(tenant)
            if keys is None:
                keys = self._sorted[tenant] = sorted(bucket)
            start = bisect_left(keys, prefix)
            if after_key is not None:
                start = max(start, bisect_right(keys, after_key))
            page: list[tuple[str, str]] = []
            for index in range(start, len(keys)):
                key = keys[index]
                if not key.startswith(prefix) or len(page) >= limit:
                    break
                text, expires_at = bucket[key]
                if expires_at is None or expires_at > now:
                    page.append((key, text))
            return page

    def tenants(self, now: float) -> list[str]:
        with self._lock:
            return sorted(t for t, bucket in self._data.items() if any(_live(e, now) for _, e in bucket.values()))

    def snapshot(self, tenant: str, now: float) -> dict[str, str]:
        with self._lock:
            bucket = self._data.get(tenant) or {}
            return {key: text for key, (text, expires_at) in bucket.items() if expires_at is None or expires_at > now}

    def purge_expired(self, now: float) -> int:
        """Physically drop expired entries (they are already invisible); return how many."""
        with self._lock:
            self._refuse_in_change()
            dropped = 0
            for tenant in list(self._data):
                bucket = self._data[tenant]
                dead = [key for key, (_, expires_at) in bucket.items() if not _live(expires_at, now)]
                for key in dead:
                    del bucket[key]
                if dead:
                    dropped += len(dead)
                    self._sorted.pop(tenant, None)
                if not bucket:
                    del self._data[tenant]
            return dropped

    def close(self) -> None:
        """Nothing to release; present so callers can treat every provider alike."""

    def __repr__(self) -> str:
        return f"InMemoryProvider(tenants={len(self._data)})"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS mcpbdd_storage (
    tenant     TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    expires_at REAL,
    PRIMARY KEY (tenant, key)
) WITHOUT ROWID
"""
_LIVE = "(expires_at IS NULL OR expires_at > ?)"
"""An entry that has not expired. Every statement below is put together from this module's own constants and `?`
placeholders only (hence the `noqa: S608`): tenants, keys, values and times are always bound, never formatted in."""
_UPSERT = "INSERT OR REPLACE INTO mcpbdd_storage (tenant, key, value, expires_at) VALUES (?, ?, ?, ?)"
_CHUNK = 500  # stay well below SQLite's limit on bound parameters per statement


def _chunks(items: Sequence[_T], size: int = _CHUNK) -> Iterator[Sequence[_T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _prefix_end(prefix: str) -> str:
    """The smallest string greater than every string starting with `prefix` (a range scan bound)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


class SQLiteProvider:
    """A real SQLite file: survives a restart and can be shared by several processes.

    WAL mode lets readers run while one process writes; `busy_timeout` makes a writer wait
    for another process's write instead of failing; every batch is one `BEGIN IMMEDIATE`
    transaction, so it takes the write lock up front and is all-or-nothing. Each process
    (each provider) opens its own connection; threads of one process share it under a lock.
    `synchronous=NORMAL` (the usual WAL setting) keeps the file consistent across a crash
    of the process; only an OS crash or power cut can lose the last commits.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 10.0) -> None:
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self._changing: tuple[str, str] | None = None  # as InMemoryProvider's: (tenant, key) while a change runs
        self._conn = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            # Switching to WAL needs a moment of exclusive access; another process opening the
            # same new file at the same instant can make it report "locked" once, so retry.
            deadline = time.monotonic() + busy_timeout
            while True:
                try:
                    self._conn.execute("PRAGMA journal_mode = WAL")
                    self._conn.execute(_SCHEMA)
                    break
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) or time.monotonic() > deadline:
                        raise
                    time.sleep(0.01)
            self._conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            self._conn.close()
            raise

    def _write(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run `work` in one write transaction, taking the write lock first (all or nothing)."""
        with self._lock:
            if self._changing is not None:
                raise _write_in_change(self._changing)
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise
                raise self._busy() from exc
            try:
                result = work(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result

    def _busy(self) -> StorageError:
        """The refusal of a write that waited `busy_timeout` for another writer (another process) in vain."""
        return StorageError(
            f"another writer held the SQLite file {self.path} for longer than busy_timeout ({self.busy_timeout:g} s), "
            "so nothing was written: try again, or give SQLiteProvider a longer busy_timeout if writers hold the "
            "file this long"
        )

    def get(self, tenant: str, key: str, now: float) -> str | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT value FROM mcpbdd_storage WHERE tenant = ? AND key = ? AND {_LIVE}",  # noqa: S608 (see _LIVE)
                (tenant, key, now),
            ).fetchone()
        return None if row is None else row[0]

    def get_many(self, tenant: str, keys: Sequence[str], now: float) -> dict[str, str]:
        found: dict[str, str] = {}
        with self._lock:
            for chunk in _chunks(list(keys)):
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, value FROM mcpbdd_storage WHERE tenant = ? AND key IN ({marks}) AND {_LIVE}",  # noqa: S608 (see _LIVE)
                    (tenant, *chunk, now),
                )
                found.update(rows)
        return found

    def set_many(self, tenant: str, entries: Sequence[Entry]) -> None:
        sql = _UPSERT
        rows = [(tenant, key, text, expires_at) for key, text, expires_at in entries]
        if len(rows) == 1:
            with self._lock:  # one statement is its own atomic transaction
                if self._changing is not None:
                    raise _write_in_change(self._changing)
                try:
                    self._conn.execute(sql, rows[0])
                except sqlite3.OperationalError as exc:
                    if not _is_busy(exc):
                        raise
                    raise self._busy() from exc
        elif rows:
            self._write(lambda conn: conn.executemany(sql, rows))

    def delete_many(self, tenant: str, keys: Sequence[str], now: float) -> int:
        unique = list(dict.fromkeys(keys))
        if not unique:
            return 0

        def work(conn: sqlite3.Connection) -> int:
            pairs = [(tenant, key) for key in unique]
            live = conn.executemany(
                f"DELETE FROM mcpbdd_storage WHERE tenant = ? AND key = ? AND {_LIVE}",  # noqa: S608 (see _LIVE)
                [(tenant, key, now) for key in unique],
            ).rowcount
            conn.executemany("DELETE FROM mcpbdd_storage WHERE tenant = ? AND key = ?", pairs)  # expired leftovers
            return live

        return self._write(work)

    def add_many(self, tenant: str, entries: Sequence[Entry], now: float) -> list[str]:
        keys = [key for key, _, _ in entries]

        def work(conn: sqlite3.Connection) -> list[str]:
            live: set[str] = set()
            for chunk in _chunks(keys):
                marks = ",".join("?" * len(chunk))
                live.update(
                    row[0]
                    for row in conn.execute(
                        f"SELECT key FROM mcpbdd_storage WHERE tenant = ? AND key IN ({marks}) AND {_LIVE}",  # noqa: S608 (see _LIVE)
                        (tenant, *chunk, now),
                    )
                )
            if live:
                return [key for key in keys if key in live]
            conn.executemany(_UPSERT, [(tenant, key, text, expires_at) for key, text, expires_at in entries])
            return []

        # BEGIN IMMEDIATE takes the file's write lock before the check, so no other process writes between them.
        return self._write(work) if entries else []

    def update(self, tenant: str, key: str, change: Change, now: float) -> None:
        def work(conn: sqlite3.Connection) -> None:
            row = conn.execute(
                f"SELECT value, expires_at FROM mcpbdd_storage WHERE tenant = ? AND key = ? AND {_LIVE}",  # noqa: S608 (see _LIVE)
                (tenant, key, now),
            ).fetchone()
            self._changing = (tenant, key)
            try:
                text, expires_at = change(None, None) if row is None else change(row[0], row[1])
            finally:
                self._changing = None
            conn.execute(_UPSERT, (tenant, key, text, expires_at))

        self._write(work)

    def list_keys(
        self, tenant: str, prefix: str, after_key: str | None, limit: int, now: float
    ) -> list[tuple[str, str]]:
        where = ["tenant = ?", _LIVE]
        params: list[object] = [tenant, now]
        if prefix:
            where.append("key >= ? AND key < ?")
            params += [prefix, _prefix_end(prefix)]
        if after_key is not None:
            where.append("key > ?")
            params.append(after_key)
        params.append(limit)
        sql = f"SELECT key, value FROM mcpbdd_storage WHERE {' AND '.join(where)} ORDER BY key LIMIT ?"  # noqa: S608 (see _LIVE)
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def tenants(self, now: float) -> list[str]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT DISTINCT tenant FROM mcpbdd_storage WHERE {_LIVE} ORDER BY tenant",  # noqa: S608 (see _LIVE)
                (now,),
            ).fetchall()
        return [row[0] for row in rows]

    def snapshot(self, tenant: str, now: float) -> dict[str, str]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT key, value FROM mcpbdd_storage WHERE tenant = ? AND {_LIVE} ORDER BY key",  # noqa: S608 (see _LIVE)
                (tenant, now),
            )
            return dict(rows.fetchall())

    def purge_expired(self, now: float) -> int:
        """Physically drop expired rows (they are already invisible); return how many."""
        return self._write(
            lambda conn: (
                conn.execute(
                    "DELETE FROM mcpbdd_storage WHERE expires_at IS NOT NULL AND expires_at <= ?", (now,)
                ).rowcount
            )
        )

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SQLiteProvider:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteProvider({self.path!r})"
