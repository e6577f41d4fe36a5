"""Do the fork server's pre-faulted pages (`fork_pages.py`) earn their code? The same forked scenario, with and without.

Two fork servers run side by side for the same command: the real one, and a copy of its three files whose
`prefault` does nothing (the learners still record, nothing is copied ahead). The variants are interleaved in
every rep (in alternating order, so neither always runs first), and each rep's ratio (without / with) is taken
on its own: on a shared, noisy machine a ratio measured within one rep is steadier than two medians.

    .venv/bin/python bench/bench_prefault.py [--scenarios 20] [--reps 15]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_spawn import COMMAND, scenario, timed

from mcpbdd.harness.processes import spawn
from mcpbdd.model.config import Settings
from mcpbdd.model.kinds import HarnessKind
from mcpbdd.scenario.runtime import RunLoop

NO_PREFAULT = """

def prefault(runs, *, until_readable):  # the benchmark's copy: pre-faulting switched off
    return None
"""


def without_prefault(folder: Path) -> Path:
    """A copy of the fork server whose standbys copy no page ahead; its `forkserver.py`."""
    here = Path(spawn.__file__).resolve().parent
    for source in here.glob("*.py"):  # the fork server loads its siblings from its own folder
        shutil.copy(source, folder / source.name)
    with (folder / "fork_pages.py").open("a") as pages:
        pages.write(NO_PREFAULT)
    return folder / "forkserver.py"


def settings(variant: str) -> Settings:
    """The scenario's settings; a `PYTHON*` variable keeps the two variants' fork servers apart (`spawn._key`)."""
    return Settings(
        server=COMMAND,
        harness=HarnessKind.CLIENT,
        spawn="fork",
        start_timeout=120,
        timeout=60,
        env={"PYTHON_BENCH_VARIANT": variant},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", type=int, default=20, help="scenarios per variant per rep")
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    run_loop = RunLoop()
    began = time.perf_counter()
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench-prefault-") as folder:
        real = spawn._FORKSERVER
        variants = {"pre-faulted": settings("pre-faulted"), "not pre-faulted": settings("not pre-faulted")}
        spawn._FORKSERVER = without_prefault(Path(folder))  # read when a fork server starts: this one's only
        for _ in range(4):  # its start, and the learners (the first forks) recording what they write
            scenario(variants["not pre-faulted"], run_loop)
        spawn._FORKSERVER = real
        for _ in range(4):
            scenario(variants["pre-faulted"], run_loop)
        samples: dict[str, list[float]] = {name: [] for name in variants}
        ratios = []
        for rep in range(args.reps):
            order = list(variants) if rep % 2 == 0 else list(reversed(variants))
            for name in order:
                samples[name].append(timed(functools.partial(scenario, variants[name], run_loop), args.scenarios))
            ratios.append(samples["not pre-faulted"][-1] / samples["pre-faulted"][-1])
        load.append(os.getloadavg()[0])
        spawn.stop_all()
    run_loop.close()
    took = time.perf_counter() - began
    print(f"Command: `.venv/bin/python bench/bench_prefault.py --scenarios {args.scenarios} --reps {args.reps}`  ")
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load[0]:.1f} at the start, "
        f"{load[1]:.1f} at the end; {args.reps} reps x {args.scenarios} scenarios per variant, interleaved. "
        f"Took {took:.0f} s.\n"
    )
    print("| variant | ms per scenario (median of reps) | spread ms |")
    print("| --- | ---: | ---: |")
    for name, values in samples.items():
        print(f"| {name} | {statistics.median(values) * 1e3:.1f} | {min(values) * 1e3:.1f}-{max(values) * 1e3:.1f} |")
    quartiles = statistics.quantiles(ratios, n=4)
    print(
        f"\nwithout / with, per rep: median {statistics.median(ratios):.3f}x "
        f"(quartiles {quartiles[0]:.3f}-{quartiles[2]:.3f}, range {min(ratios):.3f}-{max(ratios):.3f}); "
        f"{sum(ratio > 1 for ratio in ratios)} of {len(ratios)} reps faster with pre-faulting"
    )


if __name__ == "__main__":
    main()
