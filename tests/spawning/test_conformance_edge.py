"""`protected-resource-metadata` over HTTP: a hand-rolled edge breaking one rule each fails it; the example passes.

`tests/edge_server.py` answers as a protected server's HTTP edge does before any MCP, and gets one thing wrong
per mode: no challenge and no metadata, a token nobody issued let through, a document naming no
authorization server, a document too large to read (a flood, cut at the check's cap). The example server with
its production configuration (`--auth jwks=...`, `mcpbdd.kit.protected`) passes; in its test configuration
(anonymous callers reach its tools, which refuse them themselves) and over stdio it is not applicable, saying
why, never passed.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import anyio
import pytest

from mcpbdd.conformance import ConformanceFailure, NotApplicable, Probe, run_check
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.connectors import Stdio, python_command
from mcpbdd.harness.processes.http_process import HttpProcess

pytestmark = pytest.mark.anyio

EDGE = Path(__file__).parents[1] / "edge_server.py"
NOTES = python_command("mcpbdd.examples.notes")
CHECK = "protected-resource-metadata"


async def _verdict(connector: HttpProcess | Stdio) -> str:
    async with ClientHarness(connector, timeout=3.0) as harness:
        try:
            await run_check(Probe(harness, None), CHECK)
        except NotApplicable as reason:
            return f"not applicable: {reason}"
        except ConformanceFailure as failure:
            return f"failed: {failure}"
        return "passed"


def _edge(mode: str) -> HttpProcess:
    return HttpProcess(shlex.join([sys.executable, str(EDGE), mode]) + " {port}")


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("no-challenge", "the 401 without a token has WWW-Authenticate '', not a Bearer challenge; no protected-"),
        ("accepts-any-token", "initialize with a bearer token nobody issued was answered 200, not 401"),
        ("no-servers", "/.well-known/oauth-protected-resource/mcp has authorization_servers None, not a list"),
        ("flood", "/.well-known/oauth-protected-resource/mcp: the answer is over 65536 bytes (flood)"),
    ],
)
async def test_each_broken_edge_fails_naming_what_it_got_wrong(mode: str, message: str) -> None:
    verdict = await _verdict(_edge(mode))
    assert verdict.startswith("failed: ") and message in verdict, verdict


async def test_a_document_dripped_a_byte_at_a_time_fails_within_the_call_timeout() -> None:
    """Each read comes quickly, so a per-read timeout never fires: the whole answer has a deadline of its own."""
    with anyio.fail_after(30):  # the document takes ~20 s to drip; the check gives up after 3
        verdict = await _verdict(_edge("drip"))
    message = "/.well-known/oauth-protected-resource/mcp: no complete answer within 3 s"
    assert verdict.startswith("failed: ") and message in verdict, verdict


@pytest.mark.parametrize("mode", ["names-instance-metadata", "names-instance-metadata-decimal"])
async def test_a_metadata_url_at_a_link_local_address_is_refused_unfetched(mode: str) -> None:
    """A hostile server naming a cloud's instance-metadata address (as an IP, or a number that resolves to it)
    gets a failure, never a request from the pack."""
    verdict = await _verdict(_edge(mode))
    assert verdict.startswith("failed: ") and "refused: 169.254.169.254 is a link-local address" in verdict, verdict


async def test_a_correct_edge_and_the_protected_example_pass() -> None:
    assert await _verdict(_edge("ok")) == "passed"
    protected = f"{NOTES} --http 127.0.0.1:{{port}} --auth jwks=http://127.0.0.1:9/jwks,issuer=http://127.0.0.1:9"
    assert await _verdict(HttpProcess(protected)) == "passed"


async def test_an_open_server_and_a_stdio_one_are_not_applicable_saying_why() -> None:
    assert (await _verdict(HttpProcess(f"{NOTES} --http 127.0.0.1:{{port}}"))).startswith(
        "not applicable: the server answered initialize without a token with 200: it does not require authorization"
    )
    assert (await _verdict(Stdio(NOTES))).startswith(
        "not applicable: protected-resource-metadata checks an HTTP edge and this server is reached over stdio"
    )
