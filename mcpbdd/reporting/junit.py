"""JUnit XML that CI tools read right: behave's files completed from the verdicts of the run.

behave's JUnit reporter writes one `<testsuite>` per feature file (`TESTS-*.xml`), and
`mcpbdd run` finishes each file once its behave processes have ended, from the verdicts they
recorded (`mcpbdd.reporting.verdicts`), so that the file tells the run's verdict:

- every scenario of the pass is a test case: one skipped as it ran (a pass that cannot run it,
  `@era.modern` on the 2025-11-25 handshake) is `<skipped message="why"/>`, where behave,
  given `--no-skipped` (a run filtered by tags reports what ran), leaves it out;
- an undefined step says which phrase (behave writes `<error type="NoneType" message="None">`);
- a broken scenario (`mcpbdd.reporting.broken`) is an `<error>` whose text says `BROKEN:` where behave's
  says `ASSERT FAILED:`, a failed one a `<failure>`;
- a scenario behave never wrote (its process was killed before the end of the feature file, when behave
  writes the file) is written from its verdict: a dead worker's passed scenarios stay in the report;
- every test case has the scenario's one name (`mcpbdd.reporting.names`: an Outline row by its values);
- what the scenario did (harness, era, tools, tenants, its feature file and line) is in its
  `system-out`, and the pass's harness and era in the suite's `<properties>`: the xunit
  `junit-10.xsd` (what Jenkins validates against) allows no `<properties>` in a test case, and
  the test case's name already carries the harness (`A note is created [client harness]`);
- behave's `status` attribute (which junit-10.xsd does not allow) moves to `system-out` too;
- the suite's `tests`, `failures`, `errors` and `skipped` count its test cases, and its `time`
  is at least the sum of theirs (behave writes the feature's own duration, its steps only);
  every time is written in seconds with three decimals (junit-10.xsd's `SUREFIRE_TIME` allows no more, and
  behave's `5e-06` is no xsd time), the suite's rounded up so it stays at least the sum of its cases'.

A test case is found by its feature file (behave's class name starts with the file's dotted
path, relative to behave's base folder) and its full scenario name; names repeated in one file
are matched in order.

The JUnit files mcpbdd writes itself (the scenarios a run lost, `mcpbdd.reporting.lost`; the official
conformance suite's checks, `mcpbdd.runner.official`; a cassette's verification, `mcpbdd.record.verify`) are
written here too, as `JUnitCase`s (`write_junit_suite`, `junit_suite_xml`), so every JUnit file keeps the same
rules: counts and times as junit-10.xsd reads them, no `<properties>` in a test case, and no character XML 1.0
cannot hold (a control character a server or a cassette sent, in a tool's name or a message, is written as its
JSON escape, `\u001b`, in behave's completed files too).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Literal
from xml.etree import ElementTree

from mcpbdd.reporting.broken import BEHAVE_ASSERT, BROKEN_WORD
from mcpbdd.reporting.paths import short_paths
from mcpbdd.reporting.verdicts import Verdict

__all__ = ["JUnitCase", "complete_junit", "facts_of", "junit_suite_xml", "write_junit_suite"]

Outcome = Literal["passed", "failed", "broken", "skipped"]

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What XML 1.0 cannot hold, even escaped: most control characters, lone surrogates, U+FFFE and U+FFFF."""


@dataclass(frozen=True)
class JUnitCase:
    """One test case of a JUnit file mcpbdd writes itself (`write_junit_suite`)."""

    classname: str
    name: str
    outcome: Outcome = "passed"
    """failed: a `<failure>` (an expectation unmet); broken: an `<error>` (the set-up or the run is wrong);
    skipped: a `<skipped>` whose message says why."""
    message: str = ""
    """The failure's, error's or skip's message attribute (one line, as a CI tool lists it)."""
    details: str = ""
    """The failure's or error's text: everything the message leaves out."""
    kind: str = ""
    """The failure's or error's `type` (the outcome's word when empty)."""
    time: float = 0.0
    system_out: str = ""
    """What else the case tells (its facts, a warning): junit-10.xsd's place for it in a test case."""


def _xml_safe(text: str) -> str:
    """`text` with each character XML 1.0 cannot hold written as its JSON escape (`\\u001b` for ESC)."""
    return _NOT_XML.sub(lambda found: json.dumps(found.group())[1:-1], text)


def _xml_safe_tree(root: ElementTree.Element) -> None:
    for element in root.iter():
        element.attrib = {key: _xml_safe(value) for key, value in element.attrib.items()}
        element.text = _xml_safe(element.text) if element.text else element.text
        element.tail = _xml_safe(element.tail) if element.tail else element.tail


