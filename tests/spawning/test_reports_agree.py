"""One verdict, one name and one word per scenario in every file `mcpbdd run` writes, and consumers accept them.

One real `mcpbdd run --harness all` (module fixture) over tests/parity_cases/features/one_verdict.feature: a
scenario failing where the client has no back-channel, a failing after-hook, a run-time skip, a doc string
that is not JSON, an Outline row and a rule. Every test reads that one run: the JUnit files against xunit's
junit-10.xsd (Jenkins) and junitparser, the Allure results, both Cucumber formats, the parity matrix.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from junit_schema import junit_10_xsd
from processes import matrix_run_options, mcpbdd_run

FEATURE = "tests/parity_cases/features/one_verdict.feature"
PASSES = {
    "context": "[context harness]",
    "client.auto": "[client harness]",
    "client.legacy": "[client harness, legacy]",
}
ERAS = {"context": "2026-07-28", "client.auto": "2026-07-28", "client.legacy": "2025-11-25"}
ROW = "Who the caller is -- user=alice"
DOC_STRING = "A doc string that is not JSON"
HOOK = "A model answer given in advance that no question used"
SKIP = "Needs the 2026-07-28 protocol, skipped as it runs on the old handshake"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("one-verdict")
    done = mcpbdd_run(
        *matrix_run_options(out),
        "--messages",
        str(out / "messages.ndjson"),
        "--cucumber-json",
        str(out / "cucumber.json"),
        "--no-coverage",
        FEATURE,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (out / "stdout.txt").write_text(done.stdout)
    return out


def _junit_cases(run: Path, name: str) -> list[ElementTree.Element]:
    return [
        case for path in (run / "junit" / name).glob("TESTS-*.xml") for case in ElementTree.parse(path).iter("testcase")
    ]


def _allure(run: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in (run / "allure").glob("*-result.json")]


def _stream(run: Path, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / f"messages.{name}.ndjson").read_text().splitlines()]


def _step_messages(envelopes: list[dict[str, Any]], pickle_name: str) -> list[str]:
    """The messages of the failed steps and hooks of the test case of `pickle_name`."""
    pickle = next(e["pickle"]["id"] for e in envelopes if "pickle" in e and e["pickle"]["name"] == pickle_name)
    case = next(e["testCase"]["id"] for e in envelopes if "testCase" in e and e["testCase"]["pickleId"] == pickle)
    started = next(
        e["testCaseStarted"]["id"] for e in envelopes if e.get("testCaseStarted", {}).get("testCaseId") == case
    )
    return [
        e["testStepFinished"]["testStepResult"].get("message", "")
        for e in envelopes
        if e.get("testStepFinished", {}).get("testCaseStartedId") == started
        and e["testStepFinished"]["testStepResult"]["status"] == "FAILED"
    ]


def test_junit_is_valid_against_xunits_junit_10_xsd_and_junitparser_reads_it(run: Path) -> None:
    xmlschema = pytest.importorskip("xmlschema", reason="needs xmlschema: pip install -e '.[dev]'")
    junitparser = pytest.importorskip("junitparser", reason="needs junitparser: pip install -e '.[dev]'")
    schema = xmlschema.XMLSchema(str(junit_10_xsd()))
    files = sorted((run / "junit").glob("*/TESTS-*.xml"))
    assert len(files) == 3
    problems = [
        f"{path.name} {error.path}: {error.reason}" for path in files for error in schema.iter_errors(str(path))
    ]
    assert problems == []
    for name, suffix in PASSES.items():
        (path,) = (run / "junit" / name).glob("TESTS-*.xml")
        xml = junitparser.JUnitXml.fromfile(str(path))
        suites = [xml] if isinstance(xml, junitparser.TestSuite) else list(xml)
        cases = {case.name: [type(r).__name__ for r in case.result] for suite in suites for case in suite}
        assert cases[f"{DOC_STRING} {suffix}"] == cases[f"{HOOK} {suffix}"] == ["Error"], cases
        assert cases[f"{ROW} {suffix}"] == [] and len(cases) == 7


def test_broken_is_broken_in_every_file(run: Path) -> None:
    """The malformed doc string and the failed after-hook break: no file calls them failed or ASSERT FAILED."""
    parity = {row["name"]: row["verdicts"] for row in json.loads((run / "parity.json").read_text())["scenarios"]}
    for name in (DOC_STRING, HOOK):
        assert set(parity[name].values()) == {"broken"}, parity[name]
    assert "mid-call" in next(n for n, v in parity.items() if set(v.values()) == {"failed", "passed"})
    markdown = (run / "parity.md").read_text()
    assert "💥 broken" in markdown and f"| {DOC_STRING} | " + " | ".join(["💥 broken"] * 3) in markdown
    for name, suffix in PASSES.items():
        (message,) = _step_messages(_stream(run, name), f"{DOC_STRING} {suffix}")
        assert message.startswith("BROKEN: ") and "the doc string is not valid JSON" in message, message
        (case,) = [c for c in _junit_cases(run, name) if c.get("name") == f"{DOC_STRING} {suffix}"]
        error = case.find("error")
        assert error is not None and case.find("failure") is None
        assert "BROKEN: " in (error.text or "") and "ASSERT FAILED" not in (error.text or "")
    cucumber = json.loads((run / "cucumber.json").read_text())
    worded = [
        step["result"]["error_message"]
        for feature in cucumber
        for element in feature["elements"]
        if element["name"].startswith(DOC_STRING)
        for step in element["steps"]
        if step["result"]["status"] == "failed"
    ]
    assert len(worded) == 3 and all(text.startswith("BROKEN: ") for text in worded), worded
    assert {r["status"] for r in _allure(run) if r["name"].startswith((DOC_STRING, HOOK))} == {"broken"}


def test_every_scenario_has_one_name_in_every_file(run: Path) -> None:
    """An Outline row by its values, the pass after one space: Allure, JUnit, Messages, Cucumber JSON, parity."""
    allure = {r["name"] for r in _allure(run) if r["name"] != "Parity matrix"}
    cucumber = {e["name"] for feature in json.loads((run / "cucumber.json").read_text()) for e in feature["elements"]}
    for name, suffix in PASSES.items():
        junit = {case.get("name", "") for case in _junit_cases(run, name)}
        messages = {e["pickle"]["name"] for e in _stream(run, name) if "pickle" in e}
        mine = {n for n in allure if n.endswith(suffix)}
        assert junit == messages == mine == {n for n in cucumber if n.endswith(suffix)}, name
        assert f"{ROW} {suffix}" in junit and not any("  " in n or "@1.1" in n for n in junit)
    parity = {row["name"] for row in json.loads((run / "parity.json").read_text())["scenarios"]}
    assert ROW in parity and parity == {n.rsplit(" [", 1)[0] for n in allure}


def test_every_pass_is_labelled_with_its_harness_and_era_in_allure(run: Path) -> None:
    results = [r for r in _allure(run) if r["name"] != "Parity matrix"]
    assert len(results) == 21
    for result in results:
        labels = {label["name"]: label["value"] for label in result["labels"]}
        name = next(n for n, suffix in PASSES.items() if result["name"].endswith(suffix))
        assert labels.get("era") == ERAS[name] and labels.get("harness"), result["name"]
    skipped = next(r for r in results if r["status"] == "skipped")
    assert skipped["name"] == f"{SKIP} [client harness, legacy]"


def test_a_hooks_traceback_names_packages_relative_to_site_packages(run: Path) -> None:
    """The virtualenv's absolute path is nowhere: a report is read on another machine."""
    prefix = sys.prefix
    written = [*(run / "allure").glob("*.json"), *(run / "junit").glob("*/*.xml"), *run.glob("messages.*.ndjson")]
    assert [path.name for path in written if prefix in path.read_text()] == []
    hooked = next(r for r in _allure(run) if r["name"] == f"{HOOK} [context harness]")
    assert 'File "site-packages/behave/runner.py"' in hooked["statusDetails"]["trace"]


