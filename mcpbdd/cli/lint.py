"""`mcpbdd lint TARGET`: the tool surface judged by documented rules, poisoning caught, the token budget kept.

    mcpbdd lint [TARGET] [--rules IDS] [--baseline FILE] [--max-tokens N] [--max-tool-tokens N]
                [--sarif FILE [--sarif-location PATH]] [--json FILE|-] [--markdown FILE]

TARGET is any target `mcpbdd conformance` takes (`package.module:attr`, `stdio: <command>`,
`http: <command with {port}>`, a URL; default: `server` under [tool.mcpbdd]); the tools are listed
as a scenario lists them (`mcpbdd.scenario.offered.offered_tools`). Every rule of `mcpbdd.surface_lint`
runs (or those `--rules` names); the console shows each finding with its fix and each tool's token
cost; `--sarif` writes SARIF 2.1.0 for GitHub code scanning, `--json` the report as JSON, `--markdown`
a Markdown summary (appended to `$GITHUB_STEP_SUMMARY` too when that is set). `--baseline` names a
YAML file of accepted findings (`rule` or `rule:tool`), like the conformance pack's expected failures.

Exit 0: no error-level finding (warnings and notes are reported); 1: an error-level finding the
baseline does not accept, or a baseline entry found no more; 2: a usage error (a bad target or
option, an unreadable baseline, a server that does not start).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from mcpbdd.runner.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE

__all__ = ["add_parser", "main"]


def _ids(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_parser(commands: Any) -> None:
    """Register `lint` on the `mcpbdd` command's subparsers."""
    parser = commands.add_parser(
        "lint",
        help="lint the tool surface: documented rules, hidden instructions, the token budget (SARIF for CI)",
        description="Judge what TARGET's tools tell a model (names, descriptions, schemas) by mcpbdd's lint rules.",
    )
    parser.add_argument(
        "target",
        nargs="?",
        default=None,
        help="package.module:attr, 'stdio: <command>', 'http: <command>' or a URL "
        "(default: server under [tool.mcpbdd])",
    )
    parser.add_argument("--rules", type=_ids, default=None, metavar="IDS", help="only these rules (comma-separated)")
    parser.add_argument("--baseline", type=Path, default=None, metavar="FILE", help="YAML list of accepted findings")
    parser.add_argument("--max-tokens", type=int, default=None, metavar="N", help="the whole surface's token budget")
    parser.add_argument("--max-tool-tokens", type=int, default=None, metavar="N", help="each tool's token budget")
    parser.add_argument("--sarif", type=Path, default=None, metavar="FILE", help="write SARIF 2.1.0 here")
    parser.add_argument(
        "--sarif-location",
        default=None,
        metavar="PATH",
        help="the repository file code scanning shows the findings on (default: the server's module for "
        "package.module:attr, else pyproject.toml when there is one)",
    )
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="write the report as JSON ('-': stdout)"
    )
    parser.add_argument("--markdown", type=Path, default=None, metavar="FILE", help="write a Markdown summary here")


def _artifact(target: str, given: str | None) -> str | None:
    """The file SARIF names as the findings' physical location (code scanning shows a result only on a file of the
    repository): the one given, else the server's source file relative to the working folder, else pyproject.toml
    (which names the server), else none."""
    from mcpbdd.harness.targets import ServerTarget

    if given:
        return Path(given).as_posix()
    fallback = "pyproject.toml" if Path("pyproject.toml").is_file() else None
    if ServerTarget.parse(target).kind != "inprocess":
        return fallback
    module = sys.modules.get(target.partition(":")[0])
    source = getattr(module, "__file__", None)
    if not source:
        return fallback
    try:
        return Path(source).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:  # outside the repository (an installed package): code scanning could not show it
        return fallback


def main(args: argparse.Namespace) -> int:
    from mcpbdd.harness.targets import ServerTarget
    from mcpbdd.model.config import load_settings
    from mcpbdd.scenario.offered import offered_tools
    from mcpbdd.surface_lint import lint_surface, listings_of, load_accepted, rule_named
    from mcpbdd.surface_lint.output import console_lines, json_report, markdown_report
    from mcpbdd.surface_lint.sarif import sarif_text

    try:
        target = args.target or load_settings({}).server
        if not target:
            raise ValueError("no server to lint: pass TARGET, or set server under [tool.mcpbdd] in pyproject.toml")
        ServerTarget.parse(target)
        rules = {rule_named(name).id for name in args.rules} if args.rules else None
        accepted = load_accepted(args.baseline)
        for budget in (args.max_tokens, args.max_tool_tokens):
            if budget is not None and budget < 1:
                raise ValueError(f"a token budget must be at least 1, got {budget}")
    except ValueError as exc:  # ConfigError and TargetError too: each names what to fix
        print(f"mcpbdd lint: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        listings = listings_of(offered_tools(target))
    except Exception as exc:  # a server that does not load or start: say why, exit 2
        print(f"mcpbdd lint: cannot list the tools of {target}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = lint_surface(listings, max_total=args.max_tokens, max_tool=args.max_tool_tokens, accepted=accepted)
    if rules is not None:
        from dataclasses import replace

        report = replace(report, findings=tuple(f for f in report.findings if f.rule.id in rules))
    for line in console_lines(target, report):
        print(f"mcpbdd lint: {line}" if not line.startswith("    ") else line)
    if args.sarif is not None:
        _write(args.sarif, sarif_text(report, artifact=_artifact(target, args.sarif_location)))
        print(f"mcpbdd lint: SARIF in {args.sarif}")
    if args.json is not None:
        text = json_report(target, report)
        sys.stdout.write(text) if str(args.json) == "-" else _write(args.json, text)
    markdown = markdown_report(target, report)
    if args.markdown is not None:
        _write(args.markdown, markdown)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(markdown)
    return EXIT_FAILED if report.failed else EXIT_OK


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
