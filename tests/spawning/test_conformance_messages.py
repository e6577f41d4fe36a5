"""The checks that write their own JSON-RPC messages, against a hand-rolled stdio server breaking one rule each.

The SDK's server keeps every rule these checks state whatever its handlers do, so the server that breaks them
is `tests/raw_jsonrpc_server.py`, a dispatcher written by hand the way one goes wrong: a string id for an
integer one, an answer to a notification, two answers, a result for an unknown method, a request
missing a required `_meta` field taken, a version echoed back or
refused, `server/discover` leaving out the version it speaks. The same server lies, floods, stalls, dies and
writes a line that is no JSON: each is the check's one failure, within its bounds, and the run goes on. Its `ok`
and `modern` modes break nothing and pass (a hand-rolled server can pass: the checks ask for the rule, not for
the SDK). The example server passes them in process, over stdio and over HTTP in test_conformance_cli.py.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from mcpbdd.conformance import ConformanceFailure, NotApplicable, Probe, run_check
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.connectors import Stdio

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).parents[1] / "raw_jsonrpc_server.py"
TIMEOUT = 3.0

BROKEN = [
    ("wrong-id", "jsonrpc-messages", "a response with the id '1', which no request in flight carries"),
    ("answers-notifications", "jsonrpc-messages", "waiting for the answer to ping (id 3): an error with a null id"),
    ("answers-twice", "jsonrpc-messages", "a response with the id 1, already answered once"),
    ("answers-last-twice", "jsonrpc-messages", "within 1 s: a response with the id 3, already answered"),
    ("answers-notifications-late", "jsonrpc-messages", "after the last answer (to ping (id 3)), within 1 s: an error"),
    ("unknown-as-result", "jsonrpc-messages", "mcpbdd/no-such-method (id 2): a method nobody defines came back as"),
    ("lenient-meta", "jsonrpc-messages", "server/discover (id 4) without _meta['io.modelcontextprotocol/clientCap"),
    ("echo-version", "version-negotiation", "the server echoed back 1999-01-01, which no server supports"),
    ("refuse-version", "version-negotiation", "offering 1999-01-01: refused with -32602 'Unsupported protocol"),
    ("downgrade-supported", "version-negotiation", "offering 2025-11-25 (the version it answered with to 1999-01-01)"),
    ("discover-lies", "server-discover", "supportedVersions ['2025-11-25'] leaves out 2026-07-28"),
]
ATTACKS = [
    ("flood", "flood: 1000 messages and still no answer to ping (id 1)"),
    ("stall", f"no answer to ping (id 1) within {TIMEOUT:g} s"),
    ("crash", "the server closed the connection instead of answering ping (id 1)"),
    ("garbage", "waiting for the answer to ping (id 1): the transport could not decode a message of the server"),
]


async def _verdict(mode: str, name: str) -> str:
    command = shlex.join([sys.executable, str(SERVER), mode])
    async with ClientHarness(Stdio(command), timeout=TIMEOUT) as harness:
        try:
            await run_check(Probe(harness, None), name)
        except NotApplicable as reason:
            return f"not applicable: {reason}"
        except ConformanceFailure as failure:
            return f"failed: {failure}"
        return "passed"


@pytest.mark.parametrize(("mode", "name", "message"), BROKEN, ids=[mode for mode, _, _ in BROKEN])
async def test_each_message_check_fails_on_the_server_that_breaks_it(mode: str, name: str, message: str) -> None:
    verdict = await _verdict(mode, name)
    assert verdict.startswith("failed: ") and message in verdict, verdict


@pytest.mark.parametrize(("mode", "message"), ATTACKS, ids=[mode for mode, _ in ATTACKS])
async def test_a_server_that_floods_stalls_dies_or_garbles_is_one_bounded_failure(mode: str, message: str) -> None:
    started = time.monotonic()
    verdict = await _verdict(mode, "jsonrpc-messages")
    assert verdict.startswith("failed: ") and message in verdict, verdict
    assert time.monotonic() - started < 4 * TIMEOUT + 10  # the stall's deadline, then the process's stop


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("ok", {"jsonrpc-messages": "passed", "version-negotiation": "passed", "server-discover": "not applicable"}),
        (
            "modern",
            {"jsonrpc-messages": "passed", "version-negotiation": "not applicable", "server-discover": "passed"},
        ),
    ],
)
async def test_a_hand_rolled_server_that_keeps_the_rules_passes(mode: str, expected: dict[str, str]) -> None:
    for name, verdict in expected.items():
        assert (await _verdict(mode, name)).startswith(verdict), (mode, name)
