"""Shards balanced by time: how long each shard of the example suite takes, split by scenario count vs by time.

    .venv/bin/python bench/bench_shards.py [--rounds 2]

One full `mcpbdd run` records the timing file; then, per round, the suite split in two and in
three runs shard by shard (one at a time, so shards do not compete for the CPUs), once without
a timing file (by scenario count, whole feature files) and once with it (by duration, heavy
features cut into scenarios). Each shard's wall-clock time is the whole `mcpbdd run` process,
start-up included, as a CI machine would see it. Prints the times and max/min per split.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(folder: Path, timings: Path, *extra: str) -> float:
    command = [sys.executable, "-m", "mcpbdd.cli.main", "run", "-f", "progress", "--timings", str(timings)]
    command += ["--results", str(folder / "allure"), "--junit", str(folder / "junit"), *extra]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(extra)} failed:\n{done.stdout[-2000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="bench-shards-") as scratch:
        folder = Path(scratch)
        timings = folder / "timings.json"
        whole = _run(folder / "whole", timings)
        print(f"whole suite, one process: {whole:.1f} s (records {timings.name})\n")
        print("| split | shards | wall-clock per shard (s), median of rounds | max/min |")
        print("| --- | ---: | --- | ---: |")
        for count in (2, 3):
            for label, source in (("by scenario count", folder / "absent.json"), ("by time", timings)):
                per_shard: list[list[float]] = [[] for _ in range(count)]
                for _round in range(rounds):
                    for index in range(1, count + 1):
                        out = folder / f"{count}-{index}"
                        per_shard[index - 1].append(_run(out, source, "--shard", f"{index}/{count}"))
                medians = [statistics.median(times) for times in per_shard]
                shown = ", ".join(f"{m:.2f}" for m in medians)
                print(f"| {label} | {count} | {shown} | {max(medians) / min(medians):.2f} |")


if __name__ == "__main__":
    main()
