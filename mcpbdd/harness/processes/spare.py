"""The warm spare: server processes started ahead for the next scenarios, so their start-up overlaps the run.

A server that is not Python (a Node server, a binary) cannot be forked from a warm parent; its
start-up (often mostly waiting: a runtime loading, a connection made, a sleep) is paid by every
scenario that starts it. With `spawn = "spare"` (or `auto` for a command that is not Python),
when a scenario starts its first server process over stdio, mcpbdd also starts `AHEAD` spares:
processes for the next scenarios, each started with exactly what that scenario will start its
own with. A scenario then takes the spare whose start is exactly its own, and no longer waits for
a start that began while the scenarios before it ran.

What a spare is started with, and why that is what the next scenario asks for:

- the same command, working directory and environment as the current scenario's first process,
  so the caller's fields in the configured environment (`{user}`, `{tenant}`, `{scopes}`) are
  this scenario's first caller's;
- except the scenario's doubles file (`MCPBDD_DOUBLES`), which is per scenario: a spare gets a
  file reserved ahead (`handover.reserve_doubles_file`), and the next scenario that places its
  doubles in a file takes that very file (`temporary_doubles_file` hands out reservations first).

A scenario whose process is not started exactly like its spare (another caller first, another
variable, command or directory) does not use it: the spare is stopped, the scenario's process
starts plainly, and the run says why once (which of them differed). A scenario whose server gets
upstream loopback URLs starts plainly, and no spare is started for it: their ports are opened
per scenario, so they cannot be known ahead.

A spare is started as the SDK's own `stdio_client` starts a server (`plain_client`: its own session,
its pipes, its shutdown sequence: close stdin, wait, stop the process group), entered in a task of its own on the run's
loop and held open there; a scenario that takes it gets its streams, and the scenario's end
stops it exactly as it stops a plain process. A spare never taken is stopped when the run ends
(`stop_all`, from behave's `after_all`, also after SIGINT or SIGTERM, and at exit; if the loop is
gone, its process group is killed). If the run itself is killed, the spare's stdin closes with
it, and a stdio server ends on end-of-file.

What a server may notice: it starts before its scenario's Given steps run. It reads the storage
and the clock from the doubles file on each use, so it sees them; a server that reads its state
once at start-up would see the state before them, and wants `spawn = "plain"`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.client.stdio import StdioServerParameters

from mcpbdd.harness import handover
from mcpbdd.harness.processes import groups
from mcpbdd.harness.processes.plain_client import plain_client
from mcpbdd.kit.doubles import ENV_DOUBLES
from mcpbdd.kit.upstream import ENV_ALL, ENV_OTHER, ENV_PREFIX

__all__ = ["AHEAD", "Launch", "Spare", "spares", "stop_all", "take"]

AHEAD = 2
"""Spares kept started per command. One overlaps a start-up with one scenario only, which is a few
milliseconds for a short scenario; two overlap it with the two scenarios before, so a start-up of up
to twice a scenario's own time is hidden entirely."""

KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL when a spare must be stopped without the loop (the SDK's own grace)."""


@dataclass(frozen=True)
class Launch:
    """Exactly how a server process starts: its command, environment and working directory."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    cwd: str | None

    @classmethod
    def of(cls, argv: Sequence[str], env: Mapping[str, str], cwd: str | None) -> Launch:
        # The loopback's catch-all port is per scenario, so it cannot be known ahead: a spare (a server that is
        # not Python, which reads the MCPBDD_UPSTREAM_* variables itself) starts without it.
        return cls(tuple(argv), tuple(sorted((k, v) for k, v in env.items() if k != ENV_OTHER)), cwd)

    def environment(self) -> dict[str, str]:
        return dict(self.env)

    @property
    def doubles(self) -> str | None:
        """The scenario's doubles file, the one part of the start that is per scenario by design."""
        return self.environment().get(ENV_DOUBLES)

    def with_doubles(self, path: str) -> Launch:
        return Launch.of(self.argv, {**self.environment(), ENV_DOUBLES: path}, self.cwd)

    def differences(self, other: Launch) -> list[str]:
        """What differs from `other`, named (variables by name only: their values may be secrets)."""
        found = []
        if self.argv != other.argv:
            found.append("the command")
        if self.cwd != other.cwd:
            found.append("the working directory")
        mine, theirs = self.environment(), other.environment()
        names = sorted(name for name in mine.keys() | theirs.keys() if mine.get(name) != theirs.get(name))
        found.extend(f"${name}" for name in names)
        return found

    def unpredictable(self) -> bool:
        """Whether the start holds upstream loopback URLs: their ports are opened per scenario."""
        env = self.environment()
        try:
            served = json.loads(env.get(ENV_ALL, "{}"))
        except ValueError:
            served = {}
        return bool(served) or any(name.startswith(ENV_PREFIX) for name in env)


class Spare:
    """One server process started ahead, held open by `plain_client` (the SDK's transport) in a task of its own."""

    def __init__(self, launch: Launch, wrapper: str, loop: asyncio.AbstractEventLoop) -> None:
        self.launch = launch
        self.loop = loop
        self.folder = Path(tempfile.mkdtemp(prefix="mcpbdd-spare-"))
        self.status_path = self.folder / "exit-code"
        """Where the process writes its exit code when it ends (as a plain start's does)."""
        self.stderr_path = self.folder / "stderr.log"
        self._pid_path = self.folder / "pid"
        self._stderr = open(self.stderr_path, "w+", encoding="utf-8")  # noqa: SIM115 (closed in remove_files)
        self._streams: asyncio.Future[Any] = loop.create_future()
        self._release = asyncio.Event()
        launch_args = [str(self.status_path), *launch.argv]
        params = StdioServerParameters(
            command="sh",
            args=["-c", groups.PID_WRAPPER + wrapper, "mcpbdd-stdio", str(self._pid_path), *launch_args],
            env=launch.environment(),
            cwd=launch.cwd,
        )
        self._task = loop.create_task(self._hold(params), name="mcpbdd-spare")

    async def _hold(self, params: StdioServerParameters) -> None:
        """Start the process through the SDK and keep it until it is released (then the SDK stops it)."""
        try:
            async with groups.group_stopped(plain_client(params, self._stderr), self._pid_path) as streams:
                self._streams.set_result(streams)
                await self._release.wait()
        except Exception as exc:  # a spawn that failed: the scenario that takes it meets the error as it would
            self._fail(exc)
        finally:  # cancelled before it started (the loop closing): nobody may wait for it forever
            self._fail(RuntimeError("the spare server process was stopped before it started"))

    def _fail(self, exc: Exception) -> None:
        if not self._streams.done():
            self._streams.set_exception(exc)
            self._streams.exception()  # retrieved: a spare nobody takes must not warn about it

    @property
    def pid(self) -> int | None:
        """The process group leader's pid (the shell that runs the server), once it has started."""
        return groups.leader(self._pid_path)

    @property
    def stopped(self) -> bool:
        return self._task.done()

    @asynccontextmanager
    async def transport(self) -> AsyncIterator[Any]:
        """The spare as `mcp.Client` takes a transport: its streams, and its stop when the client is done."""
        try:
            yield await asyncio.shield(self._streams)
        finally:
            with anyio.CancelScope(shield=True):
                await self.stop()

    def release(self) -> None:
        """Let the SDK stop the process (close stdin, wait, stop the group) in the spare's task, in the background."""
        self._release.set()

    async def stop(self) -> None:
        self.release()
        await asyncio.wait({self._task})

    def kill(self) -> None:
        """Stop the process group without the loop (the loop is gone, or an interrupt cut the stop short)."""
        pid = self.pid
        if pid is None or (self._task.done() and not _alive(pid)):
            return  # never started, or stopped by the SDK (which stops the whole group)
        try:
            os.killpg(pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + KILL_GRACE
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.01)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # what is left of the group (a server that ignores SIGTERM)

    def stderr(self) -> str:
        try:
            self._stderr.flush()
            return self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            return ""

    def remove_files(self) -> None:
        self._stderr.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie does not: it only waits to be reaped)."""
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


_waiting: list[Spare] = []
"""Spares started and not taken yet, oldest first."""
_released: list[Spare] = []
"""Spares released (not used), whose stop may still be under way: `stop_all` waits for them."""
_said: set[str] = set()


def spares() -> list[Spare]:
    """The spares started and not taken yet (for tests and diagnostics)."""
    return list(_waiting)


def _say_once(message: str) -> None:
    """Say it on the run's real stderr, once per run (per worker): behave captures `sys.stderr` in a step."""
    if message not in _said:
        _said.add(message)
        print(f"mcpbdd: {message}", file=sys.__stderr__ or sys.stderr)


