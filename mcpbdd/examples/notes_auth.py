"""The notes server's production authorization over HTTP: JWT access tokens from the team's identity provider.

`python -m mcpbdd.examples.notes --http 127.0.0.1:8000 --auth jwks=URL[,issuer=URL][,resource=URL]`
verifies every bearer token with `mcpbdd.kit.jwks.JwksVerifier` against the identity
provider's JWKS, and answers at the HTTP edge (`mcpbdd.kit.protected.protect`): 401 with the
protected-resource metadata URL without an accepted token, 403 `insufficient_scope` for a
tool whose scope the token lacks. Reading needs only a token; writing and deleting need
the scopes in `TOOL_SCOPES`.

Deployed under a prefix (a `Mount`, a proxy and uvicorn's `root_path`), give the URL clients
reach it at, `resource=https://host/notes/mcp`: tokens are issued for that audience, and the door
refuses every request without one whatever the prefix (tests/spawning/test_protected_deployments.py).

Under mcpbdd the issuer and JWKS URL come from the environment (the run's fake
authorization server) and the verifier reads the scenario's clock, so a scenario's
"When 6 minutes pass" expires a token exactly as time would in production.
"""

from __future__ import annotations

from typing import Any, Final

from mcpbdd_kit.clock import Clock, SystemClock
from mcpbdd_kit.doubles import scenario_doubles
from mcpbdd_kit.jwks import JwksVerifier
from mcpbdd_kit.protected import authorization_server, protect
from mcpbdd_kit.scopes import ToolScopes

__all__ = ["TOOL_SCOPES", "AuthOptions", "protected_app"]

TOOL_SCOPES: Final = ToolScopes(
    {"create_note": ("notes:write",), "import_note": ("notes:write",), "delete_note": ("notes:delete",)}
)
"""The scopes a token needs, beyond being valid, to call each tool (the others need a valid token only).

One declaration: the edge reads it here; a tool that must also refuse on its own (in-process, over stdio, behind
a gateway without this edge) decorates itself with `@TOOL_SCOPES.required`. The example's tools do not: its
scenarios in-process and over stdio are about notes, not scopes, and its callers there hold none."""


class AuthOptions:
    """`--auth jwks[=URL][,issuer=URL][,resource=URL]`, read strictly (an unknown part is an error)."""

    def __init__(self, text: str) -> None:
        parts = dict(part.partition("=")[::2] for part in text.split(",") if part)
        unknown = sorted(set(parts) - {"jwks", "issuer", "resource"})
        if "jwks" not in parts or unknown:
            raise ValueError(f"--auth {text!r}: write jwks=URL, optionally ,issuer=URL,resource=URL")
        self.jwks_url = parts["jwks"] or None
        self.issuer = parts.get("issuer") or None
        self.resource = parts.get("resource") or None


def protected_app(app: Any, options: AuthOptions, host: str, port: int) -> Any:
    """`app` (the SDK's Streamable HTTP app) requiring tokens the identity provider signed, scopes per tool."""
    issuer, jwks_url = authorization_server(options.issuer, options.jwks_url)
    resource = options.resource or f"http://{host}:{port}/mcp"
    doubles = scenario_doubles()
    clock: Clock = doubles.clock if doubles is not None else SystemClock()
    verifier = JwksVerifier(jwks_url, issuer=issuer, audience=resource, clock=clock)
    return protect(app, verifier, resource_url=resource, authorization_servers=[issuer], tool_scopes=TOOL_SCOPES)
