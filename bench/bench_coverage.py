"""What collecting coverage costs: the example's features with and without it, and per scenario in-process.

Run: `.venv/bin/python bench/bench_coverage.py [--reps 5] [--scenarios 300]`

1. Whole runs: `behave` on the project's own features (the example server, context harness,
   the fastest one, so the relative cost is largest there), with coverage (the default) and
   without (`-D mcpbdd.coverage_file=`), interleaved rep by rep; wall clock of each command,
   start-up included; medians. Target: at most 5% more.
2. In-process, per scenario: a World on the notes server making 3 calls (create, get, list)
   followed by a coverage collector; the collector's own time (following the World, its
   listener per exchange, counting the scenario when it ends) against the scenario's, both
   timed in the same scenarios, so a loaded machine slows both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def whole_run(coverage: bool, folder: Path) -> float:
    setting = f"mcpbdd.coverage_file={folder / 'coverage.json'}" if coverage else "mcpbdd.coverage_file="
    command = [sys.executable, "-m", "behave", "-f", "null", "--no-junit", "-D", "mcpbdd.harness=context"]
    command += ["-D", setting]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, env={**os.environ})
    return time.perf_counter() - started


def per_scenario(scenarios: int) -> tuple[float, float]:
    """(µs per scenario, µs of it spent by the collector): timed in the same scenarios, so load noise cancels."""
    from mcpbdd.checks.coverage import CoverageCollector, ScenarioCoverage, scenario_label
    from mcpbdd.model.config import load_settings
    from mcpbdd.model.trace import ExchangeRecorded
    from mcpbdd.scenario.runtime import RunLoop
    from mcpbdd.scenario.world import World

    settings = load_settings({"mcpbdd.server": "mcpbdd.examples.notes:mcp", "mcpbdd.harness": "context"})
    loop = RunLoop()
    collector = CoverageCollector()
    scenario_total = collector_total = 0.0
    try:
        for number in range(scenarios + 20):
            started = time.perf_counter()
            world = World(settings, loop.owner())
            mark = time.perf_counter()
            followed = collector.start(world.bus, scenario_label("bench.feature", number, "s"))
            spent = time.perf_counter() - mark
            world.add_tenant("acme")
            world.call_tool("create_note", {"title": "Groceries", "body": "Milk", "tags": ["home"]})
            world.call_tool("get_note", {"note_id": "n-1"})
            world.call_tool("list_notes", {"tag": "home"})
            mark = time.perf_counter()
            collector.finish(world, followed)
            spent += time.perf_counter() - mark
            # The listener's share, per exchange: replay the scenario's events into a fresh follower.
            replay = ScenarioCoverage("replay")
            mark = time.perf_counter()
            for exchange in world.trace.exchanges:
                replay.on_exchange(ExchangeRecorded(exchange))
            spent += time.perf_counter() - mark
            world.close()
            if number >= 20:  # the first scenarios warm up (and list the server's offer once)
                scenario_total += time.perf_counter() - started
                collector_total += spent
    finally:
        loop.close()
    return scenario_total / scenarios * 1e6, collector_total / scenarios * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--scenarios", type=int, default=300)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        runs: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(options.reps):
            for coverage in (False, True):
                runs[coverage].append(whole_run(coverage, Path(scratch)))
    off, on = min(runs[False]), min(runs[True])
    print(f"## Whole runs: the project's features, context harness, {options.reps} reps interleaved (wall s; the")
    print("fastest rep of each: on a shared machine the minimum is the least disturbed)\n")
    print("| variant | fastest s | min-max s | vs without |")
    print("|---|---:|---:|---:|")
    for label, coverage, median in (("without coverage", False, off), ("with coverage", True, on)):
        spread = f"{min(runs[coverage]):.2f}-{max(runs[coverage]):.2f}"
        print(f"| {label} | {median:.2f} | {spread} | {median / off:.3f}x |")
    print()
    measured = [per_scenario(options.scenarios) for _ in range(3)]
    scenario = statistics.median(m[0] for m in measured)
    collector = statistics.median(m[1] for m in measured)
    print(f"## Per scenario in-process: 3 calls, {options.scenarios} scenarios x 3 reps (medians)\n")
    print("| scenario (µs) | of which the coverage collector (µs) | share |")
    print("|---:|---:|---:|")
    print(f"| {scenario:.0f} | {collector:.1f} | {100 * collector / scenario:.2f}% |")


if __name__ == "__main__":
    main()
