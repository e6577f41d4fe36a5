"""Server targets: what `server = "..."` and `Given the MCP server "..."` point at.

Four forms exist in the vocabulary: `package.module:attr` (an in-process SDK server,
or a factory returning one), `stdio: <command>`, `http: <command with {port}>` (a server
mcpbdd starts and reaches over Streamable HTTP) and an `http(s)://` URL. This module
parses them, loads in-process servers and finds a process target's program; a target names
what it is in every error. A server that cannot be loaded or started is `ServerCannotStart`:
one readable message (the target, the command, the exit code, the end of stderr), reported as
broken, never a Python traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import shlex
import shutil
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from mcpbdd.model.errors import ServerCannotStart, TargetError


def load_adapter(spec: str, doubles: Any) -> Any:
    """Build the configured foreign-storage adapter: `module:factory`, called with the scenario's doubles.

    Loaded like a server target (a `module:attr` the project names), hence here.
    """
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise TargetError(f"storage_adapter {spec!r} is not 'package.module:factory'")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise TargetError(f"storage_adapter {spec!r} cannot be loaded: {exc}") from exc
    return factory(doubles)


__all__ = [
    "load_adapter",
    "ServerTarget",
    "command_argv",
    "error_summary",
    "load_inprocess",
    "missing_command",
    "naming_the_target",
]


_PROCESS_KINDS = ("stdio", "http-command")


@dataclass(frozen=True)
class ServerTarget:
    """A parsed target: `kind` is `inprocess`, `stdio`, `http-command` or `http` (a URL)."""

    kind: str
    spec: str

    @classmethod
    def parse(cls, text: str) -> ServerTarget:
        spec = text.strip()
        if not spec:
            raise TargetError(
                'empty server target: write "package.module:attr", "stdio: <command>", "http: <command with {port}>" '
                "or a URL"
            )
        if spec.startswith("stdio:"):
            command = spec[len("stdio:") :].strip()
            if not command:
                raise TargetError(f"server target {text!r} names no command after 'stdio:'")
            return cls("stdio", command)
        if spec.startswith(("http://", "https://")):
            return cls("http", spec)
        if spec.startswith("http:"):
            command = spec[len("http:") :].strip()
            if "{port}" not in command:
                raise TargetError(
                    f"server target {text!r} starts a server over HTTP but its command has no {{port}}: "
                    'mcpbdd picks a free port and fills it in, e.g. "http: {python} -m myserver --port {port}"'
                )
            return cls("http-command", command)
        module, sep, attr = spec.partition(":")
        if not sep or not module or not attr:
            raise TargetError(
                f"server target {text!r} is not 'package.module:attr', 'stdio: <command>', "
                "'http: <command with {port}>' or an http(s) URL"
            )
        return cls("inprocess", spec)

    def __str__(self) -> str:
        prefix = {"stdio": "stdio: ", "http-command": "http: "}.get(self.kind, "")
        return prefix + self.spec


def load_inprocess(target: ServerTarget) -> MCPServer[Any]:
    """Import `module:attr`; an `MCPServer` is used as is, a callable is called to build one.

    A module-level server is safe to reuse across scenarios because the harnesses enter
    its lifespan afresh for every scenario (state belongs in the lifespan).
    """
    if target.kind != "inprocess":
        raise TargetError(f"{target} is not an in-process target")
    module_name, _, attr_path = target.spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any error while importing the server's code (a NameError, a missing setting)
        why = error_summary(exc)
        raise TargetError(f"server target {target.spec!r}: cannot import {module_name!r}: {why}") from exc
    obj: Any = module
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            names = ", ".join(n for n in dir(module) if not n.startswith("_"))
            raise TargetError(f"server target {target.spec!r}: {module_name} has no {attr_path!r} (it has: {names})")
        obj = getattr(obj, part)
    if not isinstance(obj, MCPServer | Server) and callable(obj):
        obj = obj()
    if isinstance(obj, Server):
        raise TargetError(
            f"server target {target.spec!r} is a low-level mcp Server; mcpbdd's in-process harnesses need an "
            "MCPServer (serve a low-level server over stdio or HTTP instead)"
        )
    if not isinstance(obj, MCPServer):
        raise TargetError(f"server target {target.spec!r} is a {type(obj).__name__}, not an MCPServer")
    return obj


def error_summary(exc: BaseException) -> str:
    """An error in one line: `No module named 'x'`, or `NameError: ... (at pkg/server.py, line 12)` (its last frame)."""
    if isinstance(exc, ModuleNotFoundError):
        return str(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [frame for frame in frames if not frame.filename.startswith("<frozen")]
    at = f" (at {inside[-1].filename}, line {inside[-1].lineno})" if inside else ""
    return f"{type(exc).__name__}: {exc}{at}"


def _shown(part: str) -> str:
    """A word of a command as a shell would need it, except that `{port}` is left as written (it is not filled yet)."""
    bare = part.replace("{port}", "")
    return part if not bare or shlex.quote(bare) == bare else shlex.quote(part)


def command_argv(target: ServerTarget) -> list[str]:
    """A process target's command as argv, `{python}` being this interpreter (`{port}` is left for mcpbdd to fill)."""
    return [sys.executable if part == "{python}" else part for part in shlex.split(target.spec)]


