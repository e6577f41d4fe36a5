"""The reference MCP servers the spawning tests run against, installed pinned into a cache on first use.

Two from the npm registry (TypeScript, protocol 2025-11-25): `@modelcontextprotocol/server-everything`
and `server-memory`, installed with npm into `<cache>/mcpbdd/reference-servers`. Two from PyPI
(Python, built on the SDK's `MCPServer`): `mcp-server-time` and `mcp-server-git`, each in a
virtual environment of its own in the same cache, with the SDK they run on pinned too, so a new
SDK release does not change what the tests see. Pinned so a run is repeatable; installed once (a
lock keeps two first uses apart), later runs need no network. Nothing here starts a server:
the tests build the command lines (`stdio_command`) and start them.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE", "SERVERS", "ReferenceServer", "command", "installed", "stdio_command"]

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mcpbdd" / "reference-servers"
SDK = "mcp==2.3.0"
"""The SDK the PyPI servers run on (their own range is `mcp>=2.3,<3`): the one this project is checked on."""


@dataclass(frozen=True)
class ReferenceServer:
    """One reference server: where it comes from, pinned, and what runs it."""

    name: str
    registry: str
    """`npm` or `pypi`."""
    package: str
    version: str
    entry: str
    """npm: the script under the package's folder; PyPI: the module `python -m` runs."""


SERVERS = {
    server.name: server
    for server in (
        ReferenceServer(
            "server-everything", "npm", "@modelcontextprotocol/server-everything", "2026.8.31", "dist/index.js"
        ),
        ReferenceServer("server-memory", "npm", "@modelcontextprotocol/server-memory", "2026.8.31", "dist/index.js"),
        ReferenceServer("mcp-server-time", "pypi", "mcp-server-time", "2026.10.19", "mcp_server_time"),
        ReferenceServer("mcp-server-git", "pypi", "mcp-server-git", "2026.10.19", "mcp_server_git"),
    )
}


@contextmanager
def _locked() -> Iterator[None]:
    """One installer at a time (parallel test workers share the cache)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{shlex.join(command)} failed:\n{done.stdout}{done.stderr}"


def installed(server: ReferenceServer) -> Path:
    """The file that runs `server` (its npm script, or its virtual environment's python), installed on first use."""
    if server.registry == "npm":
        path = CACHE / "node_modules" / server.package / server.entry
        marker = CACHE / "node_modules" / server.package / "package.json"
    else:
        home = CACHE / "pypi" / f"{server.package}-{server.version}"
        path, marker = home / "bin" / "python", home / ".installed"
    with _locked():
        if marker.is_file() and path.is_file() and _version_ok(server, marker):
            return path
        if server.registry == "npm":
            npm = shutil.which("npm")
            assert npm, (
                "npm is needed to install the npm reference servers (Node 20 is part of this project's machines)"
            )
            _run(
                [
                    npm,
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(CACHE),
                    f"{server.package}@{server.version}",
                ]
            )
        else:
            shutil.rmtree(home, ignore_errors=True)
            _run([sys.executable, "-m", "venv", str(home)])
            _run([str(path), "-m", "pip", "install", "-q", f"{server.package}=={server.version}", SDK])
            marker.write_text(f"{server.package}=={server.version} {SDK}\n", encoding="utf-8")
    assert path.is_file(), f"{server.package} installed, but {path} is missing"
    return path


def _version_ok(server: ReferenceServer, marker: Path) -> bool:
    """Whether what the cache holds is the pinned version (a cache from an older pin is installed afresh)."""
    if server.registry == "npm":
        return bool(json.loads(marker.read_text(encoding="utf-8")).get("version") == server.version)
    return marker.read_text(encoding="utf-8").split()[0] == f"{server.package}=={server.version}"


def command(server: ReferenceServer, *arguments: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The command line that runs `server` with `arguments` (installing it first); `env` set through `env(1)`."""
    path = installed(server)
    prefix = ["env", *(f"{name}={value}" for name, value in env.items())] if env else []
    if server.registry == "npm":
        node = shutil.which("node")
        assert node, "node is needed to run the npm reference servers"
        return [*prefix, node, str(path), *arguments]
    return [*prefix, str(path), "-m", server.entry, *arguments]


def stdio_command(server: ReferenceServer, *arguments: str, env: Mapping[str, str] | None = None) -> str:
    """The `stdio:` target that runs `server` with `arguments` (installing it first)."""
    return "stdio: " + shlex.join(command(server, *arguments, env=env))
