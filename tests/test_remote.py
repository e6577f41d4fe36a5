"""Servers in other processes: stdio and Streamable HTTP, crashes, start-up failures, and no orphans.

The tests of this concern that start processes are in tests/spawning/test_remote.py.
"""

from __future__ import annotations

import pytest

from mcpbdd.kit.auth import TestTokenVerifier
from mcpbdd.kit.principals import Principal

ALICE = Principal("alice", "acme", ("notes:write",))


@pytest.mark.anyio
async def test_the_test_token_verifier_reads_tenant_user_and_scopes() -> None:
    token = await TestTokenVerifier().verify_token(ALICE.token)
    assert token is not None
    assert (token.subject, token.claims, token.scopes) == ("alice", {"tenant": "acme"}, ["notes:write"])
    assert await TestTokenVerifier().verify_token("Bearer-of-nothing") is None
    assert await TestTokenVerifier().verify_token("mcpbdd:only-a-tenant") is None


# -- servers mcpbdd starts over HTTP: `http: <command with {port}>` ---------------------------------------------


def test_an_http_command_without_a_port_is_refused_when_the_target_is_read() -> None:
    from mcpbdd.harness.targets import ServerTarget
    from mcpbdd.model.errors import TargetError

    with pytest.raises(TargetError, match=r"its command has no \{port\}: mcpbdd picks a free port"):
        ServerTarget.parse("http: python -m myserver --port 8000")
    assert str(ServerTarget.parse("http: python -m myserver --port {port}")) == "http: python -m myserver --port {port}"
