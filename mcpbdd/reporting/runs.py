"""A finished run read back from any of its files: each scenario's verdict and duration, by its one name.

`mcpbdd diff` compares two runs that may have been kept in different forms (a CI job keeps its
JUnit, another its Allure results or Cucumber Messages). Every format writes a scenario under the
same name (`mcpbdd.reporting.names`: `Who the caller is -- user=alice [client harness]`) and the
same verdict word (`mcpbdd.reporting.broken`), so a run read from any of them is the same map:

- an Allure results folder (`*-result.json`): the result's status (`unknown` reads as broken);
- JUnit XML, a file or a folder of them (searched below it, `TESTS-*.xml` and any `*.xml`): `<failure>` is
  failed, `<error>` broken, `<skipped>` skipped, none passed;
- Cucumber Messages (`.ndjson`, or the per-pass streams beside the name `mcpbdd run --messages` was
  given): a test case's worst step (`case_verdicts`).

A folder holding `allure-results/` or `junit/` (a `reports/` folder) is read through them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mcpbdd.reporting.broken import BEHAVE_ASSERT

__all__ = ["Scenario", "case_verdicts", "read_run"]

VERDICTS = ("passed", "failed", "broken", "skipped")
_RANK = {"passed": 0, "skipped": 1, "failed": 2, "broken": 3}


@dataclass(frozen=True)
class Scenario:
    """One scenario of a run (on one pass): its one name, its verdict word and how long it took."""

    name: str
    verdict: str
    """passed | failed | broken | skipped"""
    seconds: float = 0.0
    message: str = ""


def read_run(path: Path) -> dict[str, Scenario]:
    """The scenarios of the run kept at `path`, by name (ValueError saying what was expected when it holds none)."""
    found: list[Scenario]
    if path.is_dir():
        if any(path.glob("*-result.json")):
            found = list(_allure(path))
        elif (path / "allure-results").is_dir():
            return read_run(path / "allure-results")
        elif any(path.rglob("*.xml")):
            found = [s for xml in sorted(path.rglob("*.xml")) for s in _junit(xml)]
        else:
            found = []
    elif path.suffix == ".xml" and path.is_file():
        found = list(_junit(path))
    elif path.suffix == ".ndjson":
        streams = [path] if path.is_file() else sorted(path.parent.glob(f"{path.stem}.*{path.suffix}"))
        found = [s for stream in streams for s in case_verdicts(_envelopes(stream))]
    else:
        found = []
    if not found:
        raise ValueError(
            f"no scenario in {path}: give an Allure results folder, a JUnit XML file or folder, or a Cucumber "
            "Messages stream (.ndjson) that `mcpbdd run` wrote"
        )
    return {scenario.name: scenario for scenario in found}


def _allure(folder: Path) -> Iterable[Scenario]:
    for path in sorted(folder.glob("*-result.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if result.get("historyId") == "mcpbdd-parity-matrix":
            continue  # the run's parity matrix, not a scenario
        status = str(result.get("status", "unknown"))
        seconds = max(0, int(result.get("stop", 0) or 0) - int(result.get("start", 0) or 0)) / 1000
        message = str((result.get("statusDetails") or {}).get("message", ""))
        yield Scenario(str(result.get("name", "")), status if status in VERDICTS else "broken", seconds, message)


def _junit(path: Path) -> Iterable[Scenario]:
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return
    for case in root.iter("testcase"):
        verdict, message = "passed", ""
        for tag, word in (("failure", "failed"), ("error", "broken"), ("skipped", "skipped")):
            element = case.find(tag)
            if element is not None:
                verdict, message = word, element.get("message") or ""
                break
        try:
            seconds = float(case.get("time") or 0)
        except ValueError:
            seconds = 0.0
        yield Scenario(case.get("name", ""), verdict, seconds, message)


def _envelopes(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _seconds(stamp: dict[str, Any] | None) -> float:
    return int((stamp or {}).get("seconds", 0)) + int((stamp or {}).get("nanos", 0)) / 1e9


def case_verdicts(envelopes: Iterable[dict[str, Any]]) -> list[Scenario]:
    """Each test case of a Cucumber Messages stream as a scenario: its pickle's name and its worst step's verdict
    (a failed step fails it when its message is an unmet expectation's, `ASSERT FAILED:`, and breaks it otherwise:
    `BROKEN:`, an error, a failed hook; Cucumber has no broken status)."""
    names: dict[str, str] = {}
    pickles: dict[str, str] = {}
    hooks: set[str] = set()
    cases: dict[str, dict[str, Any]] = {}
    for item in envelopes:
        if "pickle" in item:
            names[item["pickle"]["id"]] = item["pickle"]["name"]
        elif "testCase" in item:
            pickles[item["testCase"]["id"]] = item["testCase"]["pickleId"]
            hooks.update(step["id"] for step in item["testCase"]["testSteps"] if step.get("hookId"))
        elif "testCaseStarted" in item:
            started = item["testCaseStarted"]
            name = names.get(pickles.get(started["testCaseId"], ""), "")
            cases[started["id"]] = {"name": name, "verdict": "passed", "start": _seconds(started["timestamp"])}
            cases[started["id"]].update(stop=cases[started["id"]]["start"], message="")
        elif "testStepFinished" in item:
            finished = item["testStepFinished"]
            case = cases.get(finished["testCaseStartedId"])
            if case is not None:
                word = _step_word(finished["testStepResult"], finished["testStepId"] in hooks)
                if _RANK[word] > _RANK[case["verdict"]]:
                    case["verdict"], case["message"] = word, str(finished["testStepResult"].get("message", ""))
        elif "testCaseFinished" in item:
            finished = item["testCaseFinished"]
            if finished["testCaseStartedId"] in cases:
                cases[finished["testCaseStartedId"]]["stop"] = _seconds(finished["timestamp"])
    return [
        Scenario(case["name"], case["verdict"], max(0.0, case["stop"] - case["start"]), case["message"])
        for case in cases.values()
    ]


def _step_word(result: dict[str, Any], hook: bool) -> str:
    status = str(result.get("status", ""))
    if status in ("FAILED", "UNDEFINED", "AMBIGUOUS", "PENDING"):
        expectation = status == "FAILED" and not hook and str(result.get("message", "")).startswith(BEHAVE_ASSERT)
        return "failed" if expectation else "broken"
    return "skipped" if status == "SKIPPED" else "passed"
