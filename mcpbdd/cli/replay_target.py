"""Which server `mcpbdd feature` and `mcpbdd verify` replay a cassette against: always one the user named.

The command after `--`, else `--url`, else `server` under `[tool.mcpbdd]` when it is a `stdio:`
command or a URL. A cassette's header also names a server (the command or URL it was recorded
from), but a cassette is data, possibly written by a remote party: it never chooses what runs.
With no server named, the command stops (exit 2) and shows the recorded one, escaped, for the
user to read and copy.
"""

from __future__ import annotations

import argparse
import json
import shlex
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpbdd.harness.processes.spawn import SpawnMode
    from mcpbdd.record.cassette import Cassette
    from mcpbdd.record.replay import ReplayTarget


__all__ = ["chosen_target", "shown_argv"]


def _configured() -> tuple[str | None, str | None]:
    """`server` under `[tool.mcpbdd]` (None when there is none), or why it cannot be read."""
    from mcpbdd.model.config import ConfigError, load_settings

    try:
        return load_settings({}).server, None
    except ConfigError as exc:
        return None, f"the settings cannot be read: {exc}"


def _spawn(args: argparse.Namespace) -> SpawnMode:
    """How a replayed command starts: `--spawn`, else `spawn` under `[tool.mcpbdd]` (as the scenarios start it),
    else "auto" (unreadable settings are reported where the server comes from them: `_configured`)."""
    from mcpbdd.model.config import ConfigError, load_settings

    chosen: SpawnMode | None = getattr(args, "spawn", None)
    if chosen is not None:
        return chosen
    try:
        return load_settings({}).spawn
    except ConfigError:
        return "auto"


def _from_setting(server: str, name: str, spawn: SpawnMode) -> ReplayTarget | str:
    from mcpbdd.harness.targets import ServerTarget, command_argv
    from mcpbdd.model.errors import TargetError

    try:
        target = ServerTarget.parse(server)
        if target.kind == "stdio":
            return {"command": command_argv(target), "url": None, "spawn": spawn}
    except (TargetError, ValueError) as exc:
        return f"mcpbdd {name}: the configured server cannot be used: {exc}"
    if target.kind == "http":
        return {"command": None, "url": target.spec}
    return (
        f"mcpbdd {name}: the configured server {server!r} is not a stdio: command or a URL, and a cassette is "
        "replayed over stdio or Streamable HTTP: name one with -- COMMAND or --url URL"
    )


def shown_argv(argv: Any) -> str:
    """A recorded command as a shell line to copy; JSON (every control character escaped) if a word is unprintable.

    It is shown, never run: a terminal must not receive a control sequence a cassette put there.
    """
    words = [str(word) for word in argv] if isinstance(argv, list) else [str(argv)]
    if all(word.isprintable() for word in words):
        return shlex.join(words)
    return json.dumps(words, ensure_ascii=True) + "  (as JSON: it holds characters a terminal would not show)"


def _recorded(cassette: Cassette) -> str:
    server = cassette.header.server
    if server.get("command"):
        return f"  mcpbdd ... -- {shown_argv(server['command'])}"
    if server.get("url"):
        return f"  mcpbdd ... --url {shown_argv([server['url']])}"
    return "  (the cassette names none)"


def chosen_target(args: argparse.Namespace, cassette: Cassette, name: str) -> ReplayTarget | str:
    """Where to replay: the user's `--` command, `--url` or configured server; else the message refusing to guess."""
    command, url = list(getattr(args, "server_command", None) or []), getattr(args, "url", None)
    if command and url:
        return f"mcpbdd {name}: give either a command after -- or --url, not both"
    if command or url:
        return {"command": command or None, "url": url, "spawn": _spawn(args)}
    server, problem = _configured()
    if problem is not None:
        return f"mcpbdd {name}: {problem}"
    if server:
        return _from_setting(server, name, _spawn(args))
    return (
        f"mcpbdd {name}: name the server to replay against: -- COMMAND [ARGS...], --url URL, or server under "
        "[tool.mcpbdd]. The command a cassette names is never run (a cassette is data, and may come from anyone); "
        f"it was recorded from:\n{_recorded(cassette)}"
    )
