"""The example server with `--auth jwks`, deployed under a prefix the two ordinary ways (test-only).

`python -m deployments <layout> --http 127.0.0.1:PORT --auth jwks[,resource=URL]` serves the example's
protected app (`mcpbdd.examples.notes_auth.protected_app`, exactly as `--auth jwks` builds it) at `/notes`:

- `mount`: inside a Starlette app, `Mount("/notes", app=protected)` (the outer app runs the inner one's
  lifespan, as a mounted SDK app needs);
- `root-path`: served by uvicorn with `root_path="/notes"`, as behind a proxy that strips the prefix
  (tests/spawning/test_protected_deployments.py puts a real nginx in front of this one).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

from mcpbdd.examples.notes import mcp
from mcpbdd.examples.notes_auth import AuthOptions, protected_app

__all__ = ["PREFIX", "main"]

PREFIX = "/notes"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m deployments")
    parser.add_argument("layout", choices=["mount", "root-path"])
    parser.add_argument("--http", required=True, metavar="HOST:PORT")
    parser.add_argument("--auth", required=True, type=AuthOptions)
    args = parser.parse_args(argv)
    host, _, port = args.http.rpartition(":")
    protected = protected_app(mcp.streamable_http_app(host=host), args.auth, host, int(port))
    if args.layout == "mount":

        @asynccontextmanager
        async def lifespan(_: Starlette) -> AsyncIterator[None]:
            async with protected.router.lifespan_context(protected):
                yield

        app = Starlette(routes=[Mount(PREFIX, app=protected)], lifespan=lifespan)
        config = uvicorn.Config(app, host=host, port=int(port), log_level="warning")
    else:
        config = uvicorn.Config(protected, host=host, port=int(port), root_path=PREFIX, log_level="warning")
    anyio.run(uvicorn.Server(config).serve)


if __name__ == "__main__":
    main(sys.argv[1:])
