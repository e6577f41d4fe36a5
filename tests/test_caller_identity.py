"""Attacks on how a harness installs a caller's identity for one call (set before it, reset after it, without a
context manager per call): many callers at once, some calls failing, timing out or cancelled by their caller, must
each be answered as their own caller, and the step's own context must be left as it was."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from mcp.server.auth.middleware.auth_context import auth_context_var, get_access_token
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from mcpbdd.harness import ClientHarness, ContextHarness
from mcpbdd.harness.base import Harness
from mcpbdd.kit.principals import Principal
from mcpbdd.model.outcome import Call, Channel

pytestmark = pytest.mark.anyio

mcp = MCPServer("who-am-i")


@mcp.tool()
async def who(ms: int = 0, fail: bool = False) -> str:
    """Who called, read before and after waiting `ms` (another caller's call runs meanwhile)."""
    before = get_access_token()
    await asyncio.sleep(ms / 1000)
    after = get_access_token()
    if fail:
        raise ToolError("failed on purpose")
    return f"{_name(before)}|{_name(after)}"


def _name(token: object) -> str:
    if token is None:
        return "nobody"
    claims = getattr(token, "claims", None) or {}
    return f"{getattr(token, 'subject', None)} of {claims.get('tenant')}"


CALLERS: list[Principal | None] = [Principal(f"user-{i}", f"tenant-{i % 3}") for i in range(5)] + [None]


def _expected(caller: Principal | None) -> str:
    name = "nobody" if caller is None else f"{caller.user} of {caller.tenant}"
    return f"{name}|{name}"


@pytest.mark.parametrize("harness_type", [ClientHarness, ContextHarness])
async def test_each_call_is_answered_as_its_own_caller_whatever_the_calls_beside_it_did(
    harness_type: type[Harness],
) -> None:
    async with harness_type(mcp, timeout=0.5) as harness:  # type: ignore[call-arg]
        ambient = auth_context_var.get()
        for caller in CALLERS:  # each caller's session opened first, in this task
            assert (await harness.send(caller, Call.tool("who"))).text == _expected(caller)

        async def one(k: int) -> str:
            caller = CALLERS[k % len(CALLERS)]
            arguments = {"ms": (0, 1, 5, 2000)[k % 4], "fail": k % 7 == 0}  # 2000 ms: past the call timeout
            outcome = await harness.send(caller, Call.tool("who", arguments))
            if outcome.channel is Channel.OK:
                assert outcome.text == _expected(caller), (k, caller)
            return outcome.channel.name

        tasks = [asyncio.create_task(one(k)) for k in range(36)]
        await asyncio.sleep(0)
        for task in tasks[1::9]:
            task.cancel()  # its caller gives up on it mid-call
        results = await asyncio.gather(*tasks, return_exceptions=True)
        wrong = [result for result in results if isinstance(result, AssertionError)]
        assert not wrong, f"{len(wrong)} calls were answered as another caller: {wrong[:3]}"
        ended = Counter("CANCELLED" if isinstance(result, asyncio.CancelledError) else result for result in results)
        assert ended["OK"] and ended["CANCELLED"] and ended["TOOL_ERROR"] and ended["TRANSPORT_FAILURE"], ended
        assert auth_context_var.get() is ambient  # nothing set for a call is left in the step's context
        for caller in reversed(CALLERS):
            assert (await harness.send(caller, Call.tool("who", {"ms": 1}))).text == _expected(caller)
