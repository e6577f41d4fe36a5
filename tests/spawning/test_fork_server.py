"""The fork server: a fresh server process per scenario, forked from a warm parent, as real as a plain start.

Real processes and real signals: each test writes a small Python MCP server into its own temporary
folder, so every process of the test (the fork server, whose command line names the server's path,
its forks, the launchers) can be found by that folder in its command line or environment.

These tests start processes; the in-process tests of this concern are in tests/test_fork_server.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import TESTS
from processes import MARKER_ENV, alive, is_standby, processes_marked, standbys
from processes import wait_until as wait_for

from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Stdio
from mcpbdd.harness.processes import spawn
from mcpbdd.harness.processes.http_process import HttpProcess
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.model.outcome import Channel

pytestmark = pytest.mark.usefixtures("own_fork_servers")  # its fork servers' own lifetimes


@pytest.fixture(autouse=True)
def _stop_fork_servers() -> Iterator[None]:
    """Each test's fork servers end with the test (as a run's end with the run), not with the test session."""
    yield
    spawn.stop_all()


ROOT = TESTS.parent

SERVER = '''
import resource

FAULTS_AT_IMPORT = resource.getrusage(resource.RUSAGE_SELF).ru_minflt

import ast
import json
import os
import signal
import sys
import time

from mcp.server.mcpserver import MCPServer

import settings  # a sibling module: it reads the environment at import time too

GREETING = os.environ.get("GREETING", "unset")
if os.environ.get("CRASH_AT_START"):
    print("fatal: the configuration is missing", file=sys.stderr)
    sys.exit(4)

mcp = MCPServer("forked")


@mcp.tool()
def about() -> str:
    """What this process saw when it started."""
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - FAULTS_AT_IMPORT
    return json.dumps({"greeting": GREETING, "sibling": settings.VALUE, "parent": os.getppid(), "name": __name__,
                       "argv": sys.argv, "cwd": os.getcwd(), "pid": os.getpid(), "faults": faults})


@mcp.tool()
def leave_a_daemon() -> str:
    """A leak on purpose: a process forked (no exec) that leaves the server's process group and ignores SIGTERM."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        time.sleep(600)
        os._exit(0)
    return str(pid)


@mcp.tool()
def crash() -> str:
    """Dies mid-call."""
    print("fatal: the index is corrupt", file=sys.stderr, flush=True)
    os._exit(3)


@mcp.tool()
def hang() -> str:
    """Says it started, then never answers."""
    open(os.environ["HANG_STARTED"], "w").close()
    time.sleep(600)
    return "never"


if __name__ == "__main__":
    mcp.run("stdio")
    if os.environ.get("LINGER_AFTER_EOF"):
        time.sleep(600)  # a server that does not end when its stdin closes: only a signal ends it
    if os.environ.get("ENDED_FILE"):
        time.sleep(0.5)  # a server that takes a moment to end after its stdin closes, then says it ended
        open(os.environ["ENDED_FILE"], "w").close()
