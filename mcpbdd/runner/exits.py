"""The exit statuses of `mcpbdd` that CI can trust, shared by the run and the subcommands.

0 every planned scenario reported a verdict and passed (or the command did what it was asked); 1 a
scenario failed or was lost (its process ended before it reported: `mcpbdd.runner.lost`), or a check a
subcommand gates on; 2 a usage error: a bad option, setting or path, a feature file that does not
parse, a configured server that cannot load, another run writing the same reports folder
(`mcpbdd.runner.run_lock`) (the run could not start); 128 + the
signal's number when a signal stopped the run, as a shell reports a process it killed.
"""

from __future__ import annotations

import signal

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 128 + signal.SIGINT
"""Stopped by a signal: 128 + its number, as a shell reports a process it killed (130 SIGINT, 143 SIGTERM)."""
