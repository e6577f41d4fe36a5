"""Running a feature that is meant to fail, in a behave subprocess, and checking each scenario's message.

behave's `main()` leaks step definitions when called twice in one process, so every run is a
subprocess. Each scenario of such a feature must fail, and its failing step's message must
contain the expected fragments: that is how every assertion step is shown to fail when it should.
Several features that can share their options run in one behave process (as a user's run of a
folder does); its JSON report names each feature's file, so each feature's results are read apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from behave_passes import BehavePass
from behave_process import CONCURRENT, ROOT, behave

__all__ = [
    "ROOT",
    "FailingRun",
    "FailingRuns",
    "FailingRunsOfPasses",
    "assert_each_scenario_fails_with",
    "assert_failure_says",
    "assert_only_these_failed",
    "assert_scenarios_failed_with",
    "behave",
    "failure_messages",
    "failure_messages_by_feature",
    "run_failing",
    "run_failing_together",
]


def failure_messages(report: list[dict[str, Any]]) -> dict[str, str]:
    """Scenario name (without the harness suffix) -> the error message of its failing step."""
    messages: dict[str, str] = {}
    for feature in report:
        for element in feature.get("elements", []):
            name = element["name"].rsplit(" [", 1)[0]
            for step in element.get("steps", []):
                result = step.get("result", {})
                if result.get("status") in ("failed", "error"):
                    message = result.get("error_message", "")
                    messages[name] = "\n".join(message) if isinstance(message, list) else message
    return messages


def failure_messages_by_feature(report: list[dict[str, Any]]) -> dict[Path, dict[str, str]]:
    """Feature file (resolved) -> `failure_messages` of its scenarios, for a report of several features."""
    by_feature: dict[Path, list[dict[str, Any]]] = {}
    for feature in report:
        by_feature.setdefault(_feature_file(feature["location"].rsplit(":", 1)[0]), []).append(feature)
    return {path: failure_messages(features) for path, features in by_feature.items()}


def _feature_file(path: str) -> Path:
    """A feature file as a test names it (relative to the repository) or behave's report does, resolved."""
    return (ROOT / path).resolve()


@dataclass(frozen=True)
class FailingRun:
    """One behave run of a feature meant to fail: its exit status, its output, and each failed scenario's message."""

    returncode: int
    output: str
    messages: dict[str, str]


def run_failing(feature: str, options: Sequence[str], report_file: Path) -> FailingRun:
    """behave over `feature` with `options`, its JSON report written to `report_file` and read back."""
    return run_failing_together([feature], options, report_file)[feature]


def run_failing_together(features: Sequence[str], options: Sequence[str], report_file: Path) -> dict[str, FailingRun]:
    """One behave process over `features` with `options`, its JSON report written to `report_file`: each feature's
    run (the process's exit status and output, the messages of that feature's scenarios only)."""
    run = behave(*features, *options, "--no-capture", "--format", "json", "--outfile", str(report_file))
    report = json.loads(report_file.read_text()) if report_file.exists() else []
    by_feature = failure_messages_by_feature(report)
    output = run.stdout + run.stderr
    return {
        feature: FailingRun(run.returncode, output, by_feature.get(_feature_file(feature), {})) for feature in features
    }


RunKey = tuple[tuple[str, ...], tuple[str, ...]]
"""The features and the behave options of one run of them."""


