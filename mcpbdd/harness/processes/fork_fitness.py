"""Whether an interpreter can run the fork server, asked by the fork server under it before it says `ready`.

The fork server runs under the server command's own interpreter, which need not be mcpbdd's: another venv's,
another version, another build. One that cannot run it must say why (`fallback <why>`) so that mcpbdd starts
the command plainly, saying so once, instead of failing every scenario. Loaded by the fork server from its
file (see `fork_pages.py`); standard library only, written for `OLDEST_PYTHON`.
"""

from __future__ import annotations

import os
import socket

__all__ = ["NEEDED", "OLDEST_PYTHON", "cannot_fork", "too_old"]

OLDEST_PYTHON = (3, 10)
"""The oldest Python the fork server runs on: the oldest the SDK supports (it runs under the server's interpreter,
which need not be mcpbdd's). Older ones that can read this file stop at `too_old`; older still, at its syntax."""

NEEDED = (("os", "fork"), ("os", "pidfd_open"), ("os", "waitstatus_to_exitcode"), ("socket", "send_fds"))
"""What the fork server calls that an interpreter may lack (another implementation, or a build without it)."""


def cannot_fork() -> str | None:
    """Why this interpreter cannot fork and watch servers as the fork server does, or None when it can. Asked
    before `ready`: a fork server that said `ready` and then died at its first fork failed every scenario."""
    modules = {"os": os, "socket": socket}
    for module, name in NEEDED:
        if not hasattr(modules[module], name):
            return f"its Python has no {module}.{name}, which the fork server needs"
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as exc:  # a kernel older than 5.3, or a sandbox that refuses the call
        return f"os.pidfd_open fails under its Python ({exc}), and the fork server needs it"
    return None


def too_old(version: tuple[int, ...]) -> str | None:
    """Why an interpreter of `version` cannot run the fork server (it uses `os.pidfd_open`, `socket.send_fds`),
    or None when it can."""
    if version[:2] >= OLDEST_PYTHON:
        return None
    oldest = ".".join(map(str, OLDEST_PYTHON))
    return f"its Python is {version[0]}.{version[1]}, older than {oldest}, the oldest the fork server runs on"
