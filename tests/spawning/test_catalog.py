"""`mcpbdd catalog`: declared failures per tool, joined with the scenarios that specify them.

These tests start processes; the in-process tests of this concern are in tests/test_catalog.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import warm_python

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_prints_markdown_and_refuses_a_missing_server(tmp_path: Path) -> None:
    ok = warm_python.run([sys.executable, "-m", "mcpbdd.cli.main", "catalog"], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("# Error catalog")
    missing = warm_python.run(
        [sys.executable, "-m", "mcpbdd.cli.main", "catalog"], cwd=tmp_path, capture_output=True, text=True
    )
    assert missing.returncode == 2 and "no server" in missing.stdout


def test_json_lists_each_failure_with_its_scenarios_and_strict_fails_on_a_gap(tmp_path: Path) -> None:
    def catalog_cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "mcpbdd.cli.main", "catalog", *args]
        return warm_python.run(command, cwd=ROOT, capture_output=True, text=True)

    full = catalog_cli("--json", "--strict")
    assert full.returncode == 0, full.stderr  # every failure the example declares has a scenario
    data = json.loads(full.stdout)
    [exists] = data["tools"]["create_note"]
    lines = (ROOT / "features" / "notes.feature").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "A new note never replaces an existing one" in text)
    assert exists["reason"] == "note_exists" and f"features/notes.feature:{line}" in " ".join(exists["scenarios"])
    assert "list_notes" in data["without_contract"]
    (tmp_path / "empty.feature").write_text("Feature: nothing yet\n  Scenario: no errors\n    Then the call succeeds\n")
    gaps = catalog_cli("--strict", str(tmp_path))
    assert gaps.returncode == 1 and gaps.stdout.startswith("# Error catalog")
    assert "no scenario specifies the declared failure get_note:note_not_found" in gaps.stderr


def test_the_command_imports_the_project_server_from_the_folder_it_runs_in(tmp_path: Path) -> None:
    """As behave, init and run do: a project's `clinic.server:mcp` needs no PYTHONPATH."""
    (tmp_path / "clinic").mkdir()
    (tmp_path / "clinic" / "__init__.py").write_text("")
    (tmp_path / "clinic" / "server.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer('clinic')\n\n\n"
        "@mcp.tool()\ndef book(slot: str) -> str:\n    return slot\n"
    )
    (tmp_path / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "clinic.server:mcp"\n')
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    command = Path(sys.executable).parent / "mcpbdd"
    run = warm_python.run([str(command), "catalog"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("# Error catalog") and "book" in run.stdout
