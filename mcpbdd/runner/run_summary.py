"""The last lines of `mcpbdd run`: the verdict and its counts, per harness, and where the results are.

    mcpbdd: passed: 184 passed, 0 failed in 14.0 s (2 jobs)
    mcpbdd:   context harness: 85 passed, 0 failed, 0 skipped
    mcpbdd:   client harness: 93 passed, 0 failed, 6 skipped
    mcpbdd:   6 skipped: no Chromium (apt-get install chromium)
    mcpbdd: Allure results in /project/reports/allure-results (render them: mcpbdd report)
    mcpbdd: JUnit XML in /project/reports/junit

Every skipped scenario is counted under its reason, one line per reason (a skip always says why,
`mcpbdd.model.requirements`). Printed after an interrupted run too, with the totals so far.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from mcpbdd.reporting.lost import LostScenario
from mcpbdd.reporting.totals import Totals
from mcpbdd.reporting.verdicts import Verdict
from mcpbdd.runner.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mcpbdd.runner.progress import EventFiles
from mcpbdd.runner.run_options import RunOptions

__all__ = ["Breakdown", "print_summary", "skip_reasons"]

NO_REASON = "no reason given"


def skip_reasons(verdicts: Iterable[Verdict]) -> list[tuple[str, int]]:
    """How many scenarios were skipped for each reason, most first (then in the order they came)."""
    counts = Counter((verdict.message.strip() or NO_REASON) for verdict in verdicts if verdict.kind == "skipped")
    return counts.most_common()


@dataclass(frozen=True)
class Breakdown:
    """What the totals are made of: each harness's, the scenarios lost, why the skipped ones skipped."""

    per_harness: dict[str, EventFiles] = field(default_factory=dict)
    lost: Sequence[LostScenario] = ()
    """Each lost scenario (its process ended before it reported, `mcpbdd.runner.lost`): named first, as broken."""
    skipped: Sequence[tuple[str, int]] = ()
    """`skip_reasons`: a line per reason after the totals."""


def print_summary(
    options: RunOptions,
    events: EventFiles,
    worst: int,
    elapsed: float,
    out: TextIO,
    signal_name: str = "",
    breakdown: Breakdown | None = None,
) -> None:
    """The summary of a run that ended with `worst` (an exit status) after `elapsed` seconds."""
    breakdown = breakdown or Breakdown()
    lost, per_harness = breakdown.lost, breakdown.per_harness
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
    if options.jobs > 1:
        where.append(f"{options.jobs} jobs")
    if options.shard:
        where.append(f"shard {options.shard[0]}/{options.shard[1]}")
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
    for reason, count in breakdown.skipped:
        print(f"mcpbdd:   {count} skipped: {reason}", file=out)
    print(f"mcpbdd: Allure results in {options.results.resolve()} (render them: mcpbdd report)", file=out)
    if not options.no_junit:
        print(f"mcpbdd: JUnit XML in {options.junit.resolve()}", file=out)