def missing_command(
    target: ServerTarget, *, cwd: str | None = None, env: Mapping[str, str] | None = None
) -> str | None:
    """Why a process target's program cannot be started (no such command or file), or None (or not a process).

    Checked before a process is started: otherwise `sh` or the SDK reports it as a process
    that ended at once, and every scenario would try again.
    """
    if target.kind not in _PROCESS_KINDS:
        return None
    try:
        argv = command_argv(target)
    except ValueError as exc:  # unbalanced quotes
        return f"its command {target.spec!r} cannot be split into words: {exc}"
    if not argv:
        return "its command is empty"
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(cwd or ".") / program
        where = f" (from the folder {cwd})" if cwd and not Path(program).is_absolute() else ""
        if not path.is_file():
            return f"there is no program {program!r}{where}"
        if not os.access(path, os.X_OK):
            return f"the program {program!r}{where} is not executable"
        return None
    search = (env or {}).get("PATH") or os.environ.get("PATH", os.defpath)
    if shutil.which(program, path=search) is None:
        return f"there is no command {program!r} on the PATH"
    return None


def naming_the_target(error: ServerCannotStart, target: str) -> ServerCannotStart:
    """The same failure naming its target and, for a process, the command that was run (`{python}` filled in)."""
    if error.target is not None:
        return error
    parsed = ServerTarget.parse(target)
    command = None
    if parsed.kind in _PROCESS_KINDS:
        with contextlib.suppress(ValueError):
            command = " ".join(_shown(part) for part in command_argv(parsed))
    why = error.why + (_another_python(parsed) if parsed.kind in _PROCESS_KINDS else "")
    return ServerCannotStart(why, target=target, command=command, cannot_load=error.cannot_load)


_BARE_PYTHON = re.compile(r"python(\d(\.\d+)?)?")


def _another_python(target: ServerTarget) -> str:
    """A hint when the command starts a `python` from the PATH that is not mcpbdd's interpreter (`{python}` is).

    The usual cause of a Python server that cannot start under mcpbdd but starts in its developer's
    shell: `stdio: python -m mypackage` runs the system Python, where the package is not installed.
    """
    with contextlib.suppress(ValueError):
        words = shlex.split(target.spec)
        if words and _BARE_PYTHON.fullmatch(words[0]):
            found = shutil.which(words[0])
            if found is None or os.path.realpath(found) != os.path.realpath(sys.executable):
                where = found or "not on the PATH"
                return (
                    f" (the command's {words[0]!r} is {where}, not the Python mcpbdd runs in, {sys.executable}: "
                    f"write {{python}} instead of {words[0]!r} to start the server with it, as in "
                    f'"{target.kind.replace("-command", "")}: {target.spec.replace(words[0], "{python}", 1)}")'
                )
    return ""
