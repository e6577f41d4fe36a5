"""What a conformance run's files must say of an expected failure: skipped with its reason, never failed."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

from mcpbdd.conformance.baseline import load_baseline
from mcpbdd.conformance.summary import EXPECTED, EXPECTED_FAILURE_TYPE, Summary, read_verdicts
from mcpbdd.reporting.expected import EXPECTED_TAG

__all__ = ["assert_expected_everywhere"]


def assert_expected_everywhere(reports: Path, check: str, listed_in: str, baseline: Path) -> None:
    """`check` failed as expected on both eras: JUnit, Allure and Cucumber Messages skip it, naming `listed_in`."""
    cases = [
        case
        for path in (reports / "junit").glob("*/*.xml")
        for case in ElementTree.parse(path).iter("testcase")
        if case.get("name", "").startswith(f"{check}:")
    ]
    assert len(cases) == 2, [c.get("name") for c in cases]
    for case in cases:
        skipped = case.find("skipped")
        assert case.find("failure") is None and case.find("error") is None and skipped is not None
        assert f"expected failure ({check}, listed in " in skipped.get("message", "")
        assert listed_in in skipped.get("message", "")
    results = [json.loads(p.read_text()) for p in (reports / "allure-results").glob("*-result.json")]
    mine = [r for r in results if r["name"].startswith(f"{check}:")]
    assert len(mine) == 2 and {r["status"] for r in mine} == {"skipped"}, [(r["name"], r["status"]) for r in mine]
    assert all(listed_in in r["statusDetails"]["message"] for r in mine)
    for stream in reports.glob("conformance.*.ndjson"):
        envelopes = [json.loads(line) for line in stream.read_text().splitlines()]
        statuses = [e["testStepFinished"]["testStepResult"]["status"] for e in envelopes if "testStepFinished" in e]
        assert "FAILED" not in statuses, stream.name
        assert envelopes[-1]["testRunFinished"]["success"] is True, stream.name
    # the files read back (as `mcpbdd conformance` and its tests read them) still give the expected failures
    assert EXPECTED_TAG == EXPECTED_FAILURE_TYPE
    summary = Summary.of(read_verdicts(reports / "junit"), load_baseline(baseline))
    assert {v.status for v in summary.verdicts if v.check == check} == {EXPECTED} and not summary.unexpected
