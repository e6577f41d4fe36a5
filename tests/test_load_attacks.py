"""Attacks on the load driver and its checks: bounds a check cannot judge, profiles that would eat the machine, a
ramp-up longer than the run, and a leak that reaches a caller as plain text. Each case failed before its fix.
"""

from __future__ import annotations

import math
import time
from typing import Any

import load_servers
import pytest

from mcpbdd.harness import ClientHarness
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Principal
from mcpbdd.load import CallSample, LoadResult
from mcpbdd.load.checks import check_answers_isolated, check_at_most, check_latency, check_throughput
from mcpbdd.load.driver import LoadRun, run_load
from mcpbdd.load.profile import LoadBound, LoadProfile, LoadSpecError, LoadStep
from mcpbdd.storage import StorageService

ACME = [Principal(f"acme-caller-{i}", "acme") for i in (1, 2, 3)]
GLOBEX = [Principal(f"globex-caller-{i}", "globex") for i in (1, 2, 3)]


def _result(*samples: CallSample) -> LoadResult:
    return LoadResult.from_samples("in-process", samples, duration_s=1.0, stopped_because="its calls were made")


def _ok(ms: float) -> CallSample:
    return CallSample("t", "alice", "acme", 0.0, ms, "ok", None)


# a bound a check cannot judge -------------------------------------------------------------------------------------


@pytest.mark.parametrize("bound", [math.nan, -1.0, math.inf])
def test_a_latency_bound_that_is_not_a_number_of_ms_is_refused_not_passed(bound: float) -> None:
    with pytest.raises(LoadSpecError, match="latency bound"):
        check_latency(_result(_ok(10_000)), "t", 95, bound)


@pytest.mark.parametrize("bound", [math.nan, -5.0, 101.0])
def test_an_error_budget_that_is_not_a_percentage_is_refused_not_passed(bound: float) -> None:
    failed = CallSample("t", "alice", "acme", 0.0, 1.0, "protocol_error", "code -32603")
    with pytest.raises(LoadSpecError, match="error budget"):
        check_at_most(_result(failed, failed), "protocol_error", bound)


def test_a_throughput_floor_of_nan_is_refused_not_passed() -> None:
    with pytest.raises(LoadSpecError, match="throughput"):
        check_throughput(_result(_ok(1)), math.nan)


# a profile that would eat the machine -----------------------------------------------------------------------------


def test_a_huge_weight_is_refused_before_it_builds_a_schedule_of_that_length() -> None:
    started = time.perf_counter()
    with pytest.raises(LoadSpecError, match="weights add up to 1000000001"):
        LoadProfile([LoadStep("a", weight=10**9), LoadStep("b")], LoadBound(calls=1)).schedule()
    assert time.perf_counter() - started < 1


# the driver, in-process -----------------------------------------------------------------------------------------

pytestmark = pytest.mark.anyio


async def _load(callers: list[Principal], profile: LoadProfile) -> LoadRun:
    clock = FrozenClock()
    async with ClientHarness(load_servers.mcp, doubles=Doubles(StorageService(clock=clock), clock)) as harness:
        return await run_load(harness, callers, profile)


async def test_a_ramp_up_longer_than_the_run_does_not_hold_the_run_past_its_duration() -> None:
    """The callers due after the load's end never start; the run ends at its duration, not at the ramp-up's."""
    profile = LoadProfile([LoadStep("slow_echo", {"text": "hi", "ms": 5})], LoadBound(duration_s=0.3), ramp_up_s=60)
    started = time.perf_counter()
    run = await _load(ACME + GLOBEX, profile)
    assert time.perf_counter() - started < 3
    assert run.result.stopped_because == "its duration of 0.3 s was reached"
    assert {sample.caller for sample in run.result.samples} == {"acme-caller-1"}  # the first arrives at once


async def test_a_count_bound_reached_during_the_ramp_up_ends_the_run_at_once() -> None:
    profile = LoadProfile([LoadStep("slow_echo", {"text": "hi", "ms": 1})], LoadBound(calls=3), ramp_up_s=60)
    started = time.perf_counter()
    run = await _load(ACME + GLOBEX, profile)
    assert time.perf_counter() - started < 3
    assert run.result.calls == 3


