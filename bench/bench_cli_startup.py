"""The `mcpbdd` command's start-up: a command imports only its own module, against a checkout that imports them all.

Run: `.venv/bin/python bench/bench_cli_startup.py --compare DIR [--reps 5]`

DIR is another checkout of mcpbdd (e.g. the main branch's worktree before the change), put first on PYTHONPATH for
the "before" side of each pair; the "after" side is this checkout. Interleaved rep by rep after one warm-up round,
each command in a subprocess from a temporary folder:

  coverage   `mcpbdd coverage FILE --json` on an empty coverage file (a command needing neither the SDK nor behave);
  diff       `mcpbdd diff OLD NEW` on two empty folders (it exits 2 at once: no scenario in them);
  run        `mcpbdd run` on a project of one empty feature (the command line, its plan and one behave worker).

Each figure is the median CPU time (user + system of the command and every process it waited for), which other work
on a shared machine moves less than wall clock (shown beside it). The ratio is after / before: under 1.0 is faster.
The test suite starts the command some hundreds of times (tests/spawning/), CI's jobs once per shard or report.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "coverage": ["coverage", "coverage.json", "--json"],
    "diff": ["diff", "old", "new"],
    "run": ["run", "--no-junit", "--no-coverage", "--results", "allure", "-f", "progress"],
}


def write_project(folder: Path) -> None:
    """A project of one empty feature, a coverage file and two empty results folders: what the commands read."""
    (folder / "features" / "steps").mkdir(parents=True)
    (folder / "features" / "empty.feature").write_text("Feature: empty\n")
    (folder / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (folder / "features" / "steps" / "mcpbdd_steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "mcpbdd.examples.notes:mcp"\n')
    (folder / "coverage.json").write_text(json.dumps({"format": "mcpbdd coverage 1", "harnesses": {}}))
    for name in ("old", "new"):
        (folder / name).mkdir()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(name: str, folder: Path, checkout: Path | None) -> tuple[float, float]:
    """(wall, CPU) seconds of one command; `checkout` first on PYTHONPATH (None: this checkout, as installed)."""
    env = {**os.environ}
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    command = [sys.executable, "-m", "mcpbdd.cli.main", *COMMANDS[name]]
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", type=Path, required=True, help="the checkout before the change")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    before: Path = args.compare.resolve()
    if not (before / "mcpbdd" / "cli" / "main.py").is_file():
        raise SystemExit(f"--compare {before}: no mcpbdd/cli/main.py there")
    sides: dict[str, Path | None] = {"before": before, "after": None}
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        write_project(folder)
        for name in COMMANDS:  # warm-up: .pyc files for both checkouts
            for checkout in sides.values():
                run_once(name, folder, checkout)
        for _ in range(args.reps):
            for name in COMMANDS:
                for side, checkout in sides.items():
                    figures.setdefault((name, side), []).append(run_once(name, folder, checkout))
    print(f"`mcpbdd COMMAND` start-up, median of {args.reps} (CPU = user + system, seconds); before = {before}\n")
    print("| command | before CPU | after CPU | after / before (CPU) | before wall | after wall |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in COMMANDS:
        wall = {side: statistics.median(w for w, _ in figures[(name, side)]) for side in sides}
        cpu = {side: statistics.median(c for _, c in figures[(name, side)]) for side in sides}
        ratio = cpu["after"] / cpu["before"]
        print(
            f"| {name} | {cpu['before']:.2f} | {cpu['after']:.2f} | {ratio:.2f}x | "
            f"{wall['before']:.2f} | {wall['after']:.2f} |"
        )
    print(f"\n(load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
