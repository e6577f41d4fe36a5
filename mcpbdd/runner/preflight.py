"""Before `mcpbdd run` starts a scenario: can the configured server be loaded at all?

A server target whose module does not import, or whose program does not exist, fails every
scenario that uses it the same way. `mcpbdd run` checks the configured target (`server` under
`[tool.mcpbdd]`, or `-D mcpbdd.server=...`) once, before any behave process starts, and stops
with one message and exit 2 (the run could not start), instead of a failure per scenario.

What is checked is what can be known without running the server: an in-process target is
imported and its attribute looked up (as the harnesses will), a `stdio:` or `http:` command's
program is looked for on the PATH (or as a file). A process that starts and then ends before
its first answer is not known until it runs: each scenario that meets it fails, broken, naming
the command, its exit code and the end of its stderr. A URL is not checked (the server may
come up later, and a network is not ours to probe).

The in-process check imports the project's code. Where workers are forked from this process
(`mcpbdd.runner.workers`), the import happens in a short-lived fork, so the workers inherit
nothing the project's code started at import (a thread would make forking unsafe).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

__all__ = ["check_server"]


def check_server(userdata: Mapping[str, str]) -> str | None:
    """Why the configured server can never start, or None (none configured, a URL, or it loads)."""
    from mcpbdd.harness.targets import ServerTarget, missing_command
    from mcpbdd.model.config import ConfigError, load_settings
    from mcpbdd.model.errors import TargetError

    try:
        settings = load_settings(dict(userdata))
    except ConfigError:
        return None  # each behave process stops with the reason (exit 2)
    if not settings.server:
        return None
    try:
        target = ServerTarget.parse(settings.server)
    except TargetError as exc:
        return str(exc)
    if target.kind == "inprocess":
        problem = _isolated(lambda: _load_problem(target))
    else:
        problem = missing_command(target, cwd=settings.cwd, env=settings.env)
    if problem is None:
        return None
    return f'the server "{settings.server}" cannot start: {problem}'


def _load_problem(target: object) -> str | None:
    """Import the target as a behave process would (the current folder is on its path)."""
    from mcpbdd.harness.targets import load_inprocess
    from mcpbdd.model.errors import TargetError

    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        load_inprocess(target)  # type: ignore[arg-type]
    except TargetError as exc:
        return str(exc).partition(": ")[2] or str(exc)
    return None


def _isolated(check: Callable[[], str | None]) -> str | None:
    """Run `check` in a fork when one is possible (the parent imports nothing of the project), else here."""
    if not hasattr(os, "fork"):
        return check()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: check, report, and leave without running any cleanup of the parent's
        os.close(read)
        try:
            problem = check() or ""
        except BaseException as exc:
            problem = f"{type(exc).__name__}: {exc}"
        os.write(write, problem.encode("utf-8", errors="replace"))
        os._exit(0)
    os.close(write)
    chunks = []
    with os.fdopen(read, "rb") as pipe:
        chunks.append(pipe.read())
    _, status = os.waitpid(pid, 0)
    answer = b"".join(chunks).decode("utf-8", errors="replace")
    if os.waitstatus_to_exitcode(status) != 0 and not answer:
        return f"importing it ended the process (exit status {os.waitstatus_to_exitcode(status)})"
    return answer or None
