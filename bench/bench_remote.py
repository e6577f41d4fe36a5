"""Servers in other processes: the client harness against the raw SDK client over the same transport.

Measured in one run (the machine is shared and noisy, so only ratios within a run mean much):

- per-call cost over stdio: raw `mcp.Client(transport)` vs `ClientHarness(Stdio(...))`, each call
  driven the way a behave step drives it (one `run_until_complete` per call); target <= 1.2x;
- the same over Streamable HTTP (the example server in its own process on loopback);
- server start-up: spawning the example server over stdio and its first answer;
- the per-scenario cost of the scenario's doubles file over stdio: a whole stdio scenario (start the
  server, create a note, list the notes, stop) with the doubles in a per-scenario SQLite file, as
  mcpbdd now runs one, against the same scenario with the server's own in-memory storage; target
  <= 1.10x. Runs alternate (with, without, ...) so drift in the machine's load hits both alike.

    .venv/bin/python bench/bench_remote.py [--quick] [--doubles-only]
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
from mcpbdd.harness.handover import Placement, temporary_doubles_file
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.kit.principals import Principal
from mcpbdd.scenario.runtime import RunLoop
from mcpbdd.upstream import Upstream

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


def measure(name: str, raw_transport: Callable[[], Any], connector: Any, n: int, run_loop: RunLoop) -> None:
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


async def stdio_scenario(command: str, with_doubles: bool) -> float:
    """One stdio scenario end to end, in seconds: doubles placed (or not), server started, two calls, all stopped."""
    started = time.perf_counter()
    placement = Placement(command, Upstream(), file=temporary_doubles_file()) if with_doubles else None
    extra_env = placement.environment() if placement is not None else {}
    stdio = Stdio(
        command, ProcessOptions(env={"NOTES_TENANT": "{tenant}", "NOTES_USER": "{user}"}, extra_env=extra_env)
    )
    async with ClientHarness(stdio, timeout=30) as harness:
        created = await harness.call_tool(ALICE, "create_note", {"title": "Plan", "body": "Ship"})
        listed = await harness.call_tool(ALICE, "list_notes", {})
    assert created.ok and listed.ok and listed.structured["count"] == 1, (created, listed)
    if placement is not None:
        assert placement.taken, "the server did not take the doubles: the measurement would mean nothing"
        placement.close()
    return time.perf_counter() - started


def doubles_cost(command: str, run_loop: RunLoop, rounds: int) -> None:
    timings: dict[bool, list[float]] = {False: [], True: []}
    run_loop.loop.run_until_complete(stdio_scenario(command, True))  # warm the disk cache for both
    for _ in range(rounds):
        for with_doubles in (False, True):
            timings[with_doubles].append(run_loop.loop.run_until_complete(stdio_scenario(command, with_doubles)))
    without, with_ = statistics.median(timings[False]), statistics.median(timings[True])
    print(f"\nA stdio scenario (start, create_note, list_notes, stop), median of {rounds} alternating runs:\n")
    print("| doubles | median s per scenario | ratio (target <= 1.10x) |")
    print("| --- | ---: | ---: |")
    print(f"| the server's own in-memory storage (no doubles file) | {without:.3f} | 1.00x |")
    print(f"| the scenario's doubles file (SQLite storage, shared clock) | {with_:.3f} | {with_ / without:.2f}x |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--doubles-only", action="store_true", help="only the per-scenario cost of the doubles file")
    args = parser.parse_args()
    n = 50 if args.quick else 300
    command = python_command("mcpbdd.examples.notes")
    run_loop = RunLoop()
    flags = (" --quick" if args.quick else "") + (" --doubles-only" if args.doubles_only else "")
    print("    .venv/bin/python bench/bench_remote.py" + flags)
    if args.doubles_only:
        doubles_cost(command, run_loop, 5 if args.quick else 15)
        run_loop.close()
        return 0
    print(f"\n{n} calls x 5 repetitions of `list_notes`, median µs per call, one run_until_complete per call\n")
    print("| transport | raw SDK Client µs | ClientHarness µs | ratio (target <= 1.2x) |")
    print("| --- | ---: | ---: | ---: |")
    import os

    env = {**os.environ, **NOTES_ENV}
    argv = command.split()
    measure(
        "stdio",
        lambda: stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], env=env)),
        Stdio(command, ProcessOptions(env={"NOTES_TENANT": "{tenant}", "NOTES_USER": "{user}"})),
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
    doubles_cost(command, run_loop, 5 if args.quick else 15)
    run_loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
