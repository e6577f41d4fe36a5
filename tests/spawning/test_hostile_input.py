"""Hostile input: each is a clear failure naming the feature file and line, never a Python traceback.

behave runs in a subprocess (see tests/expected_failures.py). The limits checked here are the
ones docs/reference/limits.md states: JSON nested at most 100 deep in a specification (the
same on both harnesses), a clock that reads years 1 to 9999, feature files in UTF-8, and report
attachments capped at `attachment_limit` bytes.

These tests start processes; the in-process tests of this concern are in tests/test_hostile_input.py.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from behave_passes import EVERY_TARGET, BehavePass
from expected_failures import ROOT, assert_each_scenario_fails_with, behave
from processes import mcpbdd_run

from mcpbdd._text import not_utf8
from mcpbdd.scenario.world import World
from mcpbdd.steps.arguments import MAX_JSON_DEPTH

FEATURE = "tests/behave_cases/features/hostile_input.feature"
TAGS = "tests/behave_cases/features/misspelt_harness_tag.feature"
LARGE = "tests/behave_cases/features/large_result.feature"
TOO_DEEP = "JSON nested deeper than 100 levels (arrays and objects inside each other)"
RANGE = "a clock reads from 0001-01-01T00:00:00+00:00 to 9999-12-31T23:59:59.999999+00:00"

EXPECTED_FAILURES: dict[str, list[str]] = {
    "JSON nested 5,000 deep in a doc string": [f"{FEATURE}:11: the doc string holds {TOO_DEEP}"],
    "inline arguments nested one level deeper than the limit": [f"{FEATURE}:16: the inline arguments holds {TOO_DEEP}"],
    "a table cell nested deeper than the limit": [f"{FEATURE}:22: the table cell holds {TOO_DEEP}"],
    "more days than a clock can count": [
        f"{FEATURE}:25: cannot move the clock '99999999999999999999 days' forward from 2026-01-01T00:00:00+00:00: "
        f"the largest step it can take from there is 2912442 days, 23:59:59.999999 ({RANGE})"
    ],
    "a step past the last instant a clock reads": [
        f"{FEATURE}:28: cannot move the clock '3000000 days' forward",
        "the largest step it can take from there is 2912442 days, 23:59:59.999999",
    ],
    "a clock that reads garbage": [f"{FEATURE}:31: cannot read 'next Tuesday' as an ISO-8601 instant; write e.g."],
    "a month that does not exist": [
        f"{FEATURE}:34: cannot read '2026-13-01T09:00:00Z' as an ISO-8601 instant (month must be in 1..12)"
    ],
    "an instant past year 9999 once in UTC": [
        f"{FEATURE}:37: the instant '9999-12-31T23:00:00-05:00' is outside the range a clock can read: {RANGE}"
    ],
    "a ttl longer than any duration": [
        f"{FEATURE}:40: '99999999999999999999 days' is too long a duration: the longest is 999999999 days"
    ],
}


@pytest.mark.parametrize("behave_pass", ["context", "client"], indirect=True)
def test_hostile_specification_data_fails_with_its_file_line_and_limit(tmp_path: Path, behave_pass: BehavePass) -> None:
    options = behave_pass.options
    messages = assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, options, tmp_path / "report.json")
    assert not [name for name, message in messages.items() if "Traceback" in message]


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@EVERY_TARGET
def test_arguments_at_the_nesting_limit_reach_the_server_on_every_harness(
    make_world: Callable[..., World], server: str, kind: str, mode: str | None
) -> None:
    """The limit is well inside what each harness carries (over stdio a server drops JSON deeper than 200)."""
    world = make_world(server=server, timeout=20)
    world.use_harness(kind, mode)
    try:
        outcome = world.call_tool("depth", {"value": _nested(MAX_JSON_DEPTH - 1)})
    finally:
        world.close()
    assert outcome.structured == {"result": MAX_JSON_DEPTH - 1}


def test_a_misspelt_harness_tag_names_the_file_and_line_of_the_tag() -> None:
    run = behave(TAGS, "--no-capture")
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"{TAGS}:4: unknown harness tag @harness.contxt: use @harness.context, @harness.client" in output
    assert f"{TAGS}:11: unknown harness tag @harness.context.legacy" in output
    assert "Traceback" not in output


def _mcpbdd_run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return mcpbdd_run("--no-junit", *args, cwd=cwd)


def test_mcpbdd_run_refuses_a_misspelt_harness_tag_before_starting(tmp_path: Path) -> None:
    run = _mcpbdd_run("--results", str(tmp_path / "results"), TAGS)
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"mcpbdd run: {TAGS}:4: unknown harness tag @harness.contxt" in run.stderr
    assert f"{TAGS}:11: unknown harness tag @harness.context.legacy" in run.stderr


def _latin1_project(folder: Path) -> Path:
    """A project whose one feature file was saved as Latin-1 ("café" is byte 0xe9 on line 3)."""
    (folder / "steps").mkdir(parents=True)
    (folder / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (folder / "features").mkdir()
    feature = folder / "features" / "latin.feature"
    feature.write_bytes(
        'Feature: Latin-1\n\n  Scenario: a café\n    When the client calls "list_notes"\n'.encode("latin-1")
    )
    return feature


def test_a_feature_file_that_is_not_utf8_is_named_by_behave(tmp_path: Path) -> None:
    feature = _latin1_project(tmp_path)
    run = behave("features", "--no-capture", cwd=tmp_path)
    output = run.stdout + run.stderr
    assert run.returncode == 1
    assert f'ParserError: Failed to parse "{feature}": not UTF-8 (byte 0xe9 at offset 35, line 3)' in output
    assert "Traceback" not in output


def test_mcpbdd_run_refuses_a_feature_file_that_is_not_utf8(tmp_path: Path) -> None:
    _latin1_project(tmp_path)
    run = _mcpbdd_run(cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "mcpbdd run: features/latin.feature: not UTF-8 (byte 0xe9 at offset 35, line 3)" in run.stderr
    assert not_utf8("café".encode()) is None


def _folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.iterdir())


@pytest.mark.parametrize(("limit", "most"), [(None, 5_000_000), (65536, 200_000)], ids=["default", "configured"])
def test_a_20_mb_result_writes_capped_attachments(tmp_path: Path, limit: int | None, most: int) -> None:
    """A failed scenario attaches its exchange and its trace: uncapped, 40 MB each (77 MB measured)."""
    results = tmp_path / "allure-results"
    options = ["-D", f"mcpbdd.attachment_limit={limit}"] if limit else []
    run = behave(
        LARGE,
        "--format",
        "mcpbdd.reporting.allure_formatter:AllureFormatter",
        "--outfile",
        str(results),
        "--format",
        "progress",
        *options,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert _folder_bytes(results) < most
    cut = sorted(results.glob("*-attachment*.cut.txt"))
    assert sorted(path.name.split("-attachment")[1] for path in cut) == [".cut.txt", ".trace.cut.txt"]
    for path in cut:
        text = path.read_text(encoding="utf-8")
        assert text.count("bytes cut here by mcpbdd") == 1
        assert "FIRST LINE" in text and "LAST LINE" in text, "the head and the tail are kept"
