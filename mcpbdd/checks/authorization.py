"""The checks behind the authorization phrases: what a client must see at a protected server's edge.

Each failure says what the server did and why it is wrong, naming the flaw of the token it
let through (or the status it should have sent), so a failed scenario reads as a finding:
"the server accepted the token of alice, which was unsigned (alg none)".

- unauthenticated: 401, with `WWW-Authenticate: Bearer ... resource_metadata="<URL>"` where
  the URL is the RFC 9728 metadata URL of the server's resource (`/.well-known/oauth-protected-resource/mcp`);
- for lack of a scope: 403 with `error="insufficient_scope"` and the scope named in `scope="..."`;
- the protection described: the metadata document's `resource` is the server's URL and its
  `authorization_servers` include the run's fake one, then the scenario's JSON (markers allowed).
"""

from __future__ import annotations

from typing import Any

import httpx
from mcp.server.auth.routes import build_resource_metadata_url
from pydantic import AnyHttpUrl

from mcpbdd.model.matching import assert_contains
from mcpbdd.model.outcome import Outcome

__all__ = ["fetch_metadata", "metadata_url", "protection_described", "refused_as_unauthenticated", "refused_for_scope"]


def metadata_url(resource: str) -> str:
    """Where RFC 9728 puts the protected-resource metadata of `resource` (path appended to the well-known one)."""
    return str(build_resource_metadata_url(AnyHttpUrl(resource)))


def _let_through(outcome: Outcome, sent: str, why: str) -> AssertionError:
    who = outcome.caller or "the caller"
    return AssertionError(
        f"the server answered {outcome.call} of {who}, which carried {sent}: {why} "
        f"(the call ended {outcome.channel.value}{': ' + outcome.failure if outcome.failure else ''})"
    )


def refused_as_unauthenticated(outcome: Outcome, resource: str, sent: str) -> None:
    """`outcome` is a 401 naming the protected-resource metadata of `resource`; `sent`: what the request carried
    ("no token at all", "a token that was unsigned (alg none)", "a valid token")."""
    answer = outcome.http
    if answer is None:
        raise _let_through(
            outcome, sent, "a protected server must refuse it with HTTP 401 and a WWW-Authenticate challenge"
        )
    if answer.status == 403 and sent != "a valid token":
        raise AssertionError(
            f"the server answered 403 where 401 is due ({answer}): the request carried {sent}, so the caller is "
            "not authenticated; 403 tells a client its valid token lacks a scope, so it would not get a new token"
        )
    if answer.status != 401:
        raise AssertionError(f"expected HTTP 401 (unauthenticated), the server answered {answer}")
    expected = metadata_url(resource)
    named = answer.params.get("resource_metadata")
    if named != expected:
        got = f"names {named!r}" if named else "names no resource_metadata"
        raise AssertionError(
            f"the 401's WWW-Authenticate {got} ({answer.challenge or 'no header'}); it must name the "
            f"protected-resource metadata {expected!r} (RFC 9728 section 5.1), where a client learns "
            "which authorization server issues tokens for this server"
        )


def refused_for_scope(outcome: Outcome, scope: str) -> None:
    """`outcome` is a 403 `insufficient_scope` that names `scope`."""
    answer = outcome.http
    if answer is None:
        who = outcome.caller or "the caller"
        raise AssertionError(
            f"expected HTTP 403 insufficient_scope naming {scope!r}, but the server answered {outcome.call} of "
            f"{who} (the call ended {outcome.channel.value}): a token without that scope must not reach the tool"
        )
    if answer.status != 403:
        raise AssertionError(f"expected HTTP 403 insufficient_scope naming {scope!r}, the server answered {answer}")
    params = answer.params
    if params.get("error") != "insufficient_scope":
        raise AssertionError(f'the 403\'s WWW-Authenticate must say error="insufficient_scope": {answer}')
    if scope not in params.get("scope", "").split():
        raise AssertionError(
            f'the 403\'s WWW-Authenticate must name the scope {scope!r} in scope="..." (so a client can ask for '
            f"it): {answer}"
        )


def fetch_metadata(resource: str) -> dict[str, Any]:
    """The protected-resource metadata the server at `resource` serves (an AssertionError when it serves none)."""
    url = metadata_url(resource)
    try:
        response = httpx.get(url, timeout=10.0, trust_env=False)  # loopback: never through a proxy
    except httpx.HTTPError as exc:
        raise AssertionError(f"the protected-resource metadata at {url} cannot be read: {exc}") from None
    if response.status_code != 200:
        raise AssertionError(f"the server serves no protected-resource metadata at {url} (HTTP {response.status_code})")
    try:
        document = response.json()
    except ValueError:
        raise AssertionError(f"the protected-resource metadata at {url} is not JSON: {response.text[:200]!r}") from None
    if not isinstance(document, dict):
        raise AssertionError(f"the protected-resource metadata at {url} is not a JSON object: {document!r}")
    return document


def protection_described(document: dict[str, Any], resource: str, issuer: str, expected: Any) -> None:
    """RFC 9728: `resource` is the server's URL, the run's issuer is an authorization server, then `expected`."""
    if document.get("resource") != resource:
        raise AssertionError(
            f"the protected-resource metadata says resource {document.get('resource')!r}; it must be the server's "
            f"URL {resource!r} exactly (RFC 9728 section 3.3: a client refuses metadata for another resource)"
        )
    servers = document.get("authorization_servers")
    if not isinstance(servers, list) or issuer not in servers:
        raise AssertionError(
            f"the protected-resource metadata lists the authorization servers {servers!r}, without {issuer!r}, "
            "the one that issues this scenario's tokens: a client would not know where to get one"
        )
    assert_contains(expected, document, what="protected-resource metadata")
