"""The `mcpbdd` command end to end, each in a subprocess: exit codes, progress, steps, init, report.

The tests of this concern that start processes are in tests/spawning/test_cli.py.
"""

from __future__ import annotations

import io
import os

from mcpbdd.runner.progress import wants_progress

# progress ------------------------------------------------------------------------------------------------


def test_progress_is_only_for_terminals_outside_ci() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert wants_progress(Terminal(), {}) is True
    assert wants_progress(Terminal(), {"CI": "true"}) is False
    assert wants_progress(Terminal(), {"CI": "false"}) is True
    assert wants_progress(open(os.devnull, "w"), {}) is False  # noqa: SIM115 (closed with the process)
