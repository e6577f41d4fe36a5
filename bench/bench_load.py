"""The load driver's own cost against raw SDK calls at the same concurrency, and the calls per second it sustains.

Run: `.venv/bin/python bench/bench_load.py [--callers 8] [--calls 200] [--reps 5] [--seconds 3]`

1. Overhead (ratio of medians, interleaved rep by rep so a noisy moment hits every variant alike): `--callers`
   concurrent callers each make `--calls` calls of an async `echo` tool on a tiny in-process `MCPServer` defined
   here, and the wall time of all of them is measured:
     a. raw: one in-process `mcp.Client(server, cache=None, ...)` per caller, entered beforehand, the callers'
        loops run by `asyncio.gather` (baseline). It declares what the harness's client declares (elicitation,
        sampling and roots callbacks, a logging callback: `mcpbdd.model.kinds.CAPABILITIES`, the default of
        every scenario), so both send the same requests: on 2026-07-28 a client's capabilities travel in every
        request and the server reads them per request, which costs the SDK ~8% more instructions per call;
     a0. the same raw client declaring nothing (`Client(server, cache=None)`): the baseline this bench used
        before (2026-12-01), shown so the capabilities' own cost stays visible (b/a0 is printed too);
     b. the driver: `mcpbdd.load.run_load` over a `ClientHarness` (a Client per caller, every call classified
        into an Outcome and then a sample), bounded by iterations so it makes exactly the same calls;
     c. the harness alone: `ClientHarness.send` per caller, gathered, no driver (what b pays for the harness).
   b/a is the driver's overhead, harness included (target <= 1.15x); b/c is the driver's own part. Each line
   also counts the full (generation 2) garbage collections during the variant's reps: what a run keeps per call
   decides how often the collector walks the whole heap. (`bench_load_instructions.py` counts the same variants
   in instructions, which the machine's load does not move.)
2. Throughput of the example notes server under the example's profile (create_note x3, list_notes x1; 3
   callers in each of 3 tenants, for `--seconds`), through the World as a scenario runs it: in-process (client
   harness) and over HTTP (the server started by mcpbdd, one process, a client per caller).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class _Clock:
    """Wall time and this process's CPU time since it was made: on a shared machine the CPU time is the steadier
    figure (other processes' work does not count in it), and all three variants run in this one process."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def _server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench-load")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    return server


async def _raw(server: Any, callers: int, calls: int) -> tuple[float, float]:
    """Raw SDK clients declaring what the harness's declare (never called back: the echo tool asks nothing)."""

    async def never(*_: Any) -> Any:
        raise AssertionError("the echo tool asks the client nothing")

    async def log(*_: Any) -> None:
        return None

    callbacks = {"elicitation_callback": never, "sampling_callback": never, "list_roots_callback": never}
    return await _raw_clients(server, callers, calls, {**callbacks, "logging_callback": log})


async def _bare(server: Any, callers: int, calls: int) -> tuple[float, float]:
    """Raw SDK clients declaring nothing (the baseline before 2026-12-02)."""
    return await _raw_clients(server, callers, calls, {})


async def _raw_clients(server: Any, callers: int, calls: int, callbacks: dict[str, Any]) -> tuple[float, float]:
    from contextlib import AsyncExitStack

    from mcp.client import Client

    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(Client(server, cache=None, **callbacks)) for _ in range(callers)]

        async def caller(client: Any) -> None:
            for n in range(calls):
                await client.call_tool("echo", {"text": f"c {n}"})

        clock = _Clock()
        await asyncio.gather(*(caller(client) for client in clients))
        return clock.read()


async def _driver(server: Any, callers: int, calls: int) -> tuple[float, float]:
    from mcpbdd.harness import ClientHarness
    from mcpbdd.kit.principals import Principal
    from mcpbdd.load.driver import open_sessions, run_load
    from mcpbdd.load.profile import LoadBound, LoadProfile, LoadStep

    principals = [Principal(f"caller-{i}", "acme") for i in range(callers)]
    profile = LoadProfile([LoadStep("echo", {"text": "{caller} {n}"})], LoadBound(iterations=calls))
    async with ClientHarness(server, timeout=30.0) as harness:
        await open_sessions(harness, principals, ["echo"])  # as raw: connected before the clock starts
        clock = _Clock()
        run = await run_load(harness, principals, profile)  # (its own open_sessions finds them open)
        measured = clock.read()
    assert run.result.calls == callers * calls, run.result.stopped_because
    return measured


