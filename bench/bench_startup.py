"""behave's start-up with mcpbdd's hooks and steps, against plain behave, on an empty feature.

Run: `.venv/bin/python bench/bench_startup.py [--reps 3]`

Every behave invocation pays its start-up: every shard, every `mcpbdd run --jobs` worker and every
`make features` pass. What a scenario needs (the World, the SDK, allure, the apps host, the
authorization server, conformance, hypothesis, jsonschema) loads at the first scenario that needs it,
so an empty feature measures what the hooks and steps cost by merely being installed. Three whole
commands in subprocesses, from a temporary folder holding one `Feature:` line and nothing else:

  plain behave       `python -m behave features` (`features/empty.feature`), no environment.py, an empty steps/ folder;
  behave + mcpbdd    the same, with mcpbdd's one-line environment.py and steps/ module (what
                     `mcpbdd init` writes);
  mcpbdd run         `mcpbdd run` on the same folder: the command line, its plan and one behave worker.

With `--compare DIR` (another checkout of mcpbdd, e.g. the main branch's), the two mcpbdd variants also run
with that checkout first on PYTHONPATH, in the same rounds: a before/after under the same load.

Interleaved rep by rep after one warm-up round (warm .pyc files for all); each figure is the median,
wall clock from start to exit, with CPU time (user + system of the command and every process it
waited for) beside it, since other work on the machine moves wall clock more. Then one
`python -X importtime -c "import mcpbdd.steps, mcpbdd.behave"` shows where the import's time goes
(the largest modules by cumulative time, one level under the two imported). Target: behave +
mcpbdd <= 1.0 s wall (median).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

BIN = Path(sys.executable).parent
VARIANTS = ("plain behave", "behave + mcpbdd", "mcpbdd run")
TARGET_SECONDS = 1.0


def write_projects(root: Path) -> dict[str, Path]:
    """One folder per variant, each holding the same empty feature."""
    plain, mcpbdd = root / "plain", root / "mcpbdd"
    for folder in (plain, mcpbdd):
        (folder / "features" / "steps").mkdir(parents=True)
        (folder / "features" / "empty.feature").write_text("Feature: empty\n")
    (plain / "features" / "steps" / "__init__.py").write_text("")
    (mcpbdd / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (mcpbdd / "features" / "steps" / "mcpbdd_steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    # `mcpbdd run` needs a server to plan against; the bundled example's import is its pre-flight check.
    (mcpbdd / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "mcpbdd.examples.notes:mcp"\n')
    return {"plain behave": plain, "behave + mcpbdd": mcpbdd, "mcpbdd run": mcpbdd}


def command(variant: str, out: Path) -> list[str]:
    if variant.startswith("mcpbdd run"):
        return [str(BIN / "mcpbdd"), "run", "--results", str(out / "allure-results"), "--junit", str(out / "junit")]
    return [sys.executable, "-m", "behave", "features"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(variant: str, folder: Path, out: Path, compare: Path | None) -> tuple[float, float]:
    """(wall-clock seconds, CPU seconds) of one run, which must exit 0 having run no scenario."""
    env = dict(os.environ)
    if variant.endswith("[compare]"):
        assert compare is not None
        env["PYTHONPATH"] = str(compare)
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(command(variant, out), cwd=folder, capture_output=True, text=True, env=env)
    elapsed, cpu = time.perf_counter() - started, _children_cpu() - cpu
    text = done.stdout + done.stderr
    if done.returncode != 0 or "0 scenarios passed" not in text:
        raise SystemExit(f"{variant} did not run the empty feature ({done.returncode}):\n{text[-3000:]}")
    return elapsed, cpu


def import_profile(folder: Path, top: int = 12) -> list[tuple[str, float]]:
    """The largest modules (cumulative ms) directly under `import mcpbdd.steps, mcpbdd.behave` and their imports."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import mcpbdd.steps, mcpbdd.behave"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[str, float]] = []
    for line in done.stderr.splitlines():
        found = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if found and len(found[2]) <= 3:  # the two imported and what they import directly
            rows.append((f"{found[2]}{found[3]}", int(found[1]) / 1000))
    return sorted(rows, key=lambda row: -row[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--compare", type=Path, help="another checkout of mcpbdd, run beside this one")
    args = parser.parse_args()
    compare: Path | None = args.compare.resolve() if args.compare else None
    if compare is not None and not (compare / "mcpbdd" / "__init__.py").is_file():
        raise SystemExit(f"--compare {compare}: no mcpbdd/__init__.py there")
    variants = [*VARIANTS, *(f"{v} [compare]" for v in VARIANTS[1:] if compare is not None)]
    times: dict[str, list[float]] = {name: [] for name in variants}
    cpus: dict[str, list[float]] = {name: [] for name in variants}
    load_before, began = os.getloadavg()[0], time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mcpbdd-bench-startup-") as scratch:
        folders = write_projects(Path(scratch))
        for name in variants:  # warm-up: .pyc files and the page cache, for everyone
            run_once(name, folders[name.removesuffix(" [compare]")], Path(scratch) / "warmup", compare)
        for rep in range(args.reps):
            for name in variants:
                folder = folders[name.removesuffix(" [compare]")]
                wall, cpu = run_once(name, folder, Path(scratch) / f"out-{rep}", compare)
                times[name].append(wall)
                cpus[name].append(cpu)
        profile = import_profile(folders["behave + mcpbdd"])
    took = time.perf_counter() - began
    medians = {name: statistics.median(values) for name, values in times.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpus.items()}
    base, cpu_base = medians["plain behave"], cpu_medians["plain behave"]
    print(f"# start-up on an empty feature, {args.reps} reps, wall clock of the whole command\n")
    if compare is not None:
        print(f"[compare]: the same command with {compare} first on PYTHONPATH.\n")
    print(
        f"Python {platform.python_version()}, mcp {version('mcp')}, behave {version('behave')}, "
        f"{os.cpu_count()} CPUs, load {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
        f"took {took:.0f} s.\n"
    )
    print("| variant | wall median (s) | spread (s) | ratio to plain behave | CPU median (s) | CPU ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, values in times.items():
        print(
            f"| {name} | {medians[name]:.2f} | {min(values):.2f}-{max(values):.2f} | **{medians[name] / base:.2f}x** "
            f"| {cpu_medians[name]:.2f} | {cpu_medians[name] / cpu_base:.2f}x |"
        )
    print('\n`python -X importtime -c "import mcpbdd.steps, mcpbdd.behave"`, largest (cumulative ms):\n')
    for module, ms in profile:
        print(f"    {ms:8.1f}  {module}")
    verdict = "ok" if medians["behave + mcpbdd"] <= TARGET_SECONDS else "NOT MET"
    print(f"\ntarget: behave + mcpbdd <= {TARGET_SECONDS} s: {verdict}")
    again = f" --compare {compare}" if compare is not None else ""
    print(f"command: .venv/bin/python bench/bench_startup.py --reps {args.reps}{again}")


if __name__ == "__main__":
    main()
