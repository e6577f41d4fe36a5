"""`mcpbdd diff OLD NEW` names what changed between two real runs, read from any of the files a run writes.

Two runs of one small project (module fixture): the second has one scenario broken on purpose (it
calls a tool that crashes), one fixed, one whose doc string is no longer JSON. The diff of their Allure
results, of their JUnit folders and of their Cucumber Messages streams must name exactly those.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path

import pytest
from processes import mcpbdd_run
from small_projects import report_options, small_project

from mcpbdd.cli.main import main
from mcpbdd.reporting.diff import diff_runs
from mcpbdd.reporting.runs import Scenario

CALL = '    When the client calls "{tool}"\n    Then the call succeeds\n'
DOC = (
    '    When the client calls "whoami"\n    Then the structured result contains:\n      """\n      {body}\n      """\n'
)
NOBODY = '{"subject": null}'
OLD = (
    "Feature: notes\n"
    f"  Scenario: stays green\n{CALL.format(tool='report')}"
    f"  Scenario: breaks on purpose\n{CALL.format(tool='report')}"
    f"  Scenario: gets fixed\n{CALL.format(tool='crash')}"
    f"  Scenario: its doc string goes wrong\n{DOC.format(body=NOBODY)}"
)
NEW = (
    OLD.replace(f"breaks on purpose\n{CALL.format(tool='report')}", f"breaks on purpose\n{CALL.format(tool='crash')}")
    .replace(f"gets fixed\n{CALL.format(tool='crash')}", f"gets fixed\n{CALL.format(tool='report')}")
    .replace(DOC.format(body=NOBODY), DOC.format(body='{"subject": '))
)


def _project(folder: Path, feature: str) -> Path:
    small_project(folder, {"notes.feature": feature})
    reports = folder / "reports"
    options = report_options(reports, allure="allure-results", cucumber_json=False)
    done = mcpbdd_run(*options, "features", cwd=folder)
    assert done.returncode == 1, done.stdout + done.stderr
    return reports


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _project(tmp_path_factory.mktemp("old"), OLD), _project(tmp_path_factory.mktemp("new"), NEW)


def _diff(old: Path, new: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`mcpbdd diff` in this process (it starts none): its exit status and output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", str(old), str(new), *options])
    return subprocess.CompletedProcess([], code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("kept", ["allure-results", "junit", "messages.ndjson"])
def test_the_diff_names_exactly_the_scenario_broken_on_purpose_in_every_format(
    runs: tuple[Path, Path], kept: str
) -> None:
    old, new = runs
    done = _diff(old / kept, new / kept, "--format", "json", "--slower", "60")
    assert done.returncode == 0, done.stderr
    lists = {
        key: [change["name"] for change in value]
        for key, value in json.loads(done.stdout).items()
        if isinstance(value, list)
    }
    assert lists == {
        "new_failures": ["breaks on purpose [context harness]"],
        "newly_broken": ["its doc string goes wrong [context harness]"],
        "still_failing": [],
        "fixed": ["gets fixed [context harness]"],
        "newly_skipped": [],
        "slower": [],
        "added": [],
        "removed": [],
    }, kept


def test_text_and_markdown_name_the_lists_and_fail_on_new_gates(runs: tuple[Path, Path]) -> None:
    old, new = runs
    text = _diff(old / "junit", new / "allure-results").stdout
    assert "new failures (1):\n  breaks on purpose [context harness]: passed -> failed" in text
    markdown = _diff(old / "junit", new / "junit", "--format", "markdown").stdout
    assert "### New failures (1)" in markdown and "- **breaks on purpose \\[context harness\\]**" in markdown
    assert _diff(old / "junit", new / "junit", "--fail-on-new").returncode == 1
    assert _diff(new / "junit", new / "junit", "--fail-on-new").returncode == 0
    missing = _diff(old / "nothing-here", new / "junit")
    assert missing.returncode == 2 and "no scenario in" in missing.stderr


def test_newly_skipped_slower_added_and_removed() -> None:
    old = {n: Scenario(n, v, s) for n, v, s in [("a", "passed", 1.0), ("b", "passed", 1.0), ("gone", "passed", 0.0)]}
    new = {n: Scenario(n, v, s) for n, v, s in [("a", "skipped", 0.0), ("b", "passed", 2.5), ("new", "passed", 0.0)]}
    diff = diff_runs(old, new, slower_than=1.0, old_name="old", new_name="new")
    names = {key: [c.name for c in changes] for key, changes in diff.lists.items() if changes}
    assert names == {"newly_skipped": ["a"], "slower": ["b"], "added": ["new"], "removed": ["gone"]}
    assert diff_runs(old, new, slower_than=1.5, old_name="o", new_name="n").lists["slower"] == []
