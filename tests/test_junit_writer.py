"""The one JUnit writer (`mcpbdd.reporting.junit`) behind every JUnit file mcpbdd writes itself: the scenarios a run
lost, the official suite's checks and a cassette's verification. Each file is read back as a CI tool reads it;
the xunit junit-10.xsd validation of the same files is in tests/spawning/test_junit_xsd.py.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from mcpbdd.record.cassette import Exchange
from mcpbdd.record.verify import Report, Verdict, junit_xml
from mcpbdd.reporting.junit import JUnitCase, junit_suite_xml, write_junit_suite
from mcpbdd.reporting.lost import LostScenario, write_lost_junit
from mcpbdd.runner.official import OfficialRun, _write_junit

HOSTILE = "x\x1b[2J\x07\ud800\ufffe"
"""What XML 1.0 cannot hold, even as a character reference: ESC, BEL, a lone surrogate, U+FFFE."""

OFFICIAL_CHECKS: list[dict[str, object]] = [
    {
        "scenario": "tools-list",
        "id": "tools-name-format",
        "status": "FAILURE",
        "errorMessage": "name has a space",
        "specReferences": [{"id": "MCP-Tools", "url": "https://modelcontextprotocol.io/specification/tools"}],
    },
    {"scenario": "tools-list", "id": "tools-list-ok", "status": "SUCCESS"},
    {"scenario": "caching", "id": "ttl", "status": "SKIPPED", "reason": "not applicable over stdio"},
    {"scenario": "caching", "id": "hint", "status": "WARNING", "description": "no ttlMs"},
]


def lost_scenario(name: str) -> LostScenario:
    return LostScenario(
        feature="features/notes.feature",
        line=7,
        title=name,
        feature_name="Notes",
        harness="context",
        column="context",
        message="its process ended before it reported",
        returncode=-9,
        output_tail="Killed",
    )


def _suite(text: str) -> ET.Element:
    return ET.fromstring(text.encode("utf-8"))


def test_each_outcome_is_the_element_a_ci_tool_reads_and_the_counts_and_times_follow() -> None:
    cases = [
        JUnitCase("c", "passes", time=0.0000049),
        JUnitCase("c", "fails", outcome="failed", message="expected 2", details="got 3", time=1.23456),
        JUnitCase("c", "breaks", outcome="broken", message="no server", kind="TargetError"),
        JUnitCase("c", "skips", outcome="skipped", message="no Chromium", system_out="harness: context\n"),
    ]
    suite = _suite(junit_suite_xml("s", cases))
    assert suite.tag == "testsuite" and suite.get("name") == "s"
    assert [suite.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["4", "1", "1", "1"]
    by_name = {case.get("name"): case for case in suite.iter("testcase")}
    assert by_name["passes"].get("time") == "0.000"  # never behave's 5e-06: three decimals, as junit-10.xsd reads
    assert suite.get("time") == "1.235"  # at least the sum of its cases'
    failure = by_name["fails"].find("failure")
    assert failure is not None and failure.get("message") == "expected 2" and failure.text == "got 3"
    error = by_name["breaks"].find("error")
    assert error is not None and error.get("type") == "TargetError" and by_name["breaks"].find("failure") is None
    skipped = by_name["skips"].find("skipped")
    assert skipped is not None and skipped.get("message") == "no Chromium"
    assert by_name["skips"].findtext("system-out") == "harness: context\n"
    assert len(by_name["passes"]) == 0  # passed: no child element


def test_what_xml_cannot_hold_is_written_as_its_json_escape_and_the_file_still_parses(tmp_path: Path) -> None:
    path = write_junit_suite(
        tmp_path / "deep" / "TESTS-x.xml",
        f"suite {HOSTILE}",
        [JUnitCase(HOSTILE, HOSTILE, outcome="failed", message=HOSTILE, details=HOSTILE, system_out=HOSTILE)],
    )
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    assert "\x1b" not in text and "\x07" not in text and "\ufffe" not in text
    case = next(ET.parse(path).getroot().iter("testcase"))  # it parses: a CI tool reads it
    escaped = "x\\u001b[2J\\u0007\\ud800\\ufffe"
    assert case.get("name") == case.get("classname") == escaped
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == failure.text == escaped


def test_a_plain_element_tree_would_write_a_file_no_tool_can_read(tmp_path: Path) -> None:
    """Why the writer escapes: ElementTree writes ESC as it is, and the file no longer parses."""
    suite = ET.Element("testsuite", name="s")
    ET.SubElement(suite, "testcase", name="x\x1b")
    ET.ElementTree(suite).write(tmp_path / "raw.xml", encoding="utf-8", xml_declaration=True)
    try:
        ET.parse(tmp_path / "raw.xml")
    except ET.ParseError:
        return
    raise AssertionError("ElementTree now refuses or escapes control characters itself: the escape may go")


def test_the_lost_scenarios_are_errors_naming_the_process_that_ended(tmp_path: Path) -> None:
    path = write_lost_junit([lost_scenario("A note is created"), lost_scenario("A note is read")], tmp_path)
    assert path == tmp_path / "TESTS-mcpbdd-lost.xml"
    suite = ET.parse(path).getroot()
    assert suite.get("name") == "mcpbdd.lost"
    assert [suite.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["2", "0", "2", "0"]
    case = next(suite.iter("testcase"))
    assert case.get("classname") == "features.notes.Notes" and case.get("name") == "A note is created"
    error = case.find("error")
    assert error is not None and error.get("type") == "LostScenario"
    assert error.get("message") == "its process ended before it reported"
    assert error.text is not None and "exit code -9" in error.text and "Killed" in error.text
    assert write_lost_junit([], tmp_path / "none") is None and not (tmp_path / "none").exists()


def test_the_official_checks_keep_their_spec_references_outside_properties(tmp_path: Path) -> None:
    """junit-10.xsd allows no `<properties>` in a test case: the references are in its `system-out`."""
    _write_junit(OfficialRun(checks=[dict(check) for check in OFFICIAL_CHECKS]), tmp_path)
    suite = ET.parse(tmp_path / "TESTS-official.xml").getroot()
    assert [suite.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["4", "1", "0", "1"]
    assert not any(case.find("properties") is not None for case in suite.iter("testcase"))
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failed = cases["tools-name-format"]
    assert failed.get("classname") == "official.tools-list"
    failure = failed.find("failure")
    assert failure is not None and failure.get("message") == "name has a space" and '"FAILURE"' in str(failure.text)
    assert failed.findtext("system-out") == "spec MCP-Tools: https://modelcontextprotocol.io/specification/tools\n"
    skipped = cases["ttl"].find("skipped")
    assert skipped is not None and skipped.get("message") == "not applicable over stdio"
    assert cases["hint"].findtext("system-out") == "warning: no ttlMs\n" and len(cases["tools-list-ok"]) == 0


def test_a_drifted_exchange_fails_with_its_paths_and_a_kept_one_passes() -> None:
    kept = Verdict(Exchange(1, {"id": 1, "method": "tools/list", "params": {}}))
    drifted = Verdict(Exchange(2, {"id": 2, "method": "tools/call", "params": {"name": "add"}}), paths=[("$.a", "b")])
    suite = _suite(junit_xml(Report([kept, drifted]), "cassette.ndjson"))
    assert suite.get("name") == "cassette.ndjson"
    assert [suite.get(k) for k in ("tests", "failures", "errors")] == ["2", "1", "0"]
    first, second = suite.iter("testcase")
    assert first.get("classname") == "mcpbdd.verify" and len(first) == 0
    failure = second.find("failure")
    assert failure is not None and failure.get("message") == drifted.lines()[0]
    assert failure.text == "\n".join(drifted.lines())


def test_a_completed_behave_file_holds_no_character_a_server_sent_that_xml_cannot(tmp_path: Path) -> None:
    """A tool's name and a failure's message come from the server: in the test case's facts and error, escaped."""
    from mcpbdd.reporting.junit import complete_junit
    from mcpbdd.reporting.verdicts import Verdict as ScenarioVerdict

    verdict = ScenarioVerdict(
        "features/notes.feature", 3, "A call", "A call", "Notes", "failed", 0.5, kind="failed", tools=[HOSTILE]
    )
    verdict.message = f"expected 1, got {HOSTILE}"
    assert complete_junit(tmp_path, [verdict]) == 1
    (path,) = tmp_path.glob("TESTS-*.xml")
    case = next(ET.parse(path).getroot().iter("testcase"))  # it parses: a CI tool reads it
    assert "tools: x\\u001b[2J\\u0007\\ud800\\ufffe\n" in str(case.findtext("system-out"))
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "expected 1, got x\\u001b[2J\\u0007\\ud800\\ufffe"
