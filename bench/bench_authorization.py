"""What real tokens cost an HTTP scenario: minting and verifying JWTs against the test-token path.

Measured in one run (the machine is shared and noisy, so only differences and ratios within a run mean much):

- per call over Streamable HTTP, `list_notes` as alice through `ClientHarness(Http(...))`: the example
  server with mcpbdd's test tokens (`--http`) against the same server verifying JWTs from the run's fake
  authorization server (`--http ... --auth jwks`: `JwksVerifier` and the protected edge), the callers'
  tokens minted by `ScenarioAuthorization`;
- minting one token (RS256, PyJWT) and verifying one (`JwksVerifier.verify`, the JWKS already fetched);
- the run's key, made once per run.

A caller's token is minted once per scenario (again only when a step changes it) and verified on each
request; the target: minting and verifying a token adds at most 2 ms, and a call with JWTs costs about
what a call with test tokens does (the ratio, in the same run, rounds alternating).

    .venv/bin/python bench/bench_authorization.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcpbdd.authorization.keys import run_key
from mcpbdd.authorization.scenario import ScenarioAuthorization
from mcpbdd.authorization.server import fake_authorization_server
from mcpbdd.authorization.tokens import TokenSpec, mint
from mcpbdd.harness import ClientHarness
from mcpbdd.harness.client import EnterInOwner
from mcpbdd.harness.connectors import Http
from mcpbdd.kit.clock import FrozenClock, SystemClock
from mcpbdd.kit.jwks import JwksVerifier
from mcpbdd.kit.principals import Principal
from mcpbdd.kit.protected import ENV_ISSUER, ENV_JWKS
from mcpbdd.scenario.runtime import RunLoop, ScenarioOwner

ALICE = Principal("alice", "acme")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(*extra: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    argv = [sys.executable, "-m", "mcpbdd.examples.notes", "--http", f"127.0.0.1:{port}", *extra]
    process = subprocess.Popen(
        argv, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
        time.sleep(0.05)
    return process, f"http://127.0.0.1:{port}/mcp"


def _in_owner(owner: ScenarioOwner) -> EnterInOwner[Any]:
    """What World passes as `enter_in_owner`: open the harness's session inside the owner task."""

    def enter(fn: Callable[[], Awaitable[Any]]) -> Awaitable[Any]:
        return owner.call_in_owner(lambda _stack: fn())

    return enter


def per_call(run_loop: RunLoop, connectors: dict[str, Any], n: int) -> dict[str, float]:
    """Median µs per `list_notes` for each connector: 7 rounds of n calls, alternating, one run per call."""
    owners, calls = {}, {}
    for name, connector in connectors.items():
        owner = run_loop.owner()
        harness = ClientHarness(connector, enter_in_owner=_in_owner(owner))
        owner.enter(harness)
        owners[name], calls[name] = owner, harness

    def call(name: str) -> None:
        outcome = owners[name].run(calls[name].call_tool(ALICE, "list_notes", {}))
        assert outcome.ok, outcome

    for name in connectors:
        for _ in range(20):
            call(name)
    samples: dict[str, list[float]] = {name: [] for name in connectors}
    for _ in range(7):  # alternating, so drift in the machine's load hits both alike
        for name in connectors:
            started = time.perf_counter()
            for _ in range(n):
                call(name)
            samples[name].append((time.perf_counter() - started) / n * 1e6)
    for owner in owners.values():
        owner.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def median_us(fn: Any, n: int) -> float:
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - started) / n * 1e6)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 50 if args.quick else 300
    print("    .venv/bin/python bench/bench_authorization.py" + (" --quick" if args.quick else ""))
    started = time.perf_counter()
    run_key()
    key_ms = (time.perf_counter() - started) * 1e3
    fake = fake_authorization_server()
    run_loop = RunLoop()
    plain, plain_url = start()
    guarded, guarded_url = start("--auth", "jwks", env={ENV_ISSUER: fake.issuer, ENV_JWKS: fake.jwks_url})
    try:
        authorization = ScenarioAuthorization(lambda: SystemClock())
        authorization.require()
        connectors = {"test": Http(plain_url), "jwt": Http(guarded_url, bearer=authorization.bearer)}
        medians = per_call(run_loop, connectors, n)
        test_tokens_us, jwt_us = medians["test"], medians["jwt"]
    finally:
        for process in (plain, guarded):
            process.terminate()
            process.wait()
    now = time.time()
    spec = TokenSpec("alice", "acme", ("notes:write",), "c", now, now + 3600)
    mint_us = median_us(lambda: mint(spec, resource=guarded_url, issuer=fake.issuer), n)
    token = mint(spec, resource=guarded_url, issuer=fake.issuer)
    verifier = JwksVerifier(fake.jwks_url, issuer=fake.issuer, audience=guarded_url, clock=FrozenClock())
    verifier.clock = SystemClock()

    async def verify_many() -> None:
        for _ in range(n):
            await verifier.verify(token)

    loop = asyncio.new_event_loop()
    loop.run_until_complete(verifier.verify(token))  # fetches the JWKS once
    verify_us = median_us(lambda: loop.run_until_complete(verify_many()), 1) / n
    loop.close()
    run_loop.close()
    token_ms = (mint_us + verify_us) / 1e3
    print(f"\n{n} calls x 7 rounds, alternating, median µs per call\n")
    print("| | µs |")
    print("| --- | ---: |")
    print(f"| call, test tokens (`--http`) | {test_tokens_us:.0f} |")
    print(f"| call, JWTs (`--http ... --auth jwks`) | {jwt_us:.0f} ({jwt_us / test_tokens_us:.2f}x) |")
    print(f"| mint one token (RS256) | {mint_us:.0f} |")
    print(f"| verify one token (JWKS cached) | {verify_us:.0f} |")
    print(f"\nthe run's key: {key_ms:.0f} ms, once per run")
    print(
        f"minting and verifying a token: {token_ms:.2f} ms (target <= 2 ms); per call, JWTs minus test tokens: "
        f"{jwt_us - test_tokens_us:+.0f} µs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
