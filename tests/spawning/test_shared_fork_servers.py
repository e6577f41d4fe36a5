"""Fork servers shared under an owner (`mcpbdd/harness/processes/shared_forks.py`): one warm parent per server for
every process under the owner, living as long as the owner (however it ends), never holding a starter's pipes.

Real processes: an owner process offers the fork servers; its children are separate Python processes that each open
a client on a small server written into the test's folder, as `mcpbdd run`, behave and `mcpbdd conformance` do.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from processes import alive, wait_until

from mcpbdd.harness.processes import shared_forks, spawn

pytestmark = pytest.mark.usefixtures("own_fork_servers")  # each test's owner is its own

ROOT = Path(__file__).resolve().parents[2]

SERVER = """
import os
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("shared")


@mcp.tool()
def parent() -> str:
    # This process's parent, and whether it is a fork server.
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as cmdline:
        return f"{os.getppid()} {b'forkserver.py' in cmdline.read()}"


if __name__ == "__main__":
    mcp.run("stdio")
"""

CHILD = """
import asyncio, sys
from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Stdio
from mcpbdd.harness.processes.process_options import ProcessOptions


async def main() -> None:
    stdio = Stdio("{python} " + sys.argv[1], ProcessOptions(spawn="fork"))
    async with ClientHarness(stdio, timeout=60, start_timeout=120) as harness:
        answer = await harness.call_tool(None, "parent", {})
    assert answer.ok, answer.failure
    print(answer.text)


asyncio.run(main())
"""

OWNER = """
import json, os, subprocess, sys, time
from pathlib import Path
from mcpbdd.harness.processes import shared_forks


def alive(pid):  # a zombie (ended, not yet reaped by whoever adopted it) is not
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


with shared_forks.share_fork_servers() as folder:
    os.environ[shared_forks.ENV] = folder
    parents = []
    for _ in range(2):  # two processes one after the other, their output read to its end (a pipe held would hang)
        done = subprocess.run([sys.executable, "-c", sys.argv[1], sys.argv[2]], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        parent, forked = done.stdout.split()[-2:]
        parents.append([int(parent), forked == "True"])
    alive_after = alive(parents[0][0])
    records = [json.loads(record.read_text()) for record in Path(folder).glob("*.json")]
    print(json.dumps({"parents": parents, "alive_after_its_starter": alive_after, "records": records}), flush=True)
    if len(sys.argv) > 3:  # stay, to be killed
        time.sleep(600)
print(json.dumps({"alive_after_the_owner": alive(parents[0][0]),
                  "folder_left": Path(folder).exists()}))
"""


def _server(tmp_path: Path) -> Path:
    script = tmp_path / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    return script


def _env(*path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (ROOT, *path)))}
    env.pop(shared_forks.ENV, None)
    return env


def test_processes_under_one_owner_fork_from_one_server_that_ends_with_the_owner(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", OWNER, CHILD, str(_server(tmp_path))],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    during, after = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    (first, forked), (second, _) = during["parents"]
    assert forked and first == second, "each process started a fork server of its own: nothing was shared"
    assert [record["pid"] for record in during["records"]] == [first], during["records"]
    assert during["alive_after_its_starter"], "the fork server ended with the process that started it"
    assert after == {"alive_after_the_owner": False, "folder_left": False}
    assert "shared fork server wrote" not in done.stderr, done.stderr


def test_a_shared_fork_server_ends_when_its_owner_is_killed(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, CHILD, str(_server(tmp_path)), "stay"],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert owner.stdout is not None
        during = json.loads(owner.stdout.readline())
        server, forked = during["parents"][0]
        assert forked
        assert alive(server)
        owner.kill()  # SIGKILL: no block ends, nothing is stopped; only the lifeline is left
        owner.wait(timeout=30)
        wait_until(lambda: not alive(server), 30, "the shared fork server to end with its owner")
    finally:
        if owner.poll() is None:
            owner.send_signal(signal.SIGKILL)
            owner.wait()


def test_a_variable_whose_owner_is_gone_is_ignored_and_the_process_keeps_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    folder = tmp_path / "offered"
    folder.mkdir()
    (folder / "owner").write_text(gone.stdout.strip(), encoding="utf-8")
    monkeypatch.setenv(shared_forks.ENV, str(folder))
    assert shared_forks.offered() is None
    try:
        found = spawn.fork_server("fork", [sys.executable, str(_server(tmp_path))], cwd=None, env=os.environ)
        assert found is not None and isinstance(found.handle, spawn.ForkServerHandle)
        assert list(folder.iterdir()) == [folder / "owner"], "a fork server was offered under an owner that is gone"
    finally:
        spawn.stop_all()


def test_a_fork_server_that_cannot_be_used_is_recorded_once_and_every_process_starts_plainly(tmp_path: Path) -> None:
    library = tmp_path / "lib"
    library.mkdir()
    (library / "threaded_dependency.py").write_text(
        "import threading, time\n\n"
        "threading.Thread(target=time.sleep, args=(600,), name='poller', daemon=True).start()\n",
        encoding="utf-8",
    )
    script = _server(tmp_path)
    script.write_text("import threaded_dependency\n" + SERVER, encoding="utf-8")
    owner = [sys.executable, "-c", OWNER, CHILD, str(script)]
    done = subprocess.run(owner, env=_env(library), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    during = json.loads(done.stdout.splitlines()[-2])
    assert [forked for _, forked in during["parents"]] == [False, False], "forked from a fork server that falls back"
    [record] = during["records"]
    assert "started threads (poller)" in record["fallback"]


def test_retiring_a_folder_stops_the_fork_servers_of_servers_run_there_and_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the owner does when a folder's work is over (tests/spawning/conftest.py: a test's temporary folder)."""
    done, kept = tmp_path / "done", tmp_path / "kept"
    for folder in (done, kept):
        folder.mkdir()
        _server(folder)
    with shared_forks.share_fork_servers() as offered:
        monkeypatch.setenv(shared_forks.ENV, offered)
        try:

            def server_of(folder: Path) -> int:
                found = spawn.fork_server("fork", [sys.executable, "server.py"], cwd=str(folder), env=os.environ)
                assert found is not None and isinstance(found.handle, shared_forks.SharedForkServer)
                return found.handle.pid

            retired, running = server_of(done), server_of(kept)
            assert shared_forks.retire(Path(offered), done) == [retired]
            assert not alive(retired), "the retired folder's fork server still runs"
            assert alive(running), "a fork server of another folder was stopped"
            assert sorted(shared_forks.shared_pids(Path(offered))) == [running]
            assert server_of(done) not in (retired, running), "a later start in the folder found no fork server"
        finally:
            spawn.stop_all()


def test_a_folder_another_user_could_write_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process sends its server's pipes and environment to the socket a record in the folder names: a folder that
    is not this user's alone (group- or world-writable, or a link to one) is refused, as a dead owner's is."""
    folder = tmp_path / "offered"
    folder.mkdir(mode=0o700)
    (folder / "owner").write_text(str(os.getpid()), encoding="utf-8")
    monkeypatch.setenv(shared_forks.ENV, str(folder))
    assert shared_forks.offered() == folder
    folder.chmod(0o777)
    assert shared_forks.offered() is None, "a world-writable folder was used"
    folder.chmod(0o770)
    assert shared_forks.offered() is None, "a group-writable folder was used"
    folder.chmod(0o700)
    link = tmp_path / "link"
    link.symlink_to(folder)
    monkeypatch.setenv(shared_forks.ENV, str(link))
    assert shared_forks.offered() is None, "a link to the folder was followed"
