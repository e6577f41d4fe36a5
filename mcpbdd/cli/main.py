"""The `mcpbdd` command: run specifications, render the report, list the vocabulary, start a project.

    mcpbdd run [--harness context,client|both|all] [--jobs N] [--shard I/N] [--steps] [--results DIR]
               [--junit DIR | --no-junit] [--keep-results] [--coverage FILE | --no-coverage]
               [--update-snapshots] [--update-screenshots] [--timings FILE] [--parity DIR]
               [--messages FILE] [--cucumber-json FILE] [behave options and paths...]
    mcpbdd report [RESULTS...] [--output DIR] [--name NAME] [--coverage FILE...] [--messages FILE]
    mcpbdd diff OLD NEW [--slower SECONDS] [--format text|markdown|json] [--output FILE] [--fail-on-new]
    mcpbdd surface dump [--server TARGET] [-o FILE] | mcpbdd surface diff OLD.json NEW.json
    mcpbdd coverage [FILES...] [--json] [--fail-under [KIND=]PCT ...] [-o MERGED]
    mcpbdd catalog [--json] [--strict] [FEATURES]
    mcpbdd conformance TARGET [--only IDS] [--skip IDS] [--expected-failures FILE] [--summary FILE]
    mcpbdd lint [TARGET] [--baseline FILE] [--max-tokens N] [--sarif FILE] [--json FILE] [--markdown FILE]
    mcpbdd steps [--markdown]
    mcpbdd locust (--url URL | --server COMMAND) --profile FILE --tenant NAME=CALLERS... (see mcpbdd.cli.locust_command)
    mcpbdd init --server package.module:attr [DIRECTORY]
    mcpbdd record --out FILE -- COMMAND | feature CASSETTE | verify CASSETTE  (see mcpbdd.cli.recording)

Here only the parser (each subcommand registers its own options, in its module) and the dispatch
to the module that does the work: `mcpbdd.runner.run` (with `options`), `report`, `surface`,
`coverage`, `catalog`, `conformance`, `lint`, `diff`, `steps_listing`, `init_command` and `recording`.

Exit codes CI can trust: 0 every scenario passed; 1 a scenario failed; 2 a usage error
(a bad option, setting or path, a feature file that does not parse, a configured server
that cannot load: the run could not start); 130 interrupted (SIGINT, Ctrl-C) and 143
terminated (SIGTERM): the behave processes got the signal, closed their scenarios and
stopped, and the totals so far are printed. `report` exits 2 when there is nothing to
render or Node.js is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence

from mcpbdd.cli import catalog as catalog_cli
from mcpbdd.cli import conformance as conformance_cli
from mcpbdd.cli import coverage as coverage_cli
from mcpbdd.cli import diff as diff_cli
from mcpbdd.cli import init_command, locust_command, recording, report, steps_listing
from mcpbdd.cli import lint as lint_cli
from mcpbdd.cli import options as run_options
from mcpbdd.cli import surface as surface_cli
from mcpbdd.runner.exits import EXIT_OK
from mcpbdd.runner.run import run
from mcpbdd.scenario.runtime import Terminated

__all__ = ["build_parser", "main"]

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "coverage": coverage_cli.main,
    "surface": surface_cli.main,
    "catalog": catalog_cli.main,
    "conformance": conformance_cli.main,
    "lint": lint_cli.main,
    "report": report.main,
    "diff": diff_cli.main,
    "init": init_command.main,
    "steps": steps_listing.main,
    "locust": locust_command.main,
}
"""The subcommands that take only their own options (`run` passes the rest to behave; `recording` a command)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcpbdd", description="Gherkin specifications for MCP servers.")
    commands = parser.add_subparsers(dest="command", required=True)
    run_options.add_parser(commands)
    report.add_parser(commands)
    diff_cli.add_parser(commands)
    catalog_cli.add_parser(commands)
    conformance_cli.add_parser(commands)
    surface_cli.add_parser(commands)
    lint_cli.add_parser(commands)
    locust_command.add_parser(commands)
    coverage_cli.add_parser(commands)
    steps_listing.add_parser(commands)
    init_command.add_parser(commands)
    recording.add_commands(commands)  # record, feature, verify
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv, server_command = recording.split_command(sys.argv[1:] if argv is None else argv)
    args, passthrough = parser.parse_known_args(argv)
    try:
        if args.command == "run":
            with _sigterm_as_interrupt():
                return run(run_options.options_of(args), passthrough)
        if passthrough:
            parser.error(f"unrecognized arguments: {' '.join(passthrough)}")
        if args.command in COMMANDS:
            return COMMANDS[args.command](args)
        recorded = recording.dispatch(args, server_command)
        assert recorded is not None, f"no dispatch for the command {args.command!r}"
        return recorded
    except BrokenPipeError:  # `mcpbdd steps | head`
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt as interrupt:  # before or after the behave processes ran (while they run: run_workers)
        return 128 + (signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises `Terminated` (a KeyboardInterrupt) instead of ending the process: cleanups run, exit 143."""

    def terminated(number: int, frame: object) -> None:
        raise Terminated()

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(main())
