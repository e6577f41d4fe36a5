"""How a server under test gets the scenario's doubles (storage, clock, upstream) instead of its production ones.

A server's dependencies belong in its lifespan. While mcpbdd runs the server for a
scenario, `scenario_doubles()` returns the scenario's storage, clock and upstream routes;
in production nothing is set and it returns None, so the lifespan builds the real ones:

    @asynccontextmanager
    async def lifespan(server):
        doubles = scenario_doubles()
        storage = doubles.storage if doubles else StorageService(SQLiteProvider("notes.db"))
        clock = doubles.clock if doubles else SystemClock()
        http = httpx.AsyncClient(transport=doubles.upstream.transport()) if doubles else httpx.AsyncClient()
        async with http:
            yield AppState(storage, clock, http)

Wherever the server runs, the same lifespan works:

- in-process (both harnesses), mcpbdd sets the doubles in a context variable while it
  enters the lifespan: several scenarios (and worlds in a pytest session) never see each
  other's doubles, and nothing leaks outside the lifespan entry;
- in a process mcpbdd starts (stdio, or HTTP from a command), the environment names the
  scenario's doubles file (`MCPBDD_DOUBLES`): the storage, the clock and the secret that signs
  storage listing cursors live there, shared with the scenario and every caller's process, and
  the upstream routes are served on loopback (`mcpbdd.kit.upstream.LoopbackRoutes`).

Calling `scenario_doubles()` is also how the scenario learns that the server took its
doubles: a storage or clock step against a server that did not would check nothing, so it
fails instead (unless a `storage_adapter` says where the server keeps its state).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from mcpbdd_kit.clock import Clock
from mcpbdd_kit.storage import StorageService

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ENV_DOUBLES",
    "Doubles",
    "Handover",
    "NoUpstream",
    "Receipt",
    "UpstreamDoubles",
    "from_environment",
    "providing",
    "scenario_doubles",
]

ENV_DOUBLES = "MCPBDD_DOUBLES"
"""The environment variable naming a server process's doubles file (set by mcpbdd when it starts the process)."""

logger = logging.getLogger("mcpbdd.kit.doubles")


@runtime_checkable
class Receipt(Protocol):
    """Where the server under test signs for the doubles it took."""

    def mark(self) -> None:
        """The server took the doubles (`scenario_doubles()` returned them)."""
        ...

    @property
    def taken(self) -> bool: ...


class Handover:
    """The in-process receipt: a flag the scenario reads after entering the server's lifespan."""

    def __init__(self) -> None:
        self._taken = False

    def mark(self) -> None:
        self._taken = True

    @property
    def taken(self) -> bool:
        return self._taken

    def __repr__(self) -> str:
        return f"Handover(taken={self._taken})"


class UpstreamDoubles(Protocol):
    """The server's outbound HTTP doubles: a route table in-process, loopback routes in a process."""

    def transport(self) -> httpx.AsyncBaseTransport: ...


class NoUpstream:
    """Outbound doubles with no route: every request fails naming what to add (never a real network call)."""

    def transport(self) -> httpx.AsyncBaseTransport:
        import httpx

        def refuse(request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError(
                f"no upstream double for {request.method} {request.url}: these doubles were built without one "
                "(pass upstream= to Doubles, or declare the route in the scenario)",
                request=request,
            )

        return httpx.MockTransport(refuse)

    def __repr__(self) -> str:
        return "NoUpstream()"


@dataclass(frozen=True)
class Doubles:
    """What a scenario hands the server under test in place of its production dependencies."""

    storage: StorageService
    clock: Clock
    upstream: UpstreamDoubles = field(default_factory=lambda: NoUpstream())
    """The outbound HTTP doubles: build clients with `upstream.transport()` (a route table in-process,
    `mcpbdd.kit.upstream.LoopbackRoutes` in a process mcpbdd started). Always set when mcpbdd hands the
    doubles over; `Doubles` built by hand without one get `NoUpstream`, which refuses every request."""
    receipt: Receipt = field(default_factory=Handover, compare=False, repr=False)
    """Marked by `scenario_doubles()`, read by the scenario (did the server take its doubles?)."""


_current: ContextVar[Doubles | None] = ContextVar("mcpbdd_scenario_doubles", default=None)
_from_file: dict[str, Doubles] = {}
_from_file_lock = threading.Lock()


def scenario_doubles() -> Doubles | None:
    """The running scenario's doubles (in-process while mcpbdd enters the lifespan, or in a process it
    started); None in production."""
    doubles = _current.get()
    if doubles is None:
        doubles = from_environment()
    if doubles is not None:
        doubles.receipt.mark()
    return doubles


def from_environment(environ: dict[str, str] | None = None) -> Doubles | None:
    """The doubles a process started by mcpbdd finds through its environment (one set per process), or None."""
    env = os.environ if environ is None else environ
    path = env.get(ENV_DOUBLES)
    if not path:
        return None
    with _from_file_lock:
        doubles = _from_file.get(path)
        if doubles is None:
            from mcpbdd_kit.storage.doubles_file import DoublesFile, FileClock
            from mcpbdd_kit.upstream import LoopbackRoutes

            # Loud: a production server that inherited this variable would keep its state in a test file and read
            # a clock that anyone who can write that file moves.
            logger.warning(
                "the scenario's doubles are in use (%s=%s): storage and clock come from a test file that mcpbdd "
                "wrote for a test run; unset it in production",
                ENV_DOUBLES,
                path,
            )
            file = DoublesFile(path)
            clock = FileClock(file)
            # One cursor secret per scenario, not per process: a cursor travels between callers' processes.
            storage = StorageService(file.provider, clock, secret=file.cursor_secret())
            doubles = _from_file[path] = Doubles(storage, clock, LoopbackRoutes.from_environment(env), file)
    return doubles


@contextlib.contextmanager
def providing(doubles: Doubles) -> Iterator[None]:
    """Make `doubles` what `scenario_doubles()` returns for the enclosed code (a lifespan being entered)."""
    token = _current.set(doubles)
    try:
        yield
    finally:
        _current.reset(token)
