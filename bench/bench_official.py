"""The official suite's scenarios one after the other vs side by side, against one server at a URL.

`mcpbdd conformance --official` runs the suite's generic scenarios (`mcpbdd.runner.official.SCENARIOS`), each a
node process of its own against the server's URL. They mostly wait (node's start-up, the server's answers), so
they now run side by side (`_run_scenarios`). Each rep starts `python -m mcpbdd.examples.notes --http` once
and times, interleaved:

  serial        each scenario after the last (`_run_scenario` in a loop: what the command did before);
  side-by-side  all at once (`_run_scenarios`: what it does now).

Both variants' checks are compared: the bench fails if they differ (the verdicts must be the same).

    .venv/bin/python bench/bench_official.py [--reps 2]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcpbdd.runner.official import SCENARIOS, _entry, _run_scenario, _run_scenarios


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve() -> tuple[subprocess.Popen[bytes], str]:
    port = _port()
    server = subprocess.Popen([sys.executable, "-m", "mcpbdd.examples.notes", "--http", f"127.0.0.1:{port}"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the example server did not listen in 60 s")


def _serial(command: list[str], url: str) -> list[dict[str, object]]:
    checks: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as scratch:
        for scenario in SCENARIOS:
            found, skipped = _run_scenario(command, url, scenario, Path(scratch) / scenario, 120.0)
            if skipped is not None:
                raise SystemExit(skipped)
            checks += found
    return checks


def _side_by_side(command: list[str], url: str) -> list[dict[str, object]]:
    result = _run_scenarios(command, url, SCENARIOS, 120.0)
    if result.skipped is not None:
        raise SystemExit(result.skipped)
    return result.checks


def _key(checks: list[dict[str, object]]) -> list[tuple[object, object, object]]:
    """What a verdict is: the scenario, the check and its status (timestamps and messages vary run to run)."""
    return [(check["scenario"], check.get("id"), check.get("status")) for check in checks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    command, why = _entry()
    if command is None:
        raise SystemExit(f"the official suite cannot run: {why}")
    variants = {"serial": _serial, "side-by-side": _side_by_side}
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    verdicts: dict[str, list[tuple[object, object, object]]] = {}
    server, url = _serve()
    try:
        for _ in range(args.reps):
            for name, variant in variants.items():
                started = time.perf_counter()
                checks = variant(command, url)
                seconds[name].append(time.perf_counter() - started)
                verdicts.setdefault(name, _key(checks))
                if _key(checks) != verdicts["serial"]:
                    raise SystemExit(f"{name}'s verdicts differ from serial's:\n{_key(checks)}\n{verdicts['serial']}")
    finally:
        server.terminate()
        server.wait(timeout=10)
    base = statistics.median(seconds["serial"])
    print(f"{len(SCENARIOS)} scenarios, {len(verdicts['serial'])} checks, the same verdicts in every run")
    print("| variant | seconds (median) | vs serial |")
    print("| --- | ---: | ---: |")
    for name, runs in seconds.items():
        print(f"| {name} | {statistics.median(runs):.1f} | {statistics.median(runs) / base:.2f}x |")


if __name__ == "__main__":
    main()
