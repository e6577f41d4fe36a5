"""What mcpbdd's Allure formatter costs per scenario, against plain allure-behave, in one run.

Run: `.venv/bin/python bench/bench_formatter.py [--scenarios 300] [--reps 5]`

A generated suite of N scenarios of 5 mcpbdd steps each (a caller, two calls on the
bundled notes server through the context harness, two assertions, one doc string), so
every scenario writes a result, two exchange attachments and a doc-string attachment.
behave runs it in a subprocess per variant, interleaved rep by rep so a noisy moment
hits every variant alike:

  none           `--format null`: no Allure at all (the baseline);
  allure-behave  allure-behave 2.16.2's formatter;
  mcpbdd         `mcpbdd.reporting.allure_formatter:AllureFormatter`;
  mcpbdd+secrets the same with three configured secrets (every file is redacted).

Each run is timed inside behave, from `before_all` to `after_all` (the suite's
environment.py wraps mcpbdd's hooks), so interpreter start-up and imports (~1 s, and
the noisiest part) stay out of it. Overhead per scenario = (median time of the variant -
median of `none`) / N. The figure that matters is the ratio mcpbdd / allure-behave
(target <= 1.0).

Redaction alone is too small to see in those wall times on a busy machine, so the last
line times it directly: the `mcpbdd+secrets` results, unredacted (from a `mcpbdd` run),
redacted again file by file as the formatter does, in this process.
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

SCENARIO = '''
  Scenario: note {i}
    Given the user "alice" of tenant "acme"
    When the client calls "create_note" with {{"title": "Note {i}", "body": "Body {i}"}}
    Then the call succeeds
    And the structured result contains:
      """
      {{"title": "Note {i}"}}
      """
    When the client calls "list_notes"
'''

ENVIRONMENT = """
import os
import time

import mcpbdd.behave as hooks
from mcpbdd.behave import *  # noqa: F403


def before_all(context):
    context.bench_started = time.perf_counter()
    hooks.before_all(context)


def after_all(context):
    hooks.after_all(context)
    with open(os.environ["MCPBDD_BENCH_TIME"], "w") as handle:
        handle.write(str(time.perf_counter() - context.bench_started))
"""

VARIANTS: dict[str, list[str]] = {
    "none": ["--format", "null"],
    "allure-behave": ["--format", "allure_behave.formatter:AllureFormatter", "--outfile", "{out}"],
    "mcpbdd": ["--format", "mcpbdd.reporting.allure_formatter:AllureFormatter", "--outfile", "{out}"],
    "mcpbdd+secrets": [
        "--format",
        "mcpbdd.reporting.allure_formatter:AllureFormatter",
        "--outfile",
        "{out}",
        "-D",
        "mcpbdd.secrets=sk-live-123,hunter2,Bearer abc.def",
    ],
}


def make_suite(folder: Path, scenarios: int) -> None:
    (folder / "features").mkdir(parents=True)
    (folder / "steps").mkdir()
    (folder / "environment.py").write_text(ENVIRONMENT)
    (folder / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "pyproject.toml").write_text(
        '[tool.mcpbdd]\nserver = "mcpbdd.examples.notes:mcp"\nharness = "context"\n\n'
        '[tool.behave]\npaths = ["features"]\n'
    )
    per_file = 50
    for start in range(0, scenarios, per_file):
        body = "".join(SCENARIO.format(i=i) for i in range(start, min(start + per_file, scenarios)))
        (folder / "features" / f"notes_{start // per_file:03d}.feature").write_text(f"Feature: notes {start}\n{body}")


def run_once(folder: Path, variant: str, out: Path) -> float:
    args = [a.replace("{out}", str(out)) for a in VARIANTS[variant]]
    timing = folder / f"time-{variant}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MCPBDD_BENCH_TIME": str(timing)}
    done = subprocess.run([sys.executable, "-m", "behave", *args], cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{variant} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return float(timing.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, default=300)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="mcpbdd-bench-formatter-") as scratch:
        folder = Path(scratch)
        make_suite(folder, args.scenarios)
        run_once(folder, "none", folder / "warmup")  # imports and .pyc files warm for everyone
        for rep in range(args.reps):
            for name in VARIANTS:
                times[name].append(run_once(folder, name, folder / f"out-{name}-{rep}"))
        redaction = redaction_cost(folder / "out-mcpbdd-0", args.scenarios)
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["none"]
    n = args.scenarios
    print(f"# formatter overhead: {n} scenarios x 5 steps, {args.reps} reps, median wall time per variant\n")
    print("| variant | median run, before_all to after_all (s) | overhead per scenario (ms) |")
    print("| --- | ---: | ---: |")
    overhead: dict[str, float] = {}
    for name, median in medians.items():
        overhead[name] = (median - base) / n * 1000
        print(f"| {name} | {median:.3f} | {overhead[name]:+.2f} |")
    ratio = overhead["mcpbdd"] / overhead["allure-behave"] if overhead["allure-behave"] > 0 else float("nan")
    ratio_secrets = overhead["mcpbdd+secrets"] / overhead["allure-behave"] if overhead["allure-behave"] > 0 else 0
    print(f"\nmcpbdd / allure-behave overhead: {ratio:.2f}x (target <= 1.0); with secrets: {ratio_secrets:.2f}x")
    paired = sorted(
        (ours - none) / (theirs - none)
        for ours, theirs, none in zip(times["mcpbdd"], times["allure-behave"], times["none"], strict=True)
        if theirs > none
    )
    if paired:
        print(
            f"paired per rep (same moment, less noise): median {statistics.median(paired):.2f}x, "
            f"range {paired[0]:.2f}x-{paired[-1]:.2f}x"
        )
    print(redaction)
    print(f"command: .venv/bin/python bench/bench_formatter.py --scenarios {n} --reps {args.reps}")


def redaction_cost(results: Path, scenarios: int, reps: int = 7) -> str:
    """Redacting one run's files (results as JSON documents, attachments as bytes), as the formatter does."""
    sys.path.insert(0, str(ROOT))
    from mcpbdd.model.redaction import Redactor

    secrets = VARIANTS["mcpbdd+secrets"][-1].split("=", 1)[1].split(",")
    redactor = Redactor(secrets)
    files = [(p.name.endswith("-result.json"), p.read_bytes()) for p in results.iterdir()]
    runs = []
    for _ in range(reps):
        started = time.perf_counter()
        for is_result, data in files:
            if is_result:
                redactor.redact_json(data.decode("utf-8"))
            else:
                redactor.redact_bytes(data)
        runs.append(time.perf_counter() - started)
    per_file = statistics.median(runs) / len(files) * 1e6
    return (
        f"redaction alone ({len(secrets)} secrets, {len(files)} files): {per_file:.1f} us per file, "
        f"{per_file * len(files) / scenarios / 1000:.3f} ms per scenario"
    )


if __name__ == "__main__":
    main()
