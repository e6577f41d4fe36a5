"""Coverage measured from the run: what is left unexercised shows, the gate fails both ways.

That two shards and two jobs merge to exactly the serial run's coverage is checked on the split runs of
tests/spawning/test_parallel.py (one set of runs for both concerns). These tests start processes; the in-process
tests of this concern are in tests/test_coverage.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import warm_python

from mcpbdd.checks.coverage import merge
from mcpbdd.checks.coverage_summary import summarise

ROOT = Path(__file__).resolve().parents[2]

SERVER = '''
from typing import Literal
from mcp.server.mcpserver import MCPServer
from mcpbdd.kit.errors import ErrorContract, Failure

mcp = MCPServer("exports")
EXPORT = ErrorContract(
    "export",
    Failure("too_large", "Too many notes.", hint="Export fewer."),
    Failure("locked", "The notebook is locked.", hint="Unlock it."),
    Failure("never_seen", "Never happens here."),
)

@mcp.tool()
def export(format: Literal["markdown", "json"], draft: bool = False, size: int = 1):
    """Export the notes."""
    if size > 10:
        return EXPORT.fail("too_large")
    if size < 0:
        return EXPORT.fail("locked")
    return f"{format} {draft}"

@mcp.tool()
def archive(note_id: str) -> str:
    """Archive a note: no scenario calls it."""
    return note_id

@mcp.resource("exports://{name}")
def an_export(name: str) -> str:
    return name

@mcp.prompt()
def summarise(tag: str) -> str:
    return tag
'''

FEATURE = """
Feature: exports
  Scenario: export as markdown, a draft
    When the client calls "export" with {"format": "markdown", "draft": true}
    Then the call succeeds

  Scenario: too large an export is refused
    When the client calls "export" with {"format": "markdown", "size": 11}
    Then the error reason is "too_large"

  Scenario: a locked notebook, seen but never asserted
    When the client calls "export" with {"format": "markdown", "size": -1}
    Then the call fails with a tool error

  Scenario: read an export
    When the client reads the resource "exports://weekly"
    Then the call succeeds
