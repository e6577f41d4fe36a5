"""One scenario's authorization: whether the server requires a token, each caller's token, what was refused.

`World.authorization` is one of these. Once a scenario says the server requires a token
(`require()`), the run's fake authorization server is started (once per run), the server
process is told its issuer and JWKS URL (`environment()`), and every caller's requests carry
a JWT minted for them (`bearer()`): honest unless a step spoiled it (`spoil()`), re-minted
when a step changes it (`grant()`), none at all while a call is made without one
(`withholding()`).

A token is issued when the scenario first needs it or when a step shapes it, at the
scenario clock's instant then; moving the clock later ages it, as time ages a real one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING

from mcpbdd.authorization.edge import NO_TOKEN
from mcpbdd.kit.clock import Clock
from mcpbdd.kit.principals import Principal

if TYPE_CHECKING:
    from mcpbdd.authorization.server import FakeAuthorizationServer
    from mcpbdd.authorization.tokens import TokenSpec

__all__ = ["ScenarioAuthorization"]


class ScenarioAuthorization:
    """Who holds which token in one scenario, and where the fake authorization server is."""

    def __init__(self, clock: Callable[[], Clock], tenant_claim: str = "tenant") -> None:
        self._clock = clock
        self.tenant_claim = tenant_claim
        self.fake: FakeAuthorizationServer | None = None
        self._specs: dict[str, TokenSpec] = {}
        self._minted: dict[str, tuple[TokenSpec, str, str]] = {}
        """Per user: the spec and resource a token was minted for, and the token (signed once, sent often)."""
        self._withheld: set[str | None] = set()
        self._bare: dict[str | None, bool] = {}
        """Per caller, whether their last request carried no token."""
        self.resource: str | None = None
        """The server's MCP URL, as the connector first asked for a token for it."""

    @property
    def required(self) -> bool:
        return self.fake is not None

    def require(self) -> FakeAuthorizationServer:
        """The server requires a token: start the run's fake authorization server (once per run)."""
        from mcpbdd.authorization.server import fake_authorization_server

        self.fake = fake_authorization_server()
        return self.fake

    @property
    def issuer(self) -> str:
        """The fake authorization server's issuer (a ValueError naming the missing step before `require()`)."""
        if self.fake is None:
            raise ValueError("put `Given the server requires a token` before this step")
        return self.fake.issuer

    def environment(self) -> dict[str, str]:
        """What the server process needs to verify the scenario's tokens (nothing unless a token is required)."""
        from mcpbdd.kit.protected import ENV_ISSUER, ENV_JWKS

        if self.fake is None:
            return {}
        return {ENV_ISSUER: self.fake.issuer, ENV_JWKS: self.fake.jwks_url}

    # tokens -----------------------------------------------------------------------------------

    def spec(self, principal: Principal) -> TokenSpec:
        """The token `principal` holds (an honest one, issued now, on first asking)."""
        from mcpbdd.authorization.tokens import DEFAULT_LIFETIME, TokenSpec

        spec = self._specs.get(principal.user)
        if spec is None:
            now = self._clock().now().timestamp()
            spec = TokenSpec(
                principal.user, principal.tenant, principal.scopes, principal.client_id, now, now + DEFAULT_LIFETIME
            )
            self._specs[principal.user] = spec
        return spec

    def spoil(self, principal: Principal, flaw: str, **changes: object) -> TokenSpec:
        """Make `principal`'s token one the server must refuse, `flaw` saying why (for failure messages)."""
        self._require_first("the token of " + principal.user)
        spec = self._specs[principal.user] = self.spec(principal).spoilt(flaw, **changes)
        return spec

    def expire_in(self, principal: Principal, delta: timedelta) -> TokenSpec:
        """`principal`'s token expires `delta` from now on the scenario's clock (negative: it has expired)."""
        self._require_first("the token of " + principal.user)
        now = self._clock().now().timestamp()
        expires = now + delta.total_seconds()
        issued = min(now, expires - 60)
        spec = replace(self.spec(principal), issued_at=issued, expires_at=expires)
        if delta <= timedelta(0):
            spec = spec.spoilt(f"expired {_ago(-delta)} before the call")
        self._specs[principal.user] = spec
        return spec

    def grant(self, principal: Principal, scope: str) -> TokenSpec:
        """`principal` gets a new token with `scope` added, issued now (as after consenting to more scope)."""
        from mcpbdd.authorization.tokens import DEFAULT_LIFETIME

        self._require_first("a new token for " + principal.user)
        old = self.spec(principal)
        now = self._clock().now().timestamp()
        scopes = old.scopes if scope in old.scopes else (*old.scopes, scope)
        spec = replace(old, scopes=scopes, issued_at=now, expires_at=now + DEFAULT_LIFETIME)
        self._specs[principal.user] = spec
        return spec

    def token(self, principal: Principal, resource: str) -> str:
        """The JWT `principal` sends to the server at `resource` (minted again only when its spec changed)."""
        from mcpbdd.authorization.tokens import mint

        assert self.fake is not None
        spec = self.spec(principal)
        minted = self._minted.get(principal.user)
        if minted is not None and minted[0] == spec and minted[1] == resource:
            return minted[2]
        token = mint(spec, resource=resource, issuer=self.fake.issuer, tenant_claim=self.tenant_claim)
        self._minted[principal.user] = (spec, resource, token)
        return token

    def bearer(self, caller: Principal | None, resource: str) -> str | None:
        """The HTTP connector's question before each request: what `caller` sends (see `edge.BearerSource`)."""
        self.resource = resource
        who = caller.user if caller else None
        self._bare[who] = who in self._withheld or (caller is None and self.fake is not None)
        if self._bare[who]:
            return NO_TOKEN
        if self.fake is None or caller is None:
            return None  # the configured token or mcpbdd's test token, as without authorization
        return self.token(caller, resource)

    def what_was_sent(self, principal: Principal | None) -> str:
        """What `principal`'s last request carried, as a failure message says it."""
        if self._bare.get(principal.user if principal else None, principal is None):
            return "no token at all"
        flaw = self.flaw_of(principal)
        return f"a token that {flaw}" if flaw else "a valid token"

    def flaw_of(self, principal: Principal | None) -> str | None:
        """What is wrong with `principal`'s token (None: honest, or no token at all)."""
        from mcpbdd.authorization.tokens import RESOURCE

        spec = self._specs.get(principal.user) if principal is not None else None
        if spec is None:
            return None
        late = self._clock().now().timestamp() - spec.expires_at
        if spec.flaw is None and late > 0:
            return f"expired {_ago(timedelta(seconds=late))} before the call"
        return spec.flaw.replace(RESOURCE, self.resource) if spec.flaw and self.resource else spec.flaw

    @contextlib.contextmanager
    def withholding(self, principal: Principal | None) -> Iterator[None]:
        """The enclosed calls of `principal` carry no token at all."""
        who = principal.user if principal else None
        self._withheld.add(who)
        try:
            yield
        finally:
            self._withheld.discard(who)

    def _require_first(self, what: str) -> None:
        if self.fake is None:
            raise ValueError(
                f"{what} is shaped here, but the scenario never said the server requires a token: "
                "put `Given the server requires a token` before this step"
            )


def _ago(delta: timedelta) -> str:
    seconds = round(delta.total_seconds())
    if seconds >= 60 and seconds % 60 == 0:
        return "a minute" if seconds == 60 else f"{seconds // 60} minutes"
    return f"{seconds} seconds"
