"""One `mcpbdd run` at a time per reports folder: a second run that would write into it is refused.

Two runs writing one folder mixed their results: run A failed 10 scenarios and exited 1, yet
`allure-results` held 7 of them and run B's 2 passes (each run empties the folder when it
starts and writes into it while the other does). So a run holds an exclusive `fcntl` lock on
a file in the folder its results go to (`.mcpbdd-run.lock`, next to `allure-results`: the
results folder itself is emptied at the start) from before it empties anything until it has
redacted what it wrote. A second run asking for the same folder is refused at once, exit 2,
naming the folder and the pid of the run holding it. The lock is the kernel's: a run that dies
releases it, so a stale lock file never blocks a later run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["LOCK_NAME", "FolderBusy", "holding_reports"]

LOCK_NAME = ".mcpbdd-run.lock"


class FolderBusy(Exception):
    """Another run holds the reports folder's lock."""

    def __init__(self, folder: Path, pid: str) -> None:
        self.folder, self.pid = folder, pid
        holder = f"pid {pid}" if pid else "a process whose pid it did not write"
        super().__init__(
            f"another mcpbdd run ({holder}) is writing its reports in {folder}: wait for it to end, "
            "or give this run folders of its own (--results, --junit)"
        )


@contextlib.contextmanager
def holding_reports(results: Path) -> Iterator[Path]:
    """Hold the lock of the folder `results` is in for the enclosed run; FolderBusy if another run holds it."""
    folder = results.resolve().parent
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            raise FolderBusy(folder, pid) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # releases the lock (the forked workers' copies close as they exit)