async def test_a_leak_read_back_as_plain_text_is_caught() -> None:
    """A tool that answers plain text (no JSON quotes around a title) still shows another tenant's title."""
    profile = LoadProfile(
        [LoadStep("create_note", {"title": "{caller} note {n}"}, weight=2), LoadStep("list_titles")],
        LoadBound(iterations=3),
    )
    run = await _load(ACME + GLOBEX, profile)
    with pytest.raises(AssertionError, match=r"read .* in list_titles"):
        check_answers_isolated(run)


def test_a_mark_inside_a_longer_one_is_not_a_leak() -> None:
    """`acme-caller-1 note 1` is not read in `acme-caller-1 note 12`'s text, nor `note 1` in `note 1.5`-like text."""
    from mcpbdd.load.driver import Answer, Written

    run = LoadRun(
        _result(_ok(1)),
        [],
        written=[Written("create_note", "globex-caller-1", "globex", ("globex-caller-1 note 1",))],
        answers=[Answer("list_titles", "acme-caller-1", "acme", "globex-caller-1 note 12\nxglobex-caller-1 note 1")],
    )
    check_answers_isolated(run)


async def test_a_leak_read_back_only_in_the_structured_content_is_caught() -> None:
    """The text says "4 notes"; the other tenant's titles are in the structured content alone."""
    profile = LoadProfile(
        [LoadStep("create_note", {"title": "{caller} note {n}"}, weight=2), LoadStep("count_notes")],
        LoadBound(iterations=3),
    )
    run = await _load(ACME + GLOBEX, profile)
    assert all(answer.tool != "count_notes" or "note" in answer.text for answer in run.answers)
    with pytest.raises(AssertionError, match=r"read .* in count_notes"):
        check_answers_isolated(run)


async def test_a_leak_past_the_answer_cap_fails_the_check_instead_of_passing_unseen() -> None:
    """The other tenant's titles come after a page of padding: past what is kept of an answer, so the check
    says it did not see the whole answer rather than pass."""
    profile = LoadProfile(
        [LoadStep("create_note", {"title": "{caller} note {n}"}, weight=2), LoadStep("padded_titles")],
        LoadBound(iterations=3),
    )
    run = await _load(ACME + GLOBEX, profile)
    assert run.answers_cut > 0
    with pytest.raises(AssertionError, match=r"answers kept were longer than the 65536 characters kept of each"):
        check_answers_isolated(run)


def _outcome(text: str, structured: Any) -> Any:
    from mcp_types import CallToolResult, TextContent

    from mcpbdd.model.outcome import Call, Channel, Outcome

    result = CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
    return Outcome(Channel.OK, Call.tool("t"), result=result)


def test_an_answer_is_cut_only_when_something_it_read_is_not_kept() -> None:
    """At the cap exactly nothing is lost; one character more (multi-byte or not) is; the structured content's
    strings count with their line breaks, its empty strings and numbers lose nothing."""
    from mcpbdd.load.driver import ANSWER_CHARS, read_answer

    cap = ANSWER_CHARS
    assert read_answer(_outcome("é" * cap, None)) == ("é" * cap, False)
    assert read_answer(_outcome("é" * (cap + 1), None)) == ("é" * cap, True)
    assert read_answer(_outcome("é" * cap, {"n": [1, None, ""]}))[1] is True  # its key "n" was not read
    assert read_answer(_outcome("é" * cap, [1, None, "", []]))[1] is False
    assert read_answer(_outcome("t" * (cap - 4), ["ab", ""])) == ("t" * (cap - 4) + "\nab\n", False)
    assert read_answer(_outcome("t" * (cap - 4), ["abc"])) == ("t" * (cap - 4) + "\nabc", False)
    assert read_answer(_outcome("t" * (cap - 4), ["abcd"])) == ("t" * (cap - 4) + "\nabc", True)
    assert read_answer(_outcome("t" * (cap - 4), ["abc", 5, "d"])) == ("t" * (cap - 4) + "\nabc", True)


def test_structured_content_that_holds_itself_is_read_once_not_forever() -> None:
    """In process a tool can hand over an object that holds itself (the context harness keeps it as it is)."""
    from mcpbdd.load.driver import read_answer

    loop: list[Any] = []
    loop.append(loop)
    assert read_answer(_outcome("x", {"a": loop})) == ("x\na", False)
    named: dict[str, Any] = {"title": "globex note 1"}
    named["self"] = named
    assert read_answer(_outcome("x", [named, named])) == ("x\ntitle\nglobex note 1\nself", False)


