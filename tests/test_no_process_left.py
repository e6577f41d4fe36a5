"""A run leaves no process it started, directly or not, and one helper asks for the death signal.

A helper a server starts in its own process group outlived the run (adopted by init), whether the server was
forked or started plainly, because the SDK stops a server's group only when the server does not end by
itself; and a server that ignores SIGTERM kept running after the fork server was killed (its parent-death
signal was SIGTERM). Real processes, found in /proc (`tests/processes.py`; this process is a subreaper, so
an orphan stays among its descendants instead of going to init).

The tests of this concern that start processes are in tests/spawning/test_no_process_left.py.
"""

from __future__ import annotations

from pathlib import Path

from mcpbdd.harness.processes import spawn

PACKAGE = Path(spawn.__file__).resolve().parents[2]


def test_one_module_asks_the_kernel_for_a_parent_death_signal() -> None:
    """The `--jobs` workers and the fork server's children share one helper (`parent_death.py`)."""
    asking = sorted(
        str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py") if "PR_SET_PDEATHSIG" in path.read_text()
    )
    assert asking == ["harness/processes/parent_death.py"], asking
