"""Finding the processes a test started: by a marker in their environment, and every fork of a fork server.

A marker in the environment is inherited by every process a test starts, except one: a process forked
from a fork server (`mcpbdd/harness/processes/forkserver.py`). Its `/proc/PID/environ` is the block the fork
server was exec'd with, not the scenario's `os.environ`, so a test that put the marker only in the
server's environment (`Stdio(..., extra_env=...)`) cannot see its fork by the marker. A fork keeps its
fork server's command line instead (so does whatever it forks without exec; what it execs gets its
`os.environ`, marker included). Counting every fork among this process's descendants finds them,
and this process is made a child subreaper (`subreaper.become_subreaper`, from conftest.py) so that a fork
whose fork server has gone, or a daemon a server left behind, stays among its descendants instead of
being adopted by init, where no count would look.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import warm_python

from mcpbdd.harness.connectors import python_command
from mcpbdd.harness.processes import ports, shared_forks, spawn
from mcpbdd.harness.processes.forkserver import STANDBY_NAME

T = TypeVar("T")

MARKER_ENV = "MCPBDD_TEST_MARKER"

TESTS = Path(__file__).parent


def run_module(
    module: str, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`python -m module args` in a subprocess (this interpreter), the repository and tests/ (the test-only
    servers) importable, output captured as text; `env` adds to this process's environment."""
    path = os.pathsep.join([str(TESTS.parent), str(TESTS)])
    return warm_python.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd or TESTS.parent,
        env={**os.environ, "PYTHONPATH": path, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def mcpbdd_run(*args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """`mcpbdd run args` in a subprocess (see `run_module`)."""
    return run_module("mcpbdd.cli.main", "run", *args, **options)


def matrix_run_options(out: Path) -> list[str]:
    """`mcpbdd run` options of a run on every pass that writes every report into `out` (Allure, JUnit, parity,
    timings): what the parity and the report-consumer tests both start from."""
    return [
        "--harness",
        "all",
        "--results",
        str(out / "allure"),
        "--junit",
        str(out / "junit"),
        "--parity",
        str(out),
        "--timings",
        str(out / "timings.json"),
    ]


def free_port() -> int:
    """A loopback port nothing listens on right now, claimed against mcpbdd's other pickers (`ports.py`)."""
    return ports.free_port()


def port_of(url: str) -> int:
    """The port a loopback URL names (it must name one)."""
    port = httpx.URL(url).port
    assert port is not None
    return port


def refused(port: int) -> bool:
    """Nothing listens on `port` of 127.0.0.1 any more: a connection to it is refused (a server that stopped)."""
    with socket.socket() as probe:
        probe.settimeout(1)
        try:
            probe.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
        return False


def stdio_server_settings(timeout: float = 300) -> list[str]:
    """behave's `-D` options for the test servers (`tests/servers.py`) over stdio, on the client harness."""
    return [
        "-D",
        "mcpbdd.harness=client",
        "-D",
        f"mcpbdd.timeout={timeout:g}",
        "-D",
        f"mcpbdd.server=stdio: {python_command('servers')}",
        "-D",
        f"mcpbdd.cwd={TESTS}",
    ]


FORK_SERVER = str(Path(spawn.__file__).resolve().parent / "forkserver.py")
"""What every fork server's command line names, and so every process forked from one."""


def _alive(pid: str) -> bool:
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def alive(pid: int) -> bool:
    """Whether process `pid` lives (a zombie is dead, whatever reaps it later)."""
    return _alive(str(pid))


def _each_process(name: str) -> Iterator[tuple[int, bytes]]:
    """Every process's `/proc/PID/<name>` file, skipping the processes that end while we look."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                yield int(entry.name), (entry / name).read_bytes()
            except OSError:
                continue


def descendants(root: int | None = None) -> list[int]:
    """Live descendants of `root` (this process by default), found by walking parent ids in /proc."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    for pid, stat in _each_process("stat"):
        parent = int(stat.rpartition(b")")[2].split()[1])  # after `pid (comm) state`; comm may hold spaces
        children.setdefault(parent, []).append(pid)
    found: list[int] = []
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return [pid for pid in found if _alive(str(pid))]


SHARED_FORK_SERVERS: list[Path] = []
"""Where this pytest worker offers its fork servers (tests/spawning/conftest.py), also while a module keeps its own."""


def forks() -> list[int]:
    """Live processes forked from a fork server, among this process's descendants (the run's own fork
    servers, which this process holds, are not a scenario's processes, nor the tests' warm fork servers of behave
    and `mcpbdd` (`warm_python.py`); any other fork server is counted)."""
    shared = [pid for folder in SHARED_FORK_SERVERS for pid in shared_forks.shared_pids(folder)]
    servers = set(spawn.fork_server_pids()) | set(warm_python.server_pids()) | set(shared)
    found = []
    # A fork server shared under this worker (`shared_forks.py`) outlives the run that started it and is adopted by
    # init: its forks are no descendants of this process, but they are the scenarios' processes all the same.
    for pid in {*descendants(), *(fork for server in shared for fork in descendants(server))}:
        if pid in servers or (is_standby(pid) and _parent(pid) in servers):
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if FORK_SERVER.encode() in cmdline:
            found.append(pid)
    return found


def is_standby(pid: int) -> bool:
    """Whether `pid` is a fork server's standby: the next scenario's fork, waiting for its request (the run's
    own while its fork server runs, like the fork server itself; counted once the fork server is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_bytes().strip() == STANDBY_NAME
    except OSError:
        return False


def standbys(server: int) -> list[int]:
    """The live standbys of fork server `server`."""
    return [pid for pid in descendants(server) if is_standby(pid) and _parent(pid) == server]


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def processes_marked(marker: str) -> list[int]:
    """Live processes whose environment carries `marker` (zombies are dead, whatever reaps them later), and
    every live fork under this process (see the module's docstring: a fork's environment cannot show it)."""
    found = set(forks())
    for pid, environ in _each_process("environ"):
        if f"{MARKER_ENV}={marker}".encode() in environ and _alive(str(pid)):
            found.add(pid)
    return sorted(found)


def wait_until(condition: Callable[[], T], timeout: float, what: str) -> T:
    """Poll `condition` until it is truthy; fail naming `what` after `timeout` seconds (generous: a loaded machine)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.05)
