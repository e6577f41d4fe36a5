"""A 50 MB result over stdio is answered, as in-process.

The server writes it in 0.15 s; reading the line was quadratic (the buffer re-joined and re-split at
every 64 KiB chunk), so a fork start said "no answer within the call timeout of 30 s". The time is a
benchmark's (BENCHMARKS.md); here the content's length is checked, under a normal call timeout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from mcpbdd.scenario.world import World


@pytest.mark.parametrize(
    "spawn",
    ["fork", "plain"],
    ids=["forked: mcpbdd's own reader", "plain: mcpbdd's plain_client, not the SDK's quadratic stdio_client"],
)
def test_a_50_mb_result_over_stdio_is_answered(make_world: Callable[..., World], spawn: str) -> None:
    world = make_world(server=f"stdio: {sys.executable} tests/servers.py", timeout=30, spawn=spawn)
    world.use_harness("client", "auto")
    try:
        outcome = world.call_tool("flood", {"megabytes": 50})
    finally:
        world.close()
    assert outcome.failure is None, outcome.failure
    text = outcome.text
    assert len(text) == 50_000_001 and text.startswith("FIRST LINE") and text.endswith("LAST LINE")