def test_a_run_time_skip_says_why_in_its_description_not_in_an_error_box(run: Path) -> None:
    """Allure 3 shows status details under "Error": a skip's reason leads the description instead."""
    (skipped,) = [r for r in _allure(run) if r["status"] == "skipped"]
    assert "statusDetails" not in skipped or not skipped["statusDetails"].get("message"), skipped["statusDetails"]
    assert skipped["description"].startswith("Skipped: needs the 2026-07-28 protocol")


def _needs_node() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        why = "needs Node.js and npm: apt-get install nodejs npm"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


def test_the_cucumber_html_page_names_its_pass_and_era_and_counts_broken_apart(run: Path, tmp_path: Path) -> None:
    _needs_node()
    from mcpbdd.reporting.cucumber_html import render_messages

    render_messages(run / "messages.ndjson", tmp_path / "cucumber.html", quiet=True)
    legacy = (tmp_path / "cucumber.client.legacy.html").read_text()
    assert "<title>Cucumber report: client harness, legacy, protocol 2025-11-25</title>" in legacy
    assert "7 scenarios, 4 passed, 0 failed, 2 broken, 1 skipped" in legacy
    assert "the FAILED count below includes the 2 broken" in legacy
    auto = (tmp_path / "cucumber.client.auto.html").read_text()
    assert "<title>Cucumber report: client harness, protocol 2026-07-28</title>" in auto
    assert "7 scenarios, 4 passed, 1 failed, 2 broken, 0 skipped" in auto
    summary = (run / "stdout.txt").read_text()
    assert "client.auto harness: 4 passed, 1 failed, 2 broken, 0 skipped" in summary, "the console says the same"


def test_a_second_report_shows_the_first_through_the_history_file(run: Path, tmp_path: Path) -> None:
    """`mcpbdd report` keeps Allure 3's history: the second report knows every test (none is new) and the file
    holds both reports."""
    _needs_node()
    from mcpbdd.cli.main import main

    history = tmp_path / "kept" / "allure-history.jsonl"
    for report in ("first", "second"):
        assert main(["report", str(run / "allure"), "-o", str(tmp_path / report), "--history", str(history)]) == 0
    first, second = (json.loads((tmp_path / name / "summary.json").read_text()) for name in ("first", "second"))
    assert len(first["newTests"]) == 22 and second["newTests"] == []
    kept = [json.loads(line) for line in history.read_text().splitlines()]
    assert [entry["uuid"] for entry in kept] == [first["meta"]["reportId"], second["meta"]["reportId"]]
    assert len(kept[0]["testResults"]) == 22
