"""`mcpbdd catalog`: the server's error contracts joined with the scenarios that specify them.

    mcpbdd catalog [--server TARGET] [--json] [--strict] [FEATURES]

Markdown by default (per tool, each declared failure and the scenarios that specify it), JSON
with `--json`. `--strict` exits 1 when a declared failure has no scenario: CI can gate on it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from mcpbdd.runner.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE

__all__ = ["add_parser", "main"]


def add_parser(commands: Any) -> None:
    """Register `catalog` on the `mcpbdd` command's subparsers."""
    catalog = commands.add_parser(
        "catalog",
        help="the error catalog: each tool's declared failures and the scenarios that specify them (Markdown)",
    )
    catalog.add_argument("--server", help="package.module:attr (default: server under [tool.mcpbdd])")
    catalog.add_argument("features", nargs="?", type=Path, default=Path("features"), help="the feature files")
    catalog.add_argument("--json", action="store_true", help="print JSON (per tool, each failure and its scenarios)")
    catalog.add_argument("--strict", action="store_true", help="exit 1 when a declared failure has no scenario")


def main(args: argparse.Namespace) -> int:
    from mcpbdd.checks.error_catalog import catalog, catalog_json, unspecified
    from mcpbdd.model.config import load_settings

    server = args.server or load_settings({}).server
    if not server:
        print("mcpbdd catalog: no server: pass --server package.module:attr or set server under [tool.mcpbdd]")
        return EXIT_USAGE
    if os.getcwd() not in sys.path:  # the project's server imports from the folder it runs in, as under behave
        sys.path.insert(0, os.getcwd())
    try:
        data = catalog_json(server, args.features)
        print(json.dumps(data, indent=2) if args.json else catalog(server, args.features))
    except ValueError as exc:
        print(f"mcpbdd catalog: {exc}")
        return EXIT_USAGE
    gaps = unspecified(data) if args.strict else []
    for gap in gaps:
        print(f"mcpbdd catalog: no scenario specifies the declared failure {gap}", file=sys.stderr)
    return EXIT_FAILED if gaps else EXIT_OK
