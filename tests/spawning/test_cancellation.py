"""Cancellation over the wire: features/cancellation.feature over stdio (both eras), and a started HTTP server.

The in-process tests of this concern are in tests/test_cancellation.py. Over stdio the harness sends
`notifications/cancelled` with the request's id on either era; over 2026-07-28 HTTP the SDK's transport
turns that into closing the request's stream, over 2025-11-25 HTTP it posts the notification.
"""

from __future__ import annotations

import pytest

from mcpbdd.checks.cancellation import was_cancelled
from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Http
from mcpbdd.kit.principals import Principal
from mcpbdd.model.cancellation import NOTIFIED, CancelPlan, Seen
from mcpbdd.model.outcome import Call
from spawning.test_remote import behave_over_stdio, notes_over_http

__all__ = ["notes_over_http"]  # the fixture, shared with test_remote

SLOW_IMPORT = Call.tool("import_notebook", {"notes": [{"title": "Milk"}, {"title": "Eggs"}], "pace_ms": 100})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_cancellation_feature_holds_over_stdio(mode: str) -> None:
    run = behave_over_stdio("features/cancellation.feature", mode=mode)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "6 scenarios passed, 0 failed" in run.stdout, run.stdout


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_cancelled_import_over_http_stops_and_stores_nothing(notes_over_http: str, mode: str) -> None:
    """A server at a URL has no scenario doubles: the caller's own listing shows the import left nothing."""
    erin = Principal(f"erin-{mode}", f"initech-{mode}", ("notes:write",))
    async with ClientHarness(Http(notes_over_http), mode=mode) as harness:
        outcome = await harness.send_cancelled(erin, SLOW_IMPORT, CancelPlan.after_progress(1))
        await harness.send_cancelled(erin, SLOW_IMPORT, CancelPlan.after_milliseconds(150))
        listed = await harness.call_tool(erin, "list_notes", {})
    was_cancelled(outcome)
    assert outcome.cancellation is not None and outcome.cancellation.how == NOTIFIED
    # 2026-07-28: the request's stream is closed, nothing comes; 2025-11-25: the SDK ends it with "Request cancelled".
    assert outcome.cancellation.seen is (Seen.CONFIRMED if mode == "legacy" else Seen.NOTHING)
    assert [report.progress for report in outcome.progress] == [1]
    assert listed.ok and listed.structured["count"] == 0, listed.describe()
