"""A Locust worker killed mid-run: the run still ends by itself, nothing is left, and the verdict says so.

A worker that dies takes the calls it made since its last report with it (a worker reports every 3 s), so the
statistics are short of what was sent: a result that reads "the run time ended" would be mistaken for a whole one.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest
from processes import MARKER_ENV, alive, processes_marked, wait_until

from mcpbdd.load.results import LoadResult
from mcpbdd.locust.plan import LocustStep, callers_of
from mcpbdd.locust.reports import read_workers
from mcpbdd.locust.runner import LocustOptions, run_locust
from mcpbdd.locust.target import started_server

MISBEHAVING = "{python} " + str(Path(__file__).parents[1] / "locust_servers.py") + " {port}"

pytestmark = pytest.mark.timeout(180)


def _workers(marker: str) -> list[int]:
    found = []
    for pid in processes_marked(marker):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--worker" in command:
            found.append(pid)
    return found


def test_a_worker_killed_mid_run_is_named_in_why_the_run_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = uuid.uuid4().hex
    monkeypatch.setenv(MARKER_ENV, marker)
    results: list[LoadResult] = []
    options = LocustOptions(workers=2, run_time_s=5, call_timeout_s=1.0, csv_dir=tmp_path, tokens="test")
    with started_server(MISBEHAVING) as url:
        steps = [LocustStep("echo", {"text": "{caller} {n}"})]
        runner = threading.Thread(
            target=lambda: results.append(run_locust(url, callers_of({"acme": 2}), steps, options))
        )
        started = time.monotonic()
        runner.start()
        workers = wait_until(lambda: _workers(marker) if len(_workers(marker)) == 2 else [], 60, "two workers")
        wait_until(lambda: len(read_workers(tmp_path / "workers.json")) == 2 or None, 60, "both workers' reports")
        os.kill(workers[0], signal.SIGKILL)
        runner.join(timeout=120)
    assert not runner.is_alive(), "the run did not end by itself after a worker died"
    assert time.monotonic() - started < 90
    (result,) = results
    assert result.calls > 0  # what the living worker and the master measured is kept
    assert "worker" in result.stopped_because and "killed by signal 9" in result.stopped_because, result.stopped_because
    assert not any(alive(pid) for pid in workers)
