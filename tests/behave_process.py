"""behave in a subprocess: the one way the tests start it.

behave's `main()` leaks step definitions when called twice in one process, so every test run of
behave is a subprocess of this interpreter. `behave()` runs one to the end and returns what it
printed; `behave_argv()` is the command line, for a test that must start behave itself (to signal
it while it runs); `side_by_side()` begins several runs at once, for a module whose tests read
several. The repository and tests/ (the test-only servers) are importable unless the test says
which folders are.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import warm_python

__all__ = ["CONCURRENT", "ROOT", "TESTS", "behave", "behave_argv", "behave_env", "side_by_side"]

Key = TypeVar("Key", bound=Hashable)
Result = TypeVar("Result")

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

CONCURRENT = 2
"""behave runs at once when a module begins several side by side: a run of a test feature spends most of its time
waiting (servers and browsers starting, timeouts and grace periods the feature provokes), not computing, so a few
overlap well on two cores (with pytest-xdist's workers, two runs each keep both busy); more would only
queue for them and stretch the timing-sensitive scenarios."""

TIMEOUT = 300.0
"""Seconds one behave run may take before the test fails (a hung run fails the test, never the suite)."""


def behave_argv(*args: str) -> list[str]:
    """`python -m behave ARGS` with this interpreter."""
    return [sys.executable, "-m", "behave", *args]


def behave_env(importable: Sequence[Path] = (ROOT, TESTS), extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment with `importable` as PYTHONPATH (and `extra` on top)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, importable)), **(extra or {})}


def behave(
    *args: str, cwd: Path = ROOT, importable: Sequence[Path] = (ROOT, TESTS), timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run behave with `args` in `cwd` to its end; its exit status, stdout and stderr (text)."""
    return warm_python.run(
        behave_argv(*args), cwd=cwd, env=behave_env(importable), capture_output=True, text=True, timeout=timeout
    )


def side_by_side(keys: Iterable[Key], run: Callable[[Key], Result]) -> dict[Key, Future[Result]]:
    """`run(key)` for every key (once each), `CONCURRENT` at a time, begun now in the order given: each key's future
    result, whose `.result()` waits for that run only and raises what it raised. The runs go on in the background;
    the pool's threads end with the last of them."""
    pool = ThreadPoolExecutor(max_workers=CONCURRENT, thread_name_prefix="behave-run")
    futures = {key: pool.submit(run, key) for key in dict.fromkeys(keys)}
    pool.shutdown(wait=False)
    return futures
