"""The fast tier cannot start a process: each way to start one fails a test outside tests/spawning/, caught or not."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Callable

import no_processes
import pytest


def _subprocess() -> object:
    return subprocess.run([sys.executable, "-c", "pass"], check=True)


def _asyncio() -> object:
    return asyncio.run(asyncio.create_subprocess_exec(sys.executable, "-c", "pass"))


def _multiprocessing() -> None:
    multiprocessing.get_context("spawn").Process(target=print).start()


def _posix_spawn() -> int:
    return os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], dict(os.environ))


STARTS: list[tuple[Callable[[], object], str]] = [
    (_subprocess, "subprocess.Popen"),
    (_asyncio, "subprocess.Popen"),
    (_multiprocessing, "_posixsubprocess.fork_exec"),
    (os.fork, "os.fork"),
    (lambda: os.system("true"), "os.system"),
    (_posix_spawn, "os.posix_spawn"),
]


@pytest.mark.parametrize(("start", "name"), STARTS, ids=[name for _start, name in STARTS])
def test_each_way_to_start_a_process_is_refused_naming_the_test_and_the_slow_tier(
    request: pytest.FixtureRequest, start: Callable[[], object], name: str
) -> None:
    with pytest.raises(no_processes.ProcessStarted) as refused:
        start()
    assert str(refused.value) == (
        f"{request.node.nodeid} starts a process ({name}): the fast tier (`make test-fast`) starts none; "
        "move the test to tests/spawning/"
    )
    assert name in no_processes.started()
    no_processes.forbidding(request.node.nodeid)  # forget the attempt made on purpose, or this test would fail


def test_a_test_that_catches_the_refusal_still_fails(request: pytest.FixtureRequest) -> None:
    """The phase wrapper (conftest.py's hooks) reads what was attempted after the phase, whatever the test did."""
    phase = no_processes.guarded_phase(request.node)
    next(phase)
    with contextlib.suppress(no_processes.ProcessStarted):
        _subprocess()
    with pytest.raises(pytest.fail.Exception, match=r"tried to start a process \(subprocess.Popen\)"):
        next(phase)
    no_processes.forbidding(request.node.nodeid)  # the wrapper lifted the ban; the rest of this test is fast again


def test_a_test_that_fails_for_want_of_the_process_fails_naming_the_attempt(request: pytest.FixtureRequest) -> None:
    """A harness that catches the refusal and then times out must not read as a timeout: the attempt is the reason."""
    phase = no_processes.guarded_phase(request.node)
    next(phase)
    with contextlib.suppress(no_processes.ProcessStarted):
        _subprocess()
    with pytest.raises(pytest.fail.Exception, match=r"tried to start a process \(subprocess.Popen\)") as failed:
        phase.throw(TimeoutError("the server never answered"))
    assert isinstance(failed.value.__context__, TimeoutError)
    no_processes.forbidding(request.node.nodeid)
