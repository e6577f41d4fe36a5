"""`mcpbdd surface dump` and `mcpbdd surface diff`: the tool surface outside a run, for release checks.

    mcpbdd surface dump [--server TARGET] [-o FILE]     # the current surface (stdout by default)
    mcpbdd surface diff OLD.json NEW.json               # every difference, breaking or not, and the token deltas
    mcpbdd surface approve SNAPSHOT --by WHO --why WHY [--tool NAME ...] [--server TARGET]

`dump` reaches the server as a scenario would (`mcpbdd.scenario.offered`: a World, the configured harness;
any target kind: module:attr, a stdio command, a URL), so the file it writes is exactly what the
snapshot step compares. `diff` exits 1 when a difference is breaking, 0 otherwise, 2 when a
file cannot be read: a release job can gate on it. `approve` records, in the snapshot, who approved a
change to a tool's description or schemas, when and why (`mcpbdd.checks.surface_pins`): the drift gate
refuses such a change until then. It prints what it approved and the token deltas; exit 2 when there is
nothing to approve or the server cannot be listed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "main"]

EXIT_OK, EXIT_BREAKING, EXIT_USAGE = 0, 1, 2


def add_parser(commands: Any) -> None:
    """Register `surface` with its two actions on the `mcpbdd` command's subparsers."""
    surface = commands.add_parser("surface", help="the tool surface: dump the current one, or diff two files")
    actions = surface.add_subparsers(dest="surface_command", required=True, metavar="{dump,diff,approve}")
    dump = actions.add_parser("dump", help="write the server's tool surface as JSON (what snapshots hold)")
    dump.add_argument("--server", help="the server (default: server under [tool.mcpbdd])")
    dump.add_argument("--output", "-o", type=Path, default=None, help="the file to write (default: stdout)")
    diff = actions.add_parser("diff", help="classify every difference between two surface files; exit 1 if breaking")
    diff.add_argument("old", type=Path, help="the surface before (e.g. the released version's snapshot)")
    diff.add_argument("new", type=Path, help="the surface after")
    approve = actions.add_parser("approve", help="approve changed descriptions or schemas in a snapshot (who, why)")
    approve.add_argument("snapshot", type=Path, help="the snapshot file (e.g. features/snapshots/tools.json)")
    approve.add_argument("--by", required=True, help="who approves (a name or handle, recorded in the file)")
    approve.add_argument("--why", required=True, help="why the change is right (recorded in the file)")
    approve.add_argument("--tool", action="append", default=None, help="approve only this tool (repeatable)")
    approve.add_argument("--server", help="the server (default: server under [tool.mcpbdd])")


def main(args: argparse.Namespace) -> int:
    from mcpbdd.checks.surface import load_surface, write_surface
    from mcpbdd.checks.surface_diff import diff_surfaces, render_differences
    from mcpbdd.checks.surface_pins import token_deltas
    from mcpbdd.scenario.offered import current_surface

    if args.surface_command == "dump":
        try:
            surface = current_surface(args.server)
        except Exception as exc:  # a bad target, a server that does not start: say why, exit 2
            print(f"mcpbdd surface dump: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if args.output is None:
            sys.stdout.write(json.dumps(surface, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        else:
            print(f"mcpbdd: wrote {write_surface(args.output, surface)} ({len(surface['tools'])} tools)")
        return EXIT_OK
    if args.surface_command == "approve":
        return _approve(args)
    try:
        old, new = load_surface(args.old), load_surface(args.new)
    except (OSError, ValueError) as exc:
        print(f"mcpbdd surface diff: {exc}", file=sys.stderr)
        return EXIT_USAGE
    differences = diff_surfaces(old, new)
    print(f"{args.old} -> {args.new}: {render_differences(differences)}")
    if differences:
        print(token_deltas(old, new, sorted({d.tool for d in differences})))
    return EXIT_BREAKING if any(d.breaking for d in differences) else EXIT_OK


def _approve(args: argparse.Namespace) -> int:
    from mcpbdd.checks.surface import approve_changes
    from mcpbdd.scenario.offered import offered_tools
    from mcpbdd.surface_lint.visible import reveal

    try:
        approved, deltas = approve_changes(
            offered_tools(args.server), args.snapshot, by=args.by, why=args.why, names=args.tool
        )
    except Exception as exc:  # nothing to approve, an unreadable file, a server that does not start: say why
        print(f"mcpbdd surface approve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"mcpbdd: approved in {args.snapshot} by {reveal(args.by, 200)}: {reveal(args.why, 400)}")
    for change in approved:
        for line in str(change).replace("not approved", "approved").splitlines():
            print(reveal(line, 2000))
    print(deltas)
    return EXIT_OK
