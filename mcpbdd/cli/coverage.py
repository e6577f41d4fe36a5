"""`mcpbdd coverage`: merge coverage files, print the summary, gate CI on thresholds.

    mcpbdd coverage                                  # reports/coverage.json, as Markdown
    mcpbdd coverage shard-*/coverage.json            # several CI machines' files, merged
    mcpbdd coverage --json                           # the summary for machines
    mcpbdd coverage --fail-under 80 --fail-under failures=100   # exit 1 when a harness is below
    mcpbdd coverage a.json b.json -o merged.json     # also write the merged file

Exit codes: 0 the gate passed (or no gate), 1 below a threshold, 2 no coverage file (or an
unreadable one, or a bad threshold).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_COVERAGE", "add_parser", "main", "threshold"]

DEFAULT_COVERAGE = Path("reports") / "coverage.json"
EXIT_OK, EXIT_BELOW, EXIT_USAGE = 0, 1, 2


def threshold(text: str) -> tuple[str, float]:
    """`80` (the total) or `tools=100` (one kind) -> (kind, percent)."""
    from mcpbdd.checks.coverage_summary import KINDS, TOTAL

    kind, _, number = text.rpartition("=")
    kind = kind.strip() or TOTAL
    if kind not in (*KINDS, TOTAL):
        raise argparse.ArgumentTypeError(f"unknown kind {kind!r} in {text!r}: use one of {', '.join(KINDS)}")
    try:
        value = float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write a percentage, e.g. 80 or tools=100") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r}: a percentage is between 0 and 100")
    return kind, value


def add_parser(commands: Any) -> None:
    coverage = commands.add_parser(
        "coverage",
        help="what the scenarios covered of what the server offers (merges files; gates with --fail-under)",
        description="Merge coverage files written by runs and print per harness what was covered.",
    )
    coverage.add_argument("files", nargs="*", type=Path, help=f"coverage files (default: {DEFAULT_COVERAGE})")
    coverage.add_argument("--json", action="store_true", help="print the summary as JSON")
    coverage.add_argument(
        "--fail-under",
        type=threshold,
        action="append",
        default=[],
        metavar="[KIND=]PCT",
        help="exit 1 when a harness's total (or KIND: tools, resources, templates, prompts, arguments, values, "
        "failures) is below PCT; repeatable",
    )
    coverage.add_argument("--output", "-o", type=Path, help="also write the merged coverage file here")


def main(args: argparse.Namespace) -> int:
    from mcpbdd.checks.coverage import load_coverage, merge, write_coverage
    from mcpbdd.checks.coverage_summary import below, markdown, summarise

    files = args.files or [DEFAULT_COVERAGE]
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        print(f"mcpbdd coverage: no coverage file: {', '.join(missing)} (run `mcpbdd run` first)", file=sys.stderr)
        return EXIT_USAGE
    try:
        document = merge(load_coverage(path) for path in files)
    except ValueError as exc:
        print(f"mcpbdd coverage: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.output is not None:
        write_coverage(args.output, document)
    summary = summarise(document)
    if args.json:
        data = {harness: {kind: t.to_json() for kind, t in tallies.items()} for harness, tallies in summary.items()}
        print(json.dumps(data, indent=2))
    else:
        print(markdown(document))
    failures = below(summary, dict(args.fail_under))
    for failure in failures:
        print(f"mcpbdd coverage: {failure}", file=sys.stderr)
    return EXIT_BELOW if failures else EXIT_OK
