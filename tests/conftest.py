"""Shared fixtures: the anyio backend, the harnesses under test, and the test-only servers."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))  # makes `servers` (the test-only MCP servers) importable

HARNESS_KINDS = ("context", "client-auto", "client-legacy")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_harness(kind: str, server: Any, **options: Any) -> Any:
    """A harness of the given kind (context, client-auto, client-legacy) for `server`."""
    from mcpbdd.harness import ClientHarness, ContextHarness

    if kind == "context":
        return ContextHarness(server, **options)
    return ClientHarness(server, mode=kind.split("-")[1], **options)


@pytest.fixture(params=HARNESS_KINDS)
async def notes_harness(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """Each harness, entered on the bundled notes server."""
    from mcpbdd.examples.notes import mcp

    async with make_harness(request.param, mcp, timeout=5.0) as harness:
        yield harness
