"""An `http:` server whose picked port is taken before it binds it (`HttpProcess.start`).

mcpbdd picks a free loopback port, then the server binds it a moment later: another process may
take it in between. The server then ends saying its address is in use, and mcpbdd starts it again
on a new port instead of failing the scenario. The race is made certain here by binding the first
ports picked with another socket first (what the other process would do).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AsyncExitStack

import pytest

from mcpbdd.harness import ClientHarness
from mcpbdd.harness.processes import ports
from mcpbdd.harness.processes.http_process import PORT_ATTEMPTS, HttpProcess
from mcpbdd.harness.processes.ports import PortClaim

NOTES = "{python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"


class PortThief:
    """Binds the next `count` ports mcpbdd picks before the server can (bound, not listening: nobody answers)."""

    def __init__(self) -> None:
        self.left = 0
        self.taken: list[int] = []
        self._held: list[socket.socket] = []
        self._real_pick = ports.claim_port

    def pick(self) -> PortClaim:
        claim = self._real_pick()
        port = claim.port
        if self.left > 0:
            self.left -= 1
            blocker = socket.socket()
            blocker.bind(("127.0.0.1", port))
            self._held.append(blocker)
            self.taken.append(port)
        return claim

    def close(self) -> None:
        for blocker in self._held:
            blocker.close()


@pytest.fixture
def thief(monkeypatch: pytest.MonkeyPatch) -> Iterator[PortThief]:
    stealing = PortThief()
    monkeypatch.setattr(ports, "claim_port", stealing.pick)
    yield stealing
    stealing.close()


@pytest.mark.anyio
async def test_a_server_whose_port_was_taken_starts_again_on_another(thief: PortThief) -> None:
    thief.left = PORT_ATTEMPTS - 1
    process = HttpProcess(NOTES)
    async with ClientHarness(process, timeout=20) as harness:
        tools = await harness.list_tools(None)
        port = process.port
    assert "create_note" in {tool.name for tool in tools}
    assert len(thief.taken) == PORT_ATTEMPTS - 1 and port not in thief.taken


@pytest.mark.anyio
async def test_when_every_port_picked_is_taken_the_error_says_the_address_is_in_use(thief: PortThief) -> None:
    thief.left = PORT_ATTEMPTS
    process = HttpProcess(NOTES)
    with pytest.raises(ConnectionError) as failure:
        async with AsyncExitStack() as stack:
            await process.start(stack)
    assert "ended before it listened" in str(failure.value)
    assert "address already in use" in str(failure.value).lower()
    assert len(thief.taken) == PORT_ATTEMPTS


@pytest.mark.anyio
async def test_the_servers_port_is_claimed_against_other_processes_until_it_stops() -> None:
    process = HttpProcess(NOTES)
    async with ClientHarness(process, timeout=20) as harness:
        await harness.list_tools(None)
        port = process.port
        assert port is not None
        assert not _claimable_elsewhere(port), f"another process could claim {port} while the server runs on it"
    assert _claimable_elsewhere(port), f"{port} stayed claimed after the server stopped"


def _claimable_elsewhere(port: int) -> bool:
    """Whether another process, as another `--jobs` or test worker would, can claim `port` now."""
    probe = f"from mcpbdd.harness.processes.ports import try_claim; print(try_claim({port}) is not None)"
    said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return said.stdout.strip() == "True"


_PICKER = """
import json, sys
from mcpbdd.harness.processes import ports
ports._ABSTRACT = sys.argv[1] == "claimed"  # "unclaimed": the OS's pick alone, as before claims
held = [ports.claim_port() for _ in range(int(sys.argv[2]))]
print(json.dumps([claim.port for claim in held if claim.held is not None or not ports._ABSTRACT]), flush=True)
sys.stdin.read()  # held until the test has both lists: a picker that ended would have let its ports go
"""


def _two_pickers_at_once(mode: str, picks: int) -> tuple[list[int], list[int]]:
    """Two processes picking `picks` ports each at the same time, both still holding what they picked when it is
    compared (as two workers whose servers run at once would); only claimed ports are listed."""
    both = [
        subprocess.Popen(
            [sys.executable, "-c", _PICKER, mode, str(picks)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    try:
        first, second = (json.loads(process.stdout.readline()) for process in both if process.stdout is not None)
    finally:
        for process in both:
            process.communicate(timeout=60)  # closes its stdin: it lets its claims go and ends
    return first, second


def test_two_processes_picking_at_once_never_get_the_same_port() -> None:
    first, second = _two_pickers_at_once("claimed", 1000)
    assert len(set(first)) == len(set(second)) == 1000
    assert not set(first) & set(second), "two pickers holding their claims were given the same port"
    # The same picks without claims: the OS gives ports out again (~35 shared of 1,000 each, and repeats in one
    # process), which is what the claims are for; here so that the assertion above is seen to be able to fail.
    first, second = _two_pickers_at_once("unclaimed", 1000)
    assert set(first) & set(second) or len(set(first)) < 1000, "the OS alone gave no port twice: nothing was shown"