def _case_element(suite: ElementTree.Element, case: JUnitCase) -> ElementTree.Element:
    """The `<testcase>` of `case`, added to `suite`: the one place a test case mcpbdd writes is built."""
    element = ElementTree.SubElement(
        suite, "testcase", classname=_xml_safe(case.classname), name=_xml_safe(case.name), time=_seconds(case.time)
    )
    if case.outcome in ("failed", "broken"):
        tag = "failure" if case.outcome == "failed" else "error"
        problem = ElementTree.SubElement(element, tag, type=_xml_safe(case.kind or case.outcome))
        problem.set("message", _xml_safe(case.message or case.outcome))
        problem.text = _xml_safe(case.details)
    elif case.outcome == "skipped":
        ElementTree.SubElement(element, "skipped", message=_xml_safe(case.message or "skipped"))
    if case.system_out:
        ElementTree.SubElement(element, "system-out").text = _xml_safe(case.system_out)
    return element


def _suite_element(name: str, cases: Iterable[JUnitCase]) -> ElementTree.Element:
    suite = ElementTree.Element("testsuite", name=_xml_safe(name))
    for case in cases:
        _case_element(suite, case)
    _recount(suite)
    return suite


def junit_suite_xml(name: str, cases: Iterable[JUnitCase]) -> str:
    """A JUnit document of one `<testsuite>` named `name` holding `cases`, counted and timed."""
    return ElementTree.tostring(_suite_element(name, cases), encoding="unicode", xml_declaration=True) + "\n"


def write_junit_suite(path: Path, name: str, cases: Iterable[JUnitCase]) -> Path:
    """Write `junit_suite_xml(name, cases)` to `path` (its folder created); returns `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ElementTree.ElementTree(_suite_element(name, cases)).write(path, encoding="utf-8", xml_declaration=True)
    return path


def facts_of(verdict: Verdict) -> list[tuple[str, str]]:
    """What a scenario's test case tells of it (empty values included: "no tool called" is information)."""
    return [
        ("harness", verdict.harness),
        ("era", verdict.era),
        ("tools", ",".join(verdict.tools)),
        ("tenants", ",".join(verdict.tenants)),
        ("feature_file", f"{verdict.feature}:{verdict.line}"),
    ]


def _prefixes(feature: str) -> tuple[str, ...]:
    """behave's possible JUnit class name prefixes for a feature file: its dotted path, relative to behave's base
    folder (the one holding `steps/`), which may be any tail of the path: `a/features/x.feature` -> `a.features.x.`,
    `features.x.`, `x.`."""
    parts = feature.removesuffix(".feature").replace("\\", "/").strip("/").split("/")
    return tuple(".".join(parts[i:]) + "." for i in range(len(parts)))


def _dotted(feature: str) -> str:
    """The feature file's dotted path as behave names its JUnit file: relative to the folder holding `steps/`."""
    path = Path(feature).resolve()
    for folder in path.parents:
        if (folder / "steps").is_dir():
            return ".".join(path.relative_to(folder).with_suffix("").parts)
    return path.stem


def _folder(root: Path, verdict: Verdict) -> Path:
    """Where a pass's JUnit files are: `--junit DIR`, a sub-folder per pass in a run of several (`mcpbdd.cli.main`)."""
    return root / verdict.column if verdict.column and (root / verdict.column).is_dir() else root


def _suite_file(folder: Path, verdict: Verdict) -> Path:
    """The file of the verdict's feature (a new one when behave wrote none: every scenario of it was skipped)."""
    for path in sorted(folder.glob("TESTS-*.xml")):
        stem = path.stem.removeprefix("TESTS-") + "."
        if stem in _prefixes(verdict.feature):
            return path
    return folder / f"TESTS-{_dotted(verdict.feature)}.xml"


def _read(path: Path, verdict: Verdict) -> ElementTree.Element:
    """The file's `<testsuite>`, or a new one named as behave names a feature's suite."""
    if path.is_file():
        try:
            return ElementTree.parse(path).getroot()
        except ElementTree.ParseError:
            pass
    name = f"{path.stem.removeprefix('TESTS-')}.{verdict.feature_name or Path(verdict.feature).stem}"
    return ElementTree.Element("testsuite", name=name)


def _system_out(case: ElementTree.Element, verdict: Verdict) -> None:
    """The scenario's facts, first in its `system-out` (GitLab and Jenkins show it with the test case)."""
    out = case.find("system-out")
    if out is None:
        out = ElementTree.SubElement(case, "system-out")
    status = case.attrib.pop("status", None) or verdict.status
    facts = "".join(f"{name}: {value}\n" for name, value in [*facts_of(verdict), ("status", status)])
    out.text = facts + (out.text or "")


def _skipped(case: ElementTree.Element, verdict: Verdict) -> None:
    skipped = case.find("skipped")
    if skipped is None:
        skipped = ElementTree.Element("skipped")
        case.insert(0, skipped)
    skipped.set("message", verdict.message or "skipped")


