"""What a fork of the fork server does to be what a fresh interpreter would be, from its start to its exit.

Fresh `sys.stdin/stdout/stderr` over its pipes, the exit code the interpreter would give for what the
entry point did (`sys.exit(x)`, an uncaught exception, Ctrl-C), the interpreter's own steps before
exiting (threads joined, `atexit`, streams flushed), and the name `ps` shows (the death signal it asks for
is `parent_death.py`'s). Loaded by the fork server from its file (see `fork_pages.py`); standard library only.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import ctypes
import importlib.machinery
import io
import os
import sys
import threading
import traceback
import types
from pathlib import Path
from typing import Any

__all__ = ["exit_code", "finish", "fresh_stdio", "process_name", "report", "run_script", "set_process_name"]

_PR_SET_NAME = 15


def report(kind: Any, value: Any, tb: Any) -> int:
    """Print an uncaught exception the way the interpreter does (through `sys.excepthook`); exit code 1."""
    try:
        sys.excepthook(kind, value, tb)
    except BaseException:
        traceback.print_exception(kind, value, tb)
    return 1


def run_script(script: str) -> None:
    """Run `script` (as the command wrote it, from the working directory) as `python script` runs it: a `__main__`
    module whose `__file__` is the script's path made absolute (not resolved), with a source loader and no
    package, and `sys.argv[0]` left as written (`runpy.run_path` sets it to the path it is given, and
    `__package__` to '')."""
    path = os.path.join(os.getcwd(), script)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__cached__ = None  # type: ignore[attr-defined]  # set on a script's `__main__`, as the interpreter does
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    with io.open_code(path) as source:
        code = compile(source.read(), path, "exec", dont_inherit=True)
    exec(code, main.__dict__)  # the server's own script, run as its command would


def exit_code(code: Any) -> int:
    """`sys.exit(x)` as the interpreter maps it: None is 0, an int is itself, anything else is printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1


def finish(code: int) -> int:
    """What the interpreter does before it exits: join non-daemon threads, run atexit, flush the streams."""
    try:
        shutdown = getattr(threading, "_shutdown", None)
        if shutdown is not None:
            shutdown()
        atexit._run_exitfuncs()
    except BaseException:
        code = code or 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 120  # what Python exits with when it cannot flush stdout
    return code


def fresh_stdio(*, unbuffered: bool) -> None:
    """New `sys.stdin/stdout/stderr` over fds 0-2, as interpreter start-up makes them (none of the parent's buffers)."""
    encoding = sys.stdout.encoding if sys.stdout is not None else "utf-8"
    errors = (sys.stdout.errors if sys.stdout is not None else None) or "strict"

    def text(fd: int, mode: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered: Any = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        return io.TextIOWrapper(
            buffered, encoding=encoding, errors=errors, line_buffering=line_buffering, write_through=unbuffered
        )

    # typeshed declares sys.__stdin__ and its siblings Final; a forked child must replace them as start-up sets them.
    sys.stdin = sys.__stdin__ = text(0, "r", errors, os.isatty(0))  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = text(1, "w", errors, os.isatty(1))  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = text(2, "w", "backslashreplace", True)  # type: ignore[misc]


def process_name() -> bytes:
    try:
        return Path("/proc/self/comm").read_bytes().strip()
    except OSError:
        return b""


def set_process_name(name: bytes) -> None:
    """Linux: what `ps` and `/proc/PID/comm` show for this process (a standby says what it is)."""
    if not name or not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_NAME, ctypes.c_char_p(name[:15]), 0, 0, 0)