def test_answers_cut_by_the_cap_fail_the_isolation_check_naming_the_cap() -> None:
    from mcpbdd.load.driver import Answer, Written

    run = LoadRun(
        _result(_ok(1)),
        [],
        written=[Written("create_note", "globex-caller-1", "globex", ("globex-caller-1 note 1",))],
        answers=[Answer("list_titles", "acme-caller-1", "acme", "x" * 10)],
        answers_cut=1,
    )
    with pytest.raises(AssertionError, match=r"1 of the 1 answers kept were longer than the 65536 characters"):
        check_answers_isolated(run)


# a measure of failures alone --------------------------------------------------------------------------------------


def _failed(ms: float, channel: Any = "transport_error") -> CallSample:
    return CallSample("t", "alice", "acme", 0.0, ms, channel, "ConnectError")


def test_a_throughput_made_only_of_failed_calls_fails_naming_their_channels() -> None:
    result = _result(*[_failed(0.1) for _ in range(500)])
    with pytest.raises(AssertionError, match=r"none of the 500 calls ended ok \(transport error: 500\)"):
        check_throughput(result, 100)


def test_a_latency_made_only_of_failed_calls_fails_naming_the_tool_and_their_channels() -> None:
    result = _result(*[_failed(0.1, "protocol_error") for _ in range(3)])
    with pytest.raises(AssertionError, match=r"none of the 3 calls of 't' ended ok \(protocol error: 3\)"):
        check_latency(result, "t", 95, 100)


# placeholders are filled once, never evaluated ---------------------------------------------------------------------


def test_placeholders_are_filled_in_one_pass_and_never_evaluated() -> None:
    """A name holding a placeholder is inserted as written; `{caller.__class__}` and `{n!r}` are plain text."""
    step = LoadStep("create_note", {"title": "{caller} of {tenant}: {n}", "probe": "{caller.__class__} {n!r} {0}"})
    expected = {"title": "team{n} of {caller}: 3", "probe": "{caller.__class__} {n!r} {0}"}
    assert step.filled("team{n}", "{caller}", 3) == expected
    assert step.filler()("team{n}", "{caller}", 3) == expected  # the driver's prepared fill: no format field evaluated


@pytest.mark.parametrize(
    "value",
    ["{caller}", "{{caller}}", "}{n}{", "{n}{n}", "{ {caller} }", "{caller}x{tenant}y{n}", "{}", "{tenant", "plain"],
)
def test_the_prepared_fill_gives_what_the_one_pass_fill_gives(value: str) -> None:
    step = LoadStep("t", {"s": value, "deep": [{"k": value}, 1, None], "same": ["const", {"x": 2}]})
    for caller, tenant in (("alice", "acme"), ("{n}", "{caller}"), ("a}b", "{0}"), ("x", None)):
        assert step.filler()(caller, tenant, 7) == step.filled(caller, tenant, 7), (caller, tenant)


async def test_a_server_that_changes_its_arguments_in_place_never_changes_another_calls() -> None:
    """In-process (the context harness) a tool is handed the very objects the driver made; a constant list inside
    a step's arguments must be a new one for every call, or one tenant's call writes into the next caller's."""
    from mcpbdd.harness import ContextHarness

    clock = FrozenClock()
    profile = LoadProfile([LoadStep("stamp_note", {"note": {"title": "{caller} {n}", "seen": []}})], LoadBound(calls=6))
    async with ContextHarness(load_servers.mcp, doubles=Doubles(StorageService(clock=clock), clock)) as harness:
        run = await run_load(harness, ACME[:1] + GLOBEX[:1], profile)
    assert run.result.by_channel()["ok"] == 6, run.result.per_tool["stamp_note"].reasons


def test_the_locust_plan_fills_placeholders_in_one_pass_too() -> None:
    from mcpbdd.locust.plan import LocustCaller, LocustStep

    step = LocustStep("create_note", {"title": "{caller} of {tenant}: {n}", "probe": "{caller.__class__}"})
    assert step.filled(LocustCaller("{caller}", "team{n}"), 3) == {
        "title": "team{n} of {caller}: 3",
        "probe": "{caller.__class__}",
    }


def test_a_huge_weight_is_refused_in_a_locust_plan_before_every_user_builds_its_schedule() -> None:
    from mcpbdd.locust.plan import LocustStep, steps_of

    with pytest.raises(ValueError, match="weights add up to 1000000001"):
        steps_of([LocustStep("a", weight=10**9), LocustStep("b")])


# a crowd the machine cannot hold -------------------------------------------------------------------------------------


