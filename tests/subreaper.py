"""This test process made the reaper of its descendants' orphans, with nothing imported but the standard library.

conftest.py does it in `pytest_configure`, in every pytest process: pytest-xdist's controller too, which runs no
test and starts its workers only after configuring. So this module is apart from `processes.py` (which finds the
processes a test started and imports mcpbdd's harness, and with it the whole SDK): the controller pays for none of
that before its workers can start.
"""

from __future__ import annotations

import ctypes

__all__ = ["PR_SET_CHILD_SUBREAPER", "become_subreaper"]

PR_SET_CHILD_SUBREAPER = 36
"""prctl(2): orphans among this process's descendants are re-parented to it, not to init."""


def become_subreaper() -> None:
    """Make this process the reaper of its descendants' orphans (Linux), so `descendants()` sees every one."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed: forks could not be counted")
