"""How a Locust run's outcomes travel: a call's channel into Locust's failure text and back, the CSV files into a
LoadResult, the workers' reports into a timeline, and the plan every Locust process reads (no process started
here: tests/spawning/test_locust.py runs Locust itself)."""

from __future__ import annotations

import csv
import os
import stat
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from mcpbdd.locust.channels import CallFailed, classify_error, classify_result, parse_failure
from mcpbdd.locust.plan import LocustPlan, LocustStep, callers_of
from mcpbdd.locust.reports import timeline_of_workers
from mcpbdd.locust.stats import read_result

STATS_HEADER = ["Type", "Name", "Request Count", "Failure Count", "Median Response Time", "50%", "95%", "99%", "100%"]


@pytest.mark.parametrize(
    "failure",
    [CallFailed("tool_error", "note_not_found"), CallFailed("protocol_error", "over_quota", -32001),
     CallFailed("protocol_error", None, -32602), CallFailed("timeout"), CallFailed("transport_error", "ConnectError")],
)  # fmt: skip
def test_a_failure_reads_back_as_it_was_reported(failure: CallFailed) -> None:
    back = parse_failure(repr(failure))
    assert (back.channel, back.reason, back.code) == (failure.channel, failure.reason, failure.code)


@pytest.mark.parametrize("reason", ["two words", "x" * 65, "line\nbreak", "<script>", "a,b", ""])
def test_a_reason_that_is_not_a_plain_token_is_not_copied(reason: str) -> None:
    failure = CallFailed("tool_error", reason)
    assert failure.reason == "unreadable" and repr(failure) == "tool_error reason=unreadable"


def test_a_failure_of_another_form_counts_as_a_transport_error() -> None:
    assert parse_failure("ConnectionResetError(104, 'reset')").channel == "transport_error"
    assert parse_failure("ok").channel == "transport_error"  # a failure is never counted as a success


def test_each_way_a_call_ends_has_its_channel() -> None:
    refused = MCPError(-32001, "over quota", {"reason": "over_quota"})
    assert classify_error(refused).text == "protocol_error reason=over_quota code=-32001"
    assert classify_error(TimeoutError()).channel == "timeout"
    assert classify_error(httpx2.ReadTimeout("slow")).channel == "timeout"
    assert (
        classify_error(ExceptionGroup("g", [httpx2.ConnectError("refused")])).text
        == "transport_error reason=ConnectError"
    )
    error = CallToolResult(content=[TextContent(type="text", text="No such note")], is_error=True,
                           structured_content={"error": {"reason": "note_not_found"}})  # fmt: skip
    assert classify_result(error).text == "tool_error reason=note_not_found"  # type: ignore[union-attr]
    assert classify_result(CallToolResult(content=[])) is None


def _write(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def test_the_csv_files_become_a_load_result(tmp_path: Path) -> None:
    prefix = tmp_path / "locust"
    _write(Path(f"{prefix}_stats.csv"), STATS_HEADER, [
        ["MCP", "get_note", 10, 7, 40, 40, 90, 120, 130],
        ["MCP", "list_notes", 5, 0, 30, 30, 50, 60, 61],
        ["MCP", "idle", 0, 0, 0, "N/A", "N/A", "N/A", "N/A"],
        ["", "Aggregated", 15, 7, 35, 35, 90, 120, 130],
    ])  # fmt: skip
    _write(Path(f"{prefix}_failures.csv"), ["Method", "Name", "Error", "Occurrences"], [
        ["MCP", "get_note", "tool_error reason=note_not_found", 4],
        ["MCP", "get_note", "timeout", 2],
    ])  # fmt: skip
    result = read_result(prefix, duration_s=5, stopped_because="the 5 s run time ended")
    notes = result.per_tool["get_note"]
    assert (notes.calls, notes.p50_ms, notes.p95_ms, notes.p99_ms, notes.max_ms) == (10, 40, 90, 120, 130)
    # one failure the failures file does not explain: counted, as a transport error, never as a success
    assert notes.by_channel == {"ok": 3, "tool_error": 4, "protocol_error": 0, "transport_error": 1, "timeout": 2}
    assert notes.reasons == {"note_not_found": 4}
    assert result.per_tool["list_notes"].by_channel["ok"] == 5
    assert result.per_tool["idle"].p95_ms == 0.0 and "Aggregated" not in result.per_tool
    assert result.calls == 15 and result.engine == "locust"
    assert set(result.artifacts) == {"stats", "failures"}


def test_no_csv_files_are_an_empty_result_not_an_error(tmp_path: Path) -> None:
    result = read_result(tmp_path / "never", duration_s=0, stopped_because="killed")
    assert result.per_tool == {} and result.calls == 0 and result.artifacts == {}


def test_the_workers_seconds_add_up_to_one_timeline() -> None:
    workers: dict[str, dict[str, Any]] = {
        "a": {"seconds": {"100": [3, 1], "102": [2, 0]}},
        "b": {"seconds": {"101": [4, 0], "102": [1, 1], "bad": [9, 9]}},
        "c": {"seconds": "not a mapping"},
    }
    timeline, span = timeline_of_workers(workers)
    assert timeline == [(0.0, 3, 1), (1.0, 4, 0), (2.0, 3, 1)] and span == 3.0
    assert timeline_of_workers({}) == ([], 0.0)


def test_the_plan_gives_each_worker_its_own_callers_and_is_private(tmp_path: Path) -> None:
    callers = callers_of({"acme": 2, "globex": 1})
    assert [c.user for c in callers] == ["acme-1", "globex-1", "acme-2"]
    plan = LocustPlan("http://x/mcp", callers, [LocustStep("t", {"title": "{tenant}/{caller}/{n}"})], 2, 1.0, "w")
    assert [plan.caller_for(0, i).user for i in range(3)] == ["acme-1", "acme-2", "acme-1"]
    assert [plan.caller_for(1, i).user for i in range(2)] == ["globex-1", "globex-1"]
    assert plan.steps[0].filled(callers[1], 7) == {"title": "globex/globex-1/7"}
    path = plan.write(tmp_path / "plan.json")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert LocustPlan.read(path) == plan
    with pytest.raises(FileExistsError):
        plan.write(path)  # never over a file someone else put there


@pytest.mark.parametrize("weight", [0, -1])
def test_a_step_weight_below_one_is_refused(weight: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LocustStep("t", weight=weight)


def test_why_a_run_stopped_never_reads_complete_when_it_was_not(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from mcpbdd.locust.processes import LocustTiming
    from mcpbdd.locust.runner import _why

    ran = SimpleNamespace(logs={"master": tmp_path / "master.log"}, killed=[])
    timing = LocustTiming(5)
    assert _why(True, 1, ran, timing, 5, calls=10) == "the 5 s run time ended"
    assert "measured no call" in _why(True, 1, ran, timing, 5, calls=0)  # e.g. no worker connected
    assert "exited with code 2" in _why(True, 2, ran, timing, 5, calls=10)
    killed = SimpleNamespace(logs=ran.logs, killed=["the master", "worker 0"])
    assert timing.master_run_time_s == 5 + 10 + 2 + 3 + 1  # the calls' timeout, the grace, a report, a second
    assert _why(False, None, killed, timing, 5, calls=10).startswith(
        f"the hard deadline ({timing.hard_deadline_s:g} s) passed before Locust ended: the master, worker 0 were killed"
    )
