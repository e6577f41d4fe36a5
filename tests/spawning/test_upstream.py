"""Upstream doubles: the route table, the in-process transport, the loopback server, and the World's check.

These tests start processes; the in-process tests of this concern are in tests/test_upstream.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from mcpbdd.upstream import LoopbackServer, Upstream


@pytest.fixture
def threads_before() -> Iterator[set[threading.Thread]]:
    before = set(threading.enumerate())
    yield before
    left = [t for t in threading.enumerate() if t not in before]
    assert not left, f"threads left running: {left}"


def test_a_server_in_another_process_reaches_the_route_table_through_the_loopback(
    threads_before: set[threading.Thread],
) -> None:
    """The example server's production lifespan, in a child process, with only the environment handed over."""
    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "T", "body": "B"})
    child = (
        "import asyncio\n"
        "from mcpbdd.examples.notes import mcp, notes_lifespan\n"
        "async def main():\n"
        "    async with notes_lifespan(mcp) as state:\n"
        "        print((await state.docs.get('/documents/d-1')).text)\n"
        "asyncio.run(main())\n"
    )
    with LoopbackServer(upstream) as loopback:
        env = {**os.environ, **loopback.environment()}
        env.pop("NOTES_DOCS_URL", None)
        run = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"title": "T", "body": "B"}
    assert upstream.received("https://docs.example.com", "GET", "/documents/d-1") == 1
