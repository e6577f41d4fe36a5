"""The behave processes of one `mcpbdd run`: started, watched and waited for from one thread.

Each behave run is its own process (behave's `main()` leaks step definitions when called
twice in one process). On Linux a worker is a `fork()` of this process after it has
imported behave, mcpbdd's hooks and formatters and the MCP SDK once (~0.7 s of imports):
N jobs then pay that import once, not N times, which is most of what a second job would
otherwise cost on a short suite. A forked worker only calls `behave.__main__.main(args)`
once and exits, exactly like `python -m behave args` (step modules are NOT pre-imported:
behave resets its step registry at start, and the steps must register after that).
Elsewhere (or with `MCPBDD_NO_FORK=1`) a worker is `python -m behave` in a subprocess.

No threads here: forking a process that runs threads can deadlock the child, so one
`selectors` loop reads every worker's output, polls the progress files and starts the
next process of a job when the previous one ends.

Signals. Each worker runs in a process group of its own, so a Ctrl-C at the terminal
reaches this process only, and this process passes SIGINT and SIGTERM on to every running
worker exactly once per signal (a worker treats a second signal as "stop waiting", so it
must not get one signal twice). The workers then close their scenarios (servers stopped,
temporary folders removed) and exit; no further worker starts. A forked worker also stops
so if this process dies without passing anything on (Linux's parent-death signal).
Workers still running `STOP_GRACE` seconds after the first signal are killed.
"""

from __future__ import annotations

import codecs
import contextlib
import importlib
import logging
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpbdd.runner.formatters import ALLURE, PROGRESS, SUMMARY, formatter_module

__all__ = ["GATHER", "PREIMPORT", "Worker", "run_workers", "use_fork"]


PREIMPORT = (
    "behave.__main__",
    "behave.runner",
    "behave.formatter.pretty",
    "behave.formatter.progress",
    formatter_module(SUMMARY),  # mcpbdd.reporting.console
    "behave.reporter.junit",
    formatter_module(ALLURE),
    formatter_module(PROGRESS),
    "mcpbdd.behave",
    "mcpbdd.scenario.world",  # the hooks load it (and the SDK) at the first scenario: here once, not per worker
    "mcpbdd.reporting.attachments",
    "mcpbdd.harness.processes.parent_death",  # what a worker calls first thing after the fork
)
"""What a forked worker inherits already imported: everything heavy that registers no step."""

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""What is passed on to the workers: an interrupt (Ctrl-C) and a polite termination (CI cancelling a job)."""

STOP_GRACE = float(os.environ.get("MCPBDD_STOP_GRACE", "30"))
"""Seconds the workers get, after the first signal, to close their scenarios before they are killed
(`MCPBDD_STOP_GRACE`): a stdio server takes about 4 s to stop when it must be killed."""

GATHER = 0.02
"""Seconds the loop waits once a worker has written, before reading: behave's console output comes a line at a
time (a flush per step), and reading each line as it comes woke this process ~30 times per scenario. Measured
on 300 scenarios (bench/bench_suite.py's suite): ~10,000 wake-ups -> ~1,000, ~0.1 s less CPU here; the
console lags by at most 20 ms. The pipe holds 64 KiB, far more than a worker writes in that time."""


@dataclass
class Worker:
    """One behave process: its arguments, its environment additions, and what came of it."""

    args: list[str]
    env: dict[str, str]
    label: str
    events: Path
    output: list[str] = field(default_factory=list)
    returncode: int | None = None
    _pid: int | None = None
    _popen: subprocess.Popen[bytes] | None = None
    _fd: int | None = None
    _decoder: Any = None
    _partial: str = ""
    _signalled: int = 0
    """How many of the run's stop signals this worker has been sent (each is sent once)."""

    @property
    def pid(self) -> int:
        pid = self._popen.pid if self._popen is not None else self._pid
        assert pid is not None, "the worker has not started"
        return pid


class _Stop:
    """The stop signals this process received, passed on to each running worker once each.

    The handler only records and forwards (`os.kill`); printing from a signal handler could
    re-enter a write in progress, so the loop says what happened (`news`).
    """

    def __init__(self) -> None:
        self.received: list[int] = []
        self.running: dict[int, Worker] = {}
        self.first_at: float | None = None
        self._told = 0
        self._saved: dict[int, Any] = {}

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                self._saved[number] = signal.signal(number, self._on_signal)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for number, handler in self._saved.items():
            signal.signal(number, handler)

    def _on_signal(self, number: int, frame: object) -> None:
        self.received.append(number)
        if self.first_at is None:
            self.first_at = time.monotonic()
        for worker in list(self.running.values()):
            self.forward(worker)

    def forward(self, worker: Worker) -> None:
        """Send `worker` every signal received that it has not been sent yet."""
        while worker._signalled < len(self.received):
            number = self.received[worker._signalled]
            worker._signalled += 1
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, number)

    @property
    def signal(self) -> int | None:
        return self.received[0] if self.received else None

    def news(self) -> list[int]:
        """Signals received since the last call."""
        new, self._told = self.received[self._told :], len(self.received)
        return new


