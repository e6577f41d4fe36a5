"""`mcpbdd init`: the command line of the scaffold (`mcpbdd.cli.scaffold`), and what it tells the user next.

    mcpbdd init --server package.module:attr [--harness context|client] [DIRECTORY]

Lists each file written or kept, the tools the server offers, and the three commands to try.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mcpbdd.model.kinds import HarnessKind
from mcpbdd.runner.exits import EXIT_OK, EXIT_USAGE

__all__ = ["add_parser", "main"]


def add_parser(commands: Any) -> None:
    """Register `init` on the `mcpbdd` command's subparsers."""
    init = commands.add_parser(
        "init",
        help="scaffold features/, steps/, environment.py and [tool.mcpbdd] with a first passing scenario",
    )
    init.add_argument("--server", required=True, help="the server under test: package.module:attr")
    init.add_argument("directory", nargs="?", type=Path, default=Path("."), help="the project folder (default: .)")
    init.add_argument(
        "--harness", choices=list(HarnessKind), default=HarnessKind.CONTEXT, help="the default harness to configure"
    )


def main(args: argparse.Namespace) -> int:
    from mcpbdd.cli.scaffold import InitError, scaffold

    try:
        done = scaffold(args.directory, args.server, harness=args.harness)
    except InitError as exc:
        print(f"mcpbdd init: {exc}", file=sys.stderr)
        return EXIT_USAGE
    root = args.directory.resolve()
    for path in done.written:
        print(f"  wrote {path.relative_to(root)}")
    for path in done.kept:
        print(f"  kept  {path.relative_to(root)} (already there)")
    tools = ", ".join(done.tools) or "no tools yet"
    print(f"\nmcpbdd: {args.server} offers {tools}. Next, in {root}:")
    print("  behave            # the first scenario passes")
    print("  mcpbdd steps      # the phrases you can write")
    print("  mcpbdd run        # with Allure results and JUnit XML; then: mcpbdd report")
    return EXIT_OK
