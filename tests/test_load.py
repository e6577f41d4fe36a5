"""The load driver and its checks, in-process: bounds, placeholders, percentiles, channels, and each check failing.

The driver runs against tests/load_servers.py on the real in-process `mcp.Client` (one session per caller).
The same server passes the isolation and integrity checks when one caller calls at a time and fails them with
many at once: that is what shows the checks catch faults only concurrency reveals, not faults of the server alone.
"""

from __future__ import annotations

from typing import Any

import load_servers
import pytest

from mcpbdd.harness import ClientHarness, ContextHarness
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Principal
from mcpbdd.load import CallSample, LoadResult
from mcpbdd.load.charts import errors_table, latency_histogram, percentiles_table, throughput_chart
from mcpbdd.load.checks import (
    channel_named,
    check_answers_isolated,
    check_at_most,
    check_latency,
    check_storage_isolated,
    check_throughput,
    check_written_once,
)
from mcpbdd.load.driver import LoadRun, open_sessions, run_load
from mcpbdd.load.profile import LoadBound, LoadProfile, LoadSpecError, LoadStep
from mcpbdd.storage import StorageService

ACME = [Principal(f"acme-caller-{i}", "acme") for i in (1, 2, 3)]
GLOBEX = [Principal(f"globex-caller-{i}", "globex") for i in (1, 2, 3)]


def sample(tool: str, ms: float, channel: Any = "ok", reason: str | None = None, at: float = 0.0) -> CallSample:
    return CallSample(tool, "alice", "acme", at, ms, channel, reason)


# the profile ------------------------------------------------------------------------------------------------


def test_a_load_with_no_bound_is_refused_saying_how_to_bound_it() -> None:
    with pytest.raises(LoadSpecError, match=r"no bound, so it would never stop: .*for 5 seconds.*for 200 calls"):
        LoadBound()


@pytest.mark.parametrize("bound", [{"duration_s": 1e9}, {"calls": 10, "time_limit_s": 86_401}])
def test_a_load_asked_to_run_more_than_a_day_is_refused(bound: dict[str, Any]) -> None:
    with pytest.raises(LoadSpecError, match=r"more than a day \(86400 s\): a load must stop by itself"):
        LoadBound(**bound)
    assert LoadBound(duration_s=86_400).limit_s == 86_400  # a day itself is accepted


@pytest.mark.parametrize("bound", [{"duration_s": 0}, {"calls": -1}, {"iterations": 0}, {"duration_s": float("inf")}])
def test_a_bound_that_cannot_be_reached_is_refused(bound: dict[str, Any]) -> None:
    with pytest.raises(LoadSpecError, match="must be a positive number"):
        LoadBound(**bound)


def test_placeholders_name_the_caller_and_its_call_at_any_depth() -> None:
    step = LoadStep("create_note", {"title": "{caller} note {n}", "tags": ["{tenant}"], "body": {"by": "{caller}"}})
    assert step.filled("alice", "acme", 3) == {"title": "alice note 3", "tags": ["acme"], "body": {"by": "alice"}}
    assert step.marked() == ["title"]  # only a value naming both the caller and the call is unique to one call


def test_weights_interleave_the_schedule() -> None:
    profile = LoadProfile([LoadStep("a", weight=3), LoadStep("b")], LoadBound(calls=1))
    assert [step.tool for step in profile.schedule()] == ["a", "b", "a", "a"]


def test_a_weight_below_one_and_an_empty_profile_are_refused() -> None:
    with pytest.raises(LoadSpecError, match="weight of 'a'"):
        LoadProfile([LoadStep("a", weight=0)], LoadBound(calls=1))
    with pytest.raises(LoadSpecError, match="no step"):
        LoadProfile([], LoadBound(calls=1))


# the result model ---------------------------------------------------------------------------------------------


