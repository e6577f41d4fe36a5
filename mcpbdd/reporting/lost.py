"""Lost scenarios in the reports: broken, each named, in Allure, JUnit and Cucumber Messages.

A scenario is lost when the behave process running it ended before it reported a verdict
(`mcpbdd.runner.lost` finds them). Nothing of it reached the reports its process writes, so
`mcpbdd run` writes, for each one:

- an Allure result, status *broken*, whose message says the process ended before the scenario
  reported, with the process's exit code and the last lines of its output as the trace; its
  names and history id are the ones the scenario's own result would have had;
- a JUnit test case with an `<error>`, in a file of its own per pass (`TESTS-mcpbdd-lost.xml`);
- a Cucumber Messages test case whose first step failed with that message
  (`mcpbdd.reporting.messages.lost_case_envelopes`), merged into the run's stream.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from allure_commons.utils import md5

from mcpbdd.reporting.junit import JUnitCase, write_junit_suite

__all__ = ["LostScenario", "write_lost_allure", "write_lost_junit"]


@dataclass(frozen=True)
class LostScenario:
    """A planned scenario no verdict came for, and what is known of the process that ended before it."""

    feature: str
    line: int
    title: str
    """Its name as behave would have reported it (with the harness suffix)."""
    feature_name: str
    harness: str
    """The harness as reports name it (`context`, `client, legacy`; '' when the settings could not be read)."""
    column: str
    """The pass that was to run it (`context`, `client.legacy`, ...; '' for the configured harness)."""
    message: str
    returncode: int | None
    output_tail: str
    """The last lines the process wrote (its stdout and stderr)."""
    display: str = ""
    """Its one name (`mcpbdd.reporting.names`: an Outline row by its values), as every report writes it."""

    @property
    def shown(self) -> str:
        return self.display or self.title

    @property
    def location(self) -> str:
        return f"{self.feature}:{self.line}"

    def details(self) -> str:
        """The message with the process's exit code and the end of its output: what every report says."""
        ended = f"exit code {self.returncode}" if self.returncode is not None else "no exit code"
        tail = f"; its last output:\n{self.output_tail}" if self.output_tail else ""
        return f"{self.message} ({ended}){tail}"


def write_lost_allure(lost: Sequence[LostScenario], results: Path, *, since: float = 0.0) -> int:
    """One broken Allure result per lost scenario in `results`; how many were written.

    A result the dying process wrote for the same scenario since `since` (allure-behave reports a
    scenario a `SystemExit` ended as skipped) is replaced: the scenario has one verdict, broken.
    """
    results.mkdir(parents=True, exist_ok=True)
    now = int(time.time() * 1000)
    history = {_history_id(scenario): scenario for scenario in lost}
    for path in results.glob("*-result.json"):
        try:
            if path.stat().st_mtime >= since and json.loads(path.read_text("utf-8")).get("historyId") in history:
                path.unlink()
        except (OSError, ValueError):
            continue
    for history_id, scenario in history.items():
        case = scenario.title.rsplit(" -- ")[0]
        full_name = f"{scenario.feature_name}: {case}"
        parameters = [{"name": "harness", "value": scenario.harness}] if scenario.harness else []
        result = {
            "uuid": str(uuid.uuid4()),
            "historyId": history_id,
            "testCaseId": md5(full_name),
            "name": scenario.shown,
            "fullName": full_name,
            "status": "broken",
            "statusDetails": {"message": scenario.details(), "trace": scenario.output_tail},
            "start": now,
            "stop": now,
            "labels": [
                {"name": "severity", "value": "normal"},
                {"name": "feature", "value": scenario.feature_name},
                {"name": "suite", "value": scenario.feature_name},
                {"name": "framework", "value": "behave"},
                {"name": "language", "value": "python"},
                *([{"name": "harness", "value": scenario.harness}] if scenario.harness else []),
            ],
            "parameters": parameters,
            "links": [],
            "description": f"planned at {scenario.location}",
        }
        path = results / f"{result['uuid']}-result.json"
        path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return len(lost)


def _history_id(scenario: LostScenario) -> str:
    """The history id the scenario's own result would have had (`AllureFormatter`: feature, rule, name, parameters)."""
    parameters = [f"harness={scenario.harness}"] if scenario.harness else []
    history_id: str = md5(scenario.feature_name, "", scenario.title, *parameters)
    return history_id


def write_lost_junit(lost: Sequence[LostScenario], folder: Path) -> Path | None:
    """The lost scenarios of one pass as JUnit test cases with an error, in `folder/TESTS-mcpbdd-lost.xml`."""
    if not lost:
        return None
    cases = [
        JUnitCase(
            f"{_dotted(scenario.feature)}.{scenario.feature_name}",
            scenario.shown,
            outcome="broken",
            message=scenario.message,
            details=scenario.details(),
            kind="LostScenario",
        )
        for scenario in lost
    ]
    return write_junit_suite(folder / "TESTS-mcpbdd-lost.xml", "mcpbdd.lost", cases)


def _dotted(feature: str) -> str:
    return feature.removesuffix(".feature").replace("\\", "/").strip("/").replace("/", ".")