'''


def write_server(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.py").write_text('import os\n\nVALUE = os.environ.get("SIBLING", "unset")\n')
    script = folder / "server.py"
    script.write_text(SERVER)
    return script


def processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line or environment holds `text` (a fork shares its parent's command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            seen = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if text.encode() in seen and "State:\tZ" not in status:
            found.append(int(entry.name))
    return found


def is_fork_server(pid: int) -> bool:
    """Whether `pid` runs the fork server's command line (a fork server, or a fork of one)."""
    return b"forkserver.py" in Path(f"/proc/{pid}/cmdline").read_bytes()


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


@pytest.mark.anyio
async def test_each_fork_sees_its_scenarios_environment_at_import_time(tmp_path: Path) -> None:
    script = write_server(tmp_path / "srv")
    seen = []
    for value in ("first", "second"):
        stdio = Stdio(
            f"{{python}} {script} --flag",
            ProcessOptions(cwd=str(tmp_path), extra_env={"GREETING": value, "SIBLING": f"{value}!"}),
        )
        async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
            about = await harness.call_tool(None, "about", {})
        assert about.ok, about.failure
        seen.append(json.loads(about.text))
    assert [(s["greeting"], s["sibling"]) for s in seen] == [("first", "first!"), ("second", "second!")]
    assert seen[0]["parent"] == seen[1]["parent"] and is_fork_server(seen[0]["parent"])
    assert seen[0]["name"] == "__main__"
    assert seen[0]["argv"] == [str(script), "--flag"] and seen[0]["cwd"] == str(tmp_path)


@pytest.mark.anyio
async def test_the_process_count_finds_forks_and_what_they_leave_where_the_marker_cannot(tmp_path: Path) -> None:
    """The leak checks of the suite (`processes_marked`) must see forked servers, or their greens would lie."""
    script = write_server(tmp_path / "srv")
    marker = uuid.uuid4().hex
    stdio = Stdio(f"{{python}} {script}", ProcessOptions(extra_env={MARKER_ENV: marker}))
    async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
        about = await harness.call_tool(None, "about", {})
        assert about.ok, about.failure
        fork = json.loads(about.text)["pid"]
        assert is_fork_server(json.loads(about.text)["parent"])
        # The scenario's environment is the fork's os.environ, but not what /proc shows of it: no marker there.
        assert marker.encode() not in Path(f"/proc/{fork}/environ").read_bytes()
        assert fork in processes_marked(marker)
        left = await harness.call_tool(None, "leave_a_daemon", {})
        assert left.ok, left.failure
        daemon = int(left.text)
    try:
        # The fork has stopped with the scenario; its daemon has not, and is still found (adopted by this
        # process, the subreaper, rather than by init).
        assert fork not in processes_marked(marker)
        assert processes_marked(marker) == [daemon]
        assert marker.encode() not in Path(f"/proc/{daemon}/environ").read_bytes()
        assert parent_of(daemon) == os.getpid()
    finally:
        os.kill(daemon, signal.SIGKILL)
        os.waitpid(daemon, 0)  # this process adopted it, so it reaps it
    assert processes_marked(marker) == []


@pytest.mark.anyio
async def test_a_forked_http_server_is_gone_when_its_stop_returns() -> None:
    """`HttpProcess` stops its process with SIGTERM and waits for it: the launcher passes the signal on and
    waits for the fork, so the server (its port, its files) is gone when the stop returns, as after a plain start."""
    marker = uuid.uuid4().hex
    command = "{python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    process = HttpProcess(command, ProcessOptions(extra_env={MARKER_ENV: marker}), start_timeout=120)
    async with ClientHarness(process, timeout=30) as harness:
        assert await harness.list_tools(None)
        forked = [pid for pid in processes_marked(marker) if is_fork_server(pid)]  # the fork: its command line
        assert len(forked) == 1 and is_fork_server(parent_of(forked[0]))
    assert processes_marked(marker) == []
    assert process.exit_code() is not None


@pytest.mark.anyio
async def test_a_fork_that_crashes_at_start_is_reported_and_the_next_one_starts(tmp_path: Path) -> None:
    script = write_server(tmp_path / "srv")
    broken = Stdio(f"{{python}} {script}", ProcessOptions(extra_env={"CRASH_AT_START": "1"}))
    async with ClientHarness(broken, timeout=30, start_timeout=120) as harness:
        # How a failed start is worded is the client harness's business; here: what is known about the process.
        with pytest.raises(BaseException):  # noqa: B017
            await harness.call_tool(None, "about", {})
        deadline = time.monotonic() + 60
        while broken.exit_code() is None and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        diagnosis = broken.diagnose() or ""
    assert "exited with code 4" in diagnosis
    assert "fatal: the configuration is missing" in diagnosis

    healthy = Stdio(f"{{python}} {script}", ProcessOptions(extra_env={"GREETING": "again"}))
    async with ClientHarness(healthy, timeout=30, start_timeout=120) as harness:
        about = await harness.call_tool(None, "about", {})
        dead = await harness.call_tool(None, "crash", {})
    assert about.ok and json.loads(about.text)["greeting"] == "again"
    assert is_fork_server(json.loads(about.text)["parent"])
    assert dead.channel is Channel.TRANSPORT_FAILURE
    assert "exited with code 3" in (dead.failure or "") and "fatal: the index is corrupt" in (dead.failure or "")


@pytest.mark.anyio
async def test_a_dependency_that_starts_a_thread_at_import_falls_back_to_plain_starts_saying_so_once(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    script = write_server(tmp_path / "srv")
    library = tmp_path / "lib"
    library.mkdir()
    (library / "threaded_dep.py").write_text(
        "import threading, time\n\n"
        "threading.Thread(target=time.sleep, args=(600,), name='poller', daemon=True).start()\n"
    )
    script.write_text(script.read_text().replace("import settings", "import settings\nimport threaded_dep"))
    parents = []
    for _ in range(2):
        stdio = Stdio(f"{{python}} {script}", ProcessOptions(env={"PYTHONPATH": str(library)}))
        async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
            about = await harness.call_tool(None, "about", {})
        assert about.ok, about.failure
        parents.append(json.loads(about.text)["parent"])
    err = capfd.readouterr().err
    assert err.count("plainly in every scenario") == 1, err
    assert "started threads (poller)" in err
    assert not any(is_fork_server(parent) for parent in parents if Path(f"/proc/{parent}").exists())


FORKED_WORKER = """
import os, sys
from pathlib import Path
from mcpbdd.harness.processes import spawn

argv = [sys.executable, sys.argv[1]]
first = spawn.prepare("fork", argv, cwd=None, env=os.environ)
pid = os.fork()  # as `mcpbdd run --jobs` forks its workers
if pid == 0:
    second = spawn.prepare("fork", argv, cwd=None, env=os.environ)
    own = second[4] != first[4] and Path(second[4]).exists()
    spawn.stop_all()
    os._exit(0 if own else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), Path(first[4]).exists(), len(spawn.fork_server_pids()))
"""


def test_a_forked_worker_starts_its_own_fork_server_and_stopping_it_leaves_its_parents_alone(tmp_path: Path) -> None:
    script = write_server(tmp_path / "srv")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", FORKED_WORKER, str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.stdout.split() == ["0", "True", "1"], run.stdout + run.stderr
    assert wait_until(lambda: processes_mentioning(str(tmp_path)) == [], 30), "a fork server outlived its process"


# -- whole runs: no process is left behind, whatever way the run ends --------------------------------------------


FEATURE = """Feature: forked servers
  Scenario: a call that passes
    When the client calls "about"
    Then the call succeeds

  Scenario: a check that fails
    When the client calls "about"
    Then the result mentions "something the server never says"

  Scenario: a server that crashes
    When the client calls "crash"
    Then the call succeeds
"""


def project(tmp_path: Path, feature: str, spawn: str | None = None) -> tuple[Path, list[str]]:
    """A behave project running `feature` against the test server, its processes started with `spawn`
    (the default setting, `auto`, when None)."""
    script = write_server(tmp_path / "srv")
    features = tmp_path / "features"
    (features / "steps").mkdir(parents=True)
    (features / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (features / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (features / "forked.feature").write_text(feature)
    command = [
        sys.executable,
        "-m",
        "behave",
        str(features),
        "--format",
        "plain",
        "--no-capture",
        "-D",
        "mcpbdd.harness=client",
        "-D",
        "mcpbdd.timeout=60",
        "-D",
        "mcpbdd.start_timeout=120",
        "-D",
        f"mcpbdd.server=stdio: {{python}} {script}",
        *(["-D", f"mcpbdd.spawn={spawn}"] if spawn else []),
    ]
    return script, command


def wait_until(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return bool(condition())  # type: ignore[operator]


def interrupt_hanging_run(
    command: list[str],
    cwd: Path,
    env: dict[str, str],
    started: Path,
    signum: signal.Signals,
    ready: Callable[[list[int]], object],
) -> None:
    """Run `command` until its call hangs (`started` exists) and `ready()` holds, send `signum`, and wait until no
    process mentioning `cwd` is left (what each test then checks on top is its own)."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert wait_until(started.exists, 300), "the server never started the call"

        def servers() -> list[int]:
            return [pid for pid in processes_mentioning(str(cwd)) if pid != process.pid]

        assert wait_until(lambda: ready(servers()), 120), servers()
        process.send_signal(signum)
        process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert wait_until(lambda: processes_mentioning(str(cwd)) == [], 60), processes_mentioning(str(cwd))


def test_a_run_with_a_pass_a_failure_and_a_crash_leaves_no_process(tmp_path: Path) -> None:
    _script, command = project(tmp_path, FEATURE)
    marker = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(ROOT), MARKER_ENV: marker}
    run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert "1 scenario passed, 2 failed" in run.stdout, run.stdout + run.stderr
    assert "exited with code 3" in run.stdout
    assert "spawn = " not in run.stderr  # the default (auto), which is not announced
    assert processes_mentioning(str(tmp_path)) == []
    assert processes_marked(marker) == []  # as the other process checks count


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_an_interrupted_or_terminated_run_leaves_no_process(tmp_path: Path, signum: signal.Signals) -> None:
    """Also a killed run (SIGKILL, nothing of it runs): its fork server sees its lifeline close and stops."""
    started = tmp_path / "hang-started"
    hang = 'Feature: hang\n  Scenario: a call that never ends\n    When the client calls "hang"\n'
    _script, command = project(tmp_path, hang)
    marker = uuid.uuid4().hex
    (tmp_path / "tmp").mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HANG_STARTED": str(started),
        MARKER_ENV: marker,
        "TMPDIR": str(tmp_path / "tmp"),
    }
    forked = lambda servers: any(is_fork_server(pid) for pid in servers)  # noqa: E731
    # The fork server stops its forks (SIGTERM, SIGKILL after a grace period) once the run is gone.
    interrupt_hanging_run(command, tmp_path, env, started, signum, ready=forked)
    assert wait_until(lambda: processes_marked(marker) == [], 30), processes_marked(marker)
    assert list((tmp_path / "tmp").glob("mcpbdd-fork-*")) == []  # the fork server's folder went with it


@pytest.mark.anyio
async def test_one_fork_server_runs_each_command_of_a_module_with_its_own_arguments(tmp_path: Path) -> None:
    """A fork server is per entry point, not per command line: each fork gets the arguments of the command it
    stands for (a stdio and a started-HTTP command of one module share one fork server, for instance)."""
    script = write_server(tmp_path / "srv")
    seen = []
    for flag in ("--first", "--second"):
        stdio = Stdio(f"{{python}} {script} {flag}", ProcessOptions(cwd=str(tmp_path)))
        async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
            about = await harness.call_tool(None, "about", {})
        assert about.ok, about.failure
        seen.append(json.loads(about.text))
    assert seen[0]["parent"] == seen[1]["parent"] and is_fork_server(seen[0]["parent"])
    assert [s["argv"] for s in seen] == [[str(script), "--first"], [str(script), "--second"]]


@pytest.mark.anyio
async def test_the_next_fork_waits_as_a_named_standby_and_ends_with_its_fork_server(tmp_path: Path) -> None:
    """The fork for the next request is made ahead (`mcpbdd-standby` in `ps`); it is the run's own, like the
    fork server: a standby that dies is replaced, and stopping the fork server ends its standby."""
    script = write_server(tmp_path / "srv")

    async def about() -> dict[str, object]:
        async with ClientHarness(Stdio(f"{{python}} {script}"), timeout=30, start_timeout=120) as harness:
            seen = await harness.call_tool(None, "about", {})
            assert seen.ok, seen.failure
            found: dict[str, Any] = json.loads(seen.text)
            assert not is_standby(found["pid"])  # once it took its request it is the server, named as one
            return found

    first = await about()
    server = first["parent"]
    assert isinstance(server, int) and is_fork_server(server)
    standby = wait_for(lambda: standbys(server), 30, "a standby")
    assert len(standby) == 1 and standby[0] not in processes_marked("no marker: forks only")
    os.kill(standby[0], signal.SIGKILL)
    wait_for(lambda: not alive(standby[0]), 30, "the standby to die")
    second = await about()  # a standby killed while waiting is replaced, and the request still served
    assert second["parent"] == server
    replacement = wait_for(lambda: standbys(server), 30, "a new standby")
    assert replacement and replacement != standby
    spawn.stop_all()
    wait_for(lambda: not any(alive(pid) for pid in replacement), 30, "the standby to end with its fork server")


@pytest.mark.anyio
async def test_a_fork_server_killed_under_the_run_fails_no_later_scenario(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A fork server that ends while the run goes on (killed by hand, by the OOM killer) is replaced, saying so,
    instead of failing every scenario after it."""
    script = write_server(tmp_path / "srv")

    async def parent() -> int:
        async with ClientHarness(Stdio(f"{{python}} {script}"), timeout=30, start_timeout=120) as harness:
            about = await harness.call_tool(None, "about", {})
        assert about.ok, about.failure
        return int(json.loads(about.text)["parent"])

    first = await parent()
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: not alive(first), 30, "the fork server to die")
    second = await parent()
    assert second != first and is_fork_server(second)
    said = capfd.readouterr().err
    assert f"mcpbdd: the fork server for {sys.executable} {script} ended (exit code -9); starting a new one" in said


@pytest.mark.anyio
async def test_a_fork_gets_the_grace_period_to_end_on_its_own_and_is_stopped_after_it(tmp_path: Path) -> None:
    """The shutdown a plain start gets: stdin closed, a grace period to end on its own, then SIGTERM to the
    server's group; the stop returns only when the fork is gone."""
    script = write_server(tmp_path / "srv")
    ended = tmp_path / "ended"
    forks = []
    for extra in ({"ENDED_FILE": str(ended)}, {"LINGER_AFTER_EOF": "1"}):
        stdio = Stdio(f"{{python}} {script}", ProcessOptions(extra_env=extra))
        async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
            about = await harness.call_tool(None, "about", {})
            assert about.ok, about.failure
            forks.append(json.loads(about.text)["pid"])
    assert ended.exists()  # it was not stopped while it was ending by itself
    assert not any(alive(fork) for fork in forks)


@pytest.mark.anyio
async def test_later_forks_find_the_pages_the_first_ones_wrote_already_their_own(tmp_path: Path) -> None:
    """The first forks record which of the fork server's pages they wrote; each standby makes those pages its
    own while it waits, so a later server's run copies far fewer pages (page faults, counted by the server)."""
    script = write_server(tmp_path / "srv")
    faults = []
    for _ in range(6):
        async with ClientHarness(Stdio(f"{{python}} {script}"), timeout=30, start_timeout=120) as harness:
            about = await harness.call_tool(None, "about", {})
        assert about.ok, about.failure
        faults.append(json.loads(about.text)["faults"])
        await anyio.sleep(0.3)  # a standby pre-faults while it waits; give it the time a scenario would
    assert min(faults[-2:]) < faults[0] / 2, faults
