"""A worker killed mid-feature keeps the verdicts of the scenarios it had finished, in every file.

`--jobs 2`, and the behave process running one feature is SIGKILLed during its 4th scenario (the test
server's `killed` tool, in-process). behave writes a feature's JUnit file only when the feature ends, so
the 3 scenarios that passed before the kill were in no JUnit file: the console said "3 passed ... 1 lost"
while a CI job reading the JUnit saw only the lost one. Now each file keeps them (one real run).
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

from processes import mcpbdd_run
from small_projects import report_options, small_project

CALLS_OK = '    When the client calls "report"\n    Then the call succeeds\n'
KILLED = (
    "Feature: killed mid-feature\n"
    + "".join(f"  Scenario: passes {n}\n{CALLS_OK}" for n in (1, 2, 3))
    + '  Scenario: is killed\n    When the client calls "killed"\n    Then the call succeeds\n'
    + f"  Scenario Outline: never starts\n{CALLS_OK}    Examples:\n      | n |\n      | 1 |\n"
)
PASSED = {f"passes {n} [context harness]" for n in (1, 2, 3)}
LOST = {"is killed [context harness]", "never starts -- n=1 [context harness]"}
"""Named as every file names them, an Outline row by its values (its process never named it)."""


def test_a_killed_workers_finished_scenarios_keep_their_verdicts_in_every_file(tmp_path: Path) -> None:
    small_project(
        tmp_path, {"killed.feature": KILLED, "other.feature": f"Feature: other\n  Scenario: elsewhere\n{CALLS_OK}"}
    )
    reports = tmp_path / "reports"
    done = mcpbdd_run("--jobs", "2", *report_options(reports), "features", cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "FAILED: 4 passed, 0 failed, 2 broken (2 lost: no verdict)" in output, output
    assert "exit code -9" in output, output
    assert "mcpbdd: BROKEN features/killed.feature:19 never starts -- n=1 [context harness]" in output, output

    cases = {
        case.get("name"): case
        for path in (reports / "junit").glob("TESTS-*.xml")
        for case in ElementTree.parse(path).iter("testcase")
    }
    assert set(cases) == {*PASSED, *LOST, "elsewhere [context harness]"}
    assert all(list(cases[name]) == [] or cases[name].find("system-out") is not None for name in PASSED)
    assert all(cases[name].find("failure") is None and cases[name].find("error") is None for name in PASSED)
    assert all(cases[name].find("error") is not None for name in LOST)

    allure = {
        r["name"]: r["status"] for r in map(json.loads, map(Path.read_text, (reports / "allure").glob("*-result.json")))
    }
    assert {name: allure[name] for name in PASSED} == dict.fromkeys(PASSED, "passed")
    assert {name: allure[name] for name in LOST} == dict.fromkeys(LOST, "broken")
    elements = {
        element["name"]: {step["result"]["status"] for step in element["steps"]}
        for feature in json.loads((reports / "cucumber.json").read_text())
        for element in feature["elements"]
    }
    assert all(elements[name] == {"passed"} for name in PASSED), elements
