"""Locust's master and workers as real processes on this machine, bounded in time, and nothing left behind.

Every process is started through `mcpbdd.locust.launch` (so the kernel kills it if the runner dies by SIGKILL)
in a session of its own (so a Ctrl-C at the terminal reaches the runner only, which then stops them in order),
and its process group is remembered. The run ends when the master does: `--run-time` stops the users, and
`--stop-timeout` bounds how long a user may finish its call. Should the master not end by the hard deadline
(start-up allowance + run time + stop time + grace), or should the runner be interrupted (Ctrl-C, SIGTERM raised
as an exception, any error), every group started gets SIGTERM, then SIGKILL after a short grace.

The users stop calling at the run time themselves (`user.py`); Locust's `--run-time` is longer by the last calls'
timeout and a statistics interval, so that the master quits only once every call made has been reported.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mcpbdd.locust.bridge import WAIT_GRACE_S
from mcpbdd.locust.plan import PLAN_ENV

__all__ = ["KILL_GRACE_S", "LOCUSTFILE", "LocustProcesses", "LocustTiming", "MasterOptions", "started_locust"]

REPORT_INTERVAL_S = 3.0
"""How often a Locust worker sends the master its statistics (`locust.runners.WORKER_REPORT_INTERVAL`)."""
KILL_GRACE_S = 3.0
"""Seconds a Locust process has after SIGTERM before its group gets SIGKILL."""
LOCUSTFILE = Path(__file__).with_name("locustfile.py")


@dataclass(frozen=True)
class LocustTiming:
    """How long the run may take: the users run for `run_time_s`; the rest are allowances around it."""

    run_time_s: float
    call_timeout_s: float = 10.0
    """The longest a call may take: the users' last calls end this long after the run time at most."""
    startup_s: float = 30.0
    """For the workers to start and connect to the master (the master gives up after this too)."""
    stop_s: float = 5.0
    """For a user to finish the call it is in once the run time is over (Locust's `--stop-timeout`, whole seconds:
    a fraction is rounded up, as is the start-up allowance)."""
    grace_s: float = 10.0
    """For the master to write its last statistics and end."""

    @property
    def master_run_time_s(self) -> int:
        """Locust's `--run-time`: the users' run time, their last calls (timeout and the bridge's grace), a worker's
        statistics interval (3 s) and a second, so that every call made is in the master's statistics."""
        return math.ceil(self.run_time_s + self.call_timeout_s + WAIT_GRACE_S + REPORT_INTERVAL_S + 1)

    @property
    def hard_deadline_s(self) -> float:
        return self.startup_s + self.master_run_time_s + math.ceil(self.stop_s) + self.grace_s


@dataclass
class LocustProcesses:
    """The master and workers of one run, their logs, and how the run ended."""

    master: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]
    logs: dict[str, Path]
    killed: list[str] = field(default_factory=list)
    """What had to be killed, in words (empty when every process ended by itself)."""

    @property
    def every(self) -> list[subprocess.Popen[bytes]]:
        return [self.master, *self.workers]

    def wait(self, deadline: float) -> bool:
        """Wait for the master to end, then briefly for the workers; False when the deadline came first."""
        while self.master.poll() is None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        settle = min(deadline, time.monotonic() + KILL_GRACE_S)
        while any(worker.poll() is None for worker in self.workers) and time.monotonic() < settle:
            time.sleep(0.05)
        return True

    def stop(self) -> None:
        """SIGTERM to every group still running, SIGKILL to what is left after the grace."""
        running = [(name, process) for name, process in self._named() if process.poll() is None]
        for _, process in running:
            _signal_group(process.pid, signal.SIGTERM)
        until = time.monotonic() + KILL_GRACE_S
        while any(process.poll() is None for _, process in running) and time.monotonic() < until:
            time.sleep(0.05)
        for name, process in running:
            if process.poll() is None:
                self.killed.append(name)
            _signal_group(process.pid, signal.SIGKILL)  # also whatever it started and left in its group
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=KILL_GRACE_S)

    def _named(self) -> list[tuple[str, subprocess.Popen[bytes]]]:
        return [("the master", self.master), *((f"worker {i}", w) for i, w in enumerate(self.workers))]


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _start(argv: list[str], log: Path, plan: Path) -> subprocess.Popen[bytes]:
    environment = {**os.environ, PLAN_ENV: str(plan), "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "mcpbdd.locust.launch", str(os.getpid()), "-f", str(LOCUSTFILE), *argv]
    with log.open("wb") as output:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )


@dataclass(frozen=True)
class MasterOptions:
    """What the master is told: where workers find it, how many users, how fast, for how long, where the CSVs go."""

    url: str
    port: int
    users: int
    spawn_rate: float
    workers: int
    csv_prefix: Path


@contextlib.contextmanager
def started_locust(options: MasterOptions, timing: LocustTiming, plan: Path, logs: Path) -> Iterator[LocustProcesses]:
    """Start the master and the workers; whatever happens in the block, every process is gone after it."""
    master_argv = [
        "--master", "--headless", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(options.port),
        "--expect-workers", str(options.workers), "--expect-workers-max-wait", str(math.ceil(timing.startup_s)),
        "-u", str(options.users), "-r", f"{options.spawn_rate:g}", "--run-time", f"{timing.master_run_time_s}s",
        "--stop-timeout", str(math.ceil(timing.stop_s)), "-H", options.url, "--csv", str(options.csv_prefix),
        "--csv-full-history", "--only-summary", "--loglevel", "WARNING",
    ]  # fmt: skip
    worker_argv = [
        "--worker",
        "--master-host",
        "127.0.0.1",
        "--master-port",
        str(options.port),
        "--loglevel",
        "WARNING",
    ]
    paths = {"master": logs / "master.log", **{f"worker-{i}": logs / f"worker-{i}.log" for i in range(options.workers)}}
    processes: LocustProcesses | None = None
    try:
        master = _start(master_argv, paths["master"], plan)
        processes = LocustProcesses(master, [], paths)
        for i in range(options.workers):
            processes.workers.append(_start(worker_argv, paths[f"worker-{i}"], plan))
        yield processes
    finally:
        if processes is not None:
            processes.stop()
