"""`mcpbdd record | feature | verify`: the command-line side of `mcpbdd.record`.

    mcpbdd record --out FILE [--secret S ...] -- COMMAND [ARGS...]
    mcpbdd record --out FILE [--secret S ...] --listen HOST:PORT --to URL
    mcpbdd feature CASSETTE [--out PATH] [--replays N] [--spawn MODE] [-- COMMAND | --url URL [--token T]]
    mcpbdd verify CASSETTE [--junit FILE] [--secret S ...] [--spawn MODE] [-- COMMAND | --url URL [--token T]]

`feature` and `verify` replay against the server the user names: the command after `--`, `--url`,
or `server` under `[tool.mcpbdd]` (a `stdio:` command or a URL). Never the one in the cassette's
header: a cassette is data, possibly from a remote party, and must not choose what runs; with no
server named they stop (exit 2) and show the recorded command for the user to copy.

Kept apart from `cli/main.py`, which only registers these parsers and dispatches to them.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from mcpbdd.cli.replay_target import chosen_target
from mcpbdd.model.redaction import Redactor

EXIT_OK, EXIT_DRIFT, EXIT_USAGE = 0, 1, 2
T = TypeVar("T")


COMMANDS = ("record", "feature", "verify")
TOKEN_HELP = "over HTTP: the bearer token to replay with (default: the recorded caller's test token)"
SPAWN_MODES = ("auto", "fork", "spare", "plain")
"""`mcpbdd.harness.processes.spawn.SPAWN_MODES`, written out: importing it imports the SDK, which `--help` must not
wait for (tests/test_record.py holds the two equal)."""
SPAWN_HELP = (
    "how each replay's server process starts: auto (a fork of a warm parent for a Python command), plain, ... "
    "(default: spawn under [tool.mcpbdd], else auto)"
)
NAME_THE_SERVER = (
    "The server to replay against: -- COMMAND [ARGS...] after the options, --url URL, or server under "
    "[tool.mcpbdd] (a stdio: command or a URL). The command a cassette names is never run."
)


def split_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """`[record, --out, F, --, python, -m, x]` -> the options, and the server command after `--`.

    Split before argparse sees it, so options may come on either side of the cassette and the
    server's own options (`-m`, `--http`) are never read as ours.
    """
    argv = list(argv)
    if argv[:1] and argv[0] in COMMANDS and "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1 :]
    return argv, []


def add_commands(commands: Any) -> None:
    """Register the three sub-commands on `mcpbdd`'s sub-parser set."""
    record = commands.add_parser(
        "record",
        help="record a client's session with a stdio server into a cassette (a proxy the client starts)",
        description="Put `mcpbdd record --out FILE --` in front of the server command in the client's configuration.",
    )
    record.add_argument("--out", "-o", type=Path, required=True, help="the cassette to write (NDJSON)")
    record.add_argument("--secret", action="append", default=[], help="a value to redact (repeatable)")
    record.add_argument("--listen", metavar="HOST:PORT", help="over HTTP: where the client connects (with --to)")
    record.add_argument("--to", metavar="URL", help="over HTTP: the Streamable HTTP server's URL (with --listen)")
    record.epilog = "Over stdio: -- COMMAND [ARGS...] after the options. Over HTTP: --listen and --to."
    feature = commands.add_parser(
        "feature",
        help="turn a cassette into a feature file (volatile values found by replaying it twice)",
    )
    feature.add_argument("cassette", type=Path)
    feature.add_argument("--out", "-o", type=Path, default=None, help="where to write it (default: stdout)")
    feature.add_argument("--replays", type=int, default=2, help="fresh server runs to find volatile values (2)")
    feature.add_argument("--url", help="replay against this Streamable HTTP server instead")
    feature.add_argument("--token", help=TOKEN_HELP)
    feature.add_argument("--spawn", choices=SPAWN_MODES, default=None, help=SPAWN_HELP)
    feature.epilog = NAME_THE_SERVER
    verify = commands.add_parser(
        "verify",
        help="replay a cassette against a server; report drift per exchange and JSON path (exit 0, 1 drift, 2)",
    )
    verify.add_argument("cassette", type=Path)
    verify.add_argument("--junit", type=Path, default=None, help="also write JUnit XML, one test case per exchange")
    verify.add_argument("--replays", type=int, default=2, help="runs of the server, to tell volatile values (2)")
    verify.add_argument("--url", help="verify this Streamable HTTP server")
    verify.add_argument("--token", help=TOKEN_HELP)
    verify.add_argument(
        "--secret", action="append", default=[], help="a value never printed nor written (repeatable; also secrets)"
    )
    verify.add_argument("--spawn", choices=SPAWN_MODES, default=None, help=SPAWN_HELP)
    verify.epilog = NAME_THE_SERVER