def _meant_for(spare: Spare, launch: Launch) -> bool:
    """Whether `spare` was started for the scenario that asks for `launch` (its doubles file, or its command)."""
    if launch.doubles is not None:
        return spare.launch.doubles == launch.doubles
    return spare.launch.argv == launch.argv and spare.launch.cwd == launch.cwd


def _orphaned(spare: Spare) -> bool:
    """Its doubles file went to a scenario that did not take it (an in-process scenario's, another command's)."""
    path = spare.launch.doubles
    return path is not None and not handover.is_reserved(path)


def _discard(spare: Spare) -> None:
    if spare in _waiting:
        _waiting.remove(spare)
    if spare.loop.is_closed():
        spare.kill()
        spare.remove_files()
    else:
        spare.release()
        _released.append(spare)
    if spare.launch.doubles is not None:
        handover.release_reservation(spare.launch.doubles)


def take(argv: Sequence[str], env: Mapping[str, str], cwd: str | None, *, wrapper: str, first: bool) -> Spare | None:
    """For a scenario's `first` process: the spare started with exactly this start, if there is one, and the
    spares of the next scenarios started. Call it from the run's loop (the spares live on it).

    A spare that was meant for this scenario but started otherwise is stopped, saying once what differed.
    The processes of the scenario's other callers are never spares (None): the spares ahead carry the
    first caller's fields, and are the next scenarios'.
    """
    if not first:
        return None
    loop = asyncio.get_running_loop()
    launch = Launch.of(argv, env, cwd)
    found: Spare | None = None
    for spare in list(_waiting):
        if spare.loop is not loop:
            _discard(spare)  # another run's loop (a test session opens several)
        elif _meant_for(spare, launch):
            if spare.launch == launch and not spare.stopped:
                if found is None:
                    _waiting.remove(spare)
                    found = spare
                continue  # the same start with no doubles file: a later scenario's
            _discard(spare)
            if spare.launch != launch:
                differs = ", ".join(spare.launch.differences(launch))
                _say_once(
                    f"a spare server process was not used: this scenario starts {shlex.join(argv)} unlike an "
                    f"earlier scenario's first process (it differs in {differs}), so it starts its server plainly"
                )
        elif _orphaned(spare):
            _discard(spare)
    _start_ahead(launch, wrapper, loop)
    return found


def _start_ahead(launch: Launch, wrapper: str, loop: asyncio.AbstractEventLoop) -> None:
    """Keep `AHEAD` spares started for the scenarios after this one, each with a doubles file reserved for it."""
    if launch.unpredictable():
        _say_once(
            f"no spare server process for {shlex.join(launch.argv)} while it gets upstream loopback URLs "
            "(their ports are opened per scenario): those scenarios start their server plainly"
        )
        return
    pending = sum(1 for spare in _waiting if spare.launch.argv == launch.argv and spare.launch.cwd == launch.cwd)
    for _ in range(AHEAD - pending):
        ahead = launch if launch.doubles is None else launch.with_doubles(handover.reserve_doubles_file().path)
        _waiting.append(Spare(ahead, wrapper, loop))


async def _stop_each(spares: list[Spare]) -> None:
    """Stop them together (made inside the loop: `gather` outside one needs a current loop, which a run has not set)."""
    await asyncio.gather(*(spare.stop() for spare in spares), return_exceptions=True)


def stop_all() -> None:
    """Stop every spare no scenario took, through the SDK while the run's loop lives, else by signal; and remove
    the doubles files reserved for them. Called at the end of a run, before its loop closes (and at exit)."""
    spares, _waiting[:], _released[:] = [*_waiting, *_released], [], []
    try:
        by_loop: dict[asyncio.AbstractEventLoop, list[Spare]] = {}
        for spare in spares:
            by_loop.setdefault(spare.loop, []).append(spare)
        for loop, group in by_loop.items():
            if loop.is_closed() or loop.is_running():
                continue
            with contextlib.suppress(Exception):
                loop.run_until_complete(_stop_each(group))
    finally:
        for spare in spares:
            spare.kill()  # only what is still running: an interrupt cut the stop short, or the loop is gone
            spare.remove_files()
        handover.release_reservation()


atexit.register(stop_all)
