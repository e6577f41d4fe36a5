"""How a server under test gets the scenario's doubles (storage, clock) instead of its production ones.

A server's dependencies belong in its lifespan. While mcpbdd enters that lifespan for
a scenario, `scenario_doubles()` returns the scenario's storage and clock; in
production nothing is set and it returns None, so the lifespan builds the real ones:

    @asynccontextmanager
    async def lifespan(server):
        doubles = scenario_doubles()
        storage = doubles.storage if doubles else StorageService(SQLiteProvider("notes.db"))
        clock = doubles.clock if doubles else SystemClock()
        http = httpx.AsyncClient(transport=doubles.upstream.transport()) if doubles else httpx.AsyncClient()
        async with http:
            yield AppState(storage, clock, http)

A context variable rather than a global: several scenarios (and worlds in a pytest
session) never see each other's doubles, and nothing leaks outside the lifespan entry.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcpbdd.kit.clock import Clock
from mcpbdd.storage import StorageService

if TYPE_CHECKING:  # the route table is test-side; a production server never builds one
    from mcpbdd.upstream import Upstream


@dataclass(frozen=True)
class Doubles:
    """What a scenario hands the server under test in place of its production dependencies."""

    storage: StorageService
    clock: Clock
    upstream: Upstream | None = None
    """The route table for the server's outbound HTTP: build clients with `upstream.transport()`."""


_current: ContextVar[Doubles | None] = ContextVar("mcpbdd_scenario_doubles", default=None)


def scenario_doubles() -> Doubles | None:
    """The running scenario's doubles while mcpbdd enters the server's lifespan; None in production."""
    return _current.get()


@contextlib.contextmanager
def providing(doubles: Doubles) -> Iterator[None]:
    """Make `doubles` what `scenario_doubles()` returns for the enclosed code (a lifespan being entered)."""
    token = _current.set(doubles)
    try:
        yield
    finally:
        _current.reset(token)
