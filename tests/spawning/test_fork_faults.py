"""The fork server when things go wrong, and what a fork must match of a plain start (issues 22 and 23).

Real fork servers and real signals: a standby whose set-up fails must not take the live fork server's socket
with it; a server that ignores SIGTERM must be killed without taking the fork server down; and a fork must
see what a plain start of the same command sees of the variables an interpreter reads once, at its start
(`TZ`, the locale, `PYTHONHASHSEED`, `PYTHONIOENCODING`, `TMPDIR`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from processes import alive, descendants, wait_until

from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Stdio
from mcpbdd.harness.processes import spawn
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.processes.spawn import SpawnMode

pytestmark = pytest.mark.usefixtures("own_fork_servers")  # its fork servers' own lifetimes

SERVER = '''
import json
import locale
import os
import signal
import subprocess
import sys
import tempfile
import time

from mcp.server.mcpserver import MCPServer

if os.environ.get("IGNORE_SIGTERM"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

mcp = MCPServer("start-state")


@mcp.tool()
def about() -> str:
    """What this process took from its environment when it started."""
    return json.dumps({
        "pid": os.getpid(),
        "parent": os.getppid(),
        "offset": time.strftime("%z", time.localtime(0)),
        "tzname": list(time.tzname),
        "ctype": locale.setlocale(locale.LC_CTYPE),
        "utf8_mode": sys.flags.utf8_mode,
        "preferred": locale.getpreferredencoding(False),
        "hash": hash("mcpbdd"),
        "hash_seed": sys.flags.hash_randomization,
        "stdout": sys.stdout.encoding,
        "tmp": tempfile.gettempdir(),
    })


@mcp.tool()
def start_helper() -> str:
    """A helper process in the server's own process group (a worker it would use), that ignores SIGTERM."""
    helper = subprocess.Popen(
        [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return json.dumps({"helper": helper.pid, "pid": os.getpid(), "parent": os.getppid()})


if __name__ == "__main__":
    mcp.run("stdio")
    if os.environ.get("IGNORE_SIGTERM"):
        time.sleep(600)  # it does not end when its stdin closes, nor on SIGTERM: only SIGKILL ends it
'''


@pytest.fixture(autouse=True)
def _stop_fork_servers() -> Iterator[None]:
    yield
    spawn.stop_all()


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "srv" / "server.py"
    path.parent.mkdir()
    path.write_text(SERVER)
    return path


def is_fork_server(pid: int) -> bool:
    try:
        return b"forkserver.py" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


async def about(script: Path, spawn_mode: SpawnMode, env: dict[str, str] | None = None) -> dict[str, object]:
    stdio = Stdio(f"{{python}} {script}", ProcessOptions(spawn=spawn_mode, extra_env=env or {}))
    async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
        seen = await harness.call_tool(None, "about", {})
    assert seen.ok, seen.failure
    found: dict[str, object] = json.loads(seen.text)
    return found


# -- a standby's failed set-up ----------------------------------------------------------------------

FAULTY_FORK_SERVER = """
import importlib.util, sys

spec = importlib.util.spec_from_file_location("_under_test", {real!r})
forkserver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(forkserver)


def broken(*args, **kwargs):
    raise RuntimeError("injected: the standby's set-up failed")


setattr(getattr(forkserver, {module!r}), {function!r}, broken)
sys.exit(forkserver.main(sys.argv))
"""


@pytest.mark.parametrize(
    ("module", "function"),
    [("interpreter", "set_process_name"), ("pages", "writable_regions")],
    ids=["before-learner-is-set", "before-inherited-is-set"],
)
def test_a_standby_whose_set_up_fails_leaves_the_live_fork_servers_socket(
    tmp_path: Path, script: Path, module: str, function: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The standby is a fork of the fork server: an error in its set-up must end it (`os._exit`) rather than
    unwind into the copy of `main()` it inherited, whose `finally` removes the fork server's socket and files."""
    faulty = tmp_path / "faulty_forkserver.py"
    faulty.write_text(FAULTY_FORK_SERVER.format(real=str(spawn._FORKSERVER), module=module, function=function))
    monkeypatch.setattr(spawn, "_FORKSERVER", faulty)
    found = spawn.fork_server("fork", [sys.executable, str(script)], cwd=None, env=os.environ)
    assert found is not None, "the fork server did not start"
    server = found.handle.pid
    wait_until(lambda: not descendants(server), 60, "the failing standby to end")
    assert alive(server) and Path(found.socket_path).exists(), "the standby took the fork server's socket with it"


# -- a server that must be killed ------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_fork_that_ignores_sigterm_is_killed_and_the_fork_server_serves_on(script: Path) -> None:
    """The fork server escalates to SIGKILL after its grace period, and keeps serving: the next scenario is
    forked by the same fork server (it used to crash on its next `select`, its deadline set to infinity)."""
    first = await about(script, "fork", {"IGNORE_SIGTERM": "1"})
    assert is_fork_server(int(str(first["parent"])))
    wait_until(lambda: not alive(int(str(first["pid"]))), 30, "the server that ignores SIGTERM to be killed")
    second = await about(script, "fork")
    assert second["parent"] == first["parent"], "the fork server did not survive killing a server"
    assert alive(int(str(first["parent"])))


# -- what a fork must see as a plain start does --------------------------------------------------

START_STATE = {
    "TZ": ({"TZ": "JST-9"}, ["offset", "tzname"]),
    "locale": ({"LC_ALL": "C"}, ["ctype", "utf8_mode", "preferred"]),
    "PYTHONHASHSEED": ({"PYTHONHASHSEED": "123"}, ["hash", "hash_seed"]),
    "PYTHONIOENCODING": ({"PYTHONIOENCODING": "latin-1"}, ["stdout"]),
    "TMPDIR": ({"TMPDIR": "{tmp}"}, ["tmp"]),
}


@pytest.fixture(scope="module")
def default_start(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """What a plain start sees with none of START_STATE's settings: one start for every variable's test."""
    path = tmp_path_factory.mktemp("default") / "server.py"
    path.write_text(SERVER)
    return anyio.run(about, path, "plain")


@pytest.mark.anyio
@pytest.mark.parametrize("variable", list(START_STATE))
async def test_a_fork_sees_what_a_plain_start_sees_of_a_variable_read_at_start(
    tmp_path: Path, script: Path, variable: str, default_start: dict[str, object]
) -> None:
    env, fields = START_STATE[variable]
    env = {name: value.format(tmp=tmp_path) for name, value in env.items()}
    plain = await about(script, "plain", env)
    forked = await about(script, "fork", env)
    assert is_fork_server(int(str(forked["parent"]))), "the fork was not forked"
    assert {field: forked[field] for field in fields} == {field: plain[field] for field in fields}
    default = default_start
    assert any(default[field] != plain[field] for field in fields), f"{env} changes nothing: the test proves nothing"


@pytest.mark.anyio
async def test_a_fork_after_a_fork_with_another_timezone_has_its_own(script: Path) -> None:
    """The child sets its zone from its own environment, not from whatever the fork server had."""
    offsets = [str((await about(script, "fork", {"TZ": zone}))["offset"]) for zone in ("JST-9", "UTC0", "EST5")]
    assert offsets == ["+0900", "+0000", "-0500"]
