"""`python -m mcpbdd.locust.launch PARENT_PID LOCUST_ARGS...`: Locust, ending when the process that started it dies.

The runner starts the master and every worker through this: the kernel's parent-death signal (SIGKILL) is asked
for before Locust starts, so a runner killed with SIGKILL (which no cleanup can catch) takes its Locust processes
with it (asked for once `locust` is imported: importing it first lets gevent's monkey-patching find nothing
imported before it, such as `ssl`; a runner that died meanwhile is noticed then). Then it is Locust's own
command line.
"""

from __future__ import annotations

import signal
import sys

__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Run Locust with `argv[1:]`, having asked to die with process `argv[0]` (the runner)."""
    if len(argv) < 1 or not argv[0].isdigit():
        print("usage: python -m mcpbdd.locust.launch PARENT_PID [locust options]", file=sys.stderr)
        return 2
    import locust  # noqa: F401  (first: it monkey-patches the process)

    from mcpbdd.harness.processes.parent_death import die_with_parent

    if not die_with_parent(signal.SIGKILL, int(argv[0])):
        return 1  # the runner is gone already: nothing to run for
    sys.argv = ["locust", *argv[1:]]
    from locust.main import main as locust_main

    locust_main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
