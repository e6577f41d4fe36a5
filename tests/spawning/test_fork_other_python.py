"""A server in another virtual environment is forked too: from a fork server running under ITS interpreter.

The usual layout when a server and its specifications live apart is `/path/venv/bin/python -m my_server`:
not mcpbdd's interpreter. Its fork server must run under that venv's `python`, so each fork sees what a plain
start of the command would: that venv's `sys.prefix`, `sys.executable` and site-packages (a module only it
has), the scenario's environment and directory, its exit codes and stderr, and the variables the interpreter
reads at its start. The second venv here is made cheaply (`venv --without-pip`, plus a `.pth` naming this
venv's site-packages so the SDK imports); the reference servers' venvs run the same way in the conformance
tests.

The in-process tests of how an interpreter is recognised are in tests/test_fork_server.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Stdio
from mcpbdd.harness.processes import spawn
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.model.outcome import Channel

pytestmark = pytest.mark.usefixtures("own_fork_servers")  # its fork servers' own lifetimes

SERVER = '''
import json
import os
import sys

import __main__
import only_in_the_other_venv
from mcp.server.mcpserver import MCPServer

if os.environ.get("CRASH_AT_START"):
    print("fatal: the configuration is missing", file=sys.stderr)
    sys.exit(4)

mcp = MCPServer("elsewhere")


@mcp.tool()
def about() -> str:
    """What this process saw when it started."""
    return json.dumps({"prefix": sys.prefix, "executable": sys.executable, "only": only_in_the_other_venv.WHERE,
                       "parent": os.getppid(), "greeting": os.environ.get("GREETING"), "cwd": os.getcwd(),
                       "path0": sys.path[0], "hash_randomization": sys.flags.hash_randomization})


@mcp.tool()
def crash() -> str:
    """Dies mid-call."""
    print("fatal: the index is corrupt", file=sys.stderr, flush=True)
    os._exit(3)


@mcp.tool()
def main_module() -> str:
    """What the process's `__main__` and argv look like."""
    return json.dumps({"argv": sys.argv, "orig_argv": sys.orig_argv, "file": __main__.__file__,
                       "package": __main__.__package__, "loader": type(__main__.__loader__).__name__,
                       "spec": __main__.__spec__ is None})


if __name__ == "__main__":
    mcp.run("stdio")
