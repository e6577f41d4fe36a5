"""No scenario lost with exit 0: a run that loses scenarios names them as broken, everywhere, and fails.

Issue 23, item 1. An in-process tool that calls `sys.exit(0)` ended behave with status 0, and
`mcpbdd run` said "passed: 1 passed, 0 failed" of 3 planned scenarios; `os._exit(0)` in one
worker's tool under `--jobs 2` gave "3 passed" of 5, exit 0. Now a server's `sys.exit` ends
only its call (a transport failure, as over stdio), and whatever ends a behave process early
(`os._exit`, a kill) leaves its unreported scenarios named as broken in the console, Allure,
JUnit and Cucumber Messages/JSON, and the run exits 1. The runs are real `mcpbdd run`
subprocesses over the test servers (`tests/servers.py`: `leave`, `vanish`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

from behave_passes import EVERY_TARGET
from processes import mcpbdd_run

from mcpbdd.model.outcome import Channel
from mcpbdd.scenario.world import World

CALLS_OK = '    When the client calls "report"\n    Then the call succeeds\n'


def _project(tmp_path: Path, features: dict[str, str]) -> Path:
    folder = tmp_path / "features"
    (folder / "steps").mkdir(parents=True)
    (folder / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    for name, text in features.items():
        (folder / name).write_text(text)
    (tmp_path / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "servers:awkward"\nharness = "context"\n')
    return tmp_path


def _run(project: Path, *args: str) -> tuple[int, str]:
    reports = project / "reports"
    done = mcpbdd_run(
        "--results",
        str(reports / "allure-results"),
        "--junit",
        str(reports / "junit"),
        "--messages",
        str(reports / "messages.ndjson"),
        "--cucumber-json",
        str(reports / "cucumber.json"),
        *args,
        "features",
        cwd=project,
    )
    return done.returncode, done.stdout + done.stderr


VANISHING = (
    "Feature: vanishing\n"
    f"  Scenario: before\n{CALLS_OK}"
    '  Scenario: vanishes\n    When the client calls "vanish"\n    Then the call succeeds\n'
    f"  Scenario: after\n{CALLS_OK}"
)


def test_a_process_that_ends_in_a_tool_fails_the_run_and_every_report_names_its_lost_scenarios(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path, {"vanishing.feature": VANISHING})
    code, output = _run(project)
    assert code == 1, output
    lost = ["features/vanishing.feature:5 vanishes [context harness]", "features/vanishing.feature:8 after"]
    for name in lost:
        assert f"mcpbdd: BROKEN {name}" in output, output
    assert "the behave process ended before this scenario reported a verdict" in output
    assert "FAILED: 1 passed, 0 failed, 2 broken (2 lost: no verdict)" in output

    results = [json.loads(path.read_text()) for path in (project / "reports/allure-results").glob("*-result.json")]
    status = {result["name"]: result["status"] for result in results}
    assert status == {
        "before [context harness]": "passed",
        "vanishes [context harness]": "broken",
        "after [context harness]": "broken",
    }
    broken = next(result for result in results if result["name"] == "after [context harness]")
    assert "ended before this scenario reported" in broken["statusDetails"]["message"]
    assert "exit code 0" in broken["statusDetails"]["message"]
    assert "vanishes [context harness]" in broken["statusDetails"]["trace"], "the end of the process's output"
    passed = next(result for result in results if result["name"] == "before [context harness]")
    assert {p["name"] for p in broken["parameters"]} == {p["name"] for p in passed["parameters"]} == {"harness"}

    cases = [
        case
        for path in (project / "reports/junit").glob("TESTS-*.xml")
        for case in ElementTree.parse(path).getroot().iter("testcase")
    ]
    errors = {case.get("name") for case in cases if case.find("error") is not None}
    assert errors == {"vanishes [context harness]", "after [context harness]"}

    messages = [json.loads(line) for line in (project / "reports/messages.ndjson").read_text().splitlines()]
    failed = [
        item["testStepFinished"]["testStepResult"]
        for item in messages
        if "testStepFinished" in item and item["testStepFinished"]["testStepResult"]["status"] == "FAILED"
    ]
    assert len(failed) == 2 and all("ended before this scenario reported" in r["message"] for r in failed)
    assert messages[-1]["testRunFinished"]["success"] is False
    report = json.loads((project / "reports/cucumber.json").read_text())
    elements = {element["name"]: element for feature in report for element in feature["elements"]}
    assert elements["after [context harness]"]["steps"][0]["result"]["status"] == "failed"


def test_under_two_jobs_a_vanished_worker_fails_the_run(tmp_path: Path) -> None:
    others = {f"other_{n}.feature": f"Feature: other {n}\n  Scenario: one\n{CALLS_OK}" for n in (1, 2)}
    project = _project(tmp_path, {"vanishing.feature": VANISHING, **others})
    code, output = _run(project, "--jobs", "2")
    assert code == 1, output
    assert "FAILED: 3 passed, 0 failed, 2 broken (2 lost: no verdict)" in output, output


def test_a_run_that_ends_normally_reports_nothing_lost(tmp_path: Path) -> None:
    """The comparison never calls a scenario lost that behave ran: tags, outlines and rules included."""
    feature = (
        "Feature: complete\n"
        f"  Scenario: plain\n{CALLS_OK}"
        "  @wip\n"
        f"  Scenario: left out by tags\n{CALLS_OK}"
        "  Scenario Outline: rows <n>\n"
        '    When the client calls "report"\n    Then the call succeeds\n'
        "    Examples:\n      | n |\n      | 1 |\n      | 2 |\n"
        "  Rule: a rule\n"
        f"    Scenario: in a rule\n{CALLS_OK}"
    )
    project = _project(tmp_path, {"complete.feature": feature})
    code, output = _run(project, "--tags", "not @wip")
    assert code == 0, output
    assert "lost" not in output and "BROKEN" not in output
    assert "passed: 4 passed, 0 failed" in output


def test_stop_after_a_failure_is_not_a_loss(tmp_path: Path) -> None:
    """`--stop` leaves scenarios out on purpose: the run fails for the failure, and nothing is called lost."""
    failing = 'Feature: stops\n  Scenario: fails\n    When the client calls "crash"\n    Then the call succeeds\n'
    project = _project(tmp_path, {"a.feature": failing, "b.feature": f"Feature: later\n  Scenario: later\n{CALLS_OK}"})
    code, output = _run(project, "--stop")
    assert code == 1, output
    assert "lost" not in output and "BROKEN" not in output


@EVERY_TARGET
def test_a_tool_that_calls_sys_exit_ends_its_call_on_every_target(
    make_world: Callable[..., World], server: str, kind: str, mode: str | None
) -> None:
    """In-process a `SystemExit` in a tool ended the run; now its call is a transport failure, as over stdio
    (where the SDK's server, its request task ended by the exit, never answers: the call times out)."""
    world = make_world(server=server, timeout=5)
    world.use_harness(kind, mode)
    try:
        outcome = world.call_tool("leave", {"code": 0})
    finally:
        world.close()
    assert outcome.channel is Channel.TRANSPORT_FAILURE, outcome
    if not server.startswith("stdio"):
        assert outcome.failure is not None
        assert "connection closed: the server called sys.exit(0) while handling tools/call" in outcome.failure
