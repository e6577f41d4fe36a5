"""The World's callers: the principals and tenants a scenario declares, and who calls now.

"The client" is the first caller declared until a step switches; a step may call as another user for
itself (`as_user`). The directory is the scenario's (`mcpbdd.kit.principals.Directory`).
"""

from __future__ import annotations

from collections.abc import Iterable

from mcpbdd.kit.principals import Principal
from mcpbdd.scenario.world_state import WorldState

__all__ = ["WorldCallers"]


class WorldCallers(WorldState):
    """The World's callers (a part of `World`)."""

    def add_tenant(self, tenant: str) -> Principal:
        return self.directory.add_tenant(tenant)

    def add_user(self, user: str, tenant: str, scopes: Iterable[str] = ()) -> Principal:
        return self.directory.add_user(user, tenant, tuple(scopes))

    def switch_caller(self, user: str) -> Principal:
        return self.directory.switch_to(user)

    def sign_out(self) -> None:
        """Make the following calls anonymous (no access token), as an unauthenticated client's."""
        self.directory.sign_out()

    @property
    def caller(self) -> Principal | None:
        return self.directory.caller