@contextlib.contextmanager
def _signals_blocked() -> Any:
    """Hold SIGINT and SIGTERM (delivered when unblocked): a fork and its registration are then one step."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def use_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork") and os.environ.get("MCPBDD_NO_FORK", "") in ("", "0")


def _preimport() -> None:
    for module in PREIMPORT:
        importlib.import_module(module)


def _orphaned(number: int, frame: object) -> None:
    """The parent died: nobody reads this worker's output any more, so write it nowhere, then stop as on SIGTERM.

    (Writing to the dead parent's pipe would raise BrokenPipeError in the middle of behave's
    output and end the worker before it closes its scenario.)
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    os.kill(os.getpid(), signal.SIGTERM)


def _die_with_parent(parent: int) -> None:
    """Linux: have the kernel signal this worker when the parent dies (SIGHUP, see `_orphaned`), so it closes."""
    from mcpbdd.harness.processes.parent_death import die_with_parent

    if sys.platform != "linux":
        return
    signal.signal(signal.SIGHUP, _orphaned)
    if not die_with_parent(signal.SIGHUP, parent):  # the parent died before that took effect
        os._exit(1)


def _fork(worker: Worker, inherited: Sequence[int]) -> None:
    """Fork the worker; call with SIGINT and SIGTERM blocked (the child resets their handlers, then unblocks them)."""
    read, write = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker
        code = 1
        try:
            os.setpgid(0, 0)  # its own group: a Ctrl-C at the terminal reaches the parent, which passes it on once
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _die_with_parent(parent)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
            os.close(read)
            for fd in inherited:  # the other workers' pipes: not ours to hold
                os.close(fd)
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.dup2(write, 1)
            os.dup2(write, 2)
            os.close(write)
            os.environ.update(worker.env)
            for stream in (sys.stdout, sys.stderr):
                reconfigure = getattr(stream, "reconfigure", None)
                if reconfigure is not None:
                    reconfigure(line_buffering=True)
            from behave.__main__ import main

            code = main(list(worker.args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except KeyboardInterrupt:  # stopped before behave's own hooks were in place: nothing of ours to close
            code = 128 + signal.SIGINT
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            try:
                logging.shutdown()
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    os.close(write)
    worker._pid, worker._fd = pid, read


def _spawn(worker: Worker) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **worker.env}
    popen = subprocess.Popen(
        [sys.executable, "-m", "behave", *worker.args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        process_group=0,  # its own group, as a forked worker (see the module's doc)
    )
    assert popen.stdout is not None
    worker._popen, worker._fd = popen, popen.stdout.fileno()


def _wait(worker: Worker) -> int:
    if worker._popen is not None:
        return worker._popen.wait()
    assert worker._pid is not None
    _, status = os.waitpid(worker._pid, 0)
    return os.waitstatus_to_exitcode(status)


def _kill(worker: Worker) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(worker.pid, signal.SIGKILL)


class _Pool:
    """The running workers of `run_workers` and the one `selectors` loop that reads them, starts the next and reaps.

    A class rather than closures so that each step of the loop (start, read, reap, stop) is a
    method small enough to read on its own.
    """

    def __init__(self, fork: bool, stop: _Stop, callbacks: _Callbacks) -> None:
        self.fork = fork
        self.stop = stop
        self.callbacks = callbacks
        self.selector = selectors.DefaultSelector()
        self.running: dict[int, tuple[Worker, deque[Worker]]] = {}

    def start(self, queue: deque[Worker]) -> None:
        """Start the next worker of `queue`, unless it is empty or the run is stopping."""
        if not queue or self.stop.received:
            return
        worker = queue.popleft()
        if not self.fork:
            _spawn(worker)
        with _signals_blocked():  # a signal from here on is passed on to this worker too
            if self.fork:
                _fork(worker, list(self.running))
            assert worker._fd is not None
            worker._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            self.selector.register(worker._fd, selectors.EVENT_READ)
            self.running[worker._fd] = (worker, queue)
            self.stop.running[worker._fd] = worker
            self.stop.forward(worker)  # what arrived while it was being started

    def emit(self, worker: Worker, text: str, final: bool = False) -> None:
        """Pass on the complete lines of `text` (all of it when `final`), keeping a partial last line for later."""
        text = worker._partial + text
        if final:
            complete, worker._partial = text, ""
        else:
            cut = text.rfind("\n") + 1
            complete, worker._partial = text[:cut], text[cut:]
        if complete:
            worker.output.append(complete)
            self.callbacks.on_output(worker, complete)

    def notice(self) -> None:
        """Say which stop signals arrived; kill the workers still running `STOP_GRACE` seconds after the first."""
        running = self.running
        on_notice = self.callbacks.on_notice
        for number in self.stop.news():
            name = signal.Signals(number).name
            on_notice(
                f"mcpbdd: {name}: stopping the run; {len(running)} behave process(es) close their scenarios first "
                f"(at most {STOP_GRACE:g} s)"
            )
        if self.stop.first_at is not None and running and time.monotonic() - self.stop.first_at > STOP_GRACE:
            on_notice(f"mcpbdd: {len(running)} behave process(es) still running {STOP_GRACE:g} s later: killed")
            for worker, _queue in running.values():
                _kill(worker)
            self.stop.first_at = None  # killed once; their pipes close and the loop reaps them

    def read(self, fd: int) -> None:
        """Read what the worker on `fd` wrote; at the end of its output, reap it and start the next of its chain."""
        worker, queue = self.running[fd]
        data = os.read(fd, 65536)
        if data:
            self.emit(worker, worker._decoder.decode(data))
            return
        self.emit(worker, worker._decoder.decode(b"", final=True), final=True)
        self.reap(fd, worker)
        self.callbacks.on_done(worker)
        self.start(queue)

    def reap(self, fd: int, worker: Worker) -> None:
        """Forget the worker whose output ended on `fd`, close its pipe and wait for its exit status."""
        self.selector.unregister(fd)
        del self.running[fd]
        del self.stop.running[fd]
        if worker._popen is not None and worker._popen.stdout is not None:
            worker._popen.stdout.close()
        else:
            os.close(fd)
        worker.returncode = _wait(worker)

    def loop(self) -> None:
        """Until no worker runs: read what they write, say what stops them, tick about ten times a second."""
        last_tick = 0.0
        while self.running:
            ready = self.selector.select(timeout=0.1)
            if ready:
                time.sleep(GATHER)  # let the lines that follow arrive: one read for many, not a wake-up each
            for key, _ in ready:
                self.read(key.fd)
            self.notice()
            if time.monotonic() - last_tick >= 0.1:
                last_tick = time.monotonic()
                self.callbacks.on_tick()

    def close(self) -> None:
        """After an error in the loop: stop the workers left, then reap them."""
        self.selector.close()
        for fd, (worker, _queue) in list(self.running.items()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGTERM)
            if worker._popen is None:
                os.close(fd)
            worker.returncode = _wait(worker)


@dataclass(frozen=True)
class _Callbacks:
    """What `run_workers` tells its caller (see there)."""

    on_output: Callable[[Worker, str], None]
    on_done: Callable[[Worker], None]
    on_tick: Callable[[], None]
    on_notice: Callable[[str], None]


def run_workers(
    chains: Sequence[Sequence[Worker]],
    *,
    on_output: Callable[[Worker, str], None],
    on_done: Callable[[Worker], None],
    on_tick: Callable[[], None],
    on_notice: Callable[[str], None] = lambda text: None,
    fork: bool | None = None,
) -> int | None:
    """Run each chain's workers one after the other, the chains side by side; return the signal that stopped the run.

    `on_output(worker, text)` gets complete lines as they come; `on_done(worker)` runs when
    a worker has exited (its `returncode` set); `on_tick()` about ten times a second;
    `on_notice(text)` a line about stopping. On SIGINT or SIGTERM no further worker starts and
    the running ones get the signal; their output is still read until they exit, and the
    signal is returned (None when the run was not stopped).
    """
    fork = use_fork() if fork is None else fork
    if fork:
        _preimport()
    stop = _Stop()
    pool = _Pool(fork, stop, _Callbacks(on_output, on_done, on_tick, on_notice))
    with stop:
        try:
            for chain in chains:
                pool.start(deque(chain))
            pool.loop()
        finally:
            pool.close()
    return stop.signal
