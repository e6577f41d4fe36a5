"""A scenario's load on Locust, the parts that need no process: the acknowledged writes rebuilt from what the
workers reported, the checks that cannot be judged from Locust saying so, and the tokens a scenario gives
(tests/spawning/test_locust_phrase.py and features/load.feature run Locust itself)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpbdd.kit.principals import Principal
from mcpbdd.load import checks
from mcpbdd.load.driver import LoadRun, Written
from mcpbdd.load.profile import LoadStep
from mcpbdd.load.results import LoadResult
from mcpbdd.locust.plan import LocustCaller, LocustStep, schedule_of
from mcpbdd.locust.reports import written_of_workers
from mcpbdd.locust.runner import LocustOptions, with_tokens
from mcpbdd.locust.scenario import written_of

ACME = Principal("acme-caller-1", "acme")
GLOBEX = Principal("globex-caller-1", "globex")
PROFILE = [LoadStep("create_note", {"title": "{caller} note {n}", "body": "x"}, 2), LoadStep("list_notes")]


def _result(tmp_path: Path, workers: dict[str, object]) -> LoadResult:
    report = tmp_path / "workers.json"
    report.write_text(json.dumps(workers), encoding="utf-8")
    return LoadResult("locust", 2.0, "the 2 s run time ended", {}, [], artifacts={"workers": report})


def test_the_schedule_interleaves_by_weight() -> None:
    steps = [LocustStep("a", {}, 2), LocustStep("b", {}, 1), LocustStep("c", {}, 3)]
    assert [step.tool for step in schedule_of(steps)] == ["a", "b", "c", "a", "c", "c"]


def test_the_acknowledged_writes_are_rebuilt_as_the_workers_filled_them(tmp_path: Path) -> None:
    # schedule: create_note, list_notes, create_note: calls 1 and 3 of each round are writes
    result = _result(
        tmp_path, {"w1": {"written": {"acme-caller-1": [1, 3, 4]}}, "w2": {"written": {"globex-caller-1": [6]}}}
    )
    written = written_of(result, [ACME, GLOBEX], PROFILE)
    assert written == [
        Written("create_note", "acme-caller-1", "acme", ("acme-caller-1 note 1",)),
        Written("create_note", "acme-caller-1", "acme", ("acme-caller-1 note 3",)),
        Written("create_note", "acme-caller-1", "acme", ("acme-caller-1 note 4",)),
        Written("create_note", "globex-caller-1", "globex", ("globex-caller-1 note 6",)),
    ]


def test_a_number_of_a_call_that_names_nothing_adds_no_write(tmp_path: Path) -> None:
    result = _result(tmp_path, {"w1": {"written": {"acme-caller-1": [2], "stranger": [1]}}})
    assert written_of(result, [ACME], PROFILE) == []


def test_reports_are_merged_and_garbage_is_ignored() -> None:
    workers: dict[str, dict[str, Any]] = {
        "w1": {"written": {"acme-caller-1": [3, 1, -2, "4", 1.5]}},
        "w2": {"written": {"acme-caller-1": [3, 5]}},
        "w3": {"written": ["not", "a", "mapping"]},
        "w4": {"written": {"globex-caller-1": "7"}},
    }
    assert written_of_workers(workers) == {"acme-caller-1": [1, 3, 5]}


def test_the_storage_checks_judge_the_rebuilt_writes(tmp_path: Path) -> None:
    result = _result(tmp_path, {"w1": {"written": {"acme-caller-1": [1], "globex-caller-1": [1]}}})
    run = LoadRun(result, [ACME, GLOBEX], written_of(result, [ACME, GLOBEX], PROFILE))
    leaked = {"acme": {"notes/1": {"title": "acme-caller-1 note 1"}, "notes/2": {"title": "globex-caller-1 note 1"}}}
    with pytest.raises(AssertionError, match="tenant \"acme\" holds 'notes/2' with 'globex-caller-1 note 1'"):
        checks.check_storage_isolated(run, {**leaked, "globex": {}})
    with pytest.raises(AssertionError, match="lost: 'globex-caller-1 note 1'"):
        checks.check_written_once(run, {"acme": {"notes/1": {"title": "acme-caller-1 note 1"}}, "globex": {}})


def test_what_callers_read_under_locust_cannot_be_checked_and_says_so(tmp_path: Path) -> None:
    result = _result(tmp_path, {"w1": {"written": {"acme-caller-1": [1]}}})
    run = LoadRun(result, [ACME], written_of(result, [ACME], PROFILE))
    with pytest.raises(AssertionError, match="what callers read under Locust stays in its workers"):
        checks.check_answers_isolated(run)


def test_given_tokens_are_sent_as_they_are() -> None:
    callers = [LocustCaller("acme", "acme-1", (), "the scenario's token"), LocustCaller("globex", "globex-1")]
    given = with_tokens("http://127.0.0.1:1/mcp", callers, LocustOptions(tokens="given"))
    assert [caller.token for caller in given] == ["the scenario's token", ""]


def test_writes_locust_counted_but_no_worker_named_fail_the_storage_checks(tmp_path: Path) -> None:
    """A worker's last report lost: storage is never judged against part of what was written."""
    from mcpbdd.load.results import ToolSummary
    from mcpbdd.locust.scenario import unreported

    reported = _result(tmp_path, {"w1": {"written": {"acme-caller-1": [1]}}})
    counted = dict.fromkeys(("ok", "tool_error", "protocol_error", "transport_error", "timeout"), 0) | {"ok": 3}
    summary = ToolSummary("create_note", 3, 1.0, 1.0, 1.0, 1.0, counted, {})  # type: ignore[arg-type]
    result = LoadResult("locust", 2.0, "done", {"create_note": summary}, [], artifacts=reported.artifacts)
    written = written_of(result, [ACME], PROFILE)
    assert unreported(result, PROFILE, written) == 2
    run = LoadRun(result, [ACME], written, writes_unreported=2)
    storage = {"acme": {"notes/1": {"title": "acme-caller-1 note 1"}}}
    for check in (checks.check_storage_isolated, checks.check_written_once):
        with pytest.raises(AssertionError, match="2 acknowledged writes were counted but not named by the locust load"):
            check(run, storage)
    mixed = [*PROFILE, LoadStep("create_note", {"title": "unnamed"})]  # a tool also called unnamed: not comparable
    assert unreported(result, mixed, written) == 0
    assert unreported(result, PROFILE, [*written, *written, *written]) == 0
