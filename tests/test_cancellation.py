"""Cancellation: a call cancelled part-way, on every harness in-process, and the check of what followed.

The harness tests cancel the bundled notes server's `import_notebook` (paced, so there is time to) on
the context harness and the in-process client in both eras, and show it stored nothing; they cancel
`tests/stubborn_server.py`'s import, which ignores a cancel, and show what a client on the wire sees of
it on every harness (no answer, the work stored anyway; a handler still running is stopped when the
harness closes); and, with the server's dispatcher made to ignore
`notifications/cancelled` as a server written without the SDK might, a late answer over JSON-RPC.
The check tests show `was_cancelled` passing, failing and refusing a cancel that never went out.
The same over stdio and HTTP: tests/spawning/test_cancellation.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest
import stubborn_server
import verdict_server
from conftest import HARNESS_KINDS, make_harness
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from mcpbdd import Call
from mcpbdd.checks import expect
from mcpbdd.checks.cancellation import was_cancelled
from mcpbdd.examples.notes import mcp as notes
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Principal
from mcpbdd.model.cancellation import NOTIFIED, TASK_CANCELLED, Cancellation, CancelPlan, Seen
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import Channel, Outcome
from mcpbdd.storage import StorageService

ALICE = Principal("alice", "acme")
SLOW_IMPORT = Call.tool("import_notebook", {"notes": [{"title": "Milk"}, {"title": "Eggs"}], "pace_ms": 100})
STUBBORN = Call.tool("stubborn_import", {"titles": ["Milk", "Eggs"]})


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_cancelled_import_stops_and_stores_nothing(kind: str) -> None:
    async with make_harness(kind, notes) as harness:
        outcome = await harness.send_cancelled(ALICE, SLOW_IMPORT, CancelPlan.after_progress(1))
        listed = await harness.call_tool(ALICE, "list_notes", {})
    assert outcome.channel is Channel.TRANSPORT_FAILURE
    assert outcome.cancellation is not None and outcome.cancellation.honoured, outcome.failure
    assert outcome.cancellation.how == (NOTIFIED if kind == "client-legacy" else TASK_CANCELLED)
    assert [report.progress for report in outcome.progress] == [1]
    was_cancelled(outcome)
    assert listed.structured["count"] == 0


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_call_is_cancelled_after_so_many_milliseconds_and_the_next_runs_to_its_end(kind: str) -> None:
    async with make_harness(kind, notes) as harness:
        outcome = await harness.send_cancelled(ALICE, SLOW_IMPORT, CancelPlan.after_milliseconds(50))
        following = await harness.send(ALICE, SLOW_IMPORT)
    was_cancelled(outcome)
    assert outcome.cancellation is not None and 0.05 <= outcome.cancellation.at < 0.1
    assert following.ok and following.cancellation is None, following.describe()


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_cancelled_call_is_no_success_and_says_it_was_cancelled(kind: str) -> None:
    async with make_harness(kind, notes) as harness:
        outcome = await harness.send_cancelled(ALICE, SLOW_IMPORT, CancelPlan.after_progress(1))
    with pytest.raises(AssertionError) as failed:
        expect.succeeds(outcome)
    assert "got no answer: the client cancelled the call after 1 progress report (" in str(failed.value)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_handler_that_swallows_its_cancel_is_seen_as_a_wire_client_sees_it(kind: str) -> None:
    """In-process as over a wire: the answer of a cancelled request is dropped, and the work it went on with shows."""
    clock = FrozenClock()
    doubles = Doubles(StorageService(clock=clock), clock)
    async with make_harness(kind, stubborn_server.mcp, doubles=doubles) as harness:
        outcome = await harness.send_cancelled(ALICE, STUBBORN, CancelPlan.after_progress(1))
    cancellation = outcome.cancellation
    assert cancellation is not None and cancellation.seen is Seen.NOTHING and cancellation.late is None
    was_cancelled(outcome)  # the client saw what it would see of this server over stdio
    assert sorted(doubles.storage.snapshot("acme")) == ["notes/eggs", "notes/milk"]  # what the storage steps show


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_cancel_lets_a_shielded_stretch_of_the_handler_finish_and_stops_it_after(kind: str) -> None:
    """As the SDK's dispatcher cancels a handler on notifications/cancelled: the shield holds, the next await stops."""
    clock = FrozenClock()
    doubles = Doubles(StorageService(clock=clock), clock)
    async with make_harness(kind, verdict_server.mcp, doubles=doubles) as harness:
        outcome = await harness.send_cancelled(ALICE, Call.tool("shielded_save"), CancelPlan.after_progress(1))
    was_cancelled(outcome)
    assert doubles.storage.snapshot("acme") == {"saved": {"done": True}}
    assert outcome.duration < 2, "the handler's wait after its shield was cut short by the cancel"


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["context", "client-auto"])
async def test_a_handler_still_running_after_the_grace_runs_on_and_is_stopped_at_the_close(kind: str) -> None:
    """As a server's handler goes on after its client gave up; the harness stops it when it closes.

    The stubborn handler swallows the close's cancel too, so the close waits out the harness's timeout: 1 s (not the
    default 5 s) still outlasts the 50 ms grace the handler is seen running after, and bounds the close."""
    slow = Call.tool("stubborn_import", {"titles": ["Milk", "Eggs"], "pace_ms": 300})
    async with make_harness(kind, stubborn_server.mcp, timeout=1.0) as harness:
        outcome = await harness.send_cancelled(ALICE, slow, CancelPlan.after_progress(1, grace=0.05))
        running = list(harness._abandoned)
        assert running and not any(task.done() for task in running)
    assert outcome.cancellation is not None and outcome.cancellation.seen is Seen.NOTHING
    assert all(task.done() for task in running)  # the harness stopped it when it closed


