"""The whole suite, reports included, against the pytest suite a team would write instead.

Run: `.venv/bin/python bench/bench_suite.py [--scenarios 300] [--reps 7]`

The same N scenarios (three calls on the bundled notes server, six checks each; see
`bench/suite_pytest/suites.py` for one scenario beside its pytest test) are generated into a
temporary folder and run three ways, each a whole command in a subprocess, timed by wall
clock from start to exit (interpreter start-up and imports included: a CI job pays them):

  pytest         `python -m pytest` on the SDK's own in-process `Client`, plain asserts, no
                 reports (plugin autoload off, only anyio's plugin: the leanest pytest run);
  mcpbdd run     `mcpbdd run --harness client`: Allure results (every exchange attached),
                 JUnit XML, the timing file and coverage, behave's `pretty` console output;
  behave         plain `python -m behave --format null -D mcpbdd.harness=client`: mcpbdd's
                 steps and World, no reports.

Variants are interleaved rep by rep after one warm-up round (so .pyc files are warm for all
and a noisy moment hits every variant alike); each variant's figure is the median over reps,
and ratios are to the pytest suite's median (also per rep, paired, for the spread). CPU time
(user + system, of the command and every process it started) is reported beside: on a
machine other work keeps busy it moves less than wall clock does. Every
run is checked: pytest reports N passed, behave N scenarios passed, `mcpbdd run` N passed
Allure results and N JUnit test cases. Target: `mcpbdd run` <= 1.0x pytest.
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

sys.path.insert(0, str(Path(__file__).resolve().parent / "suite_pytest"))

from suites import write_suites

BIN = Path(sys.executable).parent
VARIANTS = ("pytest", "mcpbdd run", "behave")


def command(variant: str, out: Path) -> tuple[list[str], dict[str, str]]:
    """The command line and environment additions of one variant (`out`: this run's reports folder)."""
    if variant == "pytest":
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "anyio", "pytest"]
        return pytest, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    if variant == "mcpbdd run":
        reports = ["--results", str(out / "allure-results"), "--junit", str(out / "junit")]
        return [str(BIN / "mcpbdd"), "run", "--harness", "client", *reports, "--timings", str(out / "timings.json")], {}
    return [sys.executable, "-m", "behave", "--format", "null", "-D", "mcpbdd.harness=client"], {}


def check(variant: str, done: subprocess.CompletedProcess[str], out: Path, n: int) -> None:
    """Each run must have run (and reported) every scenario, or its time means nothing."""
    text = done.stdout + done.stderr
    if done.returncode != 0:
        raise SystemExit(f"{variant} failed ({done.returncode}):\n{text[-3000:]}")
    if variant == "pytest" and f"{n} passed" not in text:
        raise SystemExit(f"pytest did not pass {n} tests:\n{text[-2000:]}")
    if variant == "behave" and f"{n} scenarios passed" not in text:
        raise SystemExit(f"behave did not pass {n} scenarios:\n{text[-2000:]}")
    if variant == "mcpbdd run":
        results = list((out / "allure-results").glob("*-result.json"))
        passed = sum('"status": "passed"' in path.read_text() for path in results)
        cases = sum(len(re.findall(r"<testcase ", p.read_text())) for p in (out / "junit").rglob("*.xml"))
        attachments = len(list((out / "allure-results").glob("*-attachment*")))
        if passed != n or cases != n or attachments < 3 * n:
            raise SystemExit(f"mcpbdd run: {passed} passed results, {cases} JUnit cases, {attachments} attachments")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(folder: Path, variant: str, out: Path, n: int) -> tuple[float, float]:
    """One run of `variant`: (wall-clock seconds, CPU seconds of the command and every process it waited for)."""
    args, extra = command(variant, out)
    env = {**os.environ, **extra}
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - started, _children_cpu() - cpu
    check(variant, done, out, n)
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, default=300)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    n = args.scenarios
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cpus: dict[str, list[float]] = {name: [] for name in VARIANTS}
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mcpbdd-bench-suite-") as scratch:
        folder = Path(scratch) / "suite"
        write_suites(folder, n)
        for name in VARIANTS:  # warm-up: .pyc files and the page cache, for everyone
            run_once(folder, name, Path(scratch) / "warmup", n)
        for rep in range(args.reps):
            for name in VARIANTS:
                wall, cpu = run_once(folder, name, Path(scratch) / f"out-{rep}", n)
                times[name].append(wall)
                cpus[name].append(cpu)
    took = time.perf_counter() - began
    medians = {name: statistics.median(values) for name, values in times.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpus.items()}
    base, cpu_base = medians["pytest"], cpu_medians["pytest"]
    print(f"# suite: {n} scenarios x (3 calls, 6 checks), {args.reps} reps, wall clock of the whole command\n")
    print(
        f"Python {platform.python_version()}, mcp {version('mcp')}, behave {version('behave')}, "
        f"pytest {version('pytest')}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; took {took:.0f} s.\n"
    )
    print(
        "| variant | wall median (s) | spread (s) | ratio to pytest | paired per rep: median (range) "
        "| CPU median (s) | CPU ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, values in times.items():
        paired = sorted(v / p for v, p in zip(values, times["pytest"], strict=True))
        print(
            f"| {name} | {medians[name]:.2f} | {min(values):.2f}-{max(values):.2f} | **{medians[name] / base:.2f}x** "
            f"| {statistics.median(paired):.2f}x ({paired[0]:.2f}-{paired[-1]:.2f}x) "
            f"| {cpu_medians[name]:.2f} | {cpu_medians[name] / cpu_base:.2f}x |"
        )
    verdict = "ok" if medians["mcpbdd run"] <= base else "NOT MET"
    print(f"\ntarget: mcpbdd run <= 1.0x pytest: {verdict}")
    print(f"command: .venv/bin/python bench/bench_suite.py --scenarios {n} --reps {args.reps}")


if __name__ == "__main__":
    main()