def test_percentiles_are_nearest_rank_so_each_is_a_latency_that_happened() -> None:
    result = LoadResult.from_samples(
        "in-process", [sample("t", float(ms)) for ms in range(1, 101)], duration_s=2.0, stopped_because="done"
    )
    summary = result.per_tool["t"]
    assert (summary.p50_ms, summary.p95_ms, summary.p99_ms, summary.max_ms) == (50.0, 95.0, 99.0, 100.0)
    assert result.calls_per_second == 50.0


def test_the_timeline_counts_every_second_empty_ones_included() -> None:
    samples = [sample("t", 1, at=0.1), sample("t", 1, "timeout", at=0.5), sample("t", 1, at=2.2)]
    result = LoadResult.from_samples("in-process", samples, duration_s=3.0, stopped_because="done")
    assert result.timeline == [(0.0, 2, 1), (1.0, 0, 0), (2.0, 1, 0)]


# the checks fail when they should ------------------------------------------------------------------------------


def _result(samples: list[CallSample]) -> LoadResult:
    return LoadResult.from_samples("in-process", samples, duration_s=1.0, stopped_because="its 4 calls were made")


def test_latency_over_budget_names_the_tool_the_percentile_and_the_calls() -> None:
    result = _result([sample("slow", 10), sample("slow", 300), sample("fast", 1)])
    check_latency(result, "fast", 95, 5)
    with pytest.raises(AssertionError, match=r"Expected p95 latency under 50 ms, but slow: p95 300.0 ms over 2 calls"):
        check_latency(result, None, 95, 50)


def test_a_latency_check_of_a_tool_never_called_fails_instead_of_passing() -> None:
    with pytest.raises(AssertionError, match="no call of 'other' was made under load"):
        check_latency(_result([sample("t", 1)]), "other", 99, 1000)


def test_throughput_below_the_floor_fails_with_the_figures() -> None:
    with pytest.raises(AssertionError, match=r"at least 10 calls per second, but 3 calls in 1.00 s made 3.0"):
        check_throughput(_result([sample("t", 1)] * 3), 10)


def test_an_error_budget_counts_its_reason_and_refuses_other_reasons() -> None:
    result = _result([sample("t", 1), sample("t", 1), sample("t", 1, "tool_error", "rate_limited"), sample("t", 1)])
    check_at_most(result, "tool_error", 25, "rate_limited")
    with pytest.raises(AssertionError, match=r"at most 10% tool errors 'rate_limited', but 1 of 4 calls \(25.0%\)"):
        check_at_most(result, "tool_error", 10, "rate_limited")
    mixed = _result([sample("t", 1), sample("t", 1, "tool_error", "note_not_found")])
    with pytest.raises(AssertionError, match=r"only 'rate_limited' among the tool errors, .*note_not_found \(1\)"):
        check_at_most(mixed, "tool_error", 50, "rate_limited")
    with pytest.raises(AssertionError, match="at most 0% protocol errors"):
        check_at_most(_result([sample("t", 1, "protocol_error", "code -32602")]), "protocol_error", 0)


def test_a_channel_is_named_in_the_words_of_a_phrase() -> None:
    assert channel_named("protocol errors") == "protocol_error"
    assert channel_named("timeout") == "timeout"
    with pytest.raises(LoadSpecError, match="unknown error channel 'errors'"):
        channel_named("errors")


def _run(written: list[tuple[str, str, str]]) -> LoadRun:
    from mcpbdd.load.driver import Written

    result = _result([sample("create_note", 1)])
    writes = [Written("create_note", caller, tenant, (mark,)) for caller, tenant, mark in written]
    return LoadRun(result, [], writes)


def test_storage_isolation_names_the_entry_its_tenant_and_its_writer() -> None:
    run = _run([("alice", "acme", "alice note 1"), ("erin", "globex", "erin note 1")])
    check_storage_isolated(run, {"acme": {"notes/1": {"title": "alice note 1"}}, "globex": {}})
    with pytest.raises(AssertionError, match=r"tenant \"acme\" holds 'notes/2' with 'erin note 1', written by erin"):
        check_storage_isolated(run, {"acme": {"notes/2": {"title": "erin note 1"}}, "globex": {}})


