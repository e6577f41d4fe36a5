"""The project's own specifications pass on the client over the 2025-11-25 handshake: `make features`' third pass.

The other two passes are the session's project run (test_specifications.py); this one is behave as `make features`
runs it, in a module of its own so that pytest-xdist can run it beside that run, on the other worker.
"""

from __future__ import annotations

import re

import pytest
from behave_passes import PASSES, PROJECT_RUN_TIMEOUT
from processes import run_module


@pytest.mark.timeout(PROJECT_RUN_TIMEOUT)
def test_the_specifications_pass_on_the_client_over_the_2025_handshake() -> None:
    run = run_module("behave", "--format", "progress", *PASSES["client-legacy"].options, timeout=PROJECT_RUN_TIMEOUT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    scenarios = re.search(r"^(\d+) scenarios? passed, (\d+) failed, (\d+) skipped", run.stdout, re.MULTILINE)
    assert scenarios is not None, run.stdout[-2000:]
    assert int(scenarios.group(1)) > 30 and scenarios.group(2) == "0", scenarios.group(0)
