"""How a scenario reaches its server: the harness a `World` opens for a target, and the connector under it.

The World knows what the scenario configured (the target, the harness kind and client mode, the
client's capabilities) and where its doubles are placed; this module turns that into a harness:

- the context harness for an in-process server (a server in another process has no handlers to
  call in this one: that needs the client harness);
- the client harness over a connector: in-process, a stdio process or an HTTP server mcpbdd starts
  (each started with the scenario's doubles file and upstream routes in its environment), or a URL.

A server that cannot be loaded or started is a `ServerCannotStart`, with `cannot_load` set when no
scenario of the run could reach it either (a module that does not import, a command not found): when
it is the configured server, the behave hooks stop the run at once instead of failing every scenario
the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpbdd.authorization.scenario import ScenarioAuthorization
from mcpbdd.harness.base import Harness
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.connectors import Connector, Http, InProcess, Stdio
from mcpbdd.harness.context import ContextHarness
from mcpbdd.harness.handover import Placement
from mcpbdd.harness.processes.http_process import HttpProcess
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.targets import ServerTarget, load_inprocess, missing_command
from mcpbdd.model.config import Settings
from mcpbdd.model.errors import ServerCannotStart, TargetError
from mcpbdd.model.kinds import ClientMode, HarnessKind
from mcpbdd.scenario.runtime import ScenarioOwner
from mcpbdd.upstream import Upstream

__all__ = ["HarnessChoice", "build_harness", "connector_for", "load_server"]


@dataclass(frozen=True)
class HarnessChoice:
    """What the scenario chose about its harness (its Given steps, else the settings)."""

    kind: HarnessKind
    mode: ClientMode
    """The client harness's mode (modern `auto` or the `legacy` handshake)."""
    capabilities: frozenset[str]
    """What the client declares."""


def build_harness(
    target: ServerTarget,
    choice: HarnessChoice,
    settings: Settings,
    *,
    placement: Placement,
    upstream: Upstream,
    owner: ScenarioOwner,
    authorization: ScenarioAuthorization | None = None,
) -> Harness:
    """The chosen harness for `target`, with the scenario's doubles, opening its sessions in `owner`'s task."""
    common: dict[str, Any] = {
        "capabilities": choice.capabilities,
        "timeout": settings.timeout,
        "tenant_claim": settings.tenant_claim,
    }
    if choice.kind is HarnessKind.CONTEXT:
        if target.kind != "inprocess":
            raise ServerCannotStart(
                "the context harness calls an in-process server's handlers; "
                "a server in another process needs the client harness (-D mcpbdd.harness=client)"
            )  # not `cannot_load`: the scenarios a tag pins to the client harness reach it
        return ContextHarness(
            load_server(target), doubles=placement.doubles, start_timeout=settings.start_timeout, **common
        )
    if target.kind == "inprocess":
        connector: Connector = InProcess(load_server(target), placement.doubles)
    else:
        connector = connector_for(target, settings, placement=placement, upstream=upstream, authorization=authorization)
    return ClientHarness(
        connector,
        mode=choice.mode,
        enter_in_owner=lambda fn: owner.call_in_owner(lambda _stack: fn()),
        start_timeout=settings.start_timeout,
        **common,
    )


def connector_for(
    target: ServerTarget,
    settings: Settings,
    *,
    placement: Placement,
    upstream: Upstream,
    authorization: ScenarioAuthorization | None = None,
) -> Connector:
    """How the client harness reaches a server in another process: one it starts (stdio, HTTP) or a URL.

    Over HTTP each request asks `authorization` for its caller's token (a minted JWT once the scenario
    requires one), and a started server gets the fake authorization server's URLs in its environment.
    """
    missing = missing_command(target, cwd=settings.cwd, env=settings.env)
    if missing is not None:
        raise ServerCannotStart(missing, cannot_load=True)
    bearer = authorization.bearer if authorization is not None else None
    if target.kind not in ("stdio", "http-command"):
        return Http(target.spec, tokens=settings.tokens, bearer=bearer)
    told = authorization.environment() if authorization is not None else {}
    options = ProcessOptions(
        env=settings.env,
        extra_env={**placement.environment(), **told},
        cwd=settings.cwd,
        upstream=upstream,
        upstream_bases=tuple(settings.upstreams),
        spawn=settings.spawn,
    )
    if target.kind == "stdio":
        return Stdio(target.spec, options)
    timeout = settings.start_timeout
    return HttpProcess(target.spec, options, tokens=settings.tokens, start_timeout=timeout, bearer=bearer)


def load_server(target: ServerTarget) -> Any:
    """The in-process server of `target`; one that does not load is a server that cannot start."""
    try:
        return load_inprocess(target)
    except TargetError as exc:
        why = str(exc).removeprefix(f"server target {target.spec!r}: ")
        raise ServerCannotStart(why, cannot_load=True) from None
