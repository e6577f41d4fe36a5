"""Fork servers shared by every mcpbdd process under one owner: one warm parent per server, not one per process.

Each process that runs scenarios keeps its own fork servers (`spawn.fork_server`): one per server command, started
on first use (~1.2 s of CPU: the interpreter importing the SDK) and stopped when the process ends. A job that starts
many short mcpbdd processes for one server (a test suite running `mcpbdd run`, `mcpbdd conformance` and behave over
and over, each pass and era a process of its own) pays that start in every one of them. An owner can offer one fork
server per key to all of them instead: `share_fork_servers()` makes a folder and names it in `MCPBDD_FORK_SERVERS`,
which the owner's descendants inherit. A process that finds the variable looks its key up there (under a lock per
key, so two processes never start one key twice) and forks from the server it finds, or starts it for everyone.

What keeps this from leaking or lying:

- A shared fork server lives as long as the owner, not as the process that started it: its lifeline is a pidfd of
  the owner (readable when the owner ends, however it ends: `forkserver.py` watches it as it watches its pipe), and
  the owner stops every one it lists when its block ends. So a short run that started one neither stops it for the
  others nor leaves it behind the owner.
- Its stderr goes to a log file in the folder, never to the pipes of the process that happened to start it (a test
  reading that process's output to its end would wait for the fork server's end). The owner prints what a log holds
  when it stops them.
- A fork server that cannot be used (`fallback`) is recorded as such: every process then starts that command
  plainly and says why, as it does without sharing.
- Each fork is the server's own entry point run afresh with the scenario's environment, arguments and folder, as
  from a fork server of the process's own: the key (interpreter, entry point, `sys.path[0]`, folder, variables read
  at start) is the same one `spawn` keys its own fork servers by.

The variable is ignored when its folder or its owner is gone, or when the folder is not this user's alone (a process
sends its server's pipes and environment to the socket a record there names); a process then keeps fork servers of
its own.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ENV", "SharedForkServer", "offered", "retire", "shared_pids", "share_fork_servers", "take_or_start"]

ENV = "MCPBDD_FORK_SERVERS"
"""The folder an owner offers its fork servers in (`share_fork_servers`)."""
_OWNER = "owner"
_STOP_WAIT = 10.0
"""Seconds the owner waits for its fork servers to end after SIGTERM (they stop their forks first) before SIGKILL."""


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended but not yet reaped by whoever adopted it, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat.rpartition(b")")[2].split()[0] != b"Z"


@dataclass(frozen=True)
class SharedForkServer:
    """A fork server in the owner's folder, as any process under the owner uses it: where to ask, and its pid.

    Not this process's to stop (`stop` and `let_go` do nothing): the owner stops it."""

    pid: int
    socket_path: str
    ready: bool = True

    def running(self) -> bool:
        return _alive(self.pid) and os.path.exists(self.socket_path)

    def let_go(self) -> None:
        """Nothing to let go of: no lifeline of it is held here."""

    def stop(self) -> None:
        """Nothing to stop: it is the owner's."""


