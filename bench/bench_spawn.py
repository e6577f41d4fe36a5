"""A fresh server process per scenario: plain start vs the fork server and the warm spare, in one run.

Each scenario is what behave runs for one scenario on the client harness: a `World` (with the
scenario's doubles placed as mcpbdd places them), three tool calls, then `close()` (the server
process stopped). Variants, interleaved rep by rep so drift in the machine's load hits all alike:

  in-process    `mcpbdd.examples.unreliable:mcp` on the client harness (the baseline);
  stdio plain   `stdio: {python} -m mcpbdd.examples.unreliable`, `spawn = "plain"`;
  stdio fork    the same command, `spawn = "fork"` (a fork of the warm parent per scenario);
  stdio default the same command with the `spawn` setting left at its default (`auto`: fork here);
  waiting plain a server whose start-up is mostly waiting (`sh -c 'sleep 0.5; exec python -m ...'`:
                not a Python command, so never forked), `spawn = "plain"`;
  waiting spare the same command, `spawn = "spare"` (processes started ahead for the next scenarios).

The fork server's own start (once per run) is paid in a warm-up scenario before timing; so is the
first in-process scenario's import. The spare is not warmed up: each timed block of the spare row
starts with no spare (its first scenario starts plainly) and ends by stopping the spares no scenario
took (`spare.stop_all()`, as a run's end does), both inside the timing. Targets: fork <= 3x
in-process; spare >= 1.5x faster than plain on the waiting server.

    .venv/bin/python bench/bench_spawn.py [--scenarios 10] [--reps 3]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable

from mcpbdd.harness.processes import spare, spawn
from mcpbdd.model.config import Settings
from mcpbdd.model.kinds import HarnessKind
from mcpbdd.scenario.runtime import RunLoop
from mcpbdd.scenario.world import World

COMMAND = "stdio: {python} -m mcpbdd.examples.unreliable"
WAITING = "stdio: sh -c 'sleep 0.5; exec \"$0\" -m mcpbdd.examples.unreliable' {python}"
VARIANTS: dict[str, Settings] = {
    "in-process": Settings(server="mcpbdd.examples.unreliable:mcp", harness=HarnessKind.CLIENT),
    "stdio plain": Settings(server=COMMAND, harness=HarnessKind.CLIENT, spawn="plain", start_timeout=120, timeout=60),
    "stdio fork": Settings(server=COMMAND, harness=HarnessKind.CLIENT, spawn="fork", start_timeout=120, timeout=60),
    "stdio default": Settings(server=COMMAND, harness=HarnessKind.CLIENT, start_timeout=120, timeout=60),
    "waiting plain": Settings(server=WAITING, harness=HarnessKind.CLIENT, spawn="plain", start_timeout=120, timeout=60),
    "waiting spare": Settings(server=WAITING, harness=HarnessKind.CLIENT, spawn="spare", start_timeout=120, timeout=60),
}
WARM_UP = ("in-process", "stdio plain", "stdio fork")


def scenario(settings: Settings, run_loop: RunLoop) -> None:
    """One scenario: three calls against a server started for it, then everything it opened is closed."""
    world = World(settings, run_loop.owner())
    try:
        for _ in range(3):
            outcome = world.call_tool("status")
            if not outcome.ok:
                raise RuntimeError(f"the bench's call failed: {outcome.failure or outcome.text}")
    finally:
        errors = world.close()
    if errors:
        raise RuntimeError(f"closing the scenario failed: {errors!r}")


def timed(run: Callable[[], None], n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        run()
    spare.stop_all()  # the spares left for scenarios that will not come (a no-op for the other variants)
    return (time.perf_counter() - started) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", type=int, default=10, help="scenarios per variant per rep")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    run_loop = RunLoop()
    began = time.perf_counter()
    for name in WARM_UP:  # warm-up: imports, and the fork server's one start
        scenario(VARIANTS[name], run_loop)
    samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(args.reps):
        for name, settings in VARIANTS.items():
            samples[name].append(timed(functools.partial(scenario, settings, run_loop), args.scenarios))
    spawn.stop_all()
    run_loop.close()
    took = time.perf_counter() - began

    median = {name: statistics.median(values) for name, values in samples.items()}
    base = median["in-process"]
    print(f"Command: `.venv/bin/python bench/bench_spawn.py --scenarios {args.scenarios} --reps {args.reps}`  ")
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end; "
        f"{args.reps} reps x {args.scenarios} scenarios of three calls per variant, interleaved. Took {took:.0f} s.\n"
    )
    print("| variant | ms per scenario (median of reps) | spread ms | vs in-process | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name, values in samples.items():
        ratio = median[name] / base
        target = ""
        if name in ("stdio fork", "stdio default"):
            target = f"<= 3x: {'ok' if ratio <= 3 else 'MISSED'}"
        if name == "waiting spare":
            faster = median["waiting plain"] / median[name]
            target = f"{faster:.2f}x faster than plain, >= 1.5x: {'ok' if faster >= 1.5 else 'MISSED'}"
        spread = f"{min(values) * 1e3:.1f}-{max(values) * 1e3:.1f}"
        print(f"| {name} | {median[name] * 1e3:.1f} | {spread} | {ratio:.2f}x | {target} |")
    print(f"\nplain / fork: {median['stdio plain'] / median['stdio fork']:.1f}x; ", end="")
    print(f"plain / default: {median['stdio plain'] / median['stdio default']:.1f}x")
    print(f"waiting plain / waiting spare: {median['waiting plain'] / median['waiting spare']:.2f}x")


if __name__ == "__main__":
    main()
