"""What only the SQLite provider promises: a real file that survives restarts and several processes.

This test starts processes; the in-process tests of this concern are in tests/storage/test_storage_sqlite.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpbdd.storage import SQLiteProvider, StorageService

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parents[2]

WRITER = r"""
import sys, time
from pathlib import Path

import anyio

from mcpbdd.storage import SQLiteProvider, StorageService

db, name, mode, go = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
service = StorageService(SQLiteProvider(db))
store = service.tenant("shared")
print("ready", flush=True)
deadline = time.monotonic() + 30
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("never told to go")
    time.sleep(0.001)


async def main() -> None:
    if mode == "set":
        for i in range(200):
            await store.set(f"{name}/{i:03d}", {"writer": name, "i": i})
    else:
        for start in range(0, 200, 10):
            await store.set_many({f"{name}/{i:03d}": {"writer": name, "i": i} for i in range(start, start + 10)})


anyio.run(main)
service.close()
print("done", flush=True)
"""


@pytest.mark.parametrize("mode", ["set", "set_many"])
def test_two_processes_writing_one_file_lose_nothing(tmp_path: Path, mode: str) -> None:
    db = tmp_path / "shared.db"
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), name, mode, str(go)],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("first", "second")
    ]
    try:
        for writer in writers:
            assert writer.stdout is not None
            assert writer.stdout.readline().strip() == "ready", writer.stderr.read() if writer.stderr else ""
        go.touch()  # both are connected and waiting: start them at the same instant
        for writer in writers:
            out, err = writer.communicate(timeout=60)
            assert writer.returncode == 0, err
            assert out.strip() == "done"
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.wait()
    with SQLiteProvider(db) as provider:
        snapshot = StorageService(provider).snapshot("shared")
    expected = {f"{name}/{i:03d}": {"writer": name, "i": i} for name in ("first", "second") for i in range(200)}
    assert len(snapshot) == 400
    assert snapshot == expected
