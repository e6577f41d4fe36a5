"""`mcpbdd diff OLD NEW`: what changed between two runs, for the reviewer of a pull request.

    mcpbdd diff reports-main/allure-results reports/allure-results
    mcpbdd diff old/junit new/junit --format markdown >> "$GITHUB_STEP_SUMMARY"
    mcpbdd diff old.ndjson new/cucumber-messages.ndjson --format json --slower 0.5

OLD and NEW are each an Allure results folder, a JUnit XML file or folder, or a Cucumber Messages
stream that `mcpbdd run` wrote (`mcpbdd.reporting.runs`); the lists are `mcpbdd.reporting.diff`'s.
Exit 0 whatever changed (the run itself decides the build); with `--fail-on-new` 1 when a scenario
fails or breaks that did not before; 2 when a run cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mcpbdd.runner.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE

__all__ = ["DEFAULT_SLOWER", "add_parser", "main"]

DEFAULT_SLOWER = 1.0
"""Seconds a scenario may take longer than before without being listed as slower."""


def add_parser(commands: Any) -> None:
    """Register `diff` on the `mcpbdd` command's subparsers."""
    diff = commands.add_parser(
        "diff",
        help="what changed between two runs: new failures, fixes, still failing, newly skipped or broken, slower",
        description="Compare two runs (Allure results folders, JUnit XML files or folders, or Cucumber Messages "
        "streams) by scenario: new failures, newly broken, still failing, fixed, newly skipped, slower.",
    )
    diff.add_argument("old", type=Path, help="the earlier run (e.g. the main branch's reports)")
    diff.add_argument("new", type=Path, help="the run to compare with it")
    diff.add_argument(
        "--slower",
        type=float,
        default=DEFAULT_SLOWER,
        metavar="SECONDS",
        help=f"list a scenario as slower when it took more than this many seconds longer ({DEFAULT_SLOWER})",
    )
    diff.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="text (default), markdown (for $GITHUB_STEP_SUMMARY) or json",
    )
    diff.add_argument("--output", "-o", type=Path, default=None, help="write to this file instead of stdout")
    diff.add_argument(
        "--fail-on-new", action="store_true", help="exit 1 when a scenario fails or breaks that did not before"
    )


def main(args: argparse.Namespace) -> int:
    from mcpbdd.reporting.diff import diff_runs
    from mcpbdd.reporting.runs import read_run

    try:
        old, new = read_run(args.old), read_run(args.new)
    except ValueError as exc:
        print(f"mcpbdd diff: {exc}", file=sys.stderr)
        return EXIT_USAGE
    diff = diff_runs(old, new, slower_than=args.slower, old_name=str(args.old), new_name=str(args.new))
    text = {"text": diff.text, "markdown": diff.markdown, "json": diff.json}[args.format]()
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_FAILED if args.fail_on_new and diff.regressions else EXIT_OK