def test_a_lost_and_a_doubled_write_are_each_named() -> None:
    run = _run([("alice", "acme", "alice note 1"), ("alice", "acme", "alice note 2")])
    storage = {"acme": {"a": {"t": "alice note 1"}, "b": {"t": "alice note 1"}, "c": {"t": "alice note 10"}}}
    with pytest.raises(
        AssertionError,
        match=r"(?s)of 2 acknowledged, 1 are missing and 1 are stored more.*"
        r"lost: 'alice note 2'.*stored 2 times: 'alice note 1' under a, b",
    ):
        check_written_once(run, storage, "create_note")


def test_two_writes_carrying_the_same_mark_are_refused_not_told_apart_by_guess() -> None:
    """`"{caller}{n}"` runs a caller's name into the number: alice-1's 12th call and alice-11's 2nd both write
    "alice-112". Were one of them lost, the other would make it look stored."""
    run = _run([("alice-1", "acme", "alice-112"), ("alice-11", "acme", "alice-112")])
    storage = {"acme": {"a": {"t": "alice-112"}}}
    with pytest.raises(AssertionError, match=r"two acknowledged writes carry the same text 'alice-112'.*alice-1 and"):
        check_written_once(run, storage, "create_note")
    with pytest.raises(AssertionError, match="put words between"):
        check_storage_isolated(run, storage)


def test_no_write_naming_its_call_fails_instead_of_passing() -> None:
    with pytest.raises(AssertionError, match=r"no acknowledged write names its call.*\{caller\} and \{n\}"):
        check_storage_isolated(_run([]), {"acme": {}})


# the driver, in-process ------------------------------------------------------------------------------------------

pytestmark = pytest.mark.anyio


def _doubles() -> Doubles:
    clock = FrozenClock()
    return Doubles(StorageService(clock=clock), clock)


async def _load(callers: list[Principal], profile: LoadProfile, *, timeout: float = 5.0) -> tuple[LoadRun, Any]:
    doubles = _doubles()
    async with ClientHarness(load_servers.mcp, doubles=doubles, timeout=timeout) as harness:
        run = await run_load(harness, callers, profile)
    storage = {tenant: dict(doubles.storage.snapshot(tenant)) for tenant in ("acme", "globex")}
    return run, storage


NOTES = LoadProfile([LoadStep("create_note", {"title": "{caller} note {n}"})], LoadBound(iterations=3))


async def test_one_caller_at_a_time_the_leaky_server_holds_under_many_it_leaks() -> None:
    run, storage = await _load(ACME[:1], NOTES)
    check_storage_isolated(run, storage)
    check_written_once(run, storage, "create_note")
    assert run.result.calls == 3
    run, storage = await _load(ACME + GLOBEX, NOTES)
    assert run.result.calls == 18
    with pytest.raises(AssertionError, match="crossed tenants"):
        check_storage_isolated(run, storage)


async def test_a_read_modify_write_loses_acknowledged_writes_only_under_concurrency() -> None:
    appends = LoadProfile([LoadStep("append_note", {"title": "{caller} note {n}"})], LoadBound(iterations=3))
    run, storage = await _load(ACME[:1], appends)
    check_written_once(run, storage, "append_note")
    run, storage = await _load(ACME, appends)
    with pytest.raises(AssertionError, match="are missing"):
        check_written_once(run, storage, "append_note")


async def test_answers_that_carry_another_tenants_write_are_caught() -> None:
    profile = LoadProfile(
        [LoadStep("create_note", {"title": "{caller} note {n}"}, weight=2), LoadStep("list_notes")],
        LoadBound(iterations=3),
    )
    run_many, _ = await _load(ACME + GLOBEX, profile)
    with pytest.raises(AssertionError, match=r"read .* in list_notes"):
        check_answers_isolated(run_many)


async def test_an_unknown_tool_is_refused_before_any_load_naming_the_offered_tools() -> None:
    profile = LoadProfile([LoadStep("archive_notes")], LoadBound(calls=5))
    async with ClientHarness(load_servers.mcp, doubles=_doubles()) as harness:
        with pytest.raises(LoadSpecError, match="'archive_notes', which the server does not offer; it offers: create"):
            await run_load(harness, ACME, profile)


