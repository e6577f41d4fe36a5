"""How the example server runs as a program: stdio by default, Streamable HTTP with `--http`, real tokens with `--auth`.

Apart from the server's tools so that `mcpbdd.examples.notes` stays one concern (the tools) and under the size
every module keeps; the HTTP set-up here is also the entry point a production server copies (the SDK's
`streamable_http_app`, uvicorn, and either the test tokens or a real verifier).
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

__all__ = ["serve"]


def serve(mcp: MCPServer, argv: list[str] | None = None) -> None:
    """Serve `mcp` over stdio, or with `--http 127.0.0.1:8000` over Streamable HTTP.

    Over HTTP without `--auth` the server accepts mcpbdd's test tokens (`mcpbdd.kit.auth.TestTokenVerifier`),
    the example's *test* configuration. With `--auth jwks=URL` it verifies real JWT access tokens and
    answers 401/403 at the HTTP edge, its production configuration (`mcpbdd.examples.notes_auth`).
    """
    import argparse

    import anyio
    import uvicorn

    from mcpbdd.examples.notes_auth import AuthOptions, protected_app
    from mcpbdd_kit.auth import mount_test_auth

    parser = argparse.ArgumentParser(prog="python -m mcpbdd.examples.notes")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--auth", metavar="jwks=URL", type=AuthOptions, help="verify JWT access tokens (HTTP only)")
    args = parser.parse_args(argv)
    if not args.http:
        mcp.run("stdio")
        return
    host, _, port = args.http.rpartition(":")
    host = host or "127.0.0.1"
    app = mcp.streamable_http_app(host=host)
    app = protected_app(app, args.auth, host, int(port)) if args.auth else mount_test_auth(app)
    config = uvicorn.Config(app, host=host, port=int(port), log_level="warning")
    anyio.run(uvicorn.Server(config).serve)
