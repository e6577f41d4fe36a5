"""Progress of a run: scenarios done / total and failures so far, on a terminal only.

Two halves, because `mcpbdd run` runs behave in child processes:

- `ProgressFormatter`, a behave formatter in each child, appends one character per
  finished scenario to its own file (`.` passed, `F` failed, `B` broken, `S` skipped): a write and a
  flush, nothing else, so it costs a child nothing measurable.
- `ProgressLine`, in the parent, sums those files and keeps one status line at the
  bottom of the terminal, redrawn under the children's output, from the moment the run
  has taken a few seconds. On anything that is not a terminal, or when `CI` is set (CI
  logs keep every byte), it draws nothing at all.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from mcpbdd.reporting.broken import scenario_kind
from mcpbdd.reporting.per_scenario import PerScenarioFormatter

__all__ = ["END", "EventFiles", "ProgressFormatter", "ProgressLine", "ended_normally", "wants_progress"]

PASSED, FAILED, BROKEN, SKIPPED = ".", "F", "B", "S"
END = "E"
"""Written once behave closes the formatter (the run ended normally): a process that died has no end mark."""
DELAY = float(os.environ.get("MCPBDD_PROGRESS_DELAY", "2"))
"""Seconds before the line first appears (`MCPBDD_PROGRESS_DELAY`): a short run prints nothing extra."""


class ProgressFormatter(PerScenarioFormatter):
    """`--format mcpbdd.runner.progress:ProgressFormatter --outfile FILE`: one character per finished scenario."""

    name = "mcpbdd.runner.progress"
    description = "one character per finished scenario (for mcpbdd run's progress line)"

    def finished(self, scenario: Any) -> None:
        kind = scenario_kind(scenario)  # failed and broken apart, as the Allure report shows them
        mark = {"passed": PASSED, "failed": FAILED, "broken": BROKEN}.get(kind, SKIPPED)
        self.stream.write(mark)
        self.stream.flush()

    def close(self) -> None:
        """behave closes its formatters when the run ends normally: say so (`ended_normally`)."""
        self._finish_current()
        self.stream.write(END)
        self.stream.flush()
        super().close()


def ended_normally(path: Path) -> bool:
    """Whether the behave process whose progress file is `path` ended normally (its end mark is there)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() == 0:
                return False
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == END.encode()
    except FileNotFoundError:
        return False


def wants_progress(stream: TextIO | None = None, environ: dict[str, str] | None = None) -> bool:
    """A terminal, and not CI: `CI` set to anything but `false`/`0`/empty means a CI log."""
    stream = stream if stream is not None else sys.stderr
    environ = environ if environ is not None else dict(os.environ)
    ci = environ.get("CI", "").strip().lower()
    if ci and ci not in ("0", "false", "no"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class EventFiles:
    """The children's progress files, read incrementally."""

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self.paths = list(paths)
        self._offsets: dict[Path, int] = {}
        self.passed = self.failed = self.broken = self.skipped = 0

    def add(self, path: Path) -> None:
        self.paths.append(path)

    def poll(self) -> None:
        for path in self.paths:
            try:
                with open(path, "rb") as handle:
                    handle.seek(self._offsets.get(path, 0))
                    data = handle.read()
            except FileNotFoundError:
                continue
            self._offsets[path] = self._offsets.get(path, 0) + len(data)
            self.passed += data.count(b".")
            self.failed += data.count(b"F")
            self.broken += data.count(b"B")
            self.skipped += data.count(b"S")

    @property
    def done(self) -> int:
        return self.passed + self.failed + self.broken + self.skipped


class ProgressLine:
    """One status line at the bottom of a terminal, with the children's output printed above it."""

    def __init__(self, total: int, *, enabled: bool, stream: TextIO | None = None, delay: float | None = None) -> None:
        self.total = total
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.delay = DELAY if delay is None else delay
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.shown = False
        self.text = ""

    def _clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")

    def update(self, done: int, failed: int) -> None:
        """Redraw the line (from the polling loop)."""
        if not self.enabled or time.monotonic() - self.started < self.delay:
            return
        elapsed = time.monotonic() - self.started
        failures = f", {failed} failed" if failed else ""
        text = f"mcpbdd: {done}/{self.total} scenarios{failures} · {elapsed:.0f} s"
        if text == self.text and self.shown:
            return
        with self.lock:
            self._clear()
            self.stream.write(text)
            self.stream.flush()
            self.shown = True
            self.text = text

    def write(self, text: str, out: TextIO | None = None) -> None:
        """Print output above the line: clear it, write, draw it again."""
        out = out if out is not None else sys.stdout
        with self.lock:
            if self.shown:
                self._clear()
                self.stream.flush()
            out.write(text)
            out.flush()
            if self.shown:
                self.stream.write(self.text)
                self.stream.flush()

    def close(self) -> None:
        with self.lock:
            if self.shown:
                self._clear()
                self.stream.flush()
                self.shown = False
