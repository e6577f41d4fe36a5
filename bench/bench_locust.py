"""What driving the SDK client from Locust's greenlets costs, against raw SDK calls at the same concurrency.

    .venv/bin/python bench/bench_locust.py [--callers 8] [--calls 100] [--reps 5] [--locust-seconds 10]

One example notes server over Streamable HTTP (mcpbdd's test tokens), started once. Each rep runs, in fresh
processes and in turn:

- **raw**: plain asyncio, `--callers` tasks, each with its own `mcp.Client` session, each making `--calls`
  `list_notes` calls back to back (what a hand-written asyncio load script does);
- **bridge**: a process monkey-patched by `import locust`, `--callers` greenlets, each with its own
  `mcpbdd.locust.bridge.CallerSession` (one asyncio loop thread for the process), making the same calls.

Sessions are opened (one call each) before the clock starts; the figure is the wall time of all the calls, and
the ratio is bridge / raw per rep (median over reps). The client process's CPU time per call (all its threads) is
reported beside it: on a shared machine the server's speed moves the wall time, while the CPU a call costs the
client is what the bridge adds. With `--locust-seconds N` it then runs the notes profile
(create and list notes, 2 tenants x 2 callers) on Locust's master and two workers for N seconds and prints the
calls per second that sustained (start-up excluded).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SERVER = "{python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
TOKEN = "mcpbdd:acme:bench"


def _raw(url: str, callers: int, calls: int) -> dict[str, object]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    latencies: list[float] = []

    async def caller(ready: anyio.Event, go: anyio.Event, opened: list[int]) -> None:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), cache=None) as client,
        ):
            await client.call_tool("list_notes", {})
            opened.append(1)
            if len(opened) == callers:
                ready.set()
            await go.wait()
            for _ in range(calls):
                started = time.perf_counter()
                await client.call_tool("list_notes", {})
                latencies.append(time.perf_counter() - started)

    async def main() -> tuple[float, float]:
        ready, go = anyio.Event(), anyio.Event()
        opened: list[int] = []
        async with anyio.create_task_group() as group:
            for _ in range(callers):
                group.start_soon(caller, ready, go, opened)
            await ready.wait()
            started, cpu = time.perf_counter(), time.process_time()
            go.set()
        return time.perf_counter() - started, time.process_time() - cpu

    seconds, cpu = anyio.run(main)
    return {"seconds": seconds, "cpu_ms_per_call": cpu * 1000 / (callers * calls), "p50_ms": _p50(latencies)}


def _p50(latencies: list[float]) -> float:
    return statistics.median(latencies) * 1000


def _bridge(url: str, callers: int, calls: int) -> dict[str, object]:
    import gevent
    import httpx2
    import locust  # noqa: F401  (monkey-patches the process, as in a Locust worker)
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from mcpbdd.locust.bridge import CallerSession, LoopThread

    def connect() -> object:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        return Client(streamable_http_client(url, http_client=http), cache=None)

    loop = LoopThread()
    sessions = [CallerSession(loop, connect, 30.0) for _ in range(callers)]
    gevent.joinall([gevent.spawn(session.call, "list_notes", {}) for session in sessions], raise_error=True)
    latencies: list[float] = []

    def caller(session: CallerSession) -> None:
        for _ in range(calls):
            started = time.perf_counter()
            session.call("list_notes", {})
            latencies.append(time.perf_counter() - started)

    started, cpu = time.perf_counter(), time.process_time()
    gevent.joinall([gevent.spawn(caller, session) for session in sessions], raise_error=True)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    for session in sessions:
        session.close()
    return {"seconds": seconds, "cpu_ms_per_call": cpu * 1000 / (callers * calls), "p50_ms": _p50(latencies)}


def _child(mode: str, url: str, callers: int, calls: int) -> dict[str, float]:
    argv = [sys.executable, __file__, "--child", mode, "--url", url, "--callers", str(callers), "--calls", str(calls)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=600)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _locust(url: str, seconds: float) -> None:
    from mcpbdd.locust.plan import LocustStep, callers_of
    from mcpbdd.locust.runner import LocustOptions, run_locust

    profile = [LocustStep("create_note", {"title": "{caller} {n}", "body": "b"}), LocustStep("list_notes", {}, 2)]
    callers = callers_of({"acme": 2, "globex": 2})
    result = run_locust(url, callers, profile, LocustOptions(workers=2, run_time_s=seconds, tokens="test"))
    print(f"locust, 2 workers, 4 callers, {seconds:g} s: {result.calls} calls, {result.calls_per_second:.1f} calls/s")
    for tool, summary in sorted(result.per_tool.items()):
        print(f"  {tool}: {summary.calls} calls, p50 {summary.p50_ms:g} ms, p95 {summary.p95_ms:g} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--callers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--locust-seconds", type=float, default=0.0)
    parser.add_argument("--child", choices=("raw", "bridge"))
    parser.add_argument("--url")
    args = parser.parse_args()
    if args.child:
        work = _raw if args.child == "raw" else _bridge
        print(json.dumps(work(args.url, args.callers, args.calls)))
        return

    from mcpbdd.locust.target import started_server

    with started_server(SERVER) as url:
        rows: list[tuple[float, float, float, float]] = []
        cpu_ratios: list[float] = []
        for rep in range(args.reps):
            raw = _child("raw", url, args.callers, args.calls)
            bridge = _child("bridge", url, args.callers, args.calls)
            rows.append((raw["seconds"], bridge["seconds"], raw["p50_ms"], bridge["p50_ms"]))
            cpu_ratios.append(bridge["cpu_ms_per_call"] / raw["cpu_ms_per_call"])
            total = args.callers * args.calls
            print(
                f"rep {rep + 1}: raw {total / raw['seconds']:.0f} calls/s (p50 {raw['p50_ms']:.2f} ms, "
                f"client CPU {raw['cpu_ms_per_call']:.3f} ms/call), bridge {total / bridge['seconds']:.0f} calls/s "
                f"(p50 {bridge['p50_ms']:.2f} ms, client CPU {bridge['cpu_ms_per_call']:.3f} ms/call), "
                f"wall bridge/raw {bridge['seconds'] / raw['seconds']:.2f}x, client CPU {cpu_ratios[-1]:.2f}x"
            )
        ratios = [bridge / raw for raw, bridge, _, _ in rows]
        print(
            f"{args.callers} callers x {args.calls} calls, median of {args.reps}: "
            f"raw {statistics.median(r[0] for r in rows):.3f} s, bridge {statistics.median(r[1] for r in rows):.3f} s, "
            f"bridge/raw {statistics.median(ratios):.2f}x (min {min(ratios):.2f}x, max {max(ratios):.2f}x); "
            f"client CPU per call bridge/raw {statistics.median(cpu_ratios):.2f}x"
        )
        if args.locust_seconds:
            _locust(url, args.locust_seconds)


if __name__ == "__main__":
    main()
