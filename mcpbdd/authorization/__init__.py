"""Authorization at the HTTP edge, the test side: a fake authorization server and the tokens it mints.

- `keys`: the run's signing keys (made once per run) and the JWKS that publishes them;
- `server`: the fake authorization server on loopback (RFC 8414 metadata, the JWKS);
- `tokens`: a caller's token as a scenario shapes it, minted as a real signed JWT (PyJWT),
  and the hostile variants (unsigned, HMAC with the public key, foreign key, huge);
- `edge`: the bearer token put on each HTTP request, and the refusals recorded on the way back;
- `scenario`: one scenario's authorization (`World.authorization`): who holds which token,
  what the server process is told (the checks the phrases make are `mcpbdd.checks.authorization`).

The server under test verifies the tokens with its own production verifier (for example
`mcpbdd.kit.jwks.JwksVerifier`) pointed at the fake's JWKS (`mcpbdd.kit.protected`).
"""

__all__: list[str] = []
