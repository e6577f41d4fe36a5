"""Server targets: what `server = "..."` and `Given the MCP server "..."` point at.

Four forms exist in the vocabulary: `package.module:attr` (an in-process SDK server,
or a factory returning one), `stdio: <command>`, `http: <command with {port}>` (a server
mcpbdd starts and reaches over Streamable HTTP) and an `http(s)://` URL. This module
parses them and loads in-process servers; a target names what it is in every error.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from mcp.server import Server
from mcp.server.mcpserver import MCPServer


class TargetError(ValueError):
    """A server target that cannot be parsed or loaded; the message says which and why."""


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
                    'mcpbdd picks a free port and fills it in, e.g. "http: python -m myserver --port {port}"'
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
    except ImportError as exc:
        raise TargetError(f"server target {target.spec!r}: cannot import {module_name!r}: {exc}") from exc
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


__all__ = ["ServerTarget", "TargetError", "load_inprocess"]