def dispatch(args: argparse.Namespace, command: list[str]) -> int | None:
    """Run the sub-command if it is one of ours (with the server `command` given after `--`); None otherwise."""
    if args.command not in COMMANDS:
        return None
    args.server_command = command
    return {"record": record, "feature": feature, "verify": verify}[args.command](args)


def record(args: argparse.Namespace) -> int:
    from mcpbdd.record.recorder import redactor_for
    from mcpbdd.record.stdio_proxy import record_stdio

    command = args.server_command
    if args.listen or args.to:
        return _record_http(args, command)
    if not command:
        print("mcpbdd record: name the server after --: mcpbdd record --out FILE -- COMMAND [ARGS...]", file=sys.stderr)
        return EXIT_USAGE
    try:
        return record_stdio(command, args.out, redactor=redactor_for(args.secret))
    except OSError as exc:
        print(f"mcpbdd record: cannot start {command[0]!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _record_http(args: argparse.Namespace, command: list[str]) -> int:
    from mcpbdd.record.http_proxy import record_http
    from mcpbdd.record.recorder import redactor_for

    if not (args.listen and args.to) or command:
        print("mcpbdd record: over HTTP give both --listen HOST:PORT and --to URL (and no command)", file=sys.stderr)
        return EXIT_USAGE
    print(f"mcpbdd record: connect the client to http://{args.listen}{_path(args.to)}; Ctrl-C ends", file=sys.stderr)
    return record_http(args.listen, args.to, args.out, redactor=redactor_for(args.secret))


def _path(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).path


def _from_cassette(args: argparse.Namespace, make: Callable[..., T], name: str, redactor: Redactor) -> T | int:
    """`make` from the cassette `args` names, replayed against the server the user named; an exit status if not.

    Every message is redacted by `redactor`: a replay's error may quote what the server said.
    """
    from mcpbdd.record.cassette import CassetteError, read
    from mcpbdd.record.gherkin_text import Unwritable
    from mcpbdd.record.replay import ReplayError

    try:
        cassette = read(args.cassette)
    except CassetteError as exc:
        print(redactor.redact(f"mcpbdd {name}: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if name == "verify" and not any(e.origin == "client" for e in cassette.exchanges):
        print(
            f"mcpbdd verify: {args.cassette} holds no exchange: a verification that compares nothing proves "
            "nothing (record a session with at least one request)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    target = chosen_target(args, cassette, name)
    if isinstance(target, str):
        print(redactor.redact(target), file=sys.stderr)
        return EXIT_USAGE
    try:
        return make(cassette, **target, token=args.token, replays=args.replays)
    except ReplayError as exc:
        print(redactor.redact(f"mcpbdd {name}: could not run: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except Unwritable as exc:  # the server the user named cannot be written into the feature's Background
        print(f"mcpbdd {name}: {exc}: name it another way (a script, a URL)", file=sys.stderr)
        return EXIT_USAGE


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def feature(args: argparse.Namespace) -> int:
    from mcpbdd.record.feature import write_feature

    text = _from_cassette(args, write_feature, "feature", Redactor())
    if isinstance(text, int):
        return text
    if args.out is None:
        sys.stdout.write(text)
    else:
        _write(args.out, text)
        print(f"mcpbdd: feature written: {args.out}", file=sys.stderr)
    return EXIT_OK


def verify(args: argparse.Namespace) -> int:
    from mcpbdd.record.recorder import redactor_for
    from mcpbdd.record.verify import junit_xml, verify_cassette

    redactor = redactor_for(args.secret)
    report = _from_cassette(args, functools.partial(verify_cassette, redactor=redactor), "verify", redactor)
    if isinstance(report, int):
        return report
    print(redactor.redact(report.render()))
    if args.junit is not None:
        _write(args.junit, redactor.redact_xml(junit_xml(report, str(args.cassette))))
    return EXIT_OK if report.ok else EXIT_DRIFT


__all__ = ["add_commands", "dispatch"]
