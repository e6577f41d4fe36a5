"""The World's server: which server, over which harness, configured before the first call and opened on first use.

The harness is built by `mcpbdd.scenario.servers` and entered in the scenario's owner task (or the
feature's, with `reuse_server = "feature"`); every later step drives the run's loop through `run`, which
names a server that cannot start once, with its target.
"""

from __future__ import annotations

from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

from mcpbdd.harness.base import Harness
from mcpbdd.harness.targets import ServerTarget, error_summary, naming_the_target
from mcpbdd.model.errors import NoServer, ServerCannotStart, TargetError
from mcpbdd.model.kinds import ClientMode, HarnessKind, check_capabilities, client_mode, harness_kind
from mcpbdd.scenario.servers import HarnessChoice, build_harness
from mcpbdd.scenario.world_doubles import WorldDoubles

T = TypeVar("T")

__all__ = ["WorldServer"]


class WorldServer(WorldDoubles):
    """The World's server (a part of `World`)."""

    def _configurable(self, what: str) -> None:
        if self._harness is not None:
            raise RuntimeError(f"{what} must be set before the first call of the scenario (put it in a Given step)")

    def use_server(self, target: str) -> None:
        self._configurable("the server")
        ServerTarget.parse(target)  # fail on the Given step, not on the first call
        self.server_target = target
        self._place_doubles()

    def use_harness(self, kind: HarnessKind | str, mode: ClientMode | str | None = None) -> None:
        self._configurable("the harness")
        self.harness_kind = harness_kind(kind)
        if mode is not None:
            self.client_mode = client_mode(mode)

    def require_token(self) -> None:
        """The server requires a token: start the run's fake authorization server, mint JWTs for the callers."""
        self._configurable("that the server requires a token")
        if self.server_target and ServerTarget.parse(self.server_target).kind == "http":
            raise ValueError(
                f"the server at {self.server_target} was not started by mcpbdd, so it cannot be told where the "
                "run's fake authorization server is: give a command instead (`http: <command with {port}>`)"
            )
        self.authorization.require()

    def declare_capabilities(self, names: Iterable[str]) -> None:
        self._configurable("the client's capabilities")
        self.capabilities = frozenset(check_capabilities(names))

    # the harness ----------------------------------------------------------------------------------

    @property
    def harness_name(self) -> str:
        return f"client ({self.client_mode})" if self.harness_kind is HarnessKind.CLIENT else str(self.harness_kind)

    def _target(self) -> ServerTarget:
        if self.server_target is None:
            raise TargetError(
                'no MCP server to test: set server = "package.module:attr" under [tool.mcpbdd] in pyproject.toml, '
                'or add: Given the MCP server "package.module:attr"'
            )
        return ServerTarget.parse(self.server_target)

    def server_url(self) -> str:
        """The MCP URL the client reaches the server at over HTTP (starting it if need be)."""
        url = getattr(getattr(self.harness, "connector", None), "url", None)
        if not isinstance(url, str):
            raise TargetError(f"the server {self.server_target!r} is not reached over HTTP, so it has no URL")
        return url

    def server_stderr(self) -> str:
        """What a server process wrote to stderr in this scenario ('' in-process or before it started)."""
        return self._harness.server_stderr() if self._harness is not None else ""

    @property
    def harness(self) -> Harness:
        """The scenario's harness, opened (server lifespan entered, with the scenario's doubles) on first use.

        With `reuse_server = "feature"` a server in another process is opened in the feature's
        owner task and shared by the feature's scenarios; otherwise the scenario's owner owns it.
        """
        if self._harness is None:
            try:
                target = self._target()
            except TargetError as exc:  # no server named, or a malformed target: the set-up is wrong
                raise NoServer(str(exc)) from None
            shared = self.shared if target.kind != "inprocess" else None
            key = (self.server_target, self.harness_kind, self.client_mode, self.capabilities)
            if shared is not None and key in shared.harnesses:
                self._harness = shared.harnesses[key]
                return self._harness
            owner = shared.owner if shared is not None else self.owner
            try:
                choice = HarnessChoice(self.harness_kind, self.client_mode, self.capabilities)
                harness = build_harness(
                    target,
                    choice,
                    self.settings,
                    placement=self.placement,
                    upstream=self.upstream,
                    owner=owner,
                    authorization=self.authorization,
                )
            except ServerCannotStart as exc:
                raise self._cannot_start(exc) from None
            try:
                self.run(owner.enter_async(harness))
            except ServerCannotStart:
                raise  # named by `run`
            except Exception as exc:  # the context harness entering a lifespan that raises
                raise self._cannot_start(ServerCannotStart(f"its lifespan raised {error_summary(exc)}")) from exc
            if shared is not None:
                shared.harnesses[key] = harness
            self._harness = harness
        return self._harness

    # driving the run's loop --------------------------------------------------------------------------------

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Drive the run's loop for `coro`; a server that cannot start is named once, with its target."""
        try:
            return self.owner.run(coro)
        except ServerCannotStart as exc:
            raise self._cannot_start(exc) from None

    def _cannot_start(self, exc: ServerCannotStart) -> ServerCannotStart:
        """`exc` naming the scenario's target, remembered for the hooks (which stop a run that cannot work)."""
        named = naming_the_target(exc, self.server_target) if self.server_target else exc
        self.start_failure = named
        return named
