"""What a newcomer reads from `make demo`: the install, the run's console and its last lines, each in a subprocess.

Issue 16: no packaging warning, each feature's header once, the step-by-step log only on
request (`mcpbdd run --steps`), and the run ending with the totals per harness and the report's path.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import warm_python

from mcpbdd.reporting.totals import read_totals, totals_lines

ROOT = Path(__file__).resolve().parents[2]
WITH_BACKGROUND = "features/confirmation.feature"  # a Background: behave's own pretty printed its header twice
HEADER = "Deleting a note asks the user first"
STEP = 'Given the user "alice" of tenant "acme"'
FAILING = "tests/behave_cases/features/failing_assertions.feature"


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return warm_python.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env={**os.environ, "CI": "1"})


def _mcpbdd_run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    where = ["--results", str(tmp_path / "results"), "--junit", str(tmp_path / "junit"), "--no-coverage"]
    return _run(sys.executable, "-m", "mcpbdd.cli.main", "run", *where, *args)


def test_by_default_a_run_prints_each_header_once_a_line_per_scenario_and_totals_per_harness(tmp_path: Path) -> None:
    run = _mcpbdd_run(tmp_path, "--harness", "both", WITH_BACKGROUND)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count(HEADER) == 2, run.stdout  # once per harness
    assert STEP not in run.stdout, "no step-by-step log unless asked for"
    assert "Deleting a note needs the user's answer [context harness]" in run.stdout
    assert "USING RUNNER" not in run.stdout, "behave's banner says nothing a reader can act on"
    last = run.stdout.strip().splitlines()
    summary = next(i for i, line in enumerate(last) if line.startswith("mcpbdd: passed: "))
    assert last[summary + 1 : summary + 3] == [
        "mcpbdd:   context harness: 3 passed, 0 failed, 0 skipped",
        "mcpbdd:   client harness: 3 passed, 0 failed, 0 skipped",
    ], run.stdout
    overall, per_harness = read_totals([tmp_path / "results"])  # what `mcpbdd report` ends with
    assert (overall.passed, overall.failed, sorted(per_harness)) == (6, 0, ["client", "context"])
    assert totals_lines([tmp_path / "results"]) == [
        "mcpbdd: scenarios: 6 passed, 0 failed, 0 skipped",
        "mcpbdd:   context harness: 3 passed, 0 failed, 0 skipped",
        "mcpbdd:   client harness: 3 passed, 0 failed, 0 skipped",
    ]


def test_steps_prints_every_step_and_still_each_header_once(tmp_path: Path) -> None:
    run = _mcpbdd_run(tmp_path, "--harness", "both", "--steps", WITH_BACKGROUND)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count(f"Feature: {HEADER}") == 2, run.stdout  # once per harness
    assert run.stdout.count(STEP) == 6, run.stdout  # the Background's step in each of 3 scenarios, per harness


def test_without_steps_a_failure_is_still_printed_in_full(
    broken_and_failed: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """The default run of a failing scenario and a broken one (below): the failure is printed in full, naming its
    step, and the totals count it."""
    run = broken_and_failed[0]
    assert run.returncode == 1, run.stdout + run.stderr
    assert (
        "FAILURE in step 'the call succeeds' (tests/behave_cases/features/failing_assertions.feature:9)" in run.stdout
    )
    assert "Expected the call to succeed, but tools/call 'get_note'" in run.stdout
    assert re.search(r"mcpbdd: FAILED: \d+ passed, [1-9]\d* failed", run.stdout), run.stdout


BROKEN_STEP = "tests/behave_cases/features/failing_vocabulary.feature:43"  # a user the scenario does not know


def _broken_and_failed(folder: Path, *steps: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """A run of a failing scenario and a broken one (with `steps`' options), its results in `folder`."""
    return _mcpbdd_run(folder, *steps, f"{FAILING}:7", BROKEN_STEP), folder


@pytest.fixture(scope="module")
def broken_and_failed(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The default run (no `--steps`) of a failing scenario and a broken one: read by the tests of a failure printed in
    full and of broken counted apart (one run, not two)."""
    return _broken_and_failed(tmp_path_factory.mktemp("broken"))


@pytest.mark.parametrize("steps", [[], ["--steps"]], ids=["default", "steps"])
def test_broken_is_counted_apart_from_failed_with_its_own_word(
    request: pytest.FixtureRequest, tmp_path: Path, steps: list[str]
) -> None:
    """A step the specification got wrong is broken (as Allure shows it), not an `ASSERT FAILED` among the failures."""
    run, folder = _broken_and_failed(tmp_path, *steps) if steps else request.getfixturevalue("broken_and_failed")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "mcpbdd: FAILED: 0 passed, 1 failed, 1 broken in " in run.stdout, run.stdout
    assert "BROKEN: tests/behave_cases/features/failing_vocabulary.feature:44: no user 'mallory'" in run.stdout
    assert "ASSERT FAILED: tests/behave_cases/features/failing_vocabulary.feature" not in run.stdout
    assert "Expected the call to succeed" in run.stdout  # the unmet expectation keeps behave's words
    if not steps:
        assert 'BROKEN in step \'"mallory" reads the resource' in run.stdout
        assert "FAILURE in step 'the call succeeds'" in run.stdout
    assert totals_lines([folder / "results"]) == ["mcpbdd: scenarios: 0 passed, 1 failed, 1 broken, 0 skipped"]


@pytest.mark.parametrize("steps", [[], ["--steps"]], ids=["default", "steps"])
def test_an_outline_row_is_named_by_its_example_values_on_the_console(tmp_path: Path, steps: list[str]) -> None:
    run = _mcpbdd_run(tmp_path, *steps, "features/carried_values.feature")
    assert run.returncode == 0, run.stdout + run.stderr
    row = "A note is read back by the id the server gave it -- title=Plan, body=Ship on Friday [context harness]"
    assert row in run.stdout, run.stdout
    assert " -- @1" not in run.stdout, "behave's row number (and its double space) is not shown"


def test_behave_own_progress3_shows_the_row_number_the_check_above_catches(tmp_path: Path) -> None:
    run = _mcpbdd_run(tmp_path, "--format", "progress3", "features/carried_values.feature")
    assert "A note is read back by the id the server gave it -- @1.1  [context harness]" in run.stdout, run.stdout


@pytest.mark.parametrize(
    ("formatter", "headers"),
    [
        ("pretty", 1),  # mcpbdd.behave registers its fixed pretty under behave's name
        ("behave.formatter.pretty:PrettyFormatter", 2),  # behave's own: the check sees the double header
    ],
)
def test_plain_behave_pretty_prints_the_header_once(formatter: str, headers: int) -> None:
    run = _run(sys.executable, "-m", "behave", "--format", formatter, "--no-skipped", WITH_BACKGROUND)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count(f"Feature: {HEADER}") == headers, run.stdout


def test_the_makefile_installs_without_a_packaging_warning(tmp_path: Path) -> None:
    """The Makefile's editable install, into a throwaway venv (no dependencies: the build is what warns).

    hatchling builds an editable install as a plain .pth path and warns about nothing, so the
    Makefile silences nothing either (setuptools warned about the flat layout on every install).
    """
    venv = tmp_path / "venv"
    planned = _run("make", "-n", "-B", f"VENV={venv}", f"{venv}/.installed").stdout.splitlines()
    install = next(shlex.split(line) for line in planned if " -e " in line)
    assert install[0] == f"{venv}/bin/python", f"no environment set for the install: {install}"
    warm_python.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps", "-e", "."]
    done = warm_python.run(pip, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    # This machine's pip configuration names an index folder that may be missing: not the project's packaging.
    assert [line for line in lines if "warning" in line.lower() and "Location 'file:" not in line] == []
    assert not list(ROOT.glob("*.egg-info")), "an editable install writes no *.egg-info into the checkout"


def test_a_feature_of_rules_takes_the_time_its_scenarios_took() -> None:
    """behave 1.3 summed a feature's duration without the scenarios under its `Rule:` ("Took 0min 0.000s")."""
    import behave.parser

    import mcpbdd.behave  # noqa: F401  # what a project's environment.py imports

    feature = behave.parser.parse_feature(
        "Feature: rules\n"
        "  Scenario: outside\n    Given a step\n"
        "  Rule: one\n    Scenario: inside\n      Given a step\n"
        "    Scenario Outline: rows\n      Given a <n> step\n"
        "      Examples:\n        | n |\n        | 1 |\n        | 2 |\n"
    )
    assert feature is not None
    scenarios = feature.walk_scenarios()
    for scenario in scenarios:
        for step in scenario.all_steps:
            step.duration = 0.25
    assert len(scenarios) == 4 and feature.duration == 1.0


def test_the_default_way_of_starting_server_processes_is_not_announced() -> None:
    """`spawn = auto` on every run said nothing anyone chose; a chosen setting is still echoed once."""
    code = "from mcpbdd.harness.processes import spawn\nspawn.announce('auto')\nspawn.announce('plain')\n"
    run = warm_python.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == ["mcpbdd: server processes start with spawn = plain"]
