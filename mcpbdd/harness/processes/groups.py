"""A server's process group: whatever is left of it when the server has stopped is killed.

Every server process mcpbdd starts leads a process group of its own (the SDK's `stdio_client` starts it in
a new session, `http_process.py` too, and a fork calls `setsid`), and whatever it starts without leaving that
group (a helper, a worker pool, a shell's children) is in it. The SDK stops the group only when the server
does not end by itself: a server that ends when its stdin closes leaves its helpers running, adopted by init,
after the run. So once the server has stopped, by itself or not, its group gets SIGKILL: a run leaves no
process it started, directly or not. (A process that left the group, `setsid` as a daemon does, escapes by
design, as it would any process supervisor's.)

The group is named by its leader's pid, which the kernel does not give to a new process while the group has
a member; a group with none left is gone, and signalling it does nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

__all__ = ["PID_WRAPPER", "group_stopped", "kill_group", "leader"]

PID_WRAPPER = 'echo "$$" > "$1"; shift; '
"""The start of an `sh -c` script that writes the group's leader (the shell) to the file named by `$1`."""


def kill_group(pgid: int | None) -> None:
    """SIGKILL to what is left of process group `pgid` (nothing when it is gone, or not ours to signal)."""
    if pgid is None or pgid <= 1:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def leader(pid_path: Path) -> int | None:
    """The group leader's pid, as `PID_WRAPPER` wrote it (None before it started, or if it never did)."""
    try:
        return int(pid_path.read_text().strip())
    except (OSError, ValueError):
        return None


@asynccontextmanager
async def group_stopped(transport: Any, pid_path: Path) -> AsyncIterator[Any]:
    """The SDK's stdio transport for a command started under `PID_WRAPPER`; once the transport has stopped the
    server, its group is killed (see the module's docstring)."""
    try:
        async with transport as streams:
            yield streams
    finally:
        kill_group(leader(pid_path))
