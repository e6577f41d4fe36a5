"""A process that must not outlive its parent: the kernel's parent-death signal, asked for in one place.

Used by every process mcpbdd forks to run for it: a `--jobs` worker (`runner/workers.py`, SIGHUP, so it can
close its scenario) and each fork of the fork server (`forkserver.py`, SIGKILL: a server that ignores
SIGTERM must end too, and with the fork server gone nobody would escalate). Standard library only: the fork
server loads it from its file, as it does `fork_child.py`.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(signum: int, parent: int) -> bool:
    """Linux: have the kernel send `signum` to this process when its parent thread's process dies.

    Returns False when `parent` (the pid the caller had before forking) is no longer this process's parent:
    it died before the request took effect, so no signal will come and the caller should end itself. Elsewhere
    nothing is asked for, and it returns whether the parent is still there.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    return os.getppid() == parent
