"""How every server process mcpbdd starts is started: one value both process connectors take.

A stdio server (`Stdio`, one process per caller) and an HTTP server started from a command
(`HttpProcess`, one process for every caller) are started the same way: the configured
environment (templates naming the caller), the scenario's doubles on top (`extra_env`), the
working folder, the scenario's upstream routes served over loopback, and how the process
starts (`spawn`). The World builds this value once from the settings and hands it to
whichever connector the target needs, so the two cannot drift apart.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

from mcpbdd.harness.processes.spawn import SpawnMode
from mcpbdd.kit.principals import Principal
from mcpbdd.upstream import LoopbackServer, Upstream

__all__ = ["ProcessOptions", "command_argv"]


@dataclass(frozen=True)
class ProcessOptions:
    """What a server process is started with, whichever transport it speaks."""

    env: Mapping[str, str] = field(default_factory=dict)
    """Configured variables; `{user}`, `{tenant}`, `{scopes}` are filled with the caller's."""
    extra_env: Mapping[str, str] = field(default_factory=dict)
    """Given to every process as is, over `env` (the doubles file, a test marker)."""
    cwd: str | None = None
    upstream: Upstream | None = None
    """The scenario's route table, served to the process over loopback HTTP (`MCPBDD_UPSTREAM_<HOST>`)."""
    upstream_bases: tuple[str, ...] = ()
    spawn: SpawnMode = "fork"
    """How each process starts (`spawn.py`). Built by hand, `fork`: forked from a warm parent for a Python
    command, plainly otherwise. A run's World passes its setting (default `auto`, which adds warm spares for
    other commands): spares outlive the connector that started them, and only a run stops them at its end."""

    def __post_init__(self) -> None:
        # Copies: a caller's later change to its dict must not reach a started scenario.
        object.__setattr__(self, "env", dict(self.env))
        object.__setattr__(self, "extra_env", dict(self.extra_env))
        object.__setattr__(self, "upstream_bases", tuple(self.upstream_bases))

    def environment(self, caller: Principal | None) -> dict[str, str]:
        """The process environment: configured values with the caller's fields filled in (blank for none)."""
        fields = {
            "user": caller.user if caller else "",
            "tenant": caller.tenant if caller else "",
            "scopes": ",".join(caller.scopes) if caller else "",
        }
        env = {name: value.format(**fields) for name, value in self.env.items()}
        return {**env, **self.extra_env}

    def loopback(self, stack: AsyncExitStack) -> LoopbackServer | None:
        """The upstream loopback server (not yet started), stopped with `stack`; None without routes.

        Register it before the process, so the stack stops it after the process.
        """
        if self.upstream is None:
            return None
        loopback = LoopbackServer(self.upstream, self.upstream_bases)
        stack.callback(loopback.stop)
        return loopback


def command_argv(command: str, **fill: str) -> list[str]:
    """`command` split as a shell would, `{python}` as this interpreter and each `{name}` of `fill` filled in.

    `{python}` lets a specification start a Python server in the same environment as mcpbdd.
    """
    argv = []
    for part in shlex.split(command):
        if part == "{python}":
            argv.append(sys.executable)
            continue
        for name, value in fill.items():
            part = part.replace("{" + name + "}", value)
        argv.append(part)
    return argv
