"""A server that cannot start stops the run once, clearly.

Each case is a real run in a subprocess against a small project in a temporary folder: a
target whose module does not import (or raises while importing), a command that does not
exist, a process that exits before its first answer (over stdio and over `http:`). Every
message names the target, the command, the exit code and the end of stderr; none is a
Python traceback. A target that cannot load at all stops `mcpbdd run` before the first
scenario (exit 2, one message) and a plain behave run after the first scenario.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import behave_process
import pytest
import warm_python
from behave_process import ROOT

FEATURE = """\
Feature: Notes
  Scenario: the first scenario
    Given the user "alice" of tenant "acme"
    When the client calls "list_notes"
    Then the call succeeds

  Scenario: the second scenario
    Given the user "alice" of tenant "acme"
    When the client calls "list_notes"
    Then the call succeeds
"""

EXITS_AT_ONCE = """\
import sys
print("notes server: no licence key in NOTES_LICENCE", file=sys.stderr)
sys.exit(3)
"""

RAISES_ON_IMPORT = """\
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("broken")
LIMIT = undefined_setting + 1
"""

LIFESPAN_RAISES = """\
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer


@asynccontextmanager
async def lifespan(server):
    raise RuntimeError("the database is not reachable")
    yield


mcp = MCPServer("notes", lifespan=lifespan)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project as `mcpbdd init` lays it out, with two scenarios, a server that raises on import and one that exits."""
    (tmp_path / "features").mkdir()
    (tmp_path / "features" / "notes.feature").write_text(FEATURE)
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "mcpbdd_steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (tmp_path / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (tmp_path / "raises_on_import.py").write_text(RAISES_ON_IMPORT)
    (tmp_path / "exits_at_once.py").write_text(EXITS_AT_ONCE)
    (tmp_path / "lifespan_raises.py").write_text(LIFESPAN_RAISES)
    return tmp_path


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return warm_python.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=300)


def mcpbdd_run(project: Path, server: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mcpbdd.cli.main", "run", "-f", "plain", "-D", f"mcpbdd.server={server}"]
    return run(project, *command, "-D", "mcpbdd.harness=client", *args)


def behave(project: Path, server: str, harness: str = "client") -> subprocess.CompletedProcess[str]:
    """Plain behave in `project` against `server` (only the repository importable, besides the project)."""
    options = ("-f", "plain", "-D", f"mcpbdd.server={server}", "-D", f"mcpbdd.harness={harness}")
    return behave_process.behave(*options, cwd=project, importable=[ROOT])


# targets that cannot load at all: mcpbdd run stops before the first scenario -----------------------------------


@pytest.mark.parametrize(
    ("server", "why"),
    [
        ("no_such_module:mcp", "cannot import 'no_such_module': No module named 'no_such_module'"),
        (
            "raises_on_import:mcp",
            "cannot import 'raises_on_import': NameError: name 'undefined_setting' is not defined",
        ),
        ("stdio: nosuchcommand --serve", "there is no command 'nosuchcommand' on the PATH"),
        ("http: ./bin/notes-server --port {port}", "there is no program './bin/notes-server'"),
    ],
)
def test_mcpbdd_run_stops_before_the_first_scenario_with_one_message(project: Path, server: str, why: str) -> None:
    done = mcpbdd_run(project, server)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == f'mcpbdd run: the server "{server}" cannot start: {why}' + (
        " (at " + str(project / "raises_on_import.py") + ", line 4)\n" if "NameError" in why else "\n"
    )
    assert "Scenario" not in done.stdout and "Traceback" not in done.stdout + done.stderr
    assert not list((project / "reports" / "allure-results").glob("*-result.json"))


def test_plain_behave_fails_the_first_scenario_with_the_reason_and_stops(project: Path) -> None:
    done = behave(project, "no_such_module:mcp")
    output = done.stdout + done.stderr
    assert done.returncode == 1
    message = "The server \"no_such_module:mcp\" cannot start: cannot import 'no_such_module'"
    assert f"ASSERT FAILED: {message}" in output
    assert f"mcpbdd: stopping the run, no scenario can pass: {message}" in output
    assert "the second scenario" not in output, "the run stops after the first scenario"
    assert "1 failed" in output and "Traceback" not in output


def test_a_server_a_scenario_names_itself_stops_only_that_scenario(project: Path) -> None:
    (project / "features" / "notes.feature").write_text(
        FEATURE.replace(
            "  Scenario: the first scenario\n",
            '  Scenario: the first scenario\n    Given the MCP server "no_such_module:mcp"\n',
        )
    )
    done = behave(project, "mcpbdd.examples.notes:mcp")
    output = done.stdout + done.stderr
    assert "1 scenario passed, 1 failed" in output, output
    assert "Traceback" not in output


# a process that ends before its first answer: each scenario fails, naming how it ended --------------------------


@pytest.mark.parametrize(
    ("server", "how"),
    [
        ("stdio: {python} exits_at_once.py", "it ended before its first answer (MCPError: Connection closed); "),
        ("http: {python} exits_at_once.py --port {port}", "the http server process ended before it listened; "),
    ],
)
def test_a_process_that_ends_before_its_first_answer_is_named_with_its_exit_code_and_stderr(
    project: Path, server: str, how: str
) -> None:
    done = mcpbdd_run(project, server)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    command = f"{sys.executable} exits_at_once.py" + (" --port {port}" if server.startswith("http") else "")
    message = (
        f'The server "{server}" (command: {command}) cannot start: {how}the server process exited with code 3; '
        "the end of its stderr:\nnotes server: no licence key in NOTES_LICENCE"
    )
    assert output.count(message) == 2, output  # both scenarios, the same way
    assert "Traceback" not in output and "ExceptionGroup" not in output


@pytest.mark.parametrize("harness", ["context", "client"])
def test_a_lifespan_that_raises_is_a_server_that_cannot_start_on_either_harness(project: Path, harness: str) -> None:
    done = behave(project, "lifespan_raises:mcp", harness)
    output = done.stdout + done.stderr
    where = f"RuntimeError: the database is not reachable (at {project / 'lifespan_raises.py'}, line 8)"
    assert output.count('The server "lifespan_raises:mcp" cannot start: ') == 2, output
    assert where in output and "Traceback" not in output
