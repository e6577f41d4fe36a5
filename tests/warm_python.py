"""mcpbdd's own commands in the tests, forked from a warm parent: `python -m behave` and `python -m mcpbdd.cli.main`.

The spawning tests start ~200 behave and `mcpbdd` processes. Each one cold pays ~1.2 s of CPU importing behave, the
hooks, the SDK and the command line before it does anything (measured: a one-feature run 1.4-1.6 s cold, 0.25-0.35 s
forked), and the suite is CPU-bound on two cores. So `run` starts such a command through mcpbdd's own fork server
(`mcpbdd/harness/processes/forkserver.py`, `spawn.start_fork_server`), one per command module, per variable read
at start (`PYTHONPATH`, `HOME`, ...) and per pytest worker, which imports those modules once (`PRELOAD`) and forks a
fresh process per run. The process the test starts is the fork server's launcher: it hands over its stdin, stdout
and stderr, the command line, the environment and the working directory, and exits with the command's exit code;
killed (a test's timeout), its fork is terminated. What the fork runs is the command's own entry point as
`__main__`, exactly as `python -m` runs it: the same arguments, environment and folder.

What the fork does NOT give: a process of the test's own process group (a fork runs in a session of its own), and
an exec of its own (`/proc/PID/environ` is the fork server's: `processes.py` finds forks by their command line).
The tests that signal the command or look at its process (interrupts, start-up imports, leak counts of the command
itself) start it plainly. `MCPBDD_TESTS_COLD=1` (in the environment, or the command's) starts it plainly too (to
compare, or to rule this out).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpbdd.harness.processes import spawn

__all__ = ["PRELOAD", "argv_for", "run", "server_pids"]

ROOT = Path(__file__).resolve().parents[1]

PRELOAD = (
    "behave.runner",
    "behave.formatter.pretty",
    "behave.formatter.progress",
    "behave.formatter.plain",
    "behave.reporter.junit",
    "mcpbdd.behave",
    "mcpbdd.scenario.world",
    "mcpbdd.cli.recording",
)
"""What every fork inherits already imported: behave's runner and formatters, mcpbdd's hooks, the World (and with it
the SDK) and the command line's heavy part. None of them reads the environment at import
(`tests/spawning/test_warm_python.py` checks the modules they bring in), and none registers a step: behave resets
its step registry when it starts, so the steps must be imported by the run itself (`mcpbdd run` preimports the same
for its forked workers, `mcpbdd/runner/workers.py`). The entry points (`behave.__main__`, `mcpbdd.cli.main`) are not
among them: `runpy` runs each afresh as `__main__` (imported before, it would run twice, with a warning)."""

WARM_MODULES = frozenset({"behave", "mcpbdd.cli.main"})
"""The `-m` modules started warm."""

_servers: spawn.ForkServerRegistry[spawn.ForkServerHandle] = spawn.ForkServerRegistry()
"""The warm fork servers of this process: stopped at its exit, let go of in a test's fork of it."""


def _cold(env: Mapping[str, str]) -> bool:
    return env.get("MCPBDD_TESTS_COLD", "") not in ("", "0")


def _key(module: str, env: Mapping[str, str]) -> tuple[object, ...]:
    return (module, tuple(sorted((name, value) for name, value in env.items() if spawn.read_at_start(name))))


def _server(argv: Sequence[str], env: Mapping[str, str]) -> spawn.ForkServerHandle | None:
    """The warm fork server for `argv`'s module and start variables (started on first use), or None."""
    key = _key(argv[2], env)
    with _servers.lock:
        handle = _servers.handles.get(key)
        if handle is not None and not handle.running():  # it died: start another
            handle.stop()
            del _servers.handles[key]
        if key not in _servers.handles:
            started = spawn.start_fork_server(argv, cwd=str(ROOT), env=env, preload=PRELOAD)
            if started is not None and not started.ready:
                print(f"warm_python: starting {argv[2]} plainly: {started.why_not}", file=sys.stderr)
                started = None
            _servers.handles[key] = started
        return _servers.handles[key]


def argv_for(argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
    """What to start for `argv` with environment `env` (None: this process's): the launcher of a warm fork when it
    is `python -m behave ...` or `python -m mcpbdd.cli.main ...` with this interpreter, else `argv` itself."""
    argv = [str(part) for part in argv]
    env = os.environ if env is None else env
    if _cold(env) or len(argv) < 3 or argv[0] != sys.executable or argv[1] != "-m" or argv[2] not in WARM_MODULES:
        return argv
    handle = _server(argv, env)
    return argv if handle is None else handle.launcher_for(argv)


def run(argv: Sequence[str], **options: Any) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run(argv, **options)`, the command forked warm where `argv_for` says it can be."""
    return subprocess.run(argv_for(argv, options.get("env")), **options)


def server_pids() -> list[int]:
    """The warm fork servers of this process that run now (not a test's processes: `processes.forks` skips them)."""
    return _servers.pids()
