"""Finding the processes a test started, by a marker in their environment (inherited by every descendant)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mcpbdd.harness.connectors import python_command

T = TypeVar("T")

MARKER_ENV = "MCPBDD_TEST_MARKER"

TESTS = Path(__file__).parent


def stdio_server_settings(timeout: float = 300) -> list[str]:
    """behave's `-D` options for the test servers (`tests/servers.py`) over stdio, on the client harness."""
    return [
        "-D",
        "mcpbdd.harness=client",
        "-D",
        f"mcpbdd.timeout={timeout:g}",
        "-D",
        f"mcpbdd.server=stdio: {python_command('servers')}",
        "-D",
        f"mcpbdd.cwd={TESTS}",
    ]


def processes_marked(marker: str) -> list[int]:
    """Live processes whose environment carries `marker` (zombies are dead, whatever reaps them later)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if f"{MARKER_ENV}={marker}".encode() in environ and "State:\tZ" not in status:
            found.append(int(entry.name))
    return found


def wait_until(condition: Callable[[], T], timeout: float, what: str) -> T:
    """Poll `condition` until it is truthy; fail naming `what` after `timeout` seconds (generous: a loaded machine)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.05)
