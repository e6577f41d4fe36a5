"""`python -m mcpbdd.record.stdio_server package.module:attr`: an in-process target served over stdio.

What lets a `module:attr` target, which the pack runs in process, be run as a process where only a
process will do: behind the loopback HTTP bridge (`mcpbdd.record.bridge`), for the official suite, and
by `mcpbdd conformance`, which serves an in-process target this way, one process per check (forked by
the fork server), so a tool that ends its process (`os._exit`) ends one check, not the run. The
target is loaded as the harnesses load it (`load_inprocess`: an `MCPServer`, or a factory of one) and
served with the SDK's own stdio transport; a target that cannot load exits 2 saying why.

The caller: with `MCPBDD_CALLER_USER` (and `MCPBDD_CALLER_TENANT`, `MCPBDD_CALLER_SCOPES`,
`MCPBDD_TENANT_CLAIM`) in its environment every request runs as that caller, the access token set as
the SDK's auth middleware sets it and as the in-process harness sets it around each call; without
them, anonymously.
"""

from __future__ import annotations

import os
import sys

from mcpbdd.harness.targets import ServerTarget, load_inprocess
from mcpbdd.kit.principals import Principal, authenticated_user
from mcpbdd.model.errors import TargetError

__all__ = ["CALLER_ENV", "main"]

CALLER_ENV = {
    "MCPBDD_CALLER_USER": "{user}",
    "MCPBDD_CALLER_TENANT": "{tenant}",
    "MCPBDD_CALLER_SCOPES": "{scopes}",
}
"""The environment (the `env` setting's templates) that hands the scenario's caller to the served process."""


def _caller() -> Principal | None:
    user = os.environ.get("MCPBDD_CALLER_USER", "")
    if not user:
        return None
    scopes = tuple(s for s in os.environ.get("MCPBDD_CALLER_SCOPES", "").split(",") if s)
    return Principal(user=user, tenant=os.environ.get("MCPBDD_CALLER_TENANT", "") or user, scopes=scopes)


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
    caller = _caller()
    if caller is not None:  # the run's tasks copy this context: every handler sees the caller's token
        from mcp.server.auth.middleware.auth_context import auth_context_var

        auth_context_var.set(authenticated_user(caller, os.environ.get("MCPBDD_TENANT_CLAIM", "tenant")))
    server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
