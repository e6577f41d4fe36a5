"""`mcpbdd run --jobs 2` against serial, and against BehaveX, on an I/O-bound and a CPU-bound suite.

Run: `.venv/bin/python bench/bench_parallel.py [--scenarios 200] [--reps 3]`
(BehaveX rows need `pip install behavex`; they are skipped without it.)

Two generated suites of N scenarios in 10 feature files, against a tiny `MCPServer`
defined in the suite's folder, on the context harness:

  io   the tool sleeps 20 ms (`anyio.sleep`): a server waiting on its upstream;
  cpu  the tool returns at once: the run is all Python (behave, mcpbdd, Allure).

Each variant is a whole command in a subprocess, timed by wall clock (start-up included,
because a CI job pays it), interleaved rep by rep; the table shows medians and the
speed-up against serial `mcpbdd run`. The script checks each run produced exactly N
passed Allure results with N distinct history ids (nothing lost, nothing duplicated),
and counts the attachments each wrote.

Variants: `mcpbdd run` (serial), `mcpbdd run --jobs 2` (feature buckets, one behave
process per job), and BehaveX 4 with 2 processes, by feature and by scenario. BehaveX
cannot run a behave formatter during the run (its `--formatter` converts its JSON report
afterwards), so its Allure results come from its own converter: no step attachments.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

SERVER = '''
import anyio
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("bench")


@mcp.tool()
async def wait(ms: int = 20) -> str:
    """Sleep like a server waiting on its upstream."""
    await anyio.sleep(ms / 1000)
    return "done"


@mcp.tool()
async def echo(text: str) -> str:
    return text
'''

SCENARIOS = {
    "io": (
        '  Scenario: waits {i}\n    Given the tenant "acme"\n'
        '    When the client calls "wait"\n    Then the call succeeds\n'
    ),
    "cpu": (
        '  Scenario: echoes {i}\n    Given the tenant "acme"\n'
        '    When the client calls "echo" with {{"text": "hi {i}"}}\n'
        '    Then the call succeeds\n    And the result mentions "hi {i}"\n'
    ),
}


def make_suite(folder: Path, kind: str, scenarios: int, files: int = 10) -> None:
    (folder / "features").mkdir(parents=True)
    (folder / "steps").mkdir()
    (folder / "bench_server.py").write_text(SERVER)
    (folder / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (folder / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "pyproject.toml").write_text(
        '[tool.mcpbdd]\nserver = "bench_server:mcp"\nharness = "context"\n\n[tool.behave]\npaths = ["features"]\n'
    )
    per_file = -(-scenarios // files)
    for index in range(files):
        numbers = range(index * per_file, min((index + 1) * per_file, scenarios))
        body = "".join(SCENARIOS[kind].format(i=i) for i in numbers)
        (folder / "features" / f"part_{index:02d}.feature").write_text(f"Feature: part {index}\n\n{body}")


def variants(results: Path) -> dict[str, list[str]]:
    mcpbdd = [str(BIN / "mcpbdd"), "run", "--results", str(results), "--no-junit", "-f", "progress"]
    behavex = [str(BIN / "behavex"), "--parallel-processes", "2", "-o", str(results.parent / "behavex-output")]
    # BehaveX cannot run a behave formatter during the run: its --formatter converts its own JSON report
    # afterwards, so Allure results come from its bundled converter, and carry no step attachments at all.
    behavex += ["--formatter", "behavex.outputs.formatters.allure_behavex_formatter:AllureBehaveXFormatter"]
    chosen = {"mcpbdd run (serial)": mcpbdd, "mcpbdd run --jobs 2": [*mcpbdd, "--jobs", "2"]}
    if (BIN / "behavex").exists():
        chosen["behavex, 2 processes by feature"] = [*behavex, "--parallel-scheme", "feature"]
        chosen["behavex, 2 processes by scenario"] = [*behavex, "--parallel-scheme", "scenario"]
    return chosen


def results_folder(name: str, results: Path) -> Path:
    return results.parent / "behavex-output" / "allure-results" if name.startswith("behavex") else results


def run_once(folder: Path, name: str, command: list[str], expected: int, attachments: dict[str, int]) -> float:
    results = folder / "results"
    for stale in (results, folder / "behavex-output"):
        shutil.rmtree(stale, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}", "CI": "true"}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    out = results_folder(name, results)
    tests = [json.loads(p.read_text()) for p in out.glob("*-result.json")] if out.is_dir() else []
    passed = [t for t in tests if t["status"] == "passed"]
    distinct = len({t["historyId"] for t in tests})
    attachments[name] = len(list(out.glob("*-attachment*"))) if out.is_dir() else 0
    if done.returncode != 0 or len(passed) != expected or distinct != expected:
        tail = (done.stdout + done.stderr)[-1500:]
        raise SystemExit(
            f"{name}: exit {done.returncode}, {len(passed)}/{expected} passed, {distinct} distinct\n{tail}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--suites", default="io,cpu")
    args = parser.parse_args()
    print(f"# mcpbdd run --jobs: {args.scenarios} scenarios in 10 feature files, {os.cpu_count()} cores, medians\n")
    print("| suite | variant | median wall (s) | speed-up vs serial | Allure attachments |")
    print("| --- | --- | ---: | ---: | ---: |")
    for kind in args.suites.split(","):
        with tempfile.TemporaryDirectory(prefix=f"mcpbdd-bench-parallel-{kind}-") as scratch:
            folder = Path(scratch)
            make_suite(folder, kind, args.scenarios)
            chosen = variants(folder / "results")
            attachments: dict[str, int] = {}
            run_once(folder, "warm-up", chosen["mcpbdd run (serial)"], args.scenarios, attachments)
            times: dict[str, list[float]] = {name: [] for name in chosen}
            for _ in range(args.reps):
                for name, command in chosen.items():
                    times[name].append(run_once(folder, name, command, args.scenarios, attachments))
        serial = statistics.median(times["mcpbdd run (serial)"])
        for name, values in times.items():
            median = statistics.median(values)
            print(f"| {kind} | {name} | {median:.2f} | {serial / median:.2f}x | {attachments[name]} |")
    print(f"\ncommand: .venv/bin/python bench/bench_parallel.py --scenarios {args.scenarios} --reps {args.reps}")


if __name__ == "__main__":
    main()
