"""A scenario that changes its in-process server's module-level state is told so once: the next scenario sees it.

A newcomer's first server kept its orders in a module-level dict: in-process the second scenario got "o-3" where the
specification said "o-1" (over stdio each scenario's fresh process starts empty). mcpbdd cannot undo a server's own
globals; it names the variable and where state belongs, once per variable per run, and says nothing when a scenario
only reads module state.
"""

from __future__ import annotations

import module_state_server
import pytest
from conftest import make_harness

from mcpbdd.harness import module_state
from mcpbdd.kit.principals import Principal
from mcpbdd.model.outcome import Call

ALICE = Principal("alice", "acme")


@pytest.fixture(autouse=True)
def fresh() -> None:
    module_state_server.ORDERS.clear()
    module_state.warned.difference_update({k for k in module_state.warned if k[0] == "module_state_server"})


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["context", "client-auto"])
async def test_a_scenario_that_fills_a_module_dict_is_named_once(kind: str, capfd: pytest.CaptureFixture[str]) -> None:
    for _ in range(2):
        async with make_harness(kind, module_state_server.mcp, timeout=5.0) as harness:
            await harness.send(ALICE, Call.tool("place_order", {"item": "mug"}))
    err = capfd.readouterr().err
    assert err.count("mcpbdd: warning: module_state_server.ORDERS changed during a scenario") == 1, err
    assert "keep a server's state in its lifespan" in err
    assert "LIMITS" not in err


@pytest.mark.anyio
async def test_a_scenario_that_only_reads_module_state_is_not_warned(capfd: pytest.CaptureFixture[str]) -> None:
    async with make_harness("context", module_state_server.mcp, timeout=5.0) as harness:
        await harness.send(ALICE, Call.tool("read_limits"))
    assert "mcpbdd: warning" not in capfd.readouterr().err
