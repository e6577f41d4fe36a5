"""An npm reference server (TypeScript, protocol 2025-11-25) passes the same steps over stdio.

The server is installed from the npm registry into a cache on first use (Node 20 and npm are
part of every machine this project runs on), pinned to one version so the run is repeatable
(tests/reference_servers.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from reference_servers import SERVERS, stdio_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_everything_server_passes_the_reference_feature(mode: str, tmp_path: Path) -> None:
    target = stdio_command(SERVERS["server-everything"], "stdio")
    run = subprocess.run(
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
        cwd=tmp_path,  # no pyproject here: only the -D settings apply
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 scenarios passed, 0 failed" in run.stdout