'''


@pytest.fixture(scope="module")
def other_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A second virtual environment: its own `python` and a module only it has; the SDK through a `.pth`."""
    venv = tmp_path_factory.mktemp("other") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    assert site.is_dir(), f"no site-packages in {venv}"
    (site / "mcpbdd_test_sdk.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (site / "only_in_the_other_venv.py").write_text('WHERE = "the other venv"\n')
    yield venv
    spawn.stop_all()


@pytest.fixture(scope="module")
def script(other_venv: Path) -> Path:
    folder = other_venv.parent / "srv"
    folder.mkdir()
    path = folder / "server.py"
    path.write_text(SERVER)
    return path


def command_line(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


@pytest.mark.anyio
async def test_a_server_of_another_venv_is_forked_from_a_fork_server_under_that_venv_s_python(
    other_venv: Path, script: Path
) -> None:
    python = other_venv / "bin" / "python"
    assert "only_in_the_other_venv" not in sys.modules and python.resolve() != Path(sys.executable).absolute()
    seen = []
    for value in ("first", "second"):
        stdio = Stdio(f"{python} {script.name}", ProcessOptions(cwd=str(script.parent), extra_env={"GREETING": value}))
        async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
            about = await harness.call_tool(None, "about", {})
        assert about.ok, about.failure
        seen.append(json.loads(about.text))
    parent = seen[0]["parent"]
    # Forked: both scenarios' processes are children of one fork server, which runs under the other venv's python.
    assert seen[1]["parent"] == parent and parent in spawn.fork_server_pids()
    assert command_line(parent)[:2] == [str(python), str(Path(spawn.__file__).with_name("forkserver.py"))]
    # ... and in the other environment, with each scenario's own variables and directory, as a plain start.
    assert {s["prefix"] for s in seen} == {str(other_venv)} and {s["executable"] for s in seen} == {str(python)}
    assert {s["only"] for s in seen} == {"the other venv"}
    assert [s["greeting"] for s in seen] == ["first", "second"]
    assert {(s["cwd"], s["path0"]) for s in seen} == {(str(script.parent), str(script.parent))}


@pytest.mark.anyio
async def test_the_other_venv_s_fork_takes_the_variables_read_at_start_and_reports_exit_codes_and_stderr(
    other_venv: Path, script: Path
) -> None:
    python = other_venv / "bin" / "python"
    seeded = Stdio(f"{python} {script}", ProcessOptions(env={"PYTHONHASHSEED": "0"}))
    async with ClientHarness(seeded, timeout=30, start_timeout=120) as harness:
        about = await harness.call_tool(None, "about", {})
        dead = await harness.call_tool(None, "crash", {})
    assert about.ok, about.failure
    assert json.loads(about.text)["hash_randomization"] == 0  # read at the interpreter's start: its own fork server
    assert command_line(json.loads(about.text)["parent"])[0] == str(python)
    assert dead.channel is Channel.TRANSPORT_FAILURE
    assert "exited with code 3" in (dead.failure or "") and "fatal: the index is corrupt" in (dead.failure or "")

    # the first test's command (a fork server per interpreter, entry point, directory and variables read at start:
    # this one's is already up when that test ran first; a fork server costs ~1 s of CPU at its start)
    broken = Stdio(f"{python} {script.name}", ProcessOptions(cwd=str(script.parent), extra_env={"CRASH_AT_START": "1"}))
    async with ClientHarness(broken, timeout=30, start_timeout=120) as harness:
        with pytest.raises(BaseException):  # noqa: B017 - how a failed start is worded is the harness's business
            await harness.call_tool(None, "about", {})
        deadline = time.monotonic() + 60
        while broken.exit_code() is None and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        diagnosis = broken.diagnose() or ""
    assert "exited with code 4" in diagnosis and "fatal: the configuration is missing" in diagnosis


def test_an_interpreter_that_cannot_run_the_fork_server_starts_plainly_saying_so_once(
    tmp_path: Path, script: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A binary named like Python that is not one the fork server runs on (here `false`, as a Python 2 would
    stop at the script's syntax): the command starts plainly from then on, and the run is told once why."""
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    shutil.copy("/bin/false", fake)  # a copy: a link to a binary named otherwise is a shim, not forked
    argv = [str(fake), str(script)]
    assert spawn.resolve("fork", argv) == "fork"
    assert spawn.fork_server("fork", argv, cwd=None, env={}) is None
    assert spawn.fork_server("fork", argv, cwd=None, env={}) is None
    err = capfd.readouterr().err
    assert err.count("plainly in every scenario") == 1, err
    assert f"the fork server did not start under {fake} (exit code 1)" in err


@pytest.mark.anyio
async def test_a_fork_under_pythonsafepath_keeps_sys_path_as_a_plain_start_does(
    other_venv: Path, script: Path, tmp_path: Path
) -> None:
    """`PYTHONSAFEPATH` (`-P`): the interpreter puts no script folder (no working directory for `-m`) first on
    `sys.path`, so `sys.path[0]` is the first `PYTHONPATH` entry. A fork that set `sys.path[0]` anyway replaced that
    entry with the script's folder: a module the server must not see (a shadow beside it) would import."""
    python = other_venv / "bin" / "python"
    extra = tmp_path / "extra"
    extra.mkdir()
    safe = Stdio(
        f"{python} {script.name}",
        ProcessOptions(cwd=str(script.parent), extra_env={"PYTHONSAFEPATH": "1", "PYTHONPATH": str(extra)}),
    )
    async with ClientHarness(safe, timeout=30, start_timeout=120) as harness:
        about = await harness.call_tool(None, "about", {})
    assert about.ok, about.failure
    seen = json.loads(about.text)
    assert seen["parent"] in spawn.fork_server_pids()  # forked, not started plainly
    assert seen["path0"] == str(extra)


def test_an_interpreter_that_cannot_fork_as_the_fork_server_does_starts_plainly_saying_why_once(
    tmp_path: Path, script: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A Python without `os.pidfd_open` (another implementation, a kernel older than 5.3, a sandbox refusing it;
    here a `.pth` removes it) said `ready` and died at its first fork: every scenario failed where a plain start
    passes. It must say why before `ready`, and the command start plainly."""
    venv = tmp_path / "nopidfd"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    (site / "zz_no_pidfd.pth").write_text("import os; del os.pidfd_open\n")
    argv = [str(venv / "bin" / "python"), str(script)]
    assert spawn.fork_server("fork", argv, cwd=None, env=dict(os.environ)) is None
    assert spawn.fork_server("fork", argv, cwd=None, env=dict(os.environ)) is None
    err = capfd.readouterr().err
    assert err.count("plainly in every scenario") == 1, err
    assert "its Python has no os.pidfd_open, which the fork server needs" in err, err


@pytest.mark.anyio
async def test_a_forked_script_sees_the_argv_and_main_module_a_plain_start_gives_it(
    other_venv: Path, script: Path
) -> None:
    """`python server.py --flag`: `sys.argv[0]` is `server.py` as written (`runpy.run_path` made it the resolved
    path), `__main__.__package__` None (it was ''), `__loader__` a source loader (it was None), and `sys.orig_argv`
    the command (it was the fork server's command line): a server that reads them differed when forked.
    The first test's server and directory: its fork server serves this fork too (the arguments are the request's)."""
    python = other_venv / "bin" / "python"
    seen = {}
    for mode in ("plain", "fork"):
        stdio = Stdio(f"{python} {script.name} --flag", ProcessOptions(cwd=str(script.parent), spawn=mode))
        async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
            result = await harness.call_tool(None, "main_module", {})
        assert result.ok, result.failure
        seen[mode] = json.loads(result.text)
    assert seen["plain"]["argv"] == ["server.py", "--flag"]
    assert seen["fork"] == seen["plain"]


def test_a_program_named_python_that_is_not_one_is_named_in_the_fallback_not_its_output(
    tmp_path: Path, script: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A binary named `python3` that prints something else first (here `echo`, which echoes the fork server's
    command line): the reason given was that line after its first word, the fork server's configuration."""
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    shutil.copy("/bin/echo", fake)
    argv = [str(fake), str(script)]
    assert spawn.fork_server("fork", argv, cwd=None, env={}) is None
    err = capfd.readouterr().err
    assert f"the fork server did not start under {fake}: it printed " in err, err
    assert '"lifeline"' not in err.partition("it printed ")[0], err


USER_SITE_SERVER = """
import json
import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("user-site")


@mcp.tool()
def path() -> str:
    return json.dumps(sys.path)


if __name__ == "__main__":
    mcp.run("stdio")
"""


@pytest.mark.anyio
async def test_a_fork_finds_the_user_site_of_the_scenario_s_home_not_the_run_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interpreter with a user site (a system Python, a venv with system site-packages) puts
    `~/.local/lib/pythonX.Y/site-packages` on `sys.path` at its start, `~` from `HOME`: a scenario that sets `HOME`
    (to keep a server off the user's files) got the run's user site when forked, packages a plain start lacks."""
    venv = tmp_path / "system-site"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True, timeout=120
    )
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    (venv / "lib" / version / "site-packages" / "mcpbdd_test_sdk.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    run_home, scenario_home = tmp_path / "run-home", tmp_path / "scenario-home"
    user_site = run_home / ".local" / "lib" / version / "site-packages"
    user_site.mkdir(parents=True)
    scenario_home.mkdir()
    monkeypatch.setenv("HOME", str(run_home))
    server = tmp_path / "server.py"
    server.write_text(USER_SITE_SERVER)
    stdio = Stdio(f"{venv / 'bin' / 'python'} {server}", ProcessOptions(extra_env={"HOME": str(scenario_home)}))
    async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
        result = await harness.call_tool(None, "path", {})
    assert result.ok, result.failure
    assert spawn.fork_server_pids(), "not forked: the check would pass anyway"
    assert str(user_site) not in json.loads(result.text)
