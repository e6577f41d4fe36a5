"""Authorization at the HTTP edge: a server that requires a token, the tokens callers hold, the refusals.

`Given the server requires a token` starts the run's fake authorization server and gives
every caller a real signed JWT (`mcpbdd.authorization`); the steps about a token spoil one
thing about it, and the Then steps check what a client sees: 401 with the metadata URL,
403 `insufficient_scope` with the scope, the protected-resource metadata. Tokens travel
over HTTP only, so on a context pass or over stdio these scenarios are skipped, saying why.
Each step parses its words and calls `World.authorization`, then checks with `mcpbdd.checks.authorization`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from behave import given, then, when

from mcpbdd.kit.clock import parse_duration
from mcpbdd.model.kinds import HarnessKind
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import json_doc_string, spec_errors

if TYPE_CHECKING:
    from mcpbdd.scenario.world import World

OVER_HTTP = ("http", "http-command")


def _over_http(context: Any) -> World | None:
    """The World when its server is reached over HTTP; otherwise the scenario is skipped, saying why, and None."""
    from mcpbdd.harness.targets import ServerTarget

    w = world(context)
    kind = ServerTarget.parse(w.server_target).kind if w.server_target else None
    if w.harness_kind is HarnessKind.CONTEXT:
        why = (
            "this is a context pass, which calls the server's handlers with no HTTP in between: "
            "it runs on a client pass (-D mcpbdd.harness=client) with a server reached over HTTP"
        )
    elif kind not in OVER_HTTP:
        how = "over stdio" if kind == "stdio" else "in-process"
        why = f"this scenario's server is reached {how}: name it `http: <command with {{port}}>` or by its URL"
    else:
        return w
    context.scenario.skip(f"bearer tokens travel over HTTP only and {why}")
    return None


def _spoil(context: Any, user: str, flaw: str, **changes: Any) -> None:
    w = _over_http(context)
    if w is not None:
        with spec_errors(context):
            w.authorization.spoil(w.directory.user(user), flaw, **changes)


@given("the server requires a token")
def server_requires_token(context: Any) -> None:
    """Given the server requires a token  (callers send JWTs from the run's fake authorization server)"""
    w = _over_http(context)
    if w is not None:
        with spec_errors(context):
            w.require_token()


@given('the token of "{user:Text}" has expired')
def token_has_expired(context: Any, user: str) -> None:
    """Given the token of "alice" has expired  (an hour ago on the scenario's clock)"""
    _expire(context, user, timedelta(hours=-1))


@given('the token of "{user:Text}" expired {duration} ago')
def token_expired_ago(context: Any, user: str, duration: str) -> None:
    """Given the token of "alice" expired 10 seconds ago  (within or beyond the server's leeway)"""
    with spec_errors(context):
        delta = parse_duration(duration)
    _expire(context, user, -delta)


@given('the token of "{user:Text}" expires in {n:d} minutes')
def token_expires_in(context: Any, user: str, n: int) -> None:
    """Given the token of "alice" expires in 5 minutes  (then `When 6 minutes pass` expires it)"""
    _expire(context, user, timedelta(minutes=n))


def _expire(context: Any, user: str, delta: timedelta) -> None:
    w = _over_http(context)
    if w is not None:
        with spec_errors(context):
            w.authorization.expire_in(w.directory.user(user), delta)


@given('the token of "{user:Text}" is for the audience "{audience:Text}"')
def token_for_audience(context: Any, user: str, audience: str) -> None:
    """Given the token of "alice" is for the audience "{resource}.evil"  ({resource}: the server's URL)"""
    _spoil(context, user, f"was issued for the audience {audience!r}", audience=audience)


@given('the token of "{user:Text}" was issued by "{issuer:Text}"')
def token_issued_by(context: Any, user: str, issuer: str) -> None:
    """Given the token of "alice" was issued by "https://login.evil.example\""""
    _spoil(context, user, f"was issued by {issuer!r}", issuer=issuer)


@given('the token of "{user:Text}" is signed by an unknown key')
def token_unknown_key(context: Any, user: str) -> None:
    """Given the token of "alice" is signed by an unknown key  (one the JWKS never published, under its key id)"""
    _spoil(context, user, "was signed by a key the authorization server never published", signing="stranger")


@given('the token of "{user:Text}" is unsigned')
def token_unsigned(context: Any, user: str) -> None:
    """Given the token of "alice" is unsigned  (alg none)"""
    _spoil(context, user, "was unsigned (alg none)", signing="none")


@given('the token of "{user:Text}" is signed with the public key as an HMAC secret')
def token_hmac_public_key(context: Any, user: str) -> None:
    """Given the token of "alice" is signed with the public key as an HMAC secret  (HS256 keyed with the JWKS key)"""
    flaw = "was forged with HS256, keyed with the published public key (algorithm confusion)"
    _spoil(context, user, flaw, signing="hmac-public-key")


@given('the token of "{user:Text}" is {n:d} kilobytes long')
def token_huge(context: Any, user: str, n: int) -> None:
    """Given the token of "alice" is 10 kilobytes long  (validly signed, larger than any real token)"""
    padding = max(0, (n * 1024 - 700) * 3 // 4)  # base64 grows it by 4/3; the rest of a token is ~700 bytes
    _spoil(context, user, f"was {n} kilobytes long", padding=padding)


@when('the client calls "{tool:Text}" without a token')
def calls_without_token(context: Any, tool: str) -> None:
    """When the client calls "list_notes" without a token"""
    w = _over_http(context)
    if w is not None:
        with w.authorization.withholding(w.caller):
            w.call_tool(tool)


@when('"{user:Text}" is granted the scope "{scope:Text}" and retries')
def granted_and_retries(context: Any, user: str, scope: str) -> None:
    """When "alice" is granted the scope "notes:write" and retries  (a new token, the last call again)"""
    w = _over_http(context)
    if w is not None:
        with spec_errors(context):
            w.authorization.grant(w.directory.user(user), scope)
        w.send(w.last.call, as_user=user)


@then("the call is refused as unauthenticated")
def refused_unauthenticated(context: Any) -> None:
    """Then the call is refused as unauthenticated  (401, WWW-Authenticate naming the resource metadata)"""
    from mcpbdd.checks import authorization as check

    w = _over_http(context)
    if w is not None:
        last = w.last
        caller = w.directory.users.get(w.trace.exchanges[-1].caller or "") if len(w.trace) else None
        resource = w.authorization.resource or ""
        check.refused_as_unauthenticated(last, resource, w.authorization.what_was_sent(caller))


@then('the call is refused for lack of the scope "{scope:Text}"')
def refused_for_scope(context: Any, scope: str) -> None:
    """Then the call is refused for lack of the scope "notes:write"  (403 insufficient_scope naming it)"""
    from mcpbdd.checks import authorization as check

    w = _over_http(context)
    if w is not None:
        check.refused_for_scope(w.last, scope)


@then("the server describes its protection with:")
def describes_protection(context: Any) -> None:
    """Then the server describes its protection with: (JSON: the RFC 9728 metadata; markers allowed)"""
    from mcpbdd.checks import authorization as check

    expected = json_doc_string(context)
    w = _over_http(context)
    if w is not None:
        with spec_errors(context):
            issuer = w.authorization.issuer
        resource = w.authorization.resource or w.server_url()
        check.protection_described(check.fetch_metadata(resource), resource, issuer, expected)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