async def test_ten_thousand_callers_are_refused_before_any_session_opens() -> None:
    crowd = [Principal(f"acme-caller-{i}", "acme") for i in range(1, 10_001)]
    started = time.perf_counter()
    with pytest.raises(LoadSpecError, match=r"10000 callers, more than 1000 .* Locust"):
        await _load(crowd, LoadProfile([LoadStep("list_notes")], LoadBound(calls=1)))
    assert time.perf_counter() - started < 5


def test_over_stdio_each_caller_is_a_process_so_fewer_are_allowed() -> None:
    from mcpbdd.load.driver import check_crowd

    check_crowd(64, "stdio")
    check_crowd(1000, "http")
    with pytest.raises(LoadSpecError, match=r"65 callers over stdio, more than 64: each is a server process"):
        check_crowd(65, "stdio")


# a leak stored inside a longer text ----------------------------------------------------------------------------------


def _written(*writes: tuple[str, str, str]) -> LoadRun:
    from mcpbdd.load.driver import Written

    callers = [Principal(caller, tenant) for caller, tenant, _ in writes]
    return LoadRun(_result(_ok(1)), callers, written=[Written("create_note", c, t, (m,)) for c, t, m in writes])


def test_a_write_stored_inside_a_longer_text_of_another_tenant_is_a_leak() -> None:
    from mcpbdd.load.checks import check_storage_isolated

    run = _written(
        ("acme-caller-1", "acme", "acme-caller-1 note 1"), ("globex-caller-1", "globex", "globex-caller-1 note 1")
    )
    storage = {
        "acme": {"notes/a": {"line": "acme-caller-1 note 1, by acme-caller-1"}},
        "globex": {"notes/b": {"line": "globex-caller-1 note 1"}, "notes/c": {"line": "Re: acme-caller-1 note 1!"}},
    }
    with pytest.raises(AssertionError, match=r"tenant \"globex\" holds 'notes/c' with 'Re: acme-caller-1 note 1!'"):
        check_storage_isolated(run, storage)


def test_a_longer_mark_of_the_same_caller_is_not_taken_for_another_tenants_write() -> None:
    from mcpbdd.load.checks import check_storage_isolated

    run = _written(("acme-caller-1", "acme", "acme-caller-1 note 1"), ("globex-caller-1", "globex", "x"))
    check_storage_isolated(run, {"globex": {"notes/c": {"line": "acme-caller-1 note 12"}}, "acme": {}})


# held: percentiles on few samples ------------------------------------------------------------------------------------


def test_on_one_or_two_samples_every_high_percentile_is_the_slowest_call() -> None:
    one = _result(_ok(300)).per_tool["t"]
    assert (one.p50_ms, one.p95_ms, one.p99_ms) == (300, 300, 300)
    two = _result(_ok(10), _ok(300)).per_tool["t"]
    assert (two.p50_ms, two.p95_ms, two.p99_ms) == (10, 300, 300)
    with pytest.raises(AssertionError, match=r"p95 300.0 ms over 2 calls"):
        check_latency(_result(_ok(10), _ok(300)), "t", 95, 100)


def test_what_a_caller_read_is_its_text_then_every_string_of_its_structured_content_in_order_and_capped() -> None:
    from mcp_types import CallToolResult, TextContent

    from mcpbdd.load.checks import leaves
    from mcpbdd.load.driver import ANSWER_CHARS, read_text
    from mcpbdd.model.outcome import Call, Channel, Outcome

    def outcome(text: str, structured: Any) -> Outcome:
        result = CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
        return Outcome(Channel.OK, Call.tool("t"), result=result)

    structured = {"notes": [{"title": "a", "tags": ["x", {"k": "y"}]}, 7, None, "b"], "total": "2", "empty": []}
    assert read_text(outcome("2 notes", structured)) == "\n".join(["2 notes", *leaves(structured)])
    assert read_text(outcome("plain", None)) == "plain"
    deep: Any = "bottom"
    for _ in range(5_000):  # deeper than any recursion would go
        deep = [deep]
    assert read_text(outcome("deep", {"d": deep})) == "deep\nd\nbottom"
    flood = {"notes": ["n" * 40_000, "m" * 40_000, "never read"]}
    kept = read_text(outcome("t" * 100, flood))
    assert len(kept) <= ANSWER_CHARS and kept.startswith("t" * 100 + "\nnotes\n" + "n" * 40_000 + "\nmmm")
