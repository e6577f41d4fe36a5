"""An npm reference server (TypeScript, protocol 2025-11-25) passes the same steps over stdio.

The server is installed from the npm registry into a cache on first use (Node 20 and npm are
part of every machine this project runs on), pinned to one version so the run is repeatable
(tests/reference_servers.py). The two modes' runs go side by side (`runs`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
import warm_python
from reference_servers import SERVERS, stdio_command

ROOT = Path(__file__).resolve().parents[2]


MODES = ("auto", "legacy")


def _behave(mode: str, folder: Path) -> subprocess.CompletedProcess[str]:
    target = stdio_command(SERVERS["server-everything"], "stdio")
    return warm_python.run(
        [
            sys.executable,
            "-m",
            "behave",
            str(ROOT / "tests" / "reference" / "features"),
            "--format",
            "progress",
            "-D",
            "mcpbdd.harness=client",
            "-D",
            f"mcpbdd.client_mode={mode}",
            "-D",
            f"mcpbdd.server={target}",
        ],
        cwd=folder,  # no pyproject here: only the -D settings apply
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[subprocess.CompletedProcess[str]]]]:
    """Both modes' behave runs, started at once (each mostly waits on the server's node start-ups)."""
    with ThreadPoolExecutor(max_workers=len(MODES)) as pool:
        yield {mode: pool.submit(_behave, mode, tmp_path_factory.mktemp(mode)) for mode in MODES}


@pytest.mark.parametrize("mode", MODES)
def test_the_everything_server_passes_the_reference_feature(
    mode: str, runs: dict[str, Future[subprocess.CompletedProcess[str]]]
) -> None:
    run = runs[mode].result()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 scenarios passed, 0 failed" in run.stdout
