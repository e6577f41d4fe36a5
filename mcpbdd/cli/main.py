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
    mcpbdd init --server package.module:attr [DIRECTORY]
    mcpbdd locust (--url URL | --server COMMAND) --profile FILE --tenant NAME=CALLERS... [--workers N] [--run-time S]
    mcpbdd record --out FILE -- COMMAND | feature CASSETTE | verify CASSETTE  (see mcpbdd.cli.recording)

Here only the parser (each subcommand registers its own options, in its module) and the dispatch
to the module that does the work: `mcpbdd.runner.run` (with `options`), `report`, `surface`,
`coverage`, `catalog`, `conformance`, `lint`, `diff`, `steps_listing`, `init_command`, `locust_command` and
`recording`.

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
import importlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType

from mcpbdd.cli import recording
from mcpbdd.runner.exits import EXIT_OK
from mcpbdd.scenario.runtime import Terminated

__all__ = ["build_parser", "main"]

PARSERS = {
    "run": "options",
    "report": "report",
    "diff": "diff",
    "catalog": "catalog",
    "conformance": "conformance",
    "surface": "surface",
    "lint": "lint",
    "coverage": "coverage",
    "steps": "steps_listing",
    "init": "init_command",
    "locust": "locust_command",
    **dict.fromkeys(recording.COMMANDS, "recording"),
}
"""Each subcommand and the module of `mcpbdd.cli` that registers its options (`add_parser`; `recording` registers
its three with `add_commands`), in the order `mcpbdd --help` lists them. A command imports only its own module: the
others' imports (the SDK, the conformance pack, the apps host) would cost every `mcpbdd run` more than a second."""

COMMANDS = ("coverage", "surface", "catalog", "conformance", "lint", "report", "diff", "init", "steps", "locust")
"""The subcommands that take only their own options, each done by its module's `main` (`run` passes the rest to
behave; `recording` a command)."""


def _module(command: str) -> ModuleType:
    return importlib.import_module(f"mcpbdd.cli.{PARSERS[command]}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every subcommand's, or only `command`'s (what `main` parses a known one with)."""
    parser = argparse.ArgumentParser(prog="mcpbdd", description="Gherkin specifications for MCP servers.")
    commands = parser.add_subparsers(dest="command", required=True)
    registered: set[str] = set()
    for name in [command] if command in PARSERS else PARSERS:
        module = PARSERS[name]
        if module not in registered:
            registered.add(module)
            register = getattr(_module(name), "add_commands" if module == "recording" else "add_parser")
            register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv, server_command = recording.split_command(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    args, passthrough = parser.parse_known_args(argv)
    try:
        if args.command == "run":
            from mcpbdd.cli.options import options_of
            from mcpbdd.runner.run import run

            with _sigterm_as_interrupt():
                return run(options_of(args), passthrough)
        if passthrough:
            parser.error(f"unrecognized arguments: {' '.join(passthrough)}")
        if args.command in COMMANDS:
            done: Callable[[argparse.Namespace], int] = _module(args.command).main
            return done(args)
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
