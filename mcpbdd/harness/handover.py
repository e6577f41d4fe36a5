"""The scenario's doubles, placed where its server can reach them, and the check that it took them.

- An in-process server (either harness) gets them in memory, through `providing()` while its
  lifespan is entered.
- A server process mcpbdd starts gets them in a per-scenario SQLite file (`DoublesFile`) whose
  path it finds in its environment (`MCPBDD_DOUBLES`); the scenario's storage and clock are
  that same file, so the storage steps seed and inspect what every caller's process sees, and
  a clock step is seen by the server's next read.
- A server at a URL mcpbdd did not start cannot get them at all.

A storage or clock step is only worth something if the server took the doubles (or a
`storage_adapter` says where it keeps its state). Whether it did is known once the server has
answered a call (its lifespan ran by then), so `Placement.relied(what)` checks at once when the
server has answered, and otherwise remembers the step and checks when the next call is answered:
that call's step fails, naming the earlier step. A scenario that seeds and never calls checks
nothing about the server, and nothing fails for it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import deque
from collections.abc import Callable
from pathlib import Path

from mcpbdd.harness.targets import ServerTarget
from mcpbdd.kit.clock import DEFAULT_FROZEN_START, FrozenClock
from mcpbdd.kit.doubles import ENV_DOUBLES, Doubles, Handover, UpstreamDoubles
from mcpbdd.model.errors import DoublesNotTaken
from mcpbdd.storage import InMemoryProvider, StorageService
from mcpbdd.storage.doubles_file import DoublesFile, FileClock

__all__ = [
    "STARTED_KINDS",
    "DoublesNotTaken",
    "Placement",
    "is_reserved",
    "release_reservation",
    "remove_doubles_file",
    "reserve_doubles_file",
    "temporary_doubles_file",
]

STARTED_KINDS = ("stdio", "http-command")
"""Targets mcpbdd starts itself, as processes: they find the doubles through their environment."""

_FIXES = (
    "Either take them in its lifespan: `doubles = scenario_doubles()` (from mcpbdd.kit.doubles), then "
    "build its storage and clock from `doubles.storage` and `doubles.clock` (docs/reference/storage.md); "
    'or set storage_adapter = "package.module:factory" under [tool.mcpbdd] so the storage steps read where '
    "the server keeps its state."
)


def _new_doubles_file() -> DoublesFile:
    folder = tempfile.mkdtemp(prefix="mcpbdd-doubles-")
    return DoublesFile.create(Path(folder) / "doubles.sqlite")


_reserved: deque[DoublesFile] = deque()
"""Doubles files made ahead for the next scenarios, in the order they will be handed out (`spare.py`)."""


def temporary_doubles_file() -> DoublesFile:
    """A fresh doubles file in a folder of its own, removed with it by `remove_doubles_file`.

    The oldest reserved file first: a spare server process was started with its path, for this scenario.
    """
    return _reserved.popleft() if _reserved else _new_doubles_file()


def reserve_doubles_file() -> DoublesFile:
    """Make, now, a doubles file a later scenario will be handed (after those reserved before it)."""
    file = _new_doubles_file()
    _reserved.append(file)
    return file


def is_reserved(path: str) -> bool:
    """Whether the file at `path` is reserved and not handed out yet."""
    return any(file.path == path for file in _reserved)


def release_reservation(path: str | None = None) -> None:
    """Remove the reserved file at `path` (every reserved file without one): no scenario will be handed it."""
    for file in [file for file in _reserved if path is None or file.path == path]:
        _reserved.remove(file)
        remove_doubles_file(file)


def remove_doubles_file(file: DoublesFile) -> None:
    """Close the file and remove its folder (the processes that used it have stopped)."""
    file.close()
    shutil.rmtree(Path(file.path).parent, ignore_errors=True)


class Placement:
    """Where one scenario's storage and clock live, for the server it targets, and whether the server took them."""

    def __init__(
        self,
        server: str | None,
        upstream: UpstreamDoubles,
        *,
        file: DoublesFile | None = None,
        owns_file: bool = True,
        excused: bool = False,
        start: FrozenClock | None = None,
    ) -> None:
        self.server = server
        self.file = file
        self.owns_file = owns_file
        self.excused = excused
        """A storage adapter is configured: the project says where its state is; nothing to check."""
        instant = start.now() if start is not None else None
        if file is None:
            clock: FrozenClock = FrozenClock(instant)
            storage = StorageService(InMemoryProvider(), clock)
            self.doubles = Doubles(storage, clock, upstream, Handover())
        else:  # every scenario starts at its own instant, even on a file a feature shares
            clock = FileClock(file, instant or DEFAULT_FROZEN_START)
            storage = StorageService(file.provider, clock, secret=file.cursor_secret())  # the processes' secret
            self.doubles = Doubles(storage, clock, upstream, file)
        self.clock = clock
        self._pending: str | None = None
        self._answered = False

    @classmethod
    def for_target(
        cls,
        server: str | None,
        upstream: UpstreamDoubles,
        *,
        excused: bool = False,
        previous: Placement | None = None,
        shared_file: Callable[[], DoublesFile] | None = None,
    ) -> Placement:
        """The placement `server` needs: `previous` if it already fits, else a new one (carrying the clock over).

        `shared_file` gives the file of servers a feature shares (`reuse_server = "feature"`).
        """
        in_file = _kind(server) in STARTED_KINDS
        if previous is not None and (previous.file is not None) == in_file:
            previous.server = server
            return previous
        if previous is not None and previous.doubles.storage.tenants():
            raise ValueError(
                f"the storage was seeded before the server was chosen ({server}); "
                "put `Given the MCP server ...` before the steps that seed the storage"
            )
        # The instant, read now: a file's clock cannot be read once the file is closed.
        start = FrozenClock(previous.clock.now()) if previous is not None else None
        if previous is not None:
            previous.close()
        if not in_file:
            return cls(server, upstream, excused=excused, start=start)
        file = shared_file() if shared_file is not None else temporary_doubles_file()
        return cls(server, upstream, file=file, owns_file=shared_file is None, excused=excused, start=start)

    def environment(self) -> dict[str, str]:
        """What a server process needs in its environment to find the doubles."""
        return {ENV_DOUBLES: self.file.path} if self.file is not None else {}

    @property
    def taken(self) -> bool:
        return self.doubles.receipt.taken

    def relied(self, what: str) -> None:
        """A step relies on the server having taken the doubles: check now if that is known, else at the next answer."""
        if self.excused:
            return
        if self._answered:
            self._check(what, later=False)
        elif self._pending is None:
            self._pending = what

    def answered(self) -> None:
        """The server answered a call: its lifespan has run, so a step that relied on the doubles can be checked."""
        self._answered = True
        if self._pending is not None:
            what, self._pending = self._pending, None
            self._check(what, later=True)

    def _check(self, what: str, *, later: bool) -> None:
        if self.taken:
            return
        server = f'the server "{self.server}"' if self.server else "the server"
        if _kind(self.server) == "http":
            why = (
                f"{server} runs at a URL mcpbdd did not start, so it cannot take them. Give a command instead "
                "(`http: <command with {port}>` or `stdio: <command>`) so mcpbdd starts it with them, "
                'or set storage_adapter = "package.module:factory" under [tool.mcpbdd].'
            )
        else:
            why = f"{server} did not take them. {_FIXES}"
        step = "An earlier step" if later else "This step"
        raise DoublesNotTaken(
            f"{step} relies on the scenario's doubles ({what}), but {why} Without them the step would check nothing."
        )

    def close(self) -> None:
        if self.file is None:
            self.doubles.storage.close()
        elif self.owns_file:
            remove_doubles_file(self.file)


def _kind(server: str | None) -> str | None:
    if not server:
        return None
    try:
        return ServerTarget.parse(server).kind
    except ValueError:
        return None
