"""What a fresh forked server process must cost, whatever mcpbdd does around it: the floor under `spawn = fork`.

The issue's target for the fork server is "at most 3x the same scenarios in-process". This measures the
work a fresh process cannot skip, with no client, transport or harness at all: the server's module run
as `__main__` (`MCPServer(...)` and its tools built), its event loop, the initialize handshake, one tool
call and the exit after end-of-file, fed from a pipe (`mcpbdd.examples.unreliable`, the bench_spawn
server). Three ways, interleaved, in one run:

  warm, unforked  in this interpreter, after the fork server's preloading (no fork at all: the least a
                  process that runs the module afresh can cost);
  fork            in a fork of this interpreter, as the fork server makes them (copy-on-write: every page
                  the server writes is copied first, and the minor page faults are counted);
  fork, pre-faulted  the same, after the fork wrote every writable page once (what the copying costs,
                  paid before the clock starts: the time the faults take).

    .venv/bin/python bench/bench_fork_floor.py [--reps 5]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import importlib.util
import io
import json
import os
import resource
import runpy
import statistics
import sys
import time
import types
from pathlib import Path

FORKSERVER = Path(__file__).resolve().parents[1] / "mcpbdd" / "harness" / "processes" / "forkserver.py"


def load_forkserver() -> types.ModuleType:
    """The fork server's script, loaded as the fork server runs it: without importing mcpbdd (or the SDK)."""
    spec = importlib.util.spec_from_file_location("forkserver", FORKSERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SERVER = "mcpbdd.examples.unreliable"
MESSAGES = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
]


def faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def write_every_page() -> int:
    """Write each page of this process's writable anonymous memory once (its own value back): copies it."""
    pages = 0
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split()
        anonymous = len(fields) < 6 or fields[5] == "[heap]"
        if fields[1].startswith("rw") and anonymous:
            start, end = (int(bound, 16) for bound in fields[0].split("-"))
            for address in range(start, end, 4096):
                byte = ctypes.c_char.from_address(address)
                byte.value = byte.value
                pages += 1
    return pages


def serve_once(report: int) -> None:
    """Run the server's module as `__main__` on a pipe holding the messages; write `ms faults` to `report`."""
    read, write = os.pipe()
    os.write(write, "".join(json.dumps(message) + "\n" for message in MESSAGES).encode())
    os.close(write)
    saved = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(read, 0)
    os.dup2(devnull, 1)
    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), write_through=True)
    before, started = faults(), time.perf_counter()
    with contextlib.suppress(SystemExit):
        runpy.run_module(SERVER, run_name="__main__", alter_sys=True)
    elapsed, faulted = (time.perf_counter() - started) * 1000, faults() - before
    sys.stdin, sys.stdout = stdin, stdout
    for number, fd in enumerate(saved):
        os.dup2(fd, number)
        os.close(fd)
    for fd in (read, devnull):
        os.close(fd)
    sys.modules.pop(SERVER, None)
    os.write(report, f"{elapsed} {faulted}\n".encode())


def measure(variant: str) -> tuple[float, int]:
    read, write = os.pipe()
    if variant == "warm, unforked":
        serve_once(write)
    else:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            if variant == "fork, pre-faulted":
                write_every_page()
            serve_once(write)
            os._exit(0)
        os.waitpid(pid, 0)
    os.close(write)
    elapsed, faulted = os.read(read, 100).split()
    os.close(read)
    return float(elapsed), int(faulted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    options = parser.parse_args()
    forkserver = load_forkserver()
    forkserver._preload([*forkserver.RUNTIME_MODULES, *forkserver.dependencies_of("module", SERVER)])
    gc.collect()
    gc.freeze()  # as the fork server does
    variants = ("warm, unforked", "fork", "fork, pre-faulted")
    results: dict[str, list[tuple[float, int]]] = {variant: [] for variant in variants}
    measure("warm, unforked")  # the first run of each code path in this interpreter is not the floor
    for _ in range(options.reps):
        for variant in variants:
            results[variant].append(measure(variant))
    print(f"Python {sys.version.split()[0]}, {options.reps} reps, load {os.getloadavg()[0]:.1f}")
    print("| variant | ms (median) | spread ms | minor page faults (median) |")
    print("| --- | ---: | ---: | ---: |")
    for variant in variants:
        times = [elapsed for elapsed, _ in results[variant]]
        counts = [faulted for _, faulted in results[variant]]
        spread = f"{min(times):.1f}-{max(times):.1f}"
        print(f"| {variant} | {statistics.median(times):.1f} | {spread} | {statistics.median(counts):.0f} |")


if __name__ == "__main__":
    main()
