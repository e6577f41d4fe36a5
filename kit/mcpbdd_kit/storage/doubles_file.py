"""One scenario's doubles in one SQLite file, shared by the scenario and every server process it starts.

A server in another process cannot share the scenario's in-memory storage or its frozen
clock, so when mcpbdd starts the process (stdio, or HTTP from a command) the doubles live in
a per-scenario SQLite file whose path the process finds in its environment
(`mcpbdd.kit.doubles.ENV_DOUBLES`). The file holds three things:

- the storage, in `SQLiteProvider`'s table (WAL mode, safe for several processes): what the
  storage steps seed and inspect is exactly what every caller's process reads and writes;
- the clock's one instant: the scenario moves it (`Given the clock reads`, `When 2 hours pass`),
  every process reads it on each `now()`, so a move is seen by the server's next read;
- the secret that signs storage listing cursors, made by whichever side asks first: every
  caller's process and the scenario sign with it, so a cursor one user's process issued is
  accepted by a colleague's process, as it is by one server in-process or over HTTP;
- a row per process that took the doubles (`scenario_doubles()` ran there), so the scenario
  can tell a server that took them from one that kept its own state: a storage step against
  the latter would check nothing, and fails instead.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import tempfile
import threading
import time
from datetime import datetime, timedelta

from mcpbdd_kit.clock import FrozenClock
from mcpbdd_kit.storage.providers import SQLiteProvider

__all__ = ["DoublesFile", "FileClock"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS mcpbdd_clock (id INTEGER PRIMARY KEY CHECK (id = 1), instant TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS mcpbdd_taken (pid INTEGER NOT NULL, at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS mcpbdd_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL)",
)


class DoublesFile:
    """The file itself: its storage provider, its clock's instant, and who took the doubles.

    Each process opens its own connections (the provider's and one for the clock and the
    marks); the scenario's World is the only writer of the clock.
    """

    @classmethod
    def create(cls, path: str | os.PathLike[str], *, busy_timeout: float = 10.0) -> DoublesFile:
        """A new, empty doubles file at `path` (which must not exist), opened.

        Written from an image of an empty one made once per process: switching a new file to WAL mode and
        creating its tables costs milliseconds per scenario; writing the same few pages of bytes does not.
        """
        image = _empty_image()
        with open(path, "xb") as new:
            new.write(image)
        return cls(path, busy_timeout=busy_timeout)

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 10.0) -> None:
        self.path = os.fspath(path)
        self.provider = SQLiteProvider(self.path, busy_timeout=busy_timeout)  # creates the file, in WAL mode
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            for statement in _SCHEMA:
                self._conn.execute(statement)
        except BaseException:
            self.close()
            raise

    # the clock ------------------------------------------------------------------------------------

    def instant(self) -> datetime | None:
        """The clock's instant as the scenario last set it (None before anybody set it)."""
        with self._lock:
            row = self._conn.execute("SELECT instant FROM mcpbdd_clock WHERE id = 1").fetchone()
        return None if row is None else datetime.fromisoformat(row[0])

    def set_instant(self, moment: datetime) -> None:
        # ISO text, not epoch seconds: a float of seconds since 1970 cannot hold every microsecond.
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO mcpbdd_clock (id, instant) VALUES (1, ?)", (moment.isoformat(),))

    # the cursor secret ----------------------------------------------------------------------------

    def cursor_secret(self) -> bytes:
        """The secret every `StorageService` on this file signs listing cursors with (made on first use).

        Not in the empty image every file is copied from (`create`), or every scenario would share
        one secret: the first side to ask writes a random one, and a racing second keeps the first's.
        """
        with self._lock:
            self._conn.execute(
                "INSERT OR IGNORE INTO mcpbdd_secret (id, secret) VALUES (1, ?)", (secrets.token_bytes(32),)
            )
            row = self._conn.execute("SELECT secret FROM mcpbdd_secret WHERE id = 1").fetchone()
        return bytes(row[0])

    # who took the doubles -------------------------------------------------------------------------

    def mark(self) -> None:
        """Record that this process took the doubles (`scenario_doubles()` ran in its lifespan)."""
        with self._lock:
            self._conn.execute("INSERT INTO mcpbdd_taken (pid, at) VALUES (?, ?)", (os.getpid(), time.time()))

    @property
    def taken(self) -> bool:
        """Whether any process took the doubles."""
        with self._lock:
            return self._conn.execute("SELECT 1 FROM mcpbdd_taken LIMIT 1").fetchone() is not None

    def close(self) -> None:
        self.provider.close()
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"DoublesFile({self.path!r})"


_image: bytes | None = None
_image_lock = threading.Lock()


def _empty_image() -> bytes:
    """The bytes of an empty doubles file (WAL mode and tables in its header and pages), made once."""
    global _image
    with _image_lock:
        if _image is None:
            with tempfile.TemporaryDirectory(prefix="mcpbdd-doubles-image-") as folder:
                path = os.path.join(folder, "empty.sqlite")
                DoublesFile(path).close()  # the last close checkpoints the WAL into the file and removes it
                with open(path, "rb") as made:
                    _image = made.read()
        return _image


class FileClock(FrozenClock):
    """A frozen clock whose instant lives in a `DoublesFile`: the scenario moves it, every process reads it.

    It refuses naive instants and backward `advance()` as `FrozenClock` does. Built with a
    `start` (the scenario's side), it writes that instant to the file; built without one (a
    server process's side), it reads whatever the scenario set.
    """

    def __init__(self, file: DoublesFile, start: datetime | None = None) -> None:
        super().__init__(start)
        self.file = file
        if start is not None or file.instant() is None:
            file.set_instant(self._now)

    def now(self) -> datetime:
        moment = self.file.instant()
        return self._now if moment is None else moment

    def timestamp(self) -> float:
        return self.now().timestamp()

    def set(self, moment: datetime) -> None:
        super().set(moment)
        self.file.set_instant(self._now)

    def advance(self, delta: timedelta | float | str) -> datetime:
        self._now = self.now()  # advance from the instant in the file, which is the truth
        moved = super().advance(delta)
        self.file.set_instant(moved)
        return moved

    def __repr__(self) -> str:
        return f"FileClock({self.now().isoformat()!r}, {self.file.path!r})"
