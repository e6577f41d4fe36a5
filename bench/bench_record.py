"""The recorder's cost: a real `mcp.Client` over stdio, direct vs through `mcpbdd record`.

Target: the recorder adds at most 1 ms per message (a call is two messages: the request and
its response). Both variants talk to the example server in its own process, interleaved in
one run (the machine is shared and noisy: only the difference within a run means much).

    .venv/bin/python bench/bench_record.py [--calls N] [--reps R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

SERVER = [sys.executable, "-m", "mcpbdd.examples.notes"]
ENV = {**os.environ, "NOTES_TENANT": "acme", "NOTES_USER": "alice"}
MESSAGES_PER_CALL = 2


def direct() -> StdioServerParameters:
    return StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=ENV)


def recorded(cassette: Path) -> StdioServerParameters:
    args = ["-m", "mcpbdd.cli.main", "record", "--out", str(cassette), "--", *SERVER]
    return StdioServerParameters(command=sys.executable, args=args, env=ENV)


async def per_call_us(params: StdioServerParameters, calls: int) -> float:
    """Mean µs per `list_notes` call on an open session (start-up excluded)."""
    async with Client(params) as client:
        for _ in range(20):  # warm-up
            await client.call_tool("list_notes", {})
        started = time.perf_counter()
        for _ in range(calls):
            await client.call_tool("list_notes", {})
        return (time.perf_counter() - started) / calls * 1e6


async def main(calls: int, reps: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="mcpbdd-bench-record-"))
    raw: list[float] = []
    proxied: list[float] = []
    for rep in range(reps):  # interleaved, so both see the same load
        raw.append(await per_call_us(direct(), calls))
        proxied.append(await per_call_us(recorded(folder / f"rep-{rep}.ndjson"), calls))
    added = [(p - r) / MESSAGES_PER_CALL for p, r in zip(proxied, raw, strict=True)]
    print(f"Command: .venv/bin/python bench/bench_record.py --calls {calls} --reps {reps}")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {reps} reps x {calls} calls, interleaved.")
    print()
    print("| variant | µs/call (median) | spread µs |")
    print("| --- | ---: | ---: |")
    print(f"| direct stdio | {statistics.median(raw):.0f} | {min(raw):.0f}-{max(raw):.0f} |")
    print(f"| through `mcpbdd record` | {statistics.median(proxied):.0f} | {min(proxied):.0f}-{max(proxied):.0f} |")
    median_added = statistics.median(added)
    verdict = "met" if median_added <= 1000 else "MISSED"
    print(f"\nadded per message: {median_added:.0f} µs median (target <= 1000 µs: {verdict})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--reps", type=int, default=5)
    options = parser.parse_args()
    anyio.run(main, options.calls, options.reps)
