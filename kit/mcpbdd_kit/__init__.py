"""What a production server imports from mcpbdd, and nothing else: it loads no behave, hypothesis or allure.

- `consent`: the consent gate (a destructive tool asks first; each consent works once, on what it showed);
- `errors`: error contracts (declared failures with reason, channel, retry guidance, recovery hint);
- `auth`: test tokens for servers reached over HTTP;
- `jwks`: `JwksVerifier`, the production verifier of JWT access tokens against an authorization server's JWKS;
- `jwks_keys`: the keys it verifies with, fetched once at a time, bounded in time and size, kept fresh;
- `protected`: `protect()`, the protected HTTP edge, closed to every request without an accepted token (401 and
  403 as the MCP spec words them, RFC 9728 metadata);
- `doubles`: `scenario_doubles()`, the scenario's storage, clock and upstream while mcpbdd runs the server;
- `clock`: the clocks a server reads (system time in production, frozen in a scenario);
- `upstream`: `upstream_base()`, a server's outbound base URL, pointed at the scenario's double under mcpbdd;
- `announce`: a change announced the right way on either protocol era, and 2025-11-25 resource subscriptions;
- `visible_tools`: `show_tools_when()`, tools listed and callable only for the callers a rule allows;
- `scopes`: `ToolScopes`, each tool's scopes declared once, read by the edge and by the tool's own check.

docs/reference/kit-security.md is the kit's threat model: what each module promises, and the test proving it.
An import contract (`[tool.importlinter]` in pyproject.toml, checked by `make lint`) keeps it that way.
"""

__all__: list[str] = []