async def _harness(server: Any, callers: int, calls: int) -> tuple[float, float]:
    from mcpbdd.harness import ClientHarness
    from mcpbdd.kit.principals import Principal
    from mcpbdd.model.outcome import Call

    principals = [Principal(f"caller-{i}", "acme") for i in range(callers)]
    async with ClientHarness(server, timeout=30.0) as harness:
        for principal in principals:
            await harness.session(principal)

        async def caller(principal: Principal) -> None:
            for n in range(calls):
                await harness.send(principal, Call.tool("echo", {"text": f"{principal.user} {n}"}))

        clock = _Clock()
        await asyncio.gather(*(caller(principal) for principal in principals))
        return clock.read()


def overhead(callers: int, calls: int, reps: int) -> None:
    server = _server()
    variants = {
        "a. raw mcp.Client per caller, gather": _raw,
        "a0. the same, declaring no capability": _bare,
        "b. mcpbdd.load.run_load (ClientHarness)": _driver,
        "c. ClientHarness.send per caller, gather": _harness,
    }
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    full_collections = dict.fromkeys(variants, 0)
    running: list[str] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2 and running:
            full_collections[running[0]] += 1

    for variant in variants.values():
        asyncio.run(variant(server, callers, 20))  # warm-up
    gc.callbacks.append(count)
    try:
        for _ in range(reps):
            for name, variant in variants.items():
                running[:] = [name]
                figures[name].append(asyncio.run(variant(server, callers, calls)))
    finally:
        gc.callbacks.remove(count)
    total = callers * calls
    print(f"\n1. {callers} concurrent callers x {calls} calls of an async echo tool, in-process; median of {reps} reps")
    wall = {name.split(".")[0]: statistics.median(w for w, _ in runs) for name, runs in figures.items()}
    cpu = {name.split(".")[0]: statistics.median(c for _, c in runs) for name, runs in figures.items()}
    for name, runs in figures.items():
        key = name.split(".")[0]
        print(
            f"   {name:42} wall {wall[key] * 1000:7.0f} ms ({total / wall[key]:5.0f} calls/s)  "
            f"cpu {cpu[key] * 1000:7.0f} ms  (wall min-max {min(w for w, _ in runs) * 1000:.0f}-"
            f"{max(w for w, _ in runs) * 1000:.0f}; {full_collections[name]} full GCs)"
        )
    for label, figure in (("wall", wall), ("cpu", cpu)):
        a, a0, b, c = figure["a"], figure["a0"], figure["b"], figure["c"]
        print(
            f"   {label}: b/a = {b / a:.2f}x (target <= 1.15x); b/c = {b / c:.2f}x (the driver's part); "
            f"c/a = {c / a:.2f}x (the harness's part); a/a0 = {a / a0:.2f}x (the capabilities), b/a0 = {b / a0:.2f}x"
        )


def throughput(seconds: float) -> None:
    from mcpbdd.load.profile import LoadBound, LoadStep
    from mcpbdd.load.scenario import load_of
    from mcpbdd.model.config import load_settings
    from mcpbdd.scenario.runtime import RunLoop
    from mcpbdd.scenario.world import World

    steps = [
        LoadStep("create_note", {"title": "{caller} note {n}", "body": "written under load"}, weight=3),
        LoadStep("list_notes"),
    ]
    print(f"\n2. The example notes server, its profile (create_note x3, list_notes x1), 9 callers for {seconds:g} s")
    targets = {
        "in-process": "mcpbdd.examples.notes:mcp",
        "http": f"http: {sys.executable} -m mcpbdd.examples.notes --http 127.0.0.1:{{port}}",
    }
    for name, target in targets.items():
        loop = RunLoop()
        try:
            settings = load_settings({"mcpbdd.server": target, "mcpbdd.harness": "client"})
            world = World(settings, loop.owner())
            load = load_of(world)
            load.add_callers(3, ["acme", "globex", "initech"])
            run = load.run(load.profile(LoadBound(duration_s=seconds), steps))
            result = run.result
            p95 = {tool: f"{summary.p95_ms:.1f}" for tool, summary in result.per_tool.items()}
            print(
                f"   {name:10} {result.calls_per_second:7.0f} calls/s  ({result.calls} calls, p95 ms {p95}, "
                f"errors {sum(result.by_channel().values()) - result.by_channel()['ok']})"
            )
            for error in world.close():
                print(f"   (closing: {error})")
        finally:
            loop.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--callers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request would drown the figures
    print(
        f"Command: `.venv/bin/python bench/bench_load.py --callers {args.callers} --calls {args.calls} "
        f"--reps {args.reps} --seconds {args.seconds:g}`"
    )
    overhead(args.callers, args.calls, args.reps)
    throughput(args.seconds)


if __name__ == "__main__":
    main()
