"""The notes server with one authorization flaw each, as servers ship them by accident (test-only).

`python -m auth_variants <flaw> --http 127.0.0.1:PORT --auth jwks` serves the example's tools
behind the example's own protection (`mcpbdd.examples.notes_auth`), except for one thing:

- `any-audience`: the verifier checks the token against whatever audience the token claims,
  so a token for another service (or a look-alike address) is accepted;
- `alg-none`: an unsigned token (`alg: none`) is read as if it were verified;
- `403-for-401`: a missing or refused token is answered 403 instead of 401.

tests/spawning/test_behave_authorization.py runs features/authorization.feature against each and
checks that the scenarios the flaw breaks fail, naming the flaw.
"""

from __future__ import annotations

import argparse
import copy
import sys

import anyio
import jwt
import uvicorn
from starlette.types import Send

from mcpbdd.examples.notes import mcp
from mcpbdd.examples.notes_auth import TOOL_SCOPES, AuthOptions
from mcpbdd.kit.doubles import scenario_doubles
from mcpbdd.kit.jwks import Claims, JwksVerifier
from mcpbdd.kit.protected import ScopeGate, authorization_server, protect

__all__ = ["FLAWS", "AcceptsAlgNone", "AcceptsAnyAudience", "Answers403For401", "main"]


class AcceptsAnyAudience(JwksVerifier):
    """Verifies a token against the audience it claims: every audience is "right"."""

    async def verify(self, token: str) -> Claims:
        claimed = jwt.decode(token, options={"verify_signature": False}).get("aud")
        lenient = copy.copy(self)
        lenient.audience = claimed if isinstance(claimed, str) else self.audience
        return await JwksVerifier.verify(lenient, token)


class AcceptsAlgNone(JwksVerifier):
    """Reads an unsigned token's claims as if a signature had been checked."""

    async def verify(self, token: str) -> Claims:
        if jwt.get_unverified_header(token).get("alg") == "none":
            payload = jwt.decode(token, options={"verify_signature": False})
            return Claims(
                payload["sub"], payload["sub"], tuple(payload.get("scope", "").split()), payload["exp"], payload
            )
        return await super().verify(token)


class Answers403For401(ScopeGate):
    """Refuses a missing or bad token with 403, as if the caller were known but not allowed."""

    async def _refuse(self, send: Send, status: int, challenge: str | None) -> None:
        await super()._refuse(send, 403 if status == 401 else status, challenge)


FLAWS = {"any-audience": AcceptsAnyAudience, "alg-none": AcceptsAlgNone, "403-for-401": JwksVerifier}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m auth_variants")
    parser.add_argument("flaw", choices=sorted(FLAWS))
    parser.add_argument("--http", required=True, metavar="HOST:PORT")
    parser.add_argument("--auth", required=True, type=AuthOptions)
    args = parser.parse_args(argv)
    host, _, port = args.http.rpartition(":")
    issuer, jwks_url = authorization_server(args.auth.issuer, args.auth.jwks_url)
    resource = f"http://{host}:{port}/mcp"
    doubles = scenario_doubles()
    verifier = FLAWS[args.flaw](jwks_url, issuer=issuer, audience=resource, clock=doubles.clock if doubles else None)
    app = protect(
        mcp.streamable_http_app(host=host),
        verifier,
        resource_url=resource,
        authorization_servers=[issuer],
        tool_scopes=TOOL_SCOPES,
    )
    if args.flaw == "403-for-401":
        for middleware in app.user_middleware:
            if middleware.cls is ScopeGate:  # type: ignore[comparison-overlap]
                # The gate's class swapped for the flawed one: same constructor, which Starlette's types cannot see.
                middleware.cls = Answers403For401  # type: ignore[assignment]
    config = uvicorn.Config(app, host=host, port=int(port), log_level="warning")
    anyio.run(uvicorn.Server(config).serve)


if __name__ == "__main__":
    main(sys.argv[1:])
