"""Processes sharing one SQLite file: `increment` and `add` lose and double nothing; a `get` then a `set` does lose.

Four worker processes of one tenant are released at the same instant and each, many times over, takes a
number from a counter and stores a note under it, as servers of one tenant do (over stdio each client has its
own server process on the scenario's file). Each worker pauses between taking the number and storing the note
(a server's work between the two). The atomic run uses `increment` and `add`; the racy run, under the same
harness, reads the counter and writes it back, the pattern they replace, and must be seen losing writes, or
the checks of the atomic run prove nothing. A third phase has every worker claim the same keys with `add`.

The in-process tests of these operations (threads, expiry, refusals) are in tests/storage/test_storage_atomic.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mcpbdd_kit.storage import SQLiteProvider, StorageService

REPO_ROOT = Path(__file__).resolve().parents[2]
WORKERS = 4
ROUNDS = 40
SLOTS = 60

WORKER = r"""
import json, sys, time
from pathlib import Path

import anyio

from mcpbdd_kit.storage import SQLiteProvider, StorageService

db, name, mode, go = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
rounds, slots = int(sys.argv[5]), int(sys.argv[6])
service = StorageService(SQLiteProvider(db))
store = service.tenant("acme")
print("ready", flush=True)
deadline = time.monotonic() + 30
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("never told to go")
    time.sleep(0.001)


async def store_atomic(note: dict) -> None:
    while True:
        number = await store.increment("meta/next", initial=1) - 1
        numbers.append(number)
        time.sleep(0.002)  # the server's work between taking the number and storing the note
        if await store.add(f"notes/n-{number}", note):
            return


async def store_racy(note: dict) -> None:
    # What the notes server did before `increment` and `add`: read the counter, skip the taken ids,
    # store the note, write the counter back.
    number = int(await store.get("meta/next", 1))
    while await store.get(f"notes/n-{number}") is not None:
        number += 1
    time.sleep(0.002)  # the same work
    await store.set(f"notes/n-{number}", note)
    await store.set("meta/next", number + 1)


numbers = []  # every number increment handed this worker


async def main() -> None:
    acknowledged, claimed = [], []
    for i in range(rounds):
        note = {"by": name, "i": i}
        await (store_atomic if mode == "atomic" else store_racy)(note)
        acknowledged.append(note)
    if mode == "atomic":
        for slot in range(slots):
            if await store.add(f"slots/{slot}", name):
                claimed.append(slot)
    print(json.dumps({"acknowledged": acknowledged, "claimed": claimed, "numbers": numbers}), flush=True)


anyio.run(main)
service.close()
"""


def _run_workers(tmp_path: Path, mode: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Start WORKERS workers on one new file, release them together; each one's report and the tenant's storage."""
    db, go = tmp_path / f"{mode}.db", tmp_path / f"{mode}.go"
    command = [sys.executable, "-c", WORKER, str(db), "", mode, str(go), str(ROUNDS), str(SLOTS)]
    workers = [
        subprocess.Popen(
            [*command[:4], f"w{n}", *command[5:]],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WORKERS)
    ]
    reports = []
    try:
        for worker in workers:
            assert worker.stdout is not None
            first = worker.stdout.readline().strip()
            assert first == "ready", worker.stderr.read() if worker.stderr else first
        go.touch()  # every worker has its connection open: start them at the same instant
        for worker in workers:
            out, err = worker.communicate(timeout=120)
            assert worker.returncode == 0, err
            reports.append(json.loads(out))
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    with SQLiteProvider(db) as provider:
        return reports, StorageService(provider).snapshot("acme")


@pytest.fixture(scope="module")
def atomic(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return _run_workers(tmp_path_factory.mktemp("atomic"), "atomic")


@pytest.fixture(scope="module")
def racy(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return _run_workers(tmp_path_factory.mktemp("racy"), "racy")


def _stored_notes(storage: dict[str, Any]) -> Counter[str]:
    """How often each acknowledged note (worker and round) is stored."""
    return Counter(json.dumps(value, sort_keys=True) for key, value in storage.items() if key.startswith("notes/"))


def test_every_note_numbered_with_increment_and_add_is_stored_exactly_once(
    atomic: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    reports, storage = atomic
    acknowledged = Counter(json.dumps(note, sort_keys=True) for report in reports for note in report["acknowledged"])
    assert sum(acknowledged.values()) == WORKERS * ROUNDS
    assert _stored_notes(storage) == acknowledged  # none lost, none doubled
    handed = Counter(number for report in reports for number in report["numbers"])
    assert [number for number, times in handed.items() if times > 1] == []  # no number handed out twice
    numbers = sorted(int(key.removeprefix("notes/n-")) for key in storage if key.startswith("notes/"))
    assert numbers == list(range(1, WORKERS * ROUNDS + 1))  # each number handed out once, none skipped
    assert storage["meta/next"] == WORKERS * ROUNDS + 1


def test_workers_adding_the_same_keys_at_once_store_each_key_once(
    atomic: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    reports, storage = atomic
    claims = Counter(slot for report in reports for slot in report["claimed"])
    assert sorted(claims) == list(range(SLOTS)) and set(claims.values()) == {1}  # each slot won by one worker
    winners = {slot: f"w{n}" for n, report in enumerate(reports) for slot in report["claimed"]}
    assert {key: value for key, value in storage.items() if key.startswith("slots/")} == {
        f"slots/{slot}": winner for slot, winner in winners.items()
    }


def test_a_get_then_a_set_under_the_same_harness_loses_acknowledged_notes(
    racy: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    reports, storage = racy
    acknowledged = Counter(json.dumps(note, sort_keys=True) for report in reports for note in report["acknowledged"])
    stored = _stored_notes(storage)
    lost = sum((acknowledged - stored).values())
    assert sum(acknowledged.values()) == WORKERS * ROUNDS
    assert lost > 0, "the racy pattern lost nothing here, so this harness cannot tell the atomic one works"
    assert storage["meta/next"] < WORKERS * ROUNDS + 1  # the counter lost increments too
