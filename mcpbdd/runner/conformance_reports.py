"""One verdict per check in `mcpbdd conformance`'s console and files, the expected-failures file applied.

`mcpbdd conformance` runs the pack with `mcpbdd run`, whose files and closing totals are written
before the expected-failures file is applied: they said *failed* ("client.auto harness: 12 passed,
1 failed") for a failure the command then reported as expected, and exited 0. Here

- `RunConsole` passes the run's output through but for its closing totals (the lines the run
  prints after its processes end, which count the expected failures as failures);
- `apply_expected` marks each expected failure in the run's JUnit, Allure and Cucumber Messages
  files as skipped, naming its entry and the file (`mcpbdd.reporting.expected`);
- `totals_line` is the command's one count: passed, failed, expected failures, not applicable.
"""

from __future__ import annotations

import argparse
import re
from typing import TextIO

from mcpbdd.conformance.baseline import Baseline
from mcpbdd.conformance.summary import ERAS, EXPECTED, FAILED, PASSED, SKIPPED, Summary
from mcpbdd.reporting.expected import mark_expected

__all__ = ["RunConsole", "apply_expected", "totals_line"]

_RUN_TOTALS = re.compile(r"^mcpbdd: (passed|FAILED|could not run|interrupted[^:]*): |^mcpbdd:   \S+ harness: ")
"""The run's closing totals (`mcpbdd.runner.run_summary`), all and per harness."""


class RunConsole:
    """A text stream that writes the run's output to `out`, line by line, without the run's closing totals."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.pending = ""
        self.held: list[str] = []
        """The totals held back: printed after all (`release`) when the run could not run or was interrupted."""

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if _RUN_TOTALS.match(line):
                self.held.append(line)
            else:
                self.out.write(line + "\n")
        self.out.flush()
        return len(text)

    def release(self) -> None:
        """Print the totals held back (the run ended with no verdict of the pack's to replace them)."""
        self.out.write("".join(line + "\n" for line in [*self.held, self.pending] if line))
        self.held, self.pending = [], ""

    def flush(self) -> None:
        self.out.flush()

    def isatty(self) -> bool:
        return False


def apply_expected(args: argparse.Namespace, summary: Summary, baseline: Baseline) -> int:
    """Mark each expected failure in the run's files as skipped with its reason; how many were marked."""
    expected = {}
    for verdict in summary.verdicts:
        entry = baseline.entry(verdict.check, verdict.era) if verdict.status == EXPECTED else None
        if entry is not None:
            expected[(verdict.check, verdict.era)] = entry
    messages = args.messages
    return mark_expected(
        expected,
        args.expected_failures,
        check_of=lambda name: name.split(":", 1)[0].strip(),
        junit={era: args.junit / name for name, era in ERAS.items()},
        results=args.results,
        streams={era: messages.with_name(f"{messages.stem}.{name}{messages.suffix}") for name, era in ERAS.items()},
    )


def totals_line(summary: Summary) -> str:
    """The command's count of the pack's verdicts (every check on every era), the baseline applied."""
    counts = {status: sum(v.status == status for v in summary.verdicts) for status in (PASSED, FAILED, EXPECTED)}
    skipped = sum(v.status == SKIPPED for v in summary.verdicts)
    line = f"{counts[PASSED]} passed, {counts[FAILED]} failed, {counts[EXPECTED]} expected to fail"
    return line + (f", {skipped} not applicable" if skipped else "") + " (each check on each era)"
