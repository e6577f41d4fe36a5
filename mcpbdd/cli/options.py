"""The options of `mcpbdd run` and how their values are read: what a user types, parsed into a `RunOptions`.

The run itself is `mcpbdd.runner.run`, which reads only the `RunOptions` (`options_of` here), never the command
line. Each other subcommand registers its own options (`add_parser` in its module); `mcpbdd.cli.main` builds the
parser.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from mcpbdd.model.kinds import HarnessKind
from mcpbdd.model.requirements import MACHINE_CAPABILITIES, check_capability_names
from mcpbdd.runner.passes import ALL
from mcpbdd.runner.plan import parse_shard
from mcpbdd.runner.run_options import DEFAULT_JUNIT, DEFAULT_RESULTS, DEFAULT_TIMINGS, REPORTS, RunOptions


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


def parse_required(text: str) -> list[str]:
    """`--require apps,official`: capabilities a missing one of which breaks the run's scenarios."""
    try:
        return list(check_capability_names([part.strip() for part in text.split(",") if part.strip()]))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def shard_option(text: str) -> tuple[int, int]:
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(commands: Any) -> None:
    """Register `run` on the `mcpbdd` command's subparsers (unknown options and paths go to behave)."""
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
        "--update-screenshots", action="store_true", help="write the app screenshots instead of comparing them"
    )
    run.add_argument(
        "--require",
        type=parse_required,
        action="extend",
        default=[],
        metavar="CAPABILITIES",
        help=f"also require these ({', '.join(MACHINE_CAPABILITIES)}; comma-separated): a scenario that would be "
        "skipped because the machine lacks one is broken instead, naming what to install ([tool.mcpbdd] require)",
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
        "--rerun-failures",
        type=int,
        default=0,
        metavar="N",
        help="run failed and broken scenarios again, up to N times: one that then passes is FLAKY in every report "
        "and still fails the run (default 0: no rerun)",
    )
    run.add_argument(
        "--parity", type=Path, default=REPORTS, help=f"folder of parity.json and parity.md (--harness all) ({REPORTS})"
    )


def options_of(args: argparse.Namespace) -> RunOptions:
    """The run's options from the parsed command line (every field of `RunOptions` is an option of `run`)."""
    return RunOptions(**{option.name: getattr(args, option.name) for option in fields(RunOptions)})


__all__ = [
    "add_parser",
    "parse_harnesses",
    "parse_jobs",
    "options_of",
    "parse_required",
    "shard_option",
]
