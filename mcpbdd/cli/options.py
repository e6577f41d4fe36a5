"""The `mcpbdd` command line: its subcommands, their options, and how option values are read.

Apart from `main.py` so the dispatch stays short: here is what a user types, there what it does.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mcpbdd.cli import coverage as coverage_cli
from mcpbdd.cli import recording
from mcpbdd.cli import surface as surface_cli
from mcpbdd.cli.passes import ALL
from mcpbdd.cli.plan import parse_shard
from mcpbdd.model.kinds import HarnessKind

REPORTS = Path("reports")
DEFAULT_RESULTS = REPORTS / "allure-results"
DEFAULT_JUNIT = REPORTS / "junit"
DEFAULT_HTML = REPORTS / "html"
DEFAULT_TIMINGS = REPORTS / "timings.json"


def parse_harnesses(text: str) -> list[str]:
    if text.strip() == "both":
        return list(HarnessKind)
    if text.strip() == ALL:
        return [ALL]  # the parity matrix's columns, known once the settings are read (stdio when configured)
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in chosen if name not in list(HarnessKind)]
    if unknown or not chosen:
        known = ", ".join(HarnessKind)
        raise argparse.ArgumentTypeError(f"unknown harness {', '.join(unknown) or text!r}: use {known}, both or all")
    return [HarnessKind(name) for name in dict.fromkeys(chosen)]


def parse_jobs(text: str) -> int:
    if text == "auto":
        return os.cpu_count() or 1
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"--jobs {text!r}: use a number of processes (1 or more) or auto")
    return jobs


def shard_option(text: str) -> tuple[int, int]:
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcpbdd", description="Gherkin specifications for MCP servers.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run",
        help="run the specifications with behave; write Allure results and JUnit XML",
        description="Run behave with mcpbdd's Allure formatter. Unknown options and paths are passed to behave.",
    )
    run.add_argument(
        "--harness",
        type=parse_harnesses,
        default=None,
        help="run on these harnesses: context, client, both, or all (the parity matrix: context, client on "
        "2026-07-28 and on 2025-11-25, stdio when parity_stdio is set) (default: the configured one)",
    )
    run.add_argument("--jobs", "-j", type=parse_jobs, default=1, help="behave processes on this machine (N or auto)")
    run.add_argument(
        "--shard", type=shard_option, default=None, metavar="I/N", help="run only shard I of N (CI machines)"
    )
    run.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help=f"Allure results folder ({DEFAULT_RESULTS})")
    run.add_argument("--junit", type=Path, default=DEFAULT_JUNIT, help=f"JUnit XML folder ({DEFAULT_JUNIT})")
    run.add_argument("--no-junit", action="store_true", help="write no JUnit XML")
    run.add_argument(
        "--steps",
        action="store_true",
        help="print every step of every scenario (behave's pretty format); by default each scenario is one line "
        "and only a failing step is printed, with its message",
    )
    run.add_argument("--keep-results", action="store_true", help="add to the results folders instead of emptying them")
    run.add_argument("--coverage", type=Path, default=None, help="the coverage file (default: coverage_file setting)")
    run.add_argument("--no-coverage", action="store_true", help="collect no coverage")
    run.add_argument(
        "--update-snapshots", action="store_true", help="write the tool-surface snapshots instead of comparing them"
    )
    run.add_argument(
        "--timings",
        type=Path,
        default=DEFAULT_TIMINGS,
        help=f"timing file: read to balance --shard/--jobs by duration, updated by the run ({DEFAULT_TIMINGS})",
    )
    run.add_argument(
        "--messages", type=Path, default=None, metavar="FILE", help="write Cucumber Messages (NDJSON) to FILE"
    )
    run.add_argument(
        "--cucumber-json", type=Path, default=None, metavar="FILE", help="write a Cucumber JSON report to FILE"
    )
    run.add_argument(
        "--parity", type=Path, default=REPORTS, help=f"folder of parity.json and parity.md (--harness all) ({REPORTS})"
    )
    report = commands.add_parser(
        "report",
        help="render Allure results into one HTML file (Allure 3, needs Node.js)",
        description="Render one or more Allure results folders (e.g. one per CI shard) into a single HTML file.",
    )
    report.add_argument("results", nargs="*", type=Path, help=f"results folders (default: {DEFAULT_RESULTS})")
    report.add_argument("--output", "-o", type=Path, default=DEFAULT_HTML, help=f"report folder ({DEFAULT_HTML})")
    report.add_argument("--name", default="mcpbdd report", help="the report's title")
    report.add_argument(
        "--coverage",
        type=Path,
        action="append",
        default=None,
        metavar="FILE",
        help="a coverage file (e.g. each CI shard's coverage.json; repeat the option for several), merged: their "
        "totals replace the results' own coverage.* environment entries, so a report merged from shards shows the "
        "run's coverage (the input folders are not changed)",
    )
    report.add_argument(
        "--messages",
        type=Path,
        default=None,
        metavar="FILE",
        help="render Cucumber Messages (mcpbdd run --messages FILE) with @cucumber/html-formatter instead, "
        "into OUTPUT/cucumber.html",
    )
    catalog = commands.add_parser(
        "catalog",
        help="the error catalog: each tool's declared failures and the scenarios that specify them (Markdown)",
    )
    catalog.add_argument("--server", help="package.module:attr (default: server under [tool.mcpbdd])")
    catalog.add_argument("features", nargs="?", type=Path, default=Path("features"), help="the feature files")
    catalog.add_argument("--json", action="store_true", help="print JSON (per tool, each failure and its scenarios)")
    catalog.add_argument("--strict", action="store_true", help="exit 1 when a declared failure has no scenario")
    surface_cli.add_parser(commands)
    coverage_cli.add_parser(commands)
    steps = commands.add_parser("steps", help="list the step vocabulary, grouped, with an example of each")
    steps.add_argument("--markdown", action="store_true", help="print Markdown (for a wiki or the README)")
    init = commands.add_parser(
        "init",
        help="scaffold features/, steps/, environment.py and [tool.mcpbdd] with a first passing scenario",
    )
    init.add_argument("--server", required=True, help="the server under test: package.module:attr")
    init.add_argument("directory", nargs="?", type=Path, default=Path("."), help="the project folder (default: .)")
    init.add_argument(
        "--harness", choices=list(HarnessKind), default=HarnessKind.CONTEXT, help="the default harness to configure"
    )
    recording.add_commands(commands)  # record, feature, verify
    return parser


# run ---------------------------------------------------------------------------------------------------


__all__ = [
    "DEFAULT_HTML",
    "DEFAULT_JUNIT",
    "DEFAULT_RESULTS",
    "DEFAULT_TIMINGS",
    "REPORTS",
    "build_parser",
    "parse_harnesses",
    "parse_jobs",
    "shard_option",
]