async def test_a_server_that_stalls_is_bounded_by_the_call_timeout_and_the_load_stops() -> None:
    profile = LoadProfile([LoadStep("stall")], LoadBound(calls=4))
    run, _ = await _load(ACME, profile, timeout=0.3)
    assert run.result.by_channel()["timeout"] == 4
    assert run.result.duration_s < 3  # three callers, each waiting at most its timeout per call


async def test_a_duration_bound_stops_the_load_by_itself() -> None:
    profile = LoadProfile([LoadStep("slow_echo", {"text": "hi", "ms": 5})], LoadBound(duration_s=0.4))
    run, _ = await _load(ACME, profile)
    assert 0.4 <= run.result.duration_s < 1.5
    assert run.result.stopped_because == "its duration of 0.4 s was reached"
    assert run.result.calls > 10


async def test_a_slow_server_is_measured_not_waited_out_past_its_time_limit() -> None:
    """A count bound the server is too slow to reach stops at the time limit, keeping every measured call."""
    profile = LoadProfile([LoadStep("slow_echo", {"text": "hi", "ms": 200})], LoadBound(calls=1000, time_limit_s=0.5))
    doubles = _doubles()
    async with ClientHarness(load_servers.mcp, doubles=doubles, timeout=5.0) as harness:
        run = await run_load(harness, ACME, profile, grace_s=0.1)
    assert "time limit of 0.6 s ran out" in run.result.stopped_because
    assert run.result.calls >= 3  # the answered calls are kept


async def test_a_flood_of_large_answers_is_measured_and_kept_bounded() -> None:
    # A write that names its call, so answers are kept for the isolation check of reads (else none is kept).
    steps = [LoadStep("flood", {"kb": 256}), LoadStep("create_note", {"title": "{caller} note {n}"})]
    run, _ = await _load(ACME, LoadProfile(steps, LoadBound(calls=12)))
    assert run.result.by_channel()["ok"] == 12
    floods = [answer for answer in run.answers if answer.tool == "flood"]
    assert len(floods) == 6
    assert all(len(answer.text) == 65_536 for answer in floods)  # what is kept of each answer is capped


async def test_what_a_load_keeps_per_call_is_nothing_the_garbage_collector_walks() -> None:
    """Every sample, write and answer is kept as a tuple of strings and numbers, which the collector untracks (so
    a long load does not make it walk the whole heap again and again), and reads back as its dataclass."""
    import gc

    from mcpbdd.load import Answer, CallSample, Written

    profile = LoadProfile(
        [LoadStep("create_note", {"title": "{caller} note {n}"}), LoadStep("list_notes")], NOTES.bound
    )
    run, _ = await _load(ACME, profile)
    gc.collect()
    kept = {"samples": run.result.samples, "written": run.written, "answers": run.answers}
    for name, records in kept.items():
        rows = getattr(records, "rows", None)
        assert rows, f"{name} are not kept as rows"
        assert not [row for row in rows if gc.is_tracked(row)], f"{name}: a row the collector still tracks"
    assert len(run.result.samples) == 18 and len(run.written) == 9 and len(run.answers) == 18
    assert isinstance(run.result.samples[0], CallSample) and isinstance(run.written[-1], Written)
    assert [answer.caller for answer in run.answers if isinstance(answer, Answer)] == [a.caller for a in run.answers]
    assert run.result.samples == list(run.result.samples)  # compares as the list of samples it stands for
    started = [sample.started_s for sample in run.result.samples]
    assert started == sorted(started)


async def test_the_context_harness_drives_the_same_load() -> None:
    doubles = _doubles()
    async with ContextHarness(load_servers.mcp, doubles=doubles) as harness:
        run = await run_load(harness, ACME, LoadProfile([LoadStep("list_notes")], LoadBound(calls=9)))
    assert run.result.by_channel()["ok"] == 9


