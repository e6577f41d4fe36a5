"""A 50 MB result over stdio is answered, as in-process (issue 23, item 9).

The server writes it in 0.15 s; reading the line was quadratic (the buffer re-joined and re-split at
every 64 KiB chunk), so a fork start said "no answer within the call timeout of 30 s". The time is a
benchmark's (BENCHMARKS.md); here the content's length is checked, under a normal call timeout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from mcpbdd.scenario.world import World


def test_a_50_mb_result_over_a_forked_stdio_server_is_answered(make_world: Callable[..., World]) -> None:
    world = make_world(server=f"stdio: {sys.executable} tests/servers.py", timeout=30, spawn="fork")
    world.use_harness("client", "auto")
    try:
        outcome = world.call_tool("flood", {"megabytes": 50})
    finally:
        world.close()
    assert outcome.failure is None, outcome.failure
    text = outcome.text
    assert len(text) == 50_000_001 and text.startswith("FIRST LINE") and text.endswith("LAST LINE")


def test_a_50_mb_result_over_a_plain_stdio_start_is_answered(make_world: Callable[..., World]) -> None:
    """A plain start read through the SDK's `stdio_client`, whose reader is quadratic too (`plain_client.py`)."""
    world = make_world(server=f"stdio: {sys.executable} tests/servers.py", timeout=30, spawn="plain")
    world.use_harness("client", "auto")
    try:
        outcome = world.call_tool("flood", {"megabytes": 50})
    finally:
        world.close()
    assert outcome.failure is None, outcome.failure
    text = outcome.text
    assert len(text) == 50_000_001 and text.startswith("FIRST LINE") and text.endswith("LAST LINE")
