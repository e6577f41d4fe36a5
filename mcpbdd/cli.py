"""The `mcpbdd` command: run specifications, list the step vocabulary.

    mcpbdd run [--harness context,client] [--results DIR] [behave options and paths...]
    mcpbdd steps

`run` is a thin wrapper over behave: it adds the Allure formatter (results under
`reports/allure-results`), keeps behave's readable console output, and can run the
same specifications once per harness. Each behave run is its own process, because
behave's `main()` leaks step definitions when called twice in one process.

Exit codes CI can trust: 0 every scenario passed, 1 a scenario failed, 2 a usage error.
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from mcpbdd.world import HARNESSES

DEFAULT_RESULTS = Path("reports") / "allure-results"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _harnesses(text: str) -> list[str]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    if text.strip() == "both":
        return list(HARNESSES)
    unknown = [name for name in chosen if name not in HARNESSES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"unknown harness {', '.join(unknown) or text!r}: use context, client or both")
    return chosen


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcpbdd", description="Gherkin specifications for MCP servers.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run",
        help="run the specifications with behave and write Allure results",
        description="Run behave with the Allure formatter. Unknown options and paths are passed to behave.",
    )
    run.add_argument(
        "--harness",
        type=_harnesses,
        default=None,
        help="run on these harnesses, one after the other: context, client, or both (default: the configured one)",
    )
    run.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help=f"Allure results folder ({DEFAULT_RESULTS})")
    run.add_argument("--keep-results", action="store_true", help="add to the results folder instead of emptying it")
    commands.add_parser("steps", help="list the step vocabulary, grouped, with an example of each")
    return parser


def behave_command(results: Path, harness: str | None, passthrough: Sequence[str]) -> list[str]:
    """The behave invocation for one run: Allure results, plus `pretty` console output unless a format is given.

    behave pairs `--outfile`s with `--format`s by position, so the Allure formatter comes
    first with its folder; console formats follow and write to stdout.
    """
    command = [sys.executable, "-m", "behave", "--format", "allure_behave.formatter:AllureFormatter"]
    command += ["--outfile", str(results)]
    if not any(arg in ("-f", "--format") or arg.startswith("--format=") for arg in passthrough):
        command += ["--format", "pretty"]
    if harness is not None:
        command += ["-D", f"mcpbdd.harness={harness}"]
    return [*command, *passthrough]


def run(args: argparse.Namespace, passthrough: Sequence[str]) -> int:
    results: Path = args.results
    if results.exists() and not args.keep_results:
        shutil.rmtree(results)
    results.mkdir(parents=True, exist_ok=True)
    worst = EXIT_OK
    for harness in args.harness or [None]:
        if harness is not None:
            print(f"\n== mcpbdd: the {harness} harness ==", flush=True)
        code = subprocess.call(behave_command(results, harness, passthrough))
        worst = max(worst, EXIT_FAILED if code == 1 else (EXIT_USAGE if code else EXIT_OK))
    print(f"\nmcpbdd: Allure results in {results.resolve()}")
    return worst


def list_steps() -> int:
    """Print the vocabulary: every step mcpbdd registers, grouped by concern, with its example."""
    import mcpbdd.steps as steps_package
    from mcpbdd.steps import catalog

    del steps_package
    for group, entries in catalog.grouped().items():
        print(f"\n{group}")
        for entry in entries:
            print(f"  {entry.keyword} {entry.phrase}")
            if entry.example:
                print(f"      e.g. {entry.example}")
    print(f"\n{inspect.cleandoc(catalog.NOTES)}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, passthrough = parser.parse_known_args(argv)
    if args.command == "run":
        return run(args, passthrough)
    if passthrough:
        parser.error(f"unrecognized arguments: {' '.join(passthrough)}")
    return list_steps()


if __name__ == "__main__":
    sys.exit(main())