@pytest.mark.anyio
async def test_over_json_rpc_a_server_that_ignores_the_cancel_notification_answers_late(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The SDK's server drops a cancelled request's answer; one written without it may not. The client sees it."""
    dispatch = JSONRPCDispatcher._dispatch_notification

    def ignoring_cancels(self: JSONRPCDispatcher[Any], msg: Any, *args: Any) -> None:
        if msg.method != "notifications/cancelled":
            dispatch(self, msg, *args)

    monkeypatch.setattr(JSONRPCDispatcher, "_dispatch_notification", ignoring_cancels)
    async with make_harness("client-legacy", notes) as harness:
        outcome = await harness.send_cancelled(ALICE, SLOW_IMPORT, CancelPlan.after_progress(1, grace=1.0))
    cancellation = outcome.cancellation
    assert cancellation is not None and cancellation.how == NOTIFIED and cancellation.seen is Seen.LATE_ANSWER
    assert cancellation.late is not None and cancellation.late.ok
    with pytest.raises(AssertionError, match="s after the cancel it answered: tools/call 'import_notebook' succeeded"):
        was_cancelled(outcome)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_cancel_the_call_never_waited_for_leaves_its_answer_and_breaks_the_check(kind: str) -> None:
    quick = Call.tool("import_notebook", {"notes": [{"title": "Milk"}]})
    async with make_harness(kind, notes) as harness:
        too_many = await harness.send_cancelled(ALICE, quick, CancelPlan.after_progress(3))
        too_late = await harness.send_cancelled(ALICE, Call.tool("list_notes", {}), CancelPlan.after_milliseconds(500))
    assert too_many.ok and too_late.ok
    with pytest.raises(VacuousCheck, match=r"after 3 progress reports, but the call .* made only 1 and finished"):
        was_cancelled(too_many)
    with pytest.raises(VacuousCheck, match="a cancel that comes too late means nothing"):
        was_cancelled(too_late)


def test_a_check_with_no_cancel_arranged_is_broken() -> None:
    outcome = Outcome(Channel.OK, Call.tool("list_notes"), caller="alice of tenant acme")
    with pytest.raises(VacuousCheck, match="was not cancelled by the client, so whether the server stopped"):
        was_cancelled(outcome)


def test_the_sdks_request_cancelled_error_counts_as_the_server_stopping() -> None:
    """A 2025-11-25 HTTP server (the SDK's) ends a cancelled request's stream with -32800 'Request cancelled'."""
    plan = CancelPlan.after_progress(1)
    confirmed = Cancellation(plan, sent=True, reports=1, at=0.01, seen=Seen.CONFIRMED)
    assert confirmed.honoured
    assert Cancellation(plan, sent=True, reports=1, at=0.01, seen=Seen.LATE_ANSWER).honoured is False


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"after_reports": 0}, "cannot be cancelled after 0 progress reports: count from 1"),
        ({"after_ms": 0}, "cannot be cancelled after 0 milliseconds"),
        ({}, "(one)"),
        ({"after_reports": 1, "after_ms": 5}, "(one)"),
        ({"after_reports": 1, "grace": -1}, "not -1"),
    ],
)
def test_a_plan_that_cannot_be_carried_out_is_refused(options: Mapping[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        CancelPlan(**options)


def test_plans_read_as_the_phrases_say_them() -> None:
    assert str(CancelPlan.after_progress(1)) == "after 1 progress report"
    assert str(CancelPlan.after_progress(2)) == "after 2 progress reports"
    assert str(CancelPlan.after_milliseconds(150)) == "after 150 milliseconds"


def test_the_world_plans_the_next_call_only(make_world: Any) -> None:
    world = make_world(server="mcpbdd.examples.notes:mcp", cancel_grace=0.1)
    world.add_tenant("acme")
    world.cancel_next_call(after_reports=1)
    cancelled = world.call_tool("import_notebook", {"notes": [{"title": "Milk"}, {"title": "Eggs"}], "pace_ms": 100})
    after = world.call_tool("list_notes", {})
    assert cancelled.cancellation is not None and cancelled.cancellation.plan.grace == 0.1
    assert after.ok and after.cancellation is None
