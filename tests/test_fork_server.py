"""The fork server: a fresh server process per scenario, forked from a warm parent, as real as a plain start.

Real processes and real signals: each test writes a small Python MCP server into its own temporary
folder, so every process of the test (the fork server, whose command line names the server's path,
its forks, the launchers) can be found by that folder in its command line or environment.

The tests of this concern that start processes are in tests/spawning/test_fork_server.py.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest
from conftest import TESTS

from mcpbdd.harness.processes import spawn
from mcpbdd.harness.processes.fork_fitness import OLDEST_PYTHON, too_old
from mcpbdd.harness.processes.forkserver import absolute_imports
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.model.config import Settings

FORK_SERVER_SCRIPTS = ["forkserver.py", "fork_child.py", "fork_pages.py", "fork_fitness.py", "parent_death.py"]

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


@pytest.mark.parametrize("script", FORK_SERVER_SCRIPTS)
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


def test_any_python_interpreter_is_forked_but_a_wrapper_script_or_another_program_is_not(tmp_path: Path) -> None:
    """A server's own venv (`/path/venv/bin/python -m my_server`) is forked under that venv's python; a wrapper
    script named `python` (it may set variables or change the command first) and a program named otherwise
    start plainly. Found as the start would find them: a bare name on the command's `PATH`, a relative path
    from the command's directory."""
    binary = os.path.realpath(sys.executable)
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "python3", "python3.12", "python3.13t", "node"):
        (bin_dir / name).symlink_to(binary)
    wrapper = tmp_path / "shims" / "python"
    wrapper.parent.mkdir()
    wrapper.write_text('#!/bin/sh\nexec python3 "$@"\n')
    wrapper.chmod(0o755)
    not_executable = tmp_path / "data" / "python"
    not_executable.parent.mkdir()
    not_executable.write_bytes(Path(binary).read_bytes()[:64])

    def resolved(program: str, cwd: str | None = None, env: dict[str, str] | None = None) -> str:
        return spawn.resolve("fork", [program, "-m", "my_server"], cwd, env)

    assert [resolved(str(bin_dir / name)) for name in ("python", "python3", "python3.12")] == ["fork"] * 3
    assert resolved(str(bin_dir / "python3.13t")) == resolved(str(bin_dir / "node")) == "plain"
    assert resolved(str(wrapper)) == resolved(str(not_executable)) == resolved(str(tmp_path)) == "plain"
    assert resolved("venv/bin/python", cwd=str(tmp_path)) == "fork"
    assert resolved("venv/bin/python", cwd=str(wrapper.parent)) == "plain"  # no such file there
    assert resolved("python3.12", env={"PATH": str(bin_dir)}) == "fork"
    assert resolved("python", env={"PATH": str(wrapper.parent)}) == "plain"
    assert resolved("python3.12", env={"PATH": str(wrapper.parent)}) == "plain"  # not on the command's PATH
    # The interpreter is the link's path, not its target (the link finds the venv), and a fork server's key.
    env: dict[str, str] = {}
    ours = spawn._entry([sys.executable, "-m", "my_server"], None, env)
    theirs = spawn._entry([str(bin_dir / "python"), "-m", "my_server"], None, env)
    assert ours is not None and theirs is not None and theirs.python == str(bin_dir / "python")
    assert spawn._key(ours, None, env) != spawn._key(theirs, None, env)


def test_the_fork_server_says_why_a_python_older_than_the_sdk_s_cannot_run_it() -> None:
    assert OLDEST_PYTHON == (3, 10)
    assert too_old((3, 10)) is None and too_old((3, 13)) is None
    assert too_old((3, 9)) == "its Python is 3.9, older than 3.10, the oldest the fork server runs on"


@pytest.mark.parametrize("script", FORK_SERVER_SCRIPTS)
def test_the_fork_server_scripts_are_written_for_the_oldest_python_they_run_on(script: str) -> None:
    """They run under the server's interpreter, which may be as old as the SDK allows: no newer syntax."""
    with pytest.raises(SyntaxError):  # the check below can fail: newer syntax is refused
        ast.parse("try:\n    pass\nexcept* ValueError:\n    pass\n", feature_version=OLDEST_PYTHON)
    ast.parse(Path(spawn.__file__).with_name(script).read_text(), feature_version=OLDEST_PYTHON)


def test_a_relative_path_entry_finds_the_interpreter_from_the_command_s_directory(tmp_path: Path) -> None:
    """A `PATH` entry that is not absolute (`venv/bin`) is searched from the command's working directory, where its
    start searches it, not from the run's: else the fork server could run another interpreter than the command,
    or none."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(os.path.realpath(sys.executable))
    env = {"PATH": os.path.join("venv", "bin")}
    assert not (Path.cwd() / "venv" / "bin" / "python").exists()
    entry = spawn._entry(["python", "-m", "my_server"], str(tmp_path), env)
    assert entry is not None and entry.python == str(bin_dir / "python")
    assert spawn._entry(["python", "-m", "my_server"], str(bin_dir.parent), env) is None  # no venv/bin/python there


@pytest.mark.parametrize(
    "options", [["-u"], ["-X", "dev"], ["-I"], ["-E"], ["-P"], ["-W", "error"], ["-B"], ["-Xutf8"], ["-O"]]
)
def test_a_command_with_interpreter_options_starts_plainly_not_forked_without_them(options: list[str]) -> None:
    """A fork runs under the fork server's interpreter flags, so `python -u -m x` forked would lose `-u`."""
    for tail in (["-m", "my_server"], [__file__]):
        assert spawn.resolve("fork", [sys.executable, *tail]) == "fork"  # the check can say fork
        assert spawn.resolve("fork", [sys.executable, *options, *tail]) == "plain"


def test_a_binary_shim_named_python_is_not_forked(tmp_path: Path) -> None:
    """A version manager's shim (mise: `shims/python3` a link to the `mise` binary, which sets the tools' `PATH`
    and the project's variables, then runs the real interpreter) is a binary, not a script, and its link is named
    `python3`: forked, the scenario's process lost what the shim sets. What the link leads to must be named like
    Python too."""
    shim = tmp_path / "bin" / "mise"
    shim.parent.mkdir()
    shim.write_bytes(Path("/bin/true").read_bytes())
    shim.chmod(0o755)
    (tmp_path / "shims").mkdir()
    (tmp_path / "shims" / "python3").symlink_to(shim)
    (tmp_path / "shims" / "python3.11").symlink_to(os.path.realpath(sys.executable))
    assert spawn.resolve("fork", [str(tmp_path / "shims" / "python3.11"), "-m", "my_server"]) == "fork"
    assert spawn.resolve("fork", [str(tmp_path / "shims" / "python3"), "-m", "my_server"]) == "plain"


def test_a_single_start_forks_only_from_a_fork_server_an_owner_shares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`spawn.one_off` (`mcpbdd conformance`'s start check): a fork server of its own for one start costs more than
    the start, so plainly, unless an owner shares its fork servers; a project's "plain" stays plain either way."""
    from mcpbdd.harness.processes import shared_forks

    monkeypatch.delenv(shared_forks.ENV, raising=False)
    assert [spawn.one_off(mode) for mode in spawn.SPAWN_MODES] == ["plain"] * 4
    (tmp_path / "owner").write_text(str(os.getpid()), encoding="utf-8")  # this process offers them
    monkeypatch.setenv(shared_forks.ENV, str(tmp_path))
    assert [spawn.one_off(mode) for mode in spawn.SPAWN_MODES] == ["auto", "fork", "plain", "plain"]
