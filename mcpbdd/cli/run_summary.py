"""The last lines of `mcpbdd run`: the verdict and its counts, per harness, and where the results are.

    mcpbdd: passed: 184 passed, 0 failed in 14.0 s (2 jobs)
    mcpbdd:   context harness: 85 passed, 0 failed, 0 skipped
    mcpbdd:   client harness: 99 passed, 0 failed, 0 skipped
    mcpbdd: Allure results in /project/reports/allure-results (render them: mcpbdd report)
    mcpbdd: JUnit XML in /project/reports/junit

Printed after an interrupted run too, with the totals so far.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TextIO

from mcpbdd.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mcpbdd.cli.progress import EventFiles
from mcpbdd.reporting.lost import LostScenario
from mcpbdd.reporting.totals import Totals

__all__ = ["print_summary"]


def print_summary(
    args: argparse.Namespace,
    events: EventFiles,
    worst: int,
    elapsed: float,
    out: TextIO,
    signal_name: str = "",
    per_harness: dict[str, EventFiles] | None = None,
    lost: Sequence[LostScenario] = (),
) -> None:
    """The summary of a run that ended with `worst` (an exit status) after `elapsed` seconds.

    Each lost scenario (its process ended before it reported, `mcpbdd.cli.lost`) is named first, as broken.
    """
    if lost:
        print(file=out)  # the process that died may have left its last console line unfinished
    for scenario in lost:
        column = f" ({scenario.column})" if scenario.column else ""
        ended = f" (exit code {scenario.returncode})" if scenario.returncode is not None else ""
        print(f"mcpbdd: BROKEN {scenario.location} {scenario.shown}{column}: {scenario.message}{ended}", file=out)
    counts = f"{events.passed} passed, {events.failed} failed"
    broken = events.broken + len(lost)  # a lost scenario is broken: no verdict reached any report
    if broken:  # the specification or its set-up is wrong, not the server (mcpbdd.reporting.broken)
        counts += f", {broken} broken" + (f" ({len(lost)} lost: no verdict)" if lost else "")
    if events.skipped:
        counts += f", {events.skipped} skipped"
    where = []
    if args.jobs > 1:
        where.append(f"{args.jobs} jobs")
    if args.shard:
        where.append(f"shard {args.shard[0]}/{args.shard[1]}")
    how = f" ({', '.join(where)})" if where else ""
    verdict = {EXIT_OK: "passed", EXIT_FAILED: "FAILED", EXIT_USAGE: "could not run"}.get(
        worst, f"interrupted ({signal_name})"
    )
    print(f"\nmcpbdd: {verdict}: {counts} in {elapsed:.1f} s{how}", file=out)
    if per_harness and len(per_harness) > 1:
        for name, files in per_harness.items():
            files.poll()
            print(
                f"mcpbdd:   {name} harness: {Totals(files.passed, files.failed, files.skipped, files.broken)}", file=out
            )
    print(f"mcpbdd: Allure results in {args.results.resolve()} (render them: mcpbdd report)", file=out)
    if not args.no_junit:
        print(f"mcpbdd: JUnit XML in {args.junit.resolve()}", file=out)
