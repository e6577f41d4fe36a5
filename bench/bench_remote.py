"""Servers in other processes: the client harness against the raw SDK client over the same transport.

Measured in one run (the machine is shared and noisy, so only ratios within a run mean much):

- per-call cost over stdio: raw `mcp.Client(transport)` vs `ClientHarness(Stdio(...))`, each call
  driven the way a behave step drives it (one `run_until_complete` per call); target <= 1.2x;
- the same over Streamable HTTP (the example server in its own process on loopback);
- server start-up: spawning the example server over stdio and its first answer.

    .venv/bin/python bench/bench_remote.py [--quick]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from contextlib import AsyncExitStack
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Http, Stdio, python_command
from mcpbdd.principals import Principal
from mcpbdd.runtime import RunLoop

ALICE = Principal("alice", "acme")
NOTES_ENV = {"NOTES_TENANT": "acme", "NOTES_USER": "alice"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def per_call(
    run: Callable[[Coroutine[Any, Any, Any]], Any], call: Callable[[], Coroutine[Any, Any, Any]], n: int
) -> float:
    """Median µs per call over 5 repetitions of n calls, one `run(...)` per call (as a step does)."""
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(n):
            run(call())
        samples.append((time.perf_counter() - started) / n * 1e6)
    return statistics.median(samples)


def measure(
    name: str, raw_transport: Callable[[], Any], connector: Any, n: int, run_loop: RunLoop
) -> tuple[float, float]:
    loop = run_loop.loop
    raw_owner = run_loop.owner()
    raw: Client = raw_owner.enter(Client(raw_transport(), cache=None))

    async def raw_call() -> Any:
        return await raw.call_tool("list_notes", {})

    harness_owner = run_loop.owner()
    harness = ClientHarness(connector, enter_in_owner=lambda fn: harness_owner.call_in_owner(lambda _s: fn()))
    harness_owner.enter(harness)

    async def harness_call() -> Any:
        return await harness.call_tool(ALICE, "list_notes", {})

    for _ in range(20):  # warm both up (sessions open, caches filled)
        loop.run_until_complete(raw_call())
        loop.run_until_complete(harness_call())
    raw_us = per_call(loop.run_until_complete, raw_call, n)
    harness_us = per_call(harness_owner.run, harness_call, n)
    raw_owner.close()
    harness_owner.close()
    print(f"| {name} | {raw_us:.0f} | {harness_us:.0f} | {harness_us / raw_us:.2f}x |", flush=True)


async def start_up_once(command: str) -> float:
    argv = command.split()
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=NOTES_ENV)
    started = time.perf_counter()
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(Client(stdio_client(params), cache=None))
        await client.call_tool("list_notes", {})
        elapsed = time.perf_counter() - started
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 50 if args.quick else 300
    command = python_command("mcpbdd.examples.notes")
    run_loop = RunLoop()
    print("    .venv/bin/python bench/bench_remote.py" + (" --quick" if args.quick else ""))
    print(f"\n{n} calls x 5 repetitions of `list_notes`, median µs per call, one run_until_complete per call\n")
    print("| transport | raw SDK Client µs | ClientHarness µs | ratio (target <= 1.2x) |")
    print("| --- | ---: | ---: | ---: |")
    import os

    env = {**os.environ, **NOTES_ENV}
    argv = command.split()
    measure(
        "stdio",
        lambda: stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], env=env)),
        Stdio(command, env={"NOTES_TENANT": "{tenant}", "NOTES_USER": "{user}"}),
        n,
        run_loop,
    )
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mcpbdd.examples.notes", "--http", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        token = {"Authorization": f"Bearer {ALICE.token}"}
        measure(
            "Streamable HTTP",
            lambda: streamable_http_client(url, http_client=httpx2.AsyncClient(headers=token)),
            Http(url),
            n,
            run_loop,
        )
    finally:
        server.terminate()
        server.wait()
    starts = [run_loop.loop.run_until_complete(start_up_once(command)) for _ in range(3 if args.quick else 5)]
    median = statistics.median(starts)
    print(f"\nstdio server start-up to first answer (spawn + handshake + one call): median {median:.2f} s")
    run_loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
