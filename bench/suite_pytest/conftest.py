"""The pytest side of bench/bench_suite.py: what a team would write on the SDK's own `Client`, no reports.

Each test gets a fresh in-process `mcp.Client` on the bundled notes server, so the server's
lifespan (and with it the tenant's notebook) starts afresh for every test: the same isolation
mcpbdd gives every scenario. The lifespan gets what it gets under mcpbdd, through the kit the
server itself imports (`providing`): an in-memory notebook and no document service. Without
that it would build its production dependencies for every test, among them an
`httpx.AsyncClient` whose TLS context alone costs ~40 ms: a test of the server's wiring, not
of its tools, and not what the Gherkin side runs. The caller is alice of tenant acme,
installed in the SDK's auth context around the calls, as an HTTP server's bearer-token
middleware (or mcpbdd's `acting_as`) does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import pytest
from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from mcpbdd.examples.notes import mcp as notes_server
from mcpbdd.kit.clock import SystemClock
from mcpbdd.kit.doubles import Doubles, providing
from mcpbdd.storage import InMemoryProvider, StorageService

__all__ = ["alice", "anyio_backend", "client"]

ALICE = AuthenticatedUser(
    AccessToken(token="alice-token", client_id="alice", scopes=[], subject="alice", claims={"tenant": "acme"})
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    clock = SystemClock()
    with providing(Doubles(StorageService(InMemoryProvider(), clock), clock)):  # while the lifespan is entered
        async with Client(notes_server) as connected:  # a fresh lifespan: an empty notebook
            yield connected


@contextmanager
def alice() -> Iterator[None]:
    """Call as alice of tenant acme (the SDK's auth context, as bearer-token middleware sets it)."""
    token = auth_context_var.set(ALICE)
    try:
        yield
    finally:
        auth_context_var.reset(token)
