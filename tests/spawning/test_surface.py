"""Tool-surface snapshots: every kind of difference classed and named, and when a snapshot may be written.

These tests start processes; the in-process tests of this concern are in tests/test_surface.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import warm_python
from test_surface import BASE, changed  # shared with the in-process half

ROOT = Path(__file__).resolve().parents[2]


# the command and a project's run --------------------------------------------------------------------------


def _mcpbdd(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(cwd), **env}
    return warm_python.run(
        [sys.executable, "-m", "mcpbdd.cli.main", *args], cwd=cwd, env=environment, capture_output=True, text=True
    )


def _diff(capsys: pytest.CaptureFixture[str], old: Path, new: Path) -> subprocess.CompletedProcess[str]:
    """`mcpbdd surface diff OLD NEW` by the command's public `main`, here: it compares two files and starts nothing,
    so a Python start-up of its own (~1 s of CPU) would check nothing more."""
    from mcpbdd.cli.main import main

    capsys.readouterr()
    code = main(["surface", "diff", str(old), str(new)])
    printed = capsys.readouterr()
    return subprocess.CompletedProcess(["mcpbdd", "surface", "diff"], code, printed.out, printed.err)


def test_dump_writes_what_the_committed_snapshot_holds_and_diff_exits_by_breakage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dumped = tmp_path / "now.json"
    assert _mcpbdd("surface", "dump", "-o", str(dumped)).returncode == 0
    committed = ROOT / "features" / "snapshots" / "notes-tools.json"
    now, recorded = json.loads(dumped.read_text()), json.loads(committed.read_text())
    assert now["tools"] == recorded["tools"]  # and the pins match (the committed ones record their approvals too)
    assert {name: pin["sha256"] for name, pin in now["pins"].items()} == {
        name: pin["sha256"] for name, pin in recorded["pins"].items()
    }
    same = _diff(capsys, committed, dumped)
    assert (same.returncode, same.stdout.strip().endswith("no difference")) == (0, True), same.stdout
    grown, shrunk = tmp_path / "grown.json", tmp_path / "shrunk.json"
    grown.write_text(json.dumps(changed(lambda t: t.update(archive={"inputSchema": {}}))))
    shrunk.write_text(json.dumps(changed(lambda t: t.pop("get_note"))))
    base = tmp_path / "base.json"
    base.write_text(json.dumps(BASE))
    added = _diff(capsys, base, grown)
    assert added.returncode == 0 and "0 breaking, 1 not breaking" in added.stdout
    removed = _diff(capsys, base, shrunk)
    assert removed.returncode == 1 and "BREAKING: get_note $: the tool was removed" in removed.stdout
    unreadable = _diff(capsys, base, tmp_path / "missing.json")
    assert unreadable.returncode == 2 and "missing.json" in unreadable.stderr


SERVER = """
from typing import Literal
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("exports")

@mcp.tool()
def export_notes(format: Literal[{formats}]) -> str:
    \"\"\"Export the notes.\"\"\"
    return format
"""


def _project(root: Path, formats: str) -> None:
    (root / "features" / "steps").mkdir(parents=True, exist_ok=True)
    (root / "features" / "steps" / "mcpbdd_steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (root / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (root / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "exports:mcp"\n')
    (root / "exports.py").write_text(textwrap.dedent(SERVER).format(formats=formats))
    step = 'Then the server\'s tools match the snapshot "snapshots/tools.json"'
    (root / "features" / "surface.feature").write_text(f"Feature: surface\n  Scenario: the tools\n    {step}\n")


def test_a_project_run_refuses_to_record_in_ci_writes_on_request_and_names_a_breaking_change(tmp_path: Path) -> None:
    _project(tmp_path, '"markdown", "json"')
    snapshot = tmp_path / "snapshots" / "tools.json"
    refused = _mcpbdd("run", "--no-junit", "-f", "plain", cwd=tmp_path, CI="true")
    assert refused.returncode == 1 and "it is never written" in refused.stdout, refused.stdout + refused.stderr
    assert not snapshot.exists()
    written = _mcpbdd("run", "--no-junit", "--update-snapshots", cwd=tmp_path, CI="true")
    assert written.returncode == 0 and snapshot.exists(), written.stdout
    _project(tmp_path, '"markdown"')  # the server drops a format
    broken = _mcpbdd("run", "--no-junit", "-f", "plain", cwd=tmp_path, CI="true")
    assert broken.returncode == 1
    assert (
        'BREAKING: export_notes $.inputSchema.properties.format.enum: the value "json" was dropped' in broken.stdout
    ), broken.stdout