def offered() -> Path | None:
    """The folder this process's owner offers its fork servers in, or None (no owner, or it is gone)."""
    value = os.environ.get(ENV, "")
    if not value:
        return None
    folder = Path(value)
    try:
        owner = int((folder / _OWNER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return folder if _alive(owner) and _private(folder) else None


def _private(folder: Path) -> bool:
    """Whether only this user can write `folder` (as `share_fork_servers` makes it): a process sends its server's
    pipes and environment to the socket a record there names, so a folder another user can write is not used (a
    stale variable naming a folder someone else has since made, a folder given on purpose)."""
    try:
        found = folder.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o022


def _digest(key: tuple[object, ...]) -> str:
    return hashlib.sha256(repr(key).encode()).hexdigest()[:24]


Start = Callable[[str, int, int], "tuple[int, str] | str"]
"""Starts a fork server in a folder with a lifeline and a stderr: its (pid, socket) once ready, or why not."""


def take_or_start(folder: Path, key: tuple[object, ...], cwd: str | None, start: Start) -> SharedForkServer | str:
    """The owner's fork server for `key`, started with `start` if it has none running: or why it cannot be used.

    `cwd` is the folder its server runs in, recorded so that the owner can stop it when that folder's work is over
    (`retire`)."""
    name = _digest(key)
    record = folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when this process dies
        with contextlib.suppress(OSError, ValueError, KeyError):
            found = json.loads(record.read_text(encoding="utf-8"))
            if "fallback" in found:
                return str(found["fallback"])
            shared = SharedForkServer(int(found["pid"]), str(found["socket"]))
            if shared.running():
                return shared
        server_folder = folder / name
        shutil.rmtree(server_folder, ignore_errors=True)  # a dead one's socket and pages
        server_folder.mkdir()
        owner = int((folder / _OWNER).read_text(encoding="utf-8"))
        lifeline = os.pidfd_open(owner)
        try:
            with open(folder / f"{name}.log", "ab") as log:
                started = start(str(server_folder), lifeline, log.fileno())
        finally:
            os.close(lifeline)
        if isinstance(started, str):
            record.write_text(json.dumps({"fallback": started}), encoding="utf-8")
            return started
        pid, socket_path = started
        record.write_text(json.dumps({"pid": pid, "socket": socket_path, "cwd": cwd}), encoding="utf-8")
        return SharedForkServer(pid, socket_path)


def shared_pids(folder: Path | None = None) -> list[int]:
    """The running fork servers offered in `folder` (this process's owner's by default), whoever started them."""
    folder = folder or offered()
    if folder is None:
        return []
    pids = []
    for record in folder.glob("*.json"):
        with contextlib.suppress(OSError, ValueError, KeyError):
            pid = int(json.loads(record.read_text(encoding="utf-8"))["pid"])
            if _alive(pid):
                pids.append(pid)
    return pids


def retire(folder: Path, under: Path) -> list[int]:
    """Stop the fork servers offered in `folder` whose servers run in `under` or below it: the pids stopped.

    For an owner that knows when a folder's work is over (a test's temporary folder, at the test's end): no later
    process starts a server there, so its fork servers would only hold memory until the owner ends. Each is stopped
    under its key's lock, so a process starting that key meanwhile starts a new one rather than finding it dying.
    """
    stopped = []
    for record in folder.glob("*.json"):
        with open(record.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                found = json.loads(record.read_text(encoding="utf-8"))
                pid, cwd = int(found["pid"]), found.get("cwd")
            except (OSError, ValueError, KeyError):
                continue  # a fallback, or a record gone meanwhile: no process to stop
            if cwd is None or not Path(cwd).is_relative_to(under):
                continue
            _end([pid])
            record.unlink(missing_ok=True)
            shutil.rmtree(folder / record.stem, ignore_errors=True)  # its socket and learned pages
            stopped.append(pid)
    return stopped


@contextlib.contextmanager
def share_fork_servers() -> Iterator[str]:
    """Offer fork servers shared by this process's descendants while the block runs: its value for `ENV`.

    The caller puts it in the environment of what it starts (or in `os.environ`). When the block ends, every fork
    server offered is stopped (SIGTERM, which stops its forks; SIGKILL after `_STOP_WAIT`), what any of them wrote
    to its stderr is printed, and the folder is removed.
    """
    folder = Path(tempfile.mkdtemp(prefix="mcpbdd-shared-forks-"))
    (folder / _OWNER).write_text(str(os.getpid()), encoding="utf-8")
    try:
        yield str(folder)
    finally:
        _stop(folder)
        for log in sorted(folder.glob("*.log")):
            said = log.read_text(encoding="utf-8", errors="replace").strip()
            if said:
                print(f"mcpbdd: a shared fork server wrote to its stderr:\n{said}", file=sys.__stderr__ or sys.stderr)
        shutil.rmtree(folder, ignore_errors=True)


def _stop(folder: Path) -> None:
    _end(shared_pids(folder))


def _end(pids: list[int]) -> None:
    """SIGTERM (a fork server then stops its forks), SIGKILL to any still running after `_STOP_WAIT`."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + _STOP_WAIT
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in pids:
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
