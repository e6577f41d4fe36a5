"""`mcpbdd report`: Allure results (one or more folders, e.g. one per CI shard) rendered into one HTML file.

    mcpbdd report [RESULTS...] [--output DIR] [--name NAME] [--coverage FILE...] [--messages FILE]
                  [--history FILE | --no-history]

Allure 3 renders it (Node.js is needed: without it the command exits 2 and says so), keeping its
history file (`reports/allure-history.jsonl` by default, beside the report folder, which is emptied):
each report shows the earlier reports' results of every test (trend, History tab, new, fixed, flaky);
keep the file between CI runs (a cache or an artifact) to keep the memory.
`--messages` renders a Cucumber Messages stream with @cucumber/html-formatter instead. The
last lines say what the report holds and where it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mcpbdd.reporting.totals import totals_lines
from mcpbdd.runner.exits import EXIT_OK, EXIT_USAGE
from mcpbdd.runner.run_options import DEFAULT_HTML, DEFAULT_RESULTS, REPORTS

__all__ = ["DEFAULT_HISTORY", "add_parser", "main"]

DEFAULT_HISTORY = REPORTS / "allure-history.jsonl"
"""Allure 3's history file: beside the report folder (which each render empties), in the reports folder."""


def add_parser(commands: Any) -> None:
    """Register `report` on the `mcpbdd` command's subparsers."""
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
        "--history",
        type=Path,
        default=DEFAULT_HISTORY,
        metavar="FILE",
        help=f"Allure's history file, read and appended, so the report shows earlier runs ({DEFAULT_HISTORY})",
    )
    report.add_argument("--no-history", action="store_true", help="neither read nor write a history file")
    report.add_argument(
        "--messages",
        type=Path,
        default=None,
        metavar="FILE",
        help="render Cucumber Messages (mcpbdd run --messages FILE) with @cucumber/html-formatter instead, "
        "into OUTPUT/cucumber.html",
    )


def main(args: argparse.Namespace) -> int:
    from mcpbdd.reporting import html as html_report
    from mcpbdd.reporting.history import merged_coverage, redact_history

    results = args.results or [DEFAULT_RESULTS]
    try:
        if args.messages is not None:
            from mcpbdd.reporting.cucumber_html import render_messages

            page = render_messages(args.messages, args.output / "cucumber.html")
        else:
            history = None if args.no_history else args.history
            coverage = merged_coverage(args.coverage)
            redact_history(history)  # earlier runs' entries may predate a secret's configuration
            page = html_report.render(results, args.output, name=args.name, coverage=coverage, history=history)
            redact_history(history)
    except html_report.NodeMissing as exc:
        print(f"mcpbdd report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (FileNotFoundError, ValueError, html_report.RenderError) as exc:
        print(f"mcpbdd report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.messages is None and not args.no_history:
        print(f"mcpbdd: history kept in {args.history} (the next report shows this run)")
    # the last lines say what the report holds (of the files it was rendered from) and where it is
    for line in _stream_lines(args.messages) if args.messages is not None else totals_lines(results):
        print(line)
    print(f"mcpbdd: report written: {page}")
    print(f"mcpbdd: open it in a browser: {page.as_uri()}")
    return EXIT_OK


def _stream_lines(messages: Path) -> list[str]:
    """What each rendered Cucumber Messages stream holds, per pass (the Allure results are not what was rendered)."""
    from mcpbdd.reporting.cucumber_html import pass_streams, stream_heading
    from mcpbdd.reporting.messages import read_envelopes

    streams = [messages] if messages.is_file() else list(pass_streams(messages).values())
    return [f"mcpbdd: {stream_heading(read_envelopes(path))[1]}" for path in streams]