class FailingRuns:
    """Runs of features meant to fail, each made once however many tests read it; `start` begins runs side by side.

    Runs begun together go `CONCURRENT` at a time (tests/behave_process.py: they mostly wait, so they overlap well).
    Each run is its own behave process with its own report; a run of several features (`together`) is one process
    (one start-up, not one per feature) whose report is read feature by feature, so what one feature shows is not
    mixed with another's.
    """

    def __init__(self, report_file: Callable[[str], Path]) -> None:
        self._report_file = report_file
        self._runs: dict[RunKey, Future[dict[str, FailingRun]]] = {}
        self._pool = ThreadPoolExecutor(max_workers=CONCURRENT, thread_name_prefix="failing-run")

    def start(self, feature: str, options: Sequence[str]) -> None:
        """Begin the run of `feature` with `options` (unless it has begun) without waiting for it."""
        self.start_together([feature], options)

    def start_together(self, features: Sequence[str], options: Sequence[str]) -> None:
        """Begin one run of all `features` with `options` (unless it has begun) without waiting for it."""
        key = (tuple(features), tuple(options))
        assert len(set(key[0])) == len(key[0]), f"a feature named twice in one run: {features}"
        if key not in self._runs:
            report = self._report_file(Path(features[0]).stem) / "report.json"
            self._runs[key] = self._pool.submit(run_failing_together, key[0], key[1], report)

    def __call__(self, feature: str, options: Sequence[str]) -> FailingRun:
        """The run of `feature` with `options`, begun now if no one began it, once it has ended."""
        return self.together([feature], options)[feature]

    def together(self, features: Sequence[str], options: Sequence[str]) -> dict[str, FailingRun]:
        """The one run of all `features` with `options` (begun now if no one began it), feature by feature, once it
        has ended."""
        self.start_together(features, options)
        return self._runs[(tuple(features), tuple(options))].result()

    def close(self) -> None:
        """Wait for every begun run to end (none is left running after the tests that read them)."""
        self._pool.shutdown(wait=True)


class FailingRunsOfPasses:
    """`FailingRuns` of a feature on a pass of `make features`, with options of its own after the pass's."""

    def __init__(self, runs: FailingRuns) -> None:
        self._runs = runs

    def start(self, feature: str, behave_pass: BehavePass, options: Sequence[str] = ()) -> None:
        """Begin the run without waiting for it."""
        self._runs.start(feature, [*behave_pass.options, *options])

    def __call__(self, feature: str, behave_pass: BehavePass, options: Sequence[str] = ()) -> FailingRun:
        """The run, once it has ended."""
        return self._runs(feature, [*behave_pass.options, *options])

    def start_together(self, features: Sequence[str], behave_pass: BehavePass, options: Sequence[str] = ()) -> None:
        """Begin one run of all `features` without waiting for it."""
        self._runs.start_together(features, [*behave_pass.options, *options])

    def together(
        self, features: Sequence[str], behave_pass: BehavePass, options: Sequence[str] = ()
    ) -> dict[str, FailingRun]:
        """The one run of all `features`, feature by feature, once it has ended."""
        return self._runs.together(features, [*behave_pass.options, *options])


def assert_each_scenario_fails_with(
    feature: str, expected: Mapping[str, Sequence[str]], options: Sequence[str], report_file: Path
) -> dict[str, str]:
    """Run `feature`; every scenario must fail (only those named), each message holding its fragments."""
    return assert_scenarios_failed_with(run_failing(feature, options, report_file), expected)


def assert_scenarios_failed_with(run: FailingRun, expected: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Every scenario of `run` failed (only those named), each message holding its fragments; the messages."""
    assert_only_these_failed(run, expected)
    for scenario, fragments in expected.items():
        assert_failure_says(run, scenario, fragments)
    return run.messages


def assert_only_these_failed(run: FailingRun, expected: Mapping[str, Sequence[str]]) -> None:
    """The behave run failed, and exactly the scenarios `expected` names failed (a test of its own per feature)."""
    assert run.returncode == 1, run.output
    assert sorted(run.messages) == sorted(expected), (
        f"every scenario of the feature must fail, and only those:\n{run.output}"
    )


def assert_failure_says(run: FailingRun, scenario: str, fragments: Sequence[str]) -> None:
    """`scenario`'s failure message holds every fragment (a test of its own per row of a table)."""
    message = run.messages.get(scenario, "")
    for fragment in fragments:
        assert fragment in message, f"{scenario!r}: {fragment!r} not in:\n{message}"