def test_the_charts_escape_names_and_fetch_nothing() -> None:
    result = _result([sample("<script>alert(1)</script>", 3), sample("t", 4, "timeout")])
    for svg in (latency_histogram(result) or "", throughput_chart(result)):
        assert "<script>alert(1)" not in svg
        assert "kozea.github.io" not in svg
    assert "&lt;script&gt;alert(1)" in (latency_histogram(result) or "")  # the name is there, as text
    assert "timeout          1" in errors_table(result)
    assert percentiles_table(result).splitlines()[2].startswith("tool")


def test_the_upstream_check_allows_calls_that_timed_out_either_way() -> None:
    from mcpbdd.load.checks import check_upstream_per_call

    result = _result([sample("import_note", 1), sample("import_note", 1), sample("import_note", 1, "timeout")])
    check_upstream_per_call(result, "import_note", 2, "GET /d")  # the timed-out call may not have sent its request
    check_upstream_per_call(result, "import_note", 3, "GET /d")  # or may have
    with pytest.raises(AssertionError, match="between 2 and 3 times, but it received it 4 times"):
        check_upstream_per_call(result, "import_note", 4, "GET /d")
    with pytest.raises(AssertionError, match="no call of 'import_note' was answered"):
        check_upstream_per_call(_result([sample("import_note", 1, "timeout")]), "import_note", 0, "GET /d")


def test_a_reason_a_server_sends_is_kept_short() -> None:
    from mcp_types import CallToolResult, TextContent

    from mcpbdd.load.driver import REASON_CHARS, channel_of
    from mcpbdd.model.outcome import Call, Channel, Outcome

    huge = {"error": {"reason": "r" * 1_000_000, "message": "m"}}
    result = CallToolResult(content=[TextContent(type="text", text="m")], structured_content=huge, is_error=True)
    channel, reason = channel_of(Outcome(Channel.TOOL_ERROR, Call.tool("t"), result=result))
    assert channel == "tool_error" and reason == "r" * REASON_CHARS


def test_a_result_without_samples_is_judged_from_its_summaries() -> None:
    """An engine that reports aggregates only (Locust) gets the same latency, throughput and budget checks."""
    from mcpbdd.load import ToolSummary

    summary = ToolSummary("list_notes", 100, 5.0, 40.0, 90.0, 120.0, {"ok": 97, "tool_error": 3}, {"rate_limited": 3})
    result = LoadResult("locust", 2.0, "its duration of 2 s was reached", {"list_notes": summary}, [])
    check_latency(result, "list_notes", 95, 50)
    check_throughput(result, 50)
    check_at_most(result, "tool_error", 3, "rate_limited")
    with pytest.raises(AssertionError, match=r"3 of 100 calls \(3.0%\) were: rate_limited \(3\)"):
        check_at_most(result, "tool_error", 1, "rate_limited")
    assert latency_histogram(result) is None and "list_notes" in percentiles_table(result)


async def test_a_cancelled_load_leaves_no_caller_running() -> None:
    """An interrupt cancels the step's coroutine: every caller's task ends with it, none calls on later."""
    import asyncio

    profile = LoadProfile([LoadStep("slow_echo", {"text": "hi", "ms": 20})], LoadBound(duration_s=30))
    async with ClientHarness(load_servers.mcp, doubles=_doubles(), timeout=5.0) as harness:
        await open_sessions(harness, ACME, ["slow_echo"])  # in this task, which exits them (as an owner task would)
        before = set(asyncio.all_tasks())
        load = asyncio.ensure_future(run_load(harness, ACME, profile))
        await asyncio.sleep(0.3)
        load.cancel()
        with pytest.raises(asyncio.CancelledError):
            await load
        left = [task for task in asyncio.all_tasks() - before if not task.done() and "caller" in repr(task)]
        assert left == []


def test_reads_are_checked_only_when_something_was_read() -> None:
    with pytest.raises(AssertionError, match="no call answered ok under load, so nothing a caller read"):
        check_answers_isolated(_run([("alice", "acme", "alice note 1")]))
