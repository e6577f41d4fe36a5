"""The stdio bridge under a client that opens many sessions: one-off probes, plain starts vs forks and a spare.

The official suite's `server-stateless` sends malformed probes one after another; each is a sessionless
request without the 2026-07-28 envelope, which the bridge serves with a one-off process (so it cannot change
the shared session's era). Each variant starts the bridge (`python -m mcpbdd.record.bridge`) in front of
`python -m mcpbdd.examples.notes` and times PROBES sequential one-off `ping` requests, then one 2026-07-28
request on the shared process, as a plain HTTP client does:

  plain   `--spawn plain`: every process a new interpreter (what the bridge did before);
  auto    `--spawn auto` (the default): a fork of a warm parent, and a process started ahead.

The bridge's own start (and the fork server's) is outside the timing: it is paid once per suite run.

    .venv/bin/python bench/bench_bridge.py [--probes 10] [--reps 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time

import httpx

NOTES = [sys.executable, "-m", "mcpbdd.examples.notes"]


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.post(url, json={}, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"the bridge at {url} did not answer in 60 s")


def run(spawn: str, probes: int) -> float:
    """Seconds for `probes` one-off pings and one enveloped request through a bridge started with `spawn`."""
    port = _port()
    bridge = subprocess.Popen(
        [sys.executable, "-m", "mcpbdd.record.bridge", "--port", str(port), "--spawn", spawn, "--", *NOTES],
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        _wait(url)
        headers = {"accept": "application/json"}
        start = time.perf_counter()
        with httpx.Client(timeout=60) as client:
            for number in range(probes):
                answer = client.post(url, json={"jsonrpc": "2.0", "id": number, "method": "ping"}, headers=headers)
                assert answer.status_code == 200, answer.text
        return time.perf_counter() - start
    finally:
        os.killpg(bridge.pid, signal.SIGTERM)
        bridge.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--probes", type=int, default=10)
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"plain": [], "auto": []}
    for _ in range(args.reps):
        for spawn in times:  # interleaved, so the machine's load hits both alike
            times[spawn].append(run(spawn, args.probes))
    plain = statistics.median(times["plain"])
    print(f"| variant | ms per one-off probe (median of {args.reps} reps) | vs plain |")
    print("| --- | ---: | ---: |")
    for spawn, found in times.items():
        median = statistics.median(found)
        print(f"| {spawn} | {1000 * median / args.probes:.1f} | {median / plain:.2f}x |")


if __name__ == "__main__":
    main()
