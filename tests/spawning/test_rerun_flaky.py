"""`mcpbdd run --rerun-failures N`: a scenario that fails, then passes on a rerun, is FLAKY in every file and
still fails the run; one that fails every time stays failed. One real run of a small project (the test server's
`fails_once` tool fails on its first call and passes afterwards, across processes).
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

from processes import mcpbdd_run
from small_projects import report_options, small_project

FEATURE = (
    "Feature: flaky\n"
    '  Scenario: fails once\n    When the client calls "fails_once" with {"marker": "once.txt"}\n'
    "    Then the call succeeds\n"
    '  Scenario: always fails\n    When the client calls "crash"\n    Then the call succeeds\n'
    '  Scenario: passes\n    When the client calls "report"\n    Then the call succeeds\n'
)
FLAKY = "fails once [context harness]"


def test_a_scenario_that_passes_on_a_rerun_is_flaky_in_every_file_and_fails_the_run(tmp_path: Path) -> None:
    small_project(tmp_path, {"flaky.feature": FEATURE})
    reports = tmp_path / "reports"
    done = mcpbdd_run("--rerun-failures", "2", *report_options(reports), "features", cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert f"mcpbdd: FLAKY features/flaky.feature:2 {FLAKY}: failed, then passed on rerun 1 of 2" in output
    assert "FLAKY features/flaky.feature:5" not in output, "a scenario failing every time is not flaky"
    assert "mcpbdd: rerun 2 of 2: 1 failed or broken scenario(s)" in output

    results = [json.loads(p.read_text()) for p in (reports / "allure").glob("*-result.json")]
    mine = [r for r in results if r["name"] == FLAKY]
    assert sorted(r["status"] for r in mine) == ["failed", "passed"]
    assert len({r["historyId"] for r in mine}) == 1, "Allure shows the rerun as a retry of the same test"
    assert all(r["statusDetails"]["flaky"] is True for r in mine)
    assert all(r["statusDetails"]["message"].startswith("FLAKY: passed on rerun 1 of 2") for r in mine)
    always = [r for r in results if r["name"].startswith("always fails")]
    assert len(always) == 3 and not any(r.get("statusDetails", {}).get("flaky") for r in always)

    cases = {c.get("name"): c for p in (reports / "junit").glob("*.xml") for c in ElementTree.parse(p).iter("testcase")}
    flaky, always_failed = cases[FLAKY].find("failure"), cases["always fails [context harness]"].find("failure")
    assert flaky is not None and flaky.get("message", "").startswith("FLAKY: passed on rerun 1 of 2; ")
    assert always_failed is not None and not always_failed.get("message", "").startswith("FLAKY")

    elements = [e for f in json.loads((reports / "cucumber.json").read_text()) for e in f["elements"]]
    runs = [e for e in elements if e["name"] == FLAKY]
    assert len(runs) == 2
    failed = [s["result"] for e in runs for s in e["steps"] if s["result"]["status"] == "failed"]
    assert len(failed) == 1 and failed[0]["error_message"].startswith("FLAKY: passed on rerun 1 of 2; ")
