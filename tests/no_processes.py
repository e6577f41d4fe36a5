"""The fast tier's promise, kept: a test outside tests/spawning/ that starts a process fails, saying where it belongs.

`make test-fast` runs every test outside tests/spawning/ and must stay under a minute on two cores; what makes a
test slow here is a process it starts (behave, `mcpbdd run`, a server over stdio or HTTP, a fork server), so
such a test lives in tests/spawning/. conftest.py installs this guard for the whole session; while a test outside
that folder is set up, run or torn down, every way CPython on Linux starts a process (`subprocess.Popen`, which
`subprocess.run`, `asyncio.create_subprocess_exec` and anyio's `open_process` go through; `os.fork`, `os.forkpty`,
`os.posix_spawn[p]`, `os.system`; `_posixsubprocess.fork_exec`, which multiprocessing's spawn and forkserver
start methods call) raises instead of starting one. A test that catches that error still fails: the attempt is
remembered and reported after the phase, so the tier cannot be kept honest by accident.
"""

from __future__ import annotations

import _posixsubprocess
import os
import subprocess
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["SPAWNING", "ProcessStarted", "forbidding", "guarded_phase", "install", "started"]

SPAWNING = Path(__file__).parent / "spawning"
"""The slow tier: the tests that start processes."""


class ProcessStarted(RuntimeError):
    """A test of the fast tier tried to start a process."""


_test: str | None = None
"""The node id of the fast-tier test now in a phase (setup, call, teardown), or None: starting a process is allowed."""

_attempts: list[str] = []
"""What the current fast-tier test tried to start, in order."""


def _guarded(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def guard(*args: Any, **kwargs: Any) -> Any:
        if _test is None:
            return original(*args, **kwargs)
        _attempts.append(name)
        raise ProcessStarted(
            f"{_test} starts a process ({name}): the fast tier (`make test-fast`) starts none; "
            f"move the test to {SPAWNING.relative_to(SPAWNING.parents[1])}/"
        )

    guard.__name__ = getattr(original, "__name__", name)
    guard.__doc__ = original.__doc__
    return guard


def install() -> None:
    """Wrap every function that starts a process; each behaves as before unless a fast-tier test is running."""
    subprocess.Popen.__init__ = _guarded("subprocess.Popen", subprocess.Popen.__init__)  # type: ignore[method-assign]
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
        setattr(os, name, _guarded(f"os.{name}", getattr(os, name)))
    _posixsubprocess.fork_exec = _guarded("_posixsubprocess.fork_exec", _posixsubprocess.fork_exec)


def forbidding(test: str | None) -> None:
    """From now on, `test` (a node id) may start no process; None lifts the ban."""
    global _test
    _test = test
    _attempts.clear()


def started() -> list[str]:
    """What the test named to `forbidding` tried to start since (caught or not)."""
    return list(_attempts)


def guarded_phase(item: pytest.Item) -> Generator[None, None, None]:
    """One phase of `item` (setup, call or teardown), as a hook wrapper's body: a test outside tests/spawning/ may
    start no process during it, and fails after it if it tried, saying so, whatever it did with the error (caught
    it and passed, or failed later for want of the process)."""
    fast = not item.path.is_relative_to(SPAWNING)
    forbidding(item.nodeid if fast else None)
    try:
        yield
    finally:
        attempts = started()
        forbidding(None)
        if attempts:
            pytest.fail(f"{item.nodeid} tried to start a process ({', '.join(attempts)}): move it to tests/spawning/")
