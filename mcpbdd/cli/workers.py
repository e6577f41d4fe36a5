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
"""

from __future__ import annotations

import codecs
import importlib
import logging
import os
import selectors
import subprocess
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["JOB_ENV", "PREIMPORT", "Worker", "run_workers", "use_fork"]

JOB_ENV = "MCPBDD_JOB"
"""Set in each worker of `mcpbdd run --jobs N` to its job number: the Allure timeline shows one lane per job."""

PREIMPORT = (
    "behave.__main__",
    "behave.runner",
    "behave.formatter.pretty",
    "behave.formatter.progress",
    "behave.reporter.junit",
    "mcpbdd.reporting.allure_formatter",
    "mcpbdd.cli.progress",
    "mcpbdd.behave",
)
"""What a forked worker inherits already imported: everything heavy that registers no step."""


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


def use_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork") and os.environ.get("MCPBDD_NO_FORK", "") in ("", "0")


def _preimport() -> None:
    for module in PREIMPORT:
        importlib.import_module(module)


def _fork(worker: Worker, inherited: Sequence[int]) -> None:
    read, write = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid == 0:  # the worker
        code = 1
        try:
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
    )
    assert popen.stdout is not None
    worker._popen, worker._fd = popen, popen.stdout.fileno()


def _wait(worker: Worker) -> int:
    if worker._popen is not None:
        return worker._popen.wait()
    assert worker._pid is not None
    _, status = os.waitpid(worker._pid, 0)
    return os.waitstatus_to_exitcode(status)


def run_workers(
    chains: Sequence[Sequence[Worker]],
    *,
    on_output: Callable[[Worker, str], None],
    on_done: Callable[[Worker], None],
    on_tick: Callable[[], None],
    fork: bool | None = None,
) -> None:
    """Run each chain's workers one after the other, the chains side by side.

    `on_output(worker, text)` gets complete lines as they come; `on_done(worker)` runs when
    a worker has exited (its `returncode` set); `on_tick()` about ten times a second.
    """
    fork = use_fork() if fork is None else fork
    if fork:
        _preimport()
    queues = [deque(chain) for chain in chains]
    selector = selectors.DefaultSelector()
    running: dict[int, tuple[Worker, deque[Worker]]] = {}

    def start(queue: deque[Worker]) -> None:
        if not queue:
            return
        worker = queue.popleft()
        if fork:
            _fork(worker, list(running))
        else:
            _spawn(worker)
        assert worker._fd is not None
        worker._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        selector.register(worker._fd, selectors.EVENT_READ)
        running[worker._fd] = (worker, queue)

    def emit(worker: Worker, text: str, final: bool = False) -> None:
        text = worker._partial + text
        if final:
            complete, worker._partial = text, ""
        else:
            cut = text.rfind("\n") + 1
            complete, worker._partial = text[:cut], text[cut:]
        if complete:
            worker.output.append(complete)
            on_output(worker, complete)

    for queue in queues:
        start(queue)
    last_tick = 0.0
    try:
        while running:
            for key, _ in selector.select(timeout=0.1):
                fd = key.fd
                worker, queue = running[fd]
                data = os.read(fd, 65536)
                if data:
                    emit(worker, worker._decoder.decode(data))
                    continue
                emit(worker, worker._decoder.decode(b"", final=True), final=True)
                selector.unregister(fd)
                del running[fd]
                if worker._popen is not None and worker._popen.stdout is not None:
                    worker._popen.stdout.close()
                else:
                    os.close(fd)
                worker.returncode = _wait(worker)
                on_done(worker)
                start(queue)
            if time.monotonic() - last_tick >= 0.1:
                last_tick = time.monotonic()
                on_tick()
    finally:
        selector.close()
        for fd, (worker, _queue) in list(running.items()):  # interrupted: reap what is left
            if worker._popen is None:
                os.close(fd)
            worker.returncode = _wait(worker)
