"""Every JUnit file mcpbdd writes itself (the lost scenarios, the official suite's checks, a cassette's
verification) is valid against the xunit junit-10.xsd Jenkins validates with, as the files of a run are
(tests/spawning/test_reports_agree.py). Here because `junit_10_xsd` downloads pytest's sdist the first time.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from junit_schema import junit_10_xsd
from test_junit_writer import HOSTILE, OFFICIAL_CHECKS, lost_scenario

from mcpbdd.record.verify import Report, junit_xml
from mcpbdd.reporting.lost import write_lost_junit
from mcpbdd.runner.official import OfficialRun, _write_junit

xmlschema = pytest.importorskip("xmlschema", reason="needs xmlschema: pip install -e '.[dev]'")


@pytest.fixture(scope="module")
def schema() -> Any:
    return xmlschema.XMLSchema(str(junit_10_xsd()))


def _problems(schema: Any, path: Path) -> list[str]:
    return [f"{error.path}: {error.reason}" for error in schema.iter_errors(str(path))]


def test_the_files_mcpbdd_writes_itself_are_valid_junit_10(schema: Any, tmp_path: Path) -> None:
    from mcpbdd.record.cassette import Exchange
    from mcpbdd.record.verify import Verdict

    lost = write_lost_junit([lost_scenario("A note is created"), lost_scenario(HOSTILE)], tmp_path / "lost")
    _write_junit(OfficialRun(checks=[dict(check) for check in OFFICIAL_CHECKS]), tmp_path / "official")
    drifted = Verdict(Exchange(2, {"id": 2, "method": "tools/call", "params": {"name": HOSTILE}}), paths=[("$.a", "b")])
    verified = tmp_path / "verify.xml"
    verified.write_text(junit_xml(Report([drifted]), "cassette.ndjson"), encoding="utf-8")
    assert lost is not None
    for path in (lost, tmp_path / "official" / "TESTS-official.xml", verified):
        assert _problems(schema, path) == [], path.name


def _one_case(path: Path, *, properties: bool = False, **suite: str) -> Path:
    counts = {"tests": "1", "failures": "0", "errors": "0", "skipped": "0", "time": "0.000"}
    root = ET.Element(
        "testsuite", {"name": "s", **{name: value for name, value in {**counts, **suite}.items() if value}}
    )
    case = ET.SubElement(root, "testcase", classname="official.x", name="y", time="0.000")
    if properties:
        ET.SubElement(ET.SubElement(case, "properties"), "property", name="spec.MCP", value="https://example.com")
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return path


def test_the_schema_refuses_what_the_files_used_to_hold(schema: Any, tmp_path: Path) -> None:
    """The check above can fail: a test case's `<properties>` (the official file's spec references, once), a suite
    with no `errors` count (a cassette's verification, once) and an exponent time (behave's) are each refused; the
    same suite without them is valid."""
    problems = _problems(schema, _one_case(tmp_path / "properties.xml", properties=True))
    assert any("properties" in problem for problem in problems), problems
    problems = _problems(schema, _one_case(tmp_path / "uncounted.xml", errors=""))
    assert any("errors" in problem for problem in problems), problems
    problems = _problems(schema, _one_case(tmp_path / "exponent.xml", time="5e-06"))
    assert any("5e-06" in problem for problem in problems), problems
    assert _problems(schema, _one_case(tmp_path / "plain.xml")) == []
