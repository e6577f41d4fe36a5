"""behave in a subprocess: the one way the tests start it.

behave's `main()` leaks step definitions when called twice in one process, so every test run of
behave is a subprocess of this interpreter. `behave()` runs one to the end and returns what it
printed; `behave_argv()` is the command line, for a test that must start behave itself (to signal
it while it runs). The repository and tests/ (the test-only servers) are importable unless the test
says which folders are.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["ROOT", "TESTS", "behave", "behave_argv", "behave_env"]

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

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
    return subprocess.run(
        behave_argv(*args), cwd=cwd, env=behave_env(importable), capture_output=True, text=True, timeout=timeout
    )
