"""`python -m mcpbdd.locust.launch PARENT_PID (LOCUST_ARGS... | --exec COMMAND...)`: dying with the runner.

The runner starts Locust's master and workers through this, and `mcpbdd locust --server` the server under test:
the kernel's parent-death signal (SIGKILL) is asked for first, so a runner killed with SIGKILL (which no cleanup
can catch) takes them with it. Then it is Locust's own command line, or, with `--exec`, the command itself (the
request survives `exec`). For Locust, `locust` is imported before anything else: gevent's monkey-patching must
find nothing imported before it (it warns about `ssl`). The parent-death helper is loaded from its file, not
through `mcpbdd.harness` (whose package would import the SDK first, a second or more on a busy machine).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
from pathlib import Path

__all__ = ["main"]

PARENT_DEATH = Path(__file__).parents[1] / "harness" / "processes" / "parent_death.py"


def _die_with(parent: int) -> bool:
    """Ask for SIGKILL when `parent` dies (`mcpbdd.harness.processes.parent_death`, standard library only)."""
    spec = importlib.util.spec_from_file_location("_mcpbdd_parent_death", PARENT_DEATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return bool(module.die_with_parent(signal.SIGKILL, parent))


def main(argv: list[str]) -> int:
    """Run Locust with `argv[1:]`, or exec the command after `--exec`, having asked to die with process `argv[0]`."""
    if len(argv) < 1 or not argv[0].isdigit():
        print("usage: python -m mcpbdd.locust.launch PARENT_PID [locust options | --exec COMMAND...]", file=sys.stderr)
        return 2
    if argv[1:2] == ["--exec"]:
        if len(argv) < 3:
            print("mcpbdd.locust.launch: --exec needs a command", file=sys.stderr)
            return 2
        if not _die_with(int(argv[0])):
            return 1  # the runner is gone already: nothing to run for
        os.execvp(argv[2], argv[2:])
    import locust  # noqa: F401  (first: it monkey-patches the process)

    if not _die_with(int(argv[0])):
        return 1
    sys.argv = ["locust", *argv[1:]]
    from locust.main import main as locust_main

    locust_main()  # type: ignore[no-untyped-call]  # locust.main.main is unannotated
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
