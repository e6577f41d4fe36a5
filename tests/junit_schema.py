"""The xunit `junit-10.xsd` (what Jenkins' xunit plugin validates JUnit XML against), fetched, never vendored.

The schema ships in pytest's source distribution (`testing/example_scripts/junit-10.xsd`): `junit_10_xsd()`
downloads the sdist of the pytest installed here once (`pip download --no-binary :all: --no-deps`) into mcpbdd's
cache (`$MCPBDD_CACHE`, else `~/.cache/mcpbdd`), extracts the one file and reuses it offline afterwards. Where the
download fails (no network), the test that needs it is skipped saying so, and fails under `CI=true`.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

from mcpbdd.reporting.npm import cache_root

__all__ = ["junit_10_xsd"]

MEMBER = "testing/example_scripts/junit-10.xsd"


def junit_10_xsd() -> Path:
    """The cached `junit-10.xsd` of the installed pytest's sdist (downloaded the first time)."""
    version = importlib.metadata.version("pytest")
    target = cache_root() / "junit-xsd" / f"pytest-{version}" / "junit-10.xsd"
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="mcpbdd-pytest-sdist-") as scratch:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps"]
        done = subprocess.run(
            [*command, f"pytest=={version}", "-d", scratch], capture_output=True, text=True, timeout=600
        )
        archives = sorted(Path(scratch).glob("pytest-*.tar.gz"))
        if done.returncode != 0 or not archives:
            why = f"could not download pytest=={version}'s sdist for junit-10.xsd: {done.stderr.strip()[-500:]}"
            if os.environ.get("CI") == "true":
                pytest.fail(why)
            pytest.skip(why)
        with tarfile.open(archives[0]) as archive:
            member = archive.getmember(f"{archives[0].name.removesuffix('.tar.gz')}/{MEMBER}")
            data = archive.extractfile(member)
            assert data is not None, f"{MEMBER} is not a file in {archives[0].name}"
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".tmp")
            partial.write_bytes(data.read())
            partial.replace(target)
    return target
