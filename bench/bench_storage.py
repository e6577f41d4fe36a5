"""Storage benchmarks, as ratios and budgets measured in one run on one machine.

    .venv/bin/python bench/bench_storage.py [--quick]

- in-memory `get`/`set` per awaited call, against the floor a server would write by hand
  (a plain dict plus `json.dumps`/`json.loads`): target <= 3x;
- SQLite `set` in autocommit (one transaction per call), operations per second;
- the writes no other writer can come between, against `set` on the same provider: in-memory `increment`
  and `add` per awaited call, SQLite `increment` (one `BEGIN IMMEDIATE` transaction each) per second;
- SQLite `set_many` of 1,000 entries (one transaction), median ms: target <= 20 ms;
- `snapshot` + `diff` of a tenant holding 10,000 keys, median ms: target <= 50 ms.

Every figure is the median of several repetitions timed with `time.perf_counter`. The
async calls are awaited in a loop inside one coroutine, as a server handler would call
them, so the figures include the coroutine overhead but not an event-loop round trip.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import InMemoryProvider, SQLiteProvider, StorageService, diff

RECORD = {"title": "Quarterly plan", "body": "Ship the storage layer, then the steps.", "tags": ["plan", "q3"], "n": 17}
KEYS = [f"notes/n-{i}" for i in range(1000)]


def median_time(run: Callable[[], Any], repeats: int) -> float:
    """Median wall time of `run()` in seconds (one untimed warm-up first)."""
    run()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_dict_baseline(ops: int, repeats: int) -> tuple[float, float]:
    """Per-op seconds of a hand-written dict + json store: (set, get)."""
    store: dict[str, str] = {}
    dumps, loads = json.dumps, json.loads

    def sets() -> None:
        for i in range(ops):
            store[KEYS[i % 1000]] = dumps(RECORD)

    def gets() -> None:
        for i in range(ops):
            loads(store[KEYS[i % 1000]])

    return median_time(sets, repeats) / ops, median_time(gets, repeats) / ops


def bench_memory_service(ops: int, repeats: int) -> tuple[float, float]:
    """Per-op seconds of awaited `TenantStorage.set` / `.get` on the in-memory provider."""
    store = StorageService().tenant("acme")  # default: InMemoryProvider + SystemClock

    async def sets() -> None:
        for i in range(ops):
            await store.set(KEYS[i % 1000], RECORD)

    async def gets() -> None:
        for i in range(ops):
            await store.get(KEYS[i % 1000])

    return (
        median_time(lambda: anyio.run(sets), repeats) / ops,
        median_time(lambda: anyio.run(gets), repeats) / ops,
    )


def bench_sqlite_set(directory: Path, ops: int, repeats: int) -> float:
    """Autocommit `set` calls per second on a SQLite file."""
    service = StorageService(SQLiteProvider(directory / "set.db"))
    store = service.tenant("acme")

    async def sets() -> None:
        for i in range(ops):
            await store.set(KEYS[i % 1000], RECORD)

    seconds = median_time(lambda: anyio.run(sets), repeats)
    service.close()
    return ops / seconds


def bench_memory_atomic(ops: int, repeats: int) -> tuple[float, float]:
    """Per-op seconds of awaited `increment` and `add` (half into free keys, half refused) in memory."""
    store = StorageService().tenant("acme")

    async def increments() -> None:
        for _ in range(ops):
            await store.increment("meta/next")

    async def adds() -> None:
        for i in range(ops):
            await store.add(f"claims/{i % (ops // 2)}", RECORD)

    return (
        median_time(lambda: anyio.run(increments), repeats) / ops,
        median_time(lambda: anyio.run(adds), repeats) / ops,
    )


def bench_sqlite_increment(directory: Path, ops: int, repeats: int) -> float:
    """`increment` calls per second on a SQLite file (each its own write transaction)."""
    service = StorageService(SQLiteProvider(directory / "increment.db"))
    store = service.tenant("acme")

    async def increments() -> None:
        for _ in range(ops):
            await store.increment("meta/next")

    seconds = median_time(lambda: anyio.run(increments), repeats)
    service.close()
    return ops / seconds


def bench_sqlite_set_many(directory: Path, repeats: int) -> float:
    """Median seconds of one `set_many` of 1,000 entries (one transaction) on a SQLite file."""
    service = StorageService(SQLiteProvider(directory / "batch.db"))
    store = service.tenant("acme")
    batch = {key: {**RECORD, "key": key} for key in KEYS}

    async def write() -> None:
        await store.set_many(batch)

    seconds = median_time(lambda: anyio.run(write), repeats)
    service.close()
    return seconds


def bench_snapshot_diff(service: StorageService, repeats: int) -> float:
    """Median seconds of snapshot + diff for a tenant of 10,000 keys after a scenario changed a few."""
    service.seed("big", {f"items/{i:05d}": {**RECORD, "i": i} for i in range(10_000)})
    before = service.snapshot("big")
    service.seed("big", {f"items/{i:05d}": {**RECORD, "i": -i} for i in range(0, 10_000, 1000)})
    service.seed("big", {"items/new": RECORD})
    found = diff(before, service.snapshot("big"))
    assert len(found.changed) == 9 and len(found.added) == 1, found.render()  # item 0 keeps i == -0 == 0
    return median_time(lambda: diff(before, service.snapshot("big")), repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer operations and repetitions (a smoke run)")
    args = parser.parse_args()
    ops, repeats = (2_000, 3) if args.quick else (20_000, 7)

    base_set, base_get = bench_dict_baseline(ops, repeats)
    mem_set, mem_get = bench_memory_service(ops, repeats)
    mem_increment, mem_add = bench_memory_atomic(ops, repeats)
    with tempfile.TemporaryDirectory(prefix="mcpbdd-bench-") as tmp:
        directory = Path(tmp)
        sqlite_ops = bench_sqlite_set(directory, ops // 10, repeats)
        increment_ops = bench_sqlite_increment(directory, ops // 10, repeats)
        batch_ms = bench_sqlite_set_many(directory, repeats * 2) * 1000
        memory_diff_ms = bench_snapshot_diff(StorageService(InMemoryProvider(), FrozenClock()), repeats) * 1000
        sqlite_service = StorageService(SQLiteProvider(directory / "snap.db"), FrozenClock())
        sqlite_diff_ms = bench_snapshot_diff(sqlite_service, repeats) * 1000
        sqlite_service.close()

    def within(value: float, limit: float) -> str:
        return "ok" if value <= limit else "OVER"

    set_ratio, get_ratio = mem_set / base_set, mem_get / base_get
    rows = [
        ("dict + json.dumps (baseline set)", f"{base_set * 1e6:.2f} µs/op", "", ""),
        ("dict + json.loads (baseline get)", f"{base_get * 1e6:.2f} µs/op", "", ""),
        ("in-memory `set` (awaited)", f"{mem_set * 1e6:.2f} µs/op ({set_ratio:.2f}x)", "<= 3x", within(set_ratio, 3)),
        ("in-memory `get` (awaited)", f"{mem_get * 1e6:.2f} µs/op ({get_ratio:.2f}x)", "<= 3x", within(get_ratio, 3)),
        (
            "in-memory `increment` (awaited)",
            f"{mem_increment * 1e6:.2f} µs/op ({mem_increment / mem_set:.2f}x `set`)",
            "",
            "",
        ),
        ("in-memory `add` (awaited)", f"{mem_add * 1e6:.2f} µs/op ({mem_add / mem_set:.2f}x `set`)", "", ""),
        ("SQLite `set`, autocommit", f"{sqlite_ops:,.0f} ops/s", "", ""),
        ("SQLite `increment`", f"{increment_ops:,.0f} ops/s ({sqlite_ops / increment_ops:.2f}x `set`'s time)", "", ""),
        ("SQLite `set_many` of 1,000", f"{batch_ms:.2f} ms", "<= 20 ms", within(batch_ms, 20)),
        (
            "snapshot + diff, 10,000 keys (in-memory)",
            f"{memory_diff_ms:.2f} ms",
            "<= 50 ms",
            within(memory_diff_ms, 50),
        ),
        ("snapshot + diff, 10,000 keys (SQLite)", f"{sqlite_diff_ms:.2f} ms", "<= 50 ms", within(sqlite_diff_ms, 50)),
    ]
    print(f"`{os.path.relpath(sys.executable)} {' '.join(sys.argv)}`")
    print(f"(Python {sys.version.split()[0]}, {ops:,} ops per timing, median of {repeats} runs)\n")
    print("| measurement | result | target | |")
    print("| --- | --- | --- | --- |")
    for name, result, target, status in rows:
        print(f"| {name} | {result} | {target} | {status} |")


if __name__ == "__main__":
    main()
