"""The fork server: a fresh server process per scenario, forked from a warm parent, as real as a plain start.

Real processes and real signals: each test writes a small Python MCP server into its own temporary
folder, so every process of the test (the fork server, whose command line names the server's path,
its forks, the launchers) can be found by that folder in its command line or environment.

The tests of this concern that start processes are in tests/spawning/test_fork_server.py.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from conftest import TESTS

from mcpbdd.harness.processes import spawn
from mcpbdd.harness.processes.forkserver import absolute_imports
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.model.config import Settings

ROOT = TESTS.parent


@pytest.mark.parametrize("feature", ["over_stdio.feature", "failure_paths.feature", "over_http.feature"])
def test_the_example_servers_processes_are_forked_by_default(feature: str) -> None:
    """`make test` runs the example's process features with the fork server because it is the default."""
    text = (ROOT / "features" / feature).read_text()
    named = text.split('Given the MCP server "', 1)[1].split('"', 1)[0]
    target = ServerTarget.parse(named)
    assert target.kind in ("stdio", "http-command")
    argv = [sys.executable if part == "{python}" else part for part in target.spec.split()]
    assert spawn.resolve(Settings().spawn, argv, str(ROOT)) == "fork"


@pytest.mark.parametrize("script", ["forkserver.py", "fork_child.py", "fork_pages.py", "parent_death.py"])
def test_the_fork_server_imports_only_the_standard_library(script: str) -> None:
    """Whatever the fork server imports, every server it forks inherits: nothing of mcpbdd, nothing installed."""
    source = Path(spawn.__file__).with_name(script)
    imported = {name.split(".")[0] for name in absolute_imports(ast.parse(source.read_text()))}
    assert imported and imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_a_plain_start_of_mcpbdd_s_own_is_not_announced(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The official suite's bridge starts plainly: `mcpbdd conformance` printed a spawn line nobody had chosen."""
    monkeypatch.setattr(spawn, "_announced", False)
    argv = [sys.executable, "-m", "mcpbdd.record.bridge", "--port", "1"]
    assert spawn.prepare("plain", argv, cwd=None, env={}) == argv
    assert capfd.readouterr().err == ""
    spawn.announce("plain")  # what the project's own choice still prints, once: the capture sees it
    assert capfd.readouterr().err == "mcpbdd: server processes start with spawn = plain\n"
