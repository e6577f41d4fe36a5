"""What generated calls cost: calls per second of `check_generated_calls` against raw `MCPServer.call_tool`.

Run: `.venv/bin/python bench/bench_generated.py [--quick] [--calls N]`

Target: on the context harness, at least 500 generated calls per second for a
trivial tool. Machines are shared and noisy, so the script reports medians over reps,
interleaved so a noisy moment hits every variant alike, and the ratio to the raw SDK
measured in the same run.

Variants, for a trivial tool (`echo(text) -> text` on a tiny `MCPServer("bench")` defined
here, a sync tool as most are, and its `async def` twin for information):

  a. raw `await server.call_tool("echo", {"text": ...})` in one coroutine (baseline);
  b. `check_generated_calls(ContextHarness(server), "echo", N)`: input generation (hypothesis,
     seeded), N calls, every verdict, no failure to shrink; its calls/s is N / its wall time;
  c. the same calls without the generation (the plan made beforehand): calls + verdicts only;
  d. (information) b on the client harness (in-process `mcp.Client`, mode auto).

Printed: µs per call, calls per second, the ratio of each to a, and which generator made the
inputs (hypothesis-jsonschema, or mcpbdd's own strategy when hypothesis-jsonschema cannot run
with the installed hypothesis). The first generation in a process also pays hypothesis's own
start-up (its constants cache and unicode tables): reported once, separately.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server.mcpserver import MCPServer

from mcpbdd.checks.generated import CallRunner, Rules, check_generated_calls, plan_inputs, server_paths
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness

bench = MCPServer("bench")


@bench.tool()
def echo(text: str) -> str:
    return text


@bench.tool()
async def echo_async(text: str) -> str:
    """Informational: the SDK runs a sync tool in a worker thread; an async one it awaits."""
    return text


@dataclass
class Variant:
    """One way of making N calls; `run(n)` returns the seconds it took."""

    name: str
    run: Callable[[int], Awaitable[float]]
    samples: list[float] = field(default_factory=list)

    def per_call_us(self, n: int) -> float:
        return statistics.median(self.samples) / n * 1e6


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


async def main(calls: int, reps: int) -> None:
    logging.getLogger("mcp").setLevel(logging.WARNING)
    started = time.perf_counter()
    first = time.perf_counter()
    _, notes = plan_inputs({"type": "object", "properties": {"text": {"type": "string"}}}, 10, 0)
    first_generation = time.perf_counter() - first
    generator = notes[0] if notes else f"hypothesis-jsonschema {_version('hypothesis-jsonschema')}"

    async with ContextHarness(bench) as context, ClientHarness(bench) as client:
        tools = {tool.name: tool for tool in await context.list_tools(None)}
        lines: list[str] = []
        for tool in ("echo", "echo_async"):
            schema = tools[tool].input_schema
            prepared, _ = plan_inputs(schema, calls, 1)
            rules = Rules(tool, (), server_paths(context))
            runner = CallRunner(context, None, tool, None, None, rules)

            async def raw(n: int, tool: str = tool) -> float:
                t0 = time.perf_counter()
                for i in range(n):
                    await bench.call_tool(tool, {"text": f"hello {i}"})
                return time.perf_counter() - t0

            async def generated(n: int, tool: str = tool) -> float:
                t0 = time.perf_counter()
                report = await check_generated_calls(context, tool, n, seed=1)
                elapsed = time.perf_counter() - t0
                assert report.ok and report.calls == n, report.describe()
                return elapsed

            async def calls_only(n: int, runner: Any = runner, prepared: Any = prepared) -> float:
                t0 = time.perf_counter()
                for _source, arguments in prepared[:n]:
                    _outcome, found = await runner.attempt(arguments)
                    assert not found, found
                return time.perf_counter() - t0

            async def on_client(n: int, tool: str = tool) -> float:
                t0 = time.perf_counter()
                report = await check_generated_calls(client, tool, n, seed=1)
                elapsed = time.perf_counter() - t0
                assert report.ok and report.calls == n, report.describe()
                return elapsed

            variants = [
                Variant("a. raw `MCPServer.call_tool`", raw),
                Variant("b. `check_generated_calls`, context harness", generated),
                Variant("c. the same calls + verdicts, inputs prepared", calls_only),
                Variant("d. `check_generated_calls`, client harness (info)", on_client),
            ]
            for variant in variants:  # warm-up
                await variant.run(min(calls, 50))
            for _ in range(reps):
                for variant in variants:
                    variant.samples.append(await variant.run(calls))
            base = variants[0].per_call_us(calls)
            for variant in variants:
                us = variant.per_call_us(calls)
                spread = f"{min(variant.samples) / calls * 1e6:.0f}-{max(variant.samples) / calls * 1e6:.0f}"
                lines.append(f"| {tool} | {variant.name} | {us:.0f} | {spread} | {1e6 / us:,.0f} | {us / base:.1f}x |")
    command = " ".join(["python", "bench/bench_generated.py", *map(shlex.quote, sys.argv[1:])])
    print(f"Command: `{command}`  ")
    print(
        f"Python {platform.python_version()}, mcp {_version('mcp')}, hypothesis {_version('hypothesis')}, "
        f"hypothesis-jsonschema {_version('hypothesis-jsonschema')}. {reps} reps x {calls} calls per variant, "
        f"interleaved. Took {time.perf_counter() - started:.1f} s."
    )
    print(f"Inputs generated by: {generator}")
    print(f"First generation in the process (hypothesis start-up): {first_generation * 1000:.0f} ms\n")
    print("| tool | variant | µs/call | spread µs | calls/s | vs raw |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer reps and calls (a smoke run)")
    parser.add_argument("--calls", type=int, default=None, help="generated calls per rep (default 500)")
    options = parser.parse_args()
    n_calls = options.calls or (100 if options.quick else 500)
    asyncio.run(main(n_calls, 2 if options.quick else 7))