"""


def _project(root: Path) -> Path:
    (root / "features" / "steps").mkdir(parents=True)
    (root / "features" / "steps" / "mcpbdd_steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (root / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (root / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "exports:mcp"\n')
    (root / "exports.py").write_text(textwrap.dedent(SERVER))
    (root / "features" / "exports.feature").write_text(textwrap.dedent(FEATURE))
    return root


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    command = [sys.executable, "-m", "mcpbdd.cli.main", *args]
    return warm_python.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _project(tmp_path_factory.mktemp("exports"))
    run = _run("run", "--no-junit", "-f", "progress", cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mcpbdd: coverage in " in run.stdout
    return root


def _coverage(root: Path) -> dict[str, Any]:
    coverage: dict[str, Any] = json.loads((root / "reports" / "coverage.json").read_text())["harnesses"]["context"]
    return coverage


def test_what_no_scenario_exercises_shows_as_uncovered(project: Path) -> None:
    section = _coverage(project)
    assert section["scenarios"] == 4
    export, archive = section["tools"]["export"], section["tools"]["archive"]
    assert export["calls"] == {"ok": 1, "tool-error": 2} and archive["calls"] == {}
    assert export["scenarios"] == [
        "features/exports.feature:11 a locked notebook, seen but never asserted",
        "features/exports.feature:3 export as markdown, a draft",
        "features/exports.feature:7 too large an export is refused",
    ]
    assert export["values"] == {"draft": {"false": 0, "true": 1}, "format": {'"json"': 0, '"markdown"': 3}}
    assert section["failures"]["export"] == {
        "locked": {"asserted": 0, "declared": True, "observed": 1, "scenarios": []},
        "never_seen": {"asserted": 0, "declared": True, "observed": 0, "scenarios": []},
        "too_large": {
            "asserted": 1,
            "declared": True,
            "observed": 1,
            "scenarios": ["features/exports.feature:7 too large an export is refused"],
        },
    }
    tallies = summarise({"harnesses": {"context": section}})["context"]
    assert (tallies["tools"].covered, tallies["tools"].offered, tallies["tools"].uncovered) == (1, 2, ["archive"])
    assert tallies["templates"].uncovered == [] and tallies["templates"].offered == 1
    assert tallies["prompts"].uncovered == ["summarise"]
    assert tallies["arguments"].uncovered == ["archive.note_id", "summarise.tag"]  # a prompt's argument too
    assert tallies["values"].uncovered == ["export.draft=false", 'export.format="json"']
    assert tallies["failures"].uncovered == ["export:locked", "export:never_seen"]


def test_the_summary_is_markdown_and_the_gate_fails_both_ways(project: Path) -> None:
    shown = _run("coverage", cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "| tools | 1 | 2 | 50% | `archive` |" in shown.stdout
    assert "| failures | 1 | 3 | 33% | `export:locked`, `export:never_seen` |" in shown.stdout
    assert _run("coverage", "--fail-under", "40", cwd=project).returncode == 0
    low = _run("coverage", "--fail-under", "40", "--fail-under", "tools=100", cwd=project)
    assert low.returncode == 1 and "context: tools 50.0% (1/2) is below 100%" in low.stderr
    total = _run("coverage", "--fail-under", "90", cwd=project)
    assert total.returncode == 1 and "context: total" in total.stderr
    assert _run("coverage", "--fail-under", "resources=10", cwd=project).returncode == 1  # nothing offered
    machine = json.loads(_run("coverage", "--json", cwd=project).stdout)
    assert machine["context"]["tools"] == {"covered": 1, "offered": 2, "percent": 50.0, "uncovered": ["archive"]}
    missing = _run("coverage", "nowhere.json", "--fail-under", "10", cwd=project)
    assert missing.returncode == 2 and "no coverage file: nowhere.json" in missing.stderr
    assert _run("coverage", "--fail-under", "tool=10", cwd=project).returncode == 2  # a misspelt kind


def test_the_allure_results_show_the_totals(project: Path) -> None:
    environment = (project / "reports" / "allure-results" / "environment.properties").read_text()
    assert "coverage.context.tools = 1/2 (50%)" in environment


def test_a_merged_report_renders_from_copies_carrying_the_merged_totals(project: Path, tmp_path: Path) -> None:
    from mcpbdd.reporting.coverage_environment import ENVIRONMENT_FILE, with_coverage

    results = project / "reports" / "allure-results"
    before = {path.name: path.read_bytes() for path in results.iterdir()}
    other = json.loads((project / "reports" / "coverage.json").read_text())  # another shard: it called archive
    other["harnesses"]["context"]["tools"]["archive"]["calls"] = {"ok": 1}
    document = merge([json.loads((project / "reports" / "coverage.json").read_text()), other])
    copies = with_coverage([results, results], document, tmp_path)
    assert len(copies) == 2 and all(copy.parent == tmp_path for copy in copies)
    for copy in copies:
        environment = (copy / ENVIRONMENT_FILE).read_text()
        assert "coverage.context.tools = 2/2 (100%)" in environment and "1/2 (50%)" not in environment
        assert "mcpbdd.spawn = " in environment, "the entries other than coverage are kept"
        assert {path.name for path in copy.iterdir()} == set(before)
    assert {path.name: path.read_bytes() for path in results.iterdir()} == before, "the input is not touched"


def test_report_names_a_missing_or_unreadable_coverage_file(project: Path) -> None:
    missing = _run("report", "--coverage", "nowhere.json", cwd=project)
    assert missing.returncode == 2 and "mcpbdd report: no coverage file: nowhere.json" in missing.stderr
    bad = _run("report", "--coverage", "pyproject.toml", cwd=project)
    assert bad.returncode == 2 and "mcpbdd report: pyproject.toml: not valid JSON" in bad.stderr, bad.stderr


def test_plain_behave_writes_coverage_and_an_empty_setting_writes_none(tmp_path: Path) -> None:
    root = _project(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(root)}
    behave = [sys.executable, "-m", "behave", "-f", "progress"]
    warm_python.run([*behave, "-D", "mcpbdd.coverage_file=out/c.json"], cwd=root, env=env, check=True, timeout=300)
    assert json.loads((root / "out" / "c.json").read_text())["harnesses"]["context"]["scenarios"] == 4
    warm_python.run([*behave, "-D", "mcpbdd.coverage_file="], cwd=root, env=env, check=True, timeout=300)
    assert not (root / "reports" / "coverage.json").exists()
