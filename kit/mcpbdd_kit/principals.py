"""Tenants and users: who makes each call, as the server's auth sees it.

A multi-tenant MCP server reads the caller from the authenticated access token
(`mcp.server.auth.middleware.auth_context.get_access_token()`), never from tool
arguments. So a scenario's "user alice of tenant acme" becomes a real SDK
`AccessToken` (client id, subject, scopes, and a tenant claim), installed exactly where
the SDK's auth middleware would put it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

DEFAULT_CLIENT_ID = "mcpbdd-client"
TOKEN_PREFIX = "mcpbdd:"  # noqa: S105 (a prefix that marks a test token, not a secret)
"""How every test bearer token starts (`mcpbdd.kit.auth.TestTokenVerifier` accepts only these)."""


class UnknownUserError(LookupError):
    """A specification names a user it never introduced."""


@dataclass(frozen=True)
class Principal:
    """One caller: a user of a tenant with scopes."""

    user: str
    tenant: str
    scopes: tuple[str, ...] = ()
    client_id: str = DEFAULT_CLIENT_ID

    @property
    def token(self) -> str:
        """The test bearer token for this caller: `mcpbdd:<tenant>:<user>[:<scope>,...]` (see mcpbdd.kit.auth)."""
        base = f"{TOKEN_PREFIX}{self.tenant}:{self.user}"
        return f"{base}:{','.join(self.scopes)}" if self.scopes else base

    def access_token(self, tenant_claim: str = "tenant") -> AccessToken:
        """The token the server's auth would have verified for this caller."""
        return AccessToken(
            token=self.token,
            client_id=self.client_id,
            scopes=list(self.scopes),
            subject=self.user,
            claims={tenant_claim: self.tenant},
        )

    def __str__(self) -> str:
        return f"{self.user} of tenant {self.tenant}"


ANONYMOUS_CALLER = "an anonymous caller (no access token)"


def caller_label(principal: Principal | None) -> str:
    """How a failure message names who made a call: `alice of tenant acme`, or an anonymous caller."""
    return str(principal) if principal is not None else ANONYMOUS_CALLER


@functools.lru_cache(maxsize=256)
def authenticated_user(principal: Principal, tenant_claim: str = "tenant") -> AuthenticatedUser:
    """The SDK's authenticated-user object for a principal (cached: tokens are immutable)."""
    return AuthenticatedUser(principal.access_token(tenant_claim))


@contextlib.contextmanager
def acting_as(principal: Principal | None, tenant_claim: str = "tenant") -> Iterator[None]:
    """Install `principal` in the SDK's auth context for the enclosed code (None: anonymous)."""
    user = authenticated_user(principal, tenant_claim) if principal is not None else None
    token = auth_context_var.set(user)
    try:
        yield
    finally:
        auth_context_var.reset(token)


@dataclass
class Directory:
    """The tenants and users a scenario has introduced, and who "the client" is.

    "The client" (the current caller) is the first caller the scenario declares, by
    `Given the tenant "acme"` (its default user `acme-user`) or `Given the user "alice" of
    tenant "acme"`, until `Given the caller is "..."` (or `Given nobody is signed in`) says
    otherwise. Declaring a second user never changes who "the client" is: a Background that
    introduces alice, bob and erin calls as alice, whatever order the others come in.
    """

    users: dict[str, Principal] = field(default_factory=dict)
    tenants: dict[str, str] = field(default_factory=dict)
    """tenant -> its default user's name."""
    caller: Principal | None = None
    chosen: bool = False
    """Whether the scenario chose the caller (`Given the caller is`, `Given nobody is signed in`)."""

    def _declared(self, principal: Principal) -> Principal:
        """A declared caller becomes "the client" only when there is none yet (or it is the client, redeclared)."""
        first = self.caller is None and not self.chosen
        redeclared = self.caller is not None and self.caller.user == principal.user
        if first or redeclared:
            self.caller = principal
        return principal

    def add_tenant(self, tenant: str) -> Principal:
        default_user = self.tenants.get(tenant) or f"{tenant}-user"
        principal = self.users.get(default_user) or Principal(user=default_user, tenant=tenant)
        self.users[default_user] = principal
        self.tenants[tenant] = default_user
        return self._declared(principal)

    def add_user(self, user: str, tenant: str, scopes: tuple[str, ...] = ()) -> Principal:
        existing = self.users.get(user)
        if existing is not None and existing.tenant != tenant:
            raise ValueError(f"user {user!r} already belongs to tenant {existing.tenant!r}, not {tenant!r}")
        principal = Principal(user=user, tenant=tenant, scopes=scopes)
        self.users[user] = principal
        self.tenants.setdefault(tenant, user)
        return self._declared(principal)

    def user(self, name: str) -> Principal:
        principal = self.users.get(name)
        if principal is None:
            known = ", ".join(sorted(self.users)) or "none yet"
            raise UnknownUserError(
                f"no user {name!r} in this scenario (known: {known}); "
                f'introduce them with: Given the user "{name}" of tenant "<tenant>"'
            )
        return principal

    def switch_to(self, name: str) -> Principal:
        """Make `name` "the client" for the rest of the scenario."""
        self.caller = self.user(name)
        self.chosen = True
        return self.caller

    def sign_out(self) -> None:
        """Make "the client" anonymous for the rest of the scenario (a later declaration does not sign anyone in)."""
        self.caller = None
        self.chosen = True


__all__ = [
    "ANONYMOUS_CALLER",
    "DEFAULT_CLIENT_ID",
    "TOKEN_PREFIX",
    "Directory",
    "Principal",
    "UnknownUserError",
    "acting_as",
    "authenticated_user",
    "caller_label",
]
