"""`python -m mcpbdd.record.stdio_server package.module:attr`: an in-process target served over stdio.

What lets a `module:attr` target, which the pack runs in process, be run as a process where only a
process will do: behind the loopback HTTP bridge (`mcpbdd.record.bridge`), for the official suite. The
target is loaded as the harnesses load it (`load_inprocess`: an `MCPServer`, or a factory of one) and
served with the SDK's own stdio transport; a target that cannot load exits 2 saying why.
"""

from __future__ import annotations

import sys

from mcpbdd.harness.targets import ServerTarget, load_inprocess
from mcpbdd.model.errors import TargetError

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m mcpbdd.record.stdio_server package.module:attr", file=sys.stderr)
        return 2
    try:
        server = load_inprocess(ServerTarget.parse(args[0]))
    except TargetError as exc:
        print(f"mcpbdd: {exc}", file=sys.stderr)
        return 2
    server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
