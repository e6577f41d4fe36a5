"""Expected failures in the report files: skipped with the reason and the file that lists them, never failed.

An expected-failures file (`mcpbdd conformance --expected-failures FILE`) turns a known failure into an
expected one: the command exits 0 and its Markdown says "expected failure". The run's own files were
written before the file was applied, so each said *failed*: a CI job that reads the JUnit went red while
the command passed. `mark_expected` rewrites them, so every file tells the same verdict:

- JUnit: the `<failure>` (or `<error>`) becomes `<skipped message="expected failure (...)">`, the failure's
  text kept in the element; the suite's counts follow;
- Allure: status *skipped* (Allure has no expected-failure status; skipped is its nearest), the message
  `expected failure (unknown-resource, listed in known.yml): <the failure>`, the trace kept, and a tag
  `expected-failure` to filter on;
- Cucumber Messages: the failed step *skipped* with the same message (Cucumber has no such status either),
  and the run's `testRunFinished.success` true when nothing else failed.

A scenario is found by its check (`check_of` its name: the conformance pack names each scenario after
its check, `unknown-resource: ...`) and the protocol era its pass spoke.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

__all__ = ["EXPECTED_TAG", "expected_reason", "mark_expected"]

EXPECTED_TAG = "expected-failure"
"""The Allure tag of a result turned into an expected failure."""

Expected = Mapping[tuple[str, str], str]
"""(check, era) -> the entry of the expected-failures file that expects it (`unknown-resource@2025-11-25`)."""


def expected_reason(entry: str, listed_in: Path | str, message: str) -> str:
    """What every file says of an expected failure: which entry of which file expects it, then the failure."""
    head = f"expected failure ({entry}, listed in {listed_in})"
    return f"{head}: {message}" if message else head


def mark_expected(
    expected: Expected,
    listed_in: Path | str,
    *,
    check_of: Callable[[str], str],
    junit: Mapping[str, Path] | None = None,
    results: Path | None = None,
    streams: Mapping[str, Path] | None = None,
) -> int:
    """Rewrite the run's files so that each expected failure is skipped with its reason; how many were rewritten.

    `junit` and `streams` map an era to its pass's JUnit folder and Cucumber Messages stream; `results` is the
    Allure results folder (a result's era is its `era` label).
    """
    if not expected:
        return 0
    done = 0
    for era, folder in (junit or {}).items():
        for path in sorted(folder.glob("*.xml")):
            done += _junit(path, era, expected, listed_in, check_of)
    if results is not None:
        for path in sorted(results.glob("*-result.json")):
            done += _allure(path, expected, listed_in, check_of)
    for era, stream in (streams or {}).items():
        if stream.is_file():
            done += _messages(stream, era, expected, listed_in, check_of)
    return done


def _junit(path: Path, era: str, expected: Expected, listed_in: Path | str, check_of: Callable[[str], str]) -> int:
    root = ElementTree.parse(path).getroot()
    changed = 0
    for suite in [root] if root.tag == "testsuite" else list(root.iter("testsuite")):
        for case in suite.iter("testcase"):
            entry = expected.get((check_of(case.get("name", "")), era))
            problem = case.find("failure") if case.find("failure") is not None else case.find("error")
            if entry is None or problem is None:
                continue
            message = expected_reason(entry, listed_in, problem.get("message") or "")
            skipped = ElementTree.Element("skipped", message=message, type=EXPECTED_TAG)
            skipped.text = problem.text
            case.insert(list(case).index(problem), skipped)
            case.remove(problem)
            changed += 1
        if changed:
            cases = list(suite.iter("testcase"))
            for tag, attribute in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
                suite.set(attribute, str(sum(case.find(tag) is not None for case in cases)))
    if changed:
        ElementTree.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return changed


def _allure(path: Path, expected: Expected, listed_in: Path | str, check_of: Callable[[str], str]) -> int:
    result = json.loads(path.read_text(encoding="utf-8"))
    era = next((label.get("value") for label in result.get("labels", []) if label.get("name") == "era"), None)
    entry = expected.get((check_of(str(result.get("name", ""))), str(era)))
    if entry is None or result.get("status") not in ("failed", "broken"):
        return 0
    details = result.setdefault("statusDetails", {})
    details["message"] = expected_reason(entry, listed_in, str(details.get("message", "")))
    result["status"] = "skipped"
    result.setdefault("labels", []).append({"name": "tag", "value": EXPECTED_TAG})
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return 1


def _messages(stream: Path, era: str, expected: Expected, listed_in: Path | str, check_of: Callable[[str], str]) -> int:
    envelopes = [json.loads(line) for line in stream.read_text(encoding="utf-8").splitlines() if line.strip()]
    pickles = {e["pickle"]["id"]: e["pickle"]["name"] for e in envelopes if "pickle" in e}
    cases = {e["testCase"]["id"]: e["testCase"]["pickleId"] for e in envelopes if "testCase" in e}
    started = {
        e["testCaseStarted"]["id"]: cases.get(e["testCaseStarted"]["testCaseId"], "")
        for e in envelopes
        if "testCaseStarted" in e
    }
    changed = 0
    for item in _finished_steps(envelopes):
        entry = expected.get((check_of(pickles.get(started.get(item["testCaseStartedId"], ""), "")), era))
        result = item["testStepResult"]
        if entry is None or result.get("status") != "FAILED":
            continue
        result["status"] = "SKIPPED"
        result["message"] = expected_reason(entry, listed_in, str(result.get("message", "")))
        result.pop("exception", None)
        changed += 1
    if changed:
        still_failed = any(item["testStepResult"].get("status") == "FAILED" for item in _finished_steps(envelopes))
        for item in envelopes:
            if "testRunFinished" in item and not still_failed:
                item["testRunFinished"]["success"] = True
        text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in envelopes)
        stream.write_text(text, encoding="utf-8")
    return changed


def _finished_steps(envelopes: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    return (item["testStepFinished"] for item in envelopes if "testStepFinished" in item)