def _broken(case: ElementTree.Element, verdict: Verdict) -> None:
    """A broken scenario (the specification or its set-up is wrong) is an `<error>`, as JUnit names what is not an
    unmet expectation; behave writes a `<failure>` for `mcpbdd.model.errors.Broken`, an AssertionError, and words
    its message `ASSERT FAILED:` where the console says `BROKEN:`."""
    failure = case.find("failure")
    if verdict.kind == "broken" and failure is not None and case.find("error") is None:
        failure.tag = "error"
    error = case.find("error")
    if verdict.kind == "broken" and error is not None:
        error.text = (error.text or "").replace(BEHAVE_ASSERT, BROKEN_WORD)
    for problem in (case.find("failure"), case.find("error")):
        if problem is not None:
            problem.text = short_paths(problem.text or "")


def _undefined(case: ElementTree.Element, verdict: Verdict) -> None:
    """behave's error for an undefined step has no exception to name: say which phrase no step matched."""
    error = case.find("error")
    if error is not None and error.get("type") in (None, "NoneType") and verdict.message:
        error.set("type", "undefined")
        error.set("message", verdict.message)


def _new_case(suite: ElementTree.Element, verdict: Verdict) -> ElementTree.Element:
    """A test case behave did not write: skipped on this pass, or run by a process that died before the file's end."""
    word = verdict.verdict
    problem = word in ("failed", "broken")
    case = JUnitCase(
        suite.get("name", ""),
        verdict.shown,
        outcome="failed" if word == "failed" else "broken" if word == "broken" else "passed",
        message=verdict.message or word if problem else "",
        details=(BROKEN_WORD if word == "broken" else "") + (verdict.message or "") if problem else "",
        kind=word if problem else "",
        time=verdict.duration or 0.0,
    )
    return _case_element(suite, case)


def _recount(suite: ElementTree.Element) -> None:
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    suite.set("errors", str(sum(case.find("error") is not None for case in cases)))
    suite.set("skipped", str(sum(case.find("skipped") is not None for case in cases)))
    for case in cases:
        case.set("time", _seconds(case.get("time")))
    total = sum((Decimal(case.get("time", "0")) for case in cases), Decimal(0))
    suite.set("time", _seconds(max(Decimal(_seconds(suite.get("time"), up=True)), total)))


def _seconds(value: float | str | Decimal | None, *, up: bool = False) -> str:
    """A time as junit-10.xsd reads it: seconds with three decimals, never an exponent (behave writes `5e-06`);
    rounded `up` for a suite, whose time must not fall below the sum of its cases'."""
    try:
        exact = Decimal(str(value or 0))
        return str(exact.quantize(Decimal("0.001"), rounding=ROUND_CEILING if up else ROUND_HALF_EVEN))
    except ArithmeticError:
        return "0.000"


def _suite_properties(suite: ElementTree.Element, verdicts: list[Verdict]) -> None:
    """The pass's harness and era, where junit-10.xsd allows properties: the suite's."""
    for old in suite.findall("properties"):
        suite.remove(old)
    properties = ElementTree.Element("properties")
    for name in ("harness", "era"):
        values = sorted({getattr(v, name) for v in verdicts if getattr(v, name)})
        if values:
            ElementTree.SubElement(properties, "property", name=name, value=", ".join(values))
    if len(properties):
        suite.insert(0, properties)


def complete_junit(root: Path, verdicts: Iterable[Verdict]) -> int:
    """Complete the `TESTS-*.xml` files under `root` from the verdicts; returns how many test cases were completed."""
    by_file: dict[Path, list[Verdict]] = {}
    for verdict in verdicts:
        folder = _folder(root, verdict)
        by_file.setdefault(_suite_file(folder, verdict), []).append(verdict)
    completed = 0
    for path, mine in by_file.items():
        suite = _read(path, mine[0])
        cases = list(suite.iter("testcase"))
        for each in cases:
            for old in each.findall("properties"):
                each.remove(old)
        for verdict in mine:
            prefixes = _prefixes(verdict.feature)
            case: ElementTree.Element | None = next(
                (c for c in cases if c.get("name") == verdict.title and c.get("classname", "").startswith(prefixes)),
                None,
            )
            if case is None:
                case = _new_case(suite, verdict)
            else:
                cases.remove(case)
                case.set("name", verdict.shown)
            if verdict.status in ("skipped", "untested"):
                _skipped(case, verdict)
            _broken(case, verdict)
            _undefined(case, verdict)
            _system_out(case, verdict)
            completed += 1
        _suite_properties(suite, mine)
        _recount(suite)
        _xml_safe_tree(suite)  # a tool's name or a message a server wrote, in a file a CI tool must parse
        path.parent.mkdir(parents=True, exist_ok=True)
        ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
    return completed
