"""An npm reference server (TypeScript, protocol 2025-11-25) passes the same steps over stdio.

The server is installed from the npm registry into a cache on first use (Node 20 and npm are
part of every machine this project runs on), pinned to one version so the run is repeatable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "@modelcontextprotocol/server-everything@2026.8.31"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mcpbdd" / "reference-servers"


def installed_everything() -> Path:
    """The reference server's entry point, installed into the cache on first use."""
    entry = CACHE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    if not entry.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the reference server (Node 20 is part of this project's machines)"
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), PACKAGE],
            check=True,
            capture_output=True,
            timeout=600,
        )
    return entry


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_everything_server_passes_the_reference_feature(mode: str, tmp_path: Path) -> None:
    entry = installed_everything()
    node = shutil.which("node")
    assert node, "node is needed to run the reference server"
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
            f"mcpbdd.server=stdio: {node} {entry} stdio",
        ],
        cwd=tmp_path,  # no pyproject here: only the -D settings apply
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 scenarios passed, 0 failed" in run.stdout
