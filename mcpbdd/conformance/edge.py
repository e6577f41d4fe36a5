"""`protected-resource-metadata`: what a client without a token sees at a protected server's HTTP edge.

A server reached over HTTP that requires authorization tells a client where to get a token: a 401 whose
`WWW-Authenticate` names the RFC 9728 protected-resource metadata document (or that document at its
well-known URI), and the document names the authorization servers. A client sees all of it without any
authorization server of its own, so the pack checks it; whether the tokens it would get are validated
properly (audience, expiry, scopes) needs one, and the authorization steps specify that.

Over stdio and in process there is no HTTP edge (a stdio server takes its credentials from the
environment): not applicable, saying so. A server that answers a request without a token does not
require authorization, which the spec leaves to it: not applicable either, never passed.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import httpx2

from mcpbdd.conformance.probe import Probe
from mcpbdd.conformance.registry import ConformanceFailure, NotApplicable, check

__all__ = ["FORGED_TOKEN", "MAX_DOCUMENT", "metadata_urls"]

FORGED_TOKEN = "mcpbdd-conformance-not-a-token"
"""A bearer token no server issued: it must be refused with 401 like no token at all."""

MAX_DOCUMENT = 64 * 1024
"""Bytes read of an answer (the metadata document, a 401's body) before the server is judged to flood."""

_HTTP_KINDS = ("http", "http-command")
_REACHED = {"inprocess": "in process", "stdio": "over stdio"}
_PARAMETER = re.compile(r'(?P<name>[A-Za-z_]+)\s*=\s*(?:"(?P<quoted>[^"]*)"|(?P<bare>[^\s,]+))')
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "mcpbdd-edge",
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpbdd", "version": "1"}},
}


def metadata_urls(endpoint: str) -> list[str]:
    """RFC 9728's well-known URIs for the resource `endpoint`: under its path first, then at the root."""
    parts = urlsplit(endpoint)
    path = parts.path.rstrip("/")
    found = [f"/.well-known/oauth-protected-resource{path}"] if path else []
    found.append("/.well-known/oauth-protected-resource")
    return [urlunsplit((parts.scheme, parts.netloc, p, "", "")) for p in found]


def _challenge_parameters(header: str) -> dict[str, str]:
    return {
        m["name"].lower(): m["quoted"] if m["quoted"] is not None else m["bare"] for m in _PARAMETER.finditer(header)
    }


async def _refusal(url: str, deadline: float | None) -> str | None:
    """Why the pack will not fetch `url`, a URL the server named: its host is (or resolves to) an address no
    resource's metadata lives at, where a fetch would reach the pack's own machine's network instead (a cloud's
    instance metadata at 169.254.169.254 hands out credentials). None when it may be fetched."""
    host = urlsplit(url).hostname or ""
    try:
        addresses = {ipaddress.ip_address(host)}
    except ValueError:
        try:
            with anyio.fail_after(deadline):
                found = await anyio.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
        except TimeoutError:
            return f"{host} did not resolve within {deadline or 0:g} s"
        except OSError:
            return None  # unresolvable: the GET fails and says so
        addresses = {ipaddress.ip_address(str(entry[4][0]).split("%")[0]) for entry in found}
    for address in addresses:
        mapped = getattr(address, "ipv4_mapped", None) or address
        if mapped.is_loopback:
            continue  # ::1 is in IPv6's reserved ::/8; a server on this machine names this machine
        for kind in ("link_local", "multicast", "unspecified", "reserved"):
            if getattr(mapped, f"is_{kind}"):
                return f"{mapped} is {'an' if kind[0] in 'aeiou' else 'a'} {kind.replace('_', '-')} address" + (
                    f" ({host} resolves to it)" if str(mapped) != host else ""
                )
    return None


async def _read(response: httpx2.Response, what: str) -> bytes:
    """The body, at most `MAX_DOCUMENT` bytes (joined once: no quadratic re-joining of a trickle)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_DOCUMENT:
            raise ConformanceFailure(f"{what}: the answer is over {MAX_DOCUMENT} bytes (flood)")
        chunks.append(chunk)
    return b"".join(chunks)


async def _exchange(client: httpx2.AsyncClient, method: str, url: str, **sent: Any) -> tuple[httpx2.Response, bytes]:
    """One request and its whole answer within the call timeout (httpx's own bounds each read, and a server
    dripping a byte a second keeps every read short)."""
    deadline = client.timeout.read
    try:
        with anyio.fail_after(deadline):
            async with client.stream(method, url, **sent) as response:
                return response, await _read(response, f"{method} {url}")
    except TimeoutError:
        raise ConformanceFailure(f"{method} {url}: no complete answer within {deadline or 0:g} s") from None


async def _post(client: httpx2.AsyncClient, url: str, token: str | None) -> httpx2.Response:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    response, _ = await _exchange(client, "POST", url, json=_INITIALIZE, headers=headers)
    return response


async def _document(client: httpx2.AsyncClient, url: str, named: bool) -> tuple[int, Any]:
    """(status, the JSON it holds or None) of a GET of a metadata URL (`named`: by the server, not derived from
    the endpoint the user gave)."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise ConformanceFailure(f"the protected-resource metadata URL {url!r} is not an http(s) URL")
    refused = await _refusal(url, client.timeout.read) if named else None
    if refused is not None:
        raise ConformanceFailure(
            f"the protected-resource metadata URL {url!r} the server named is refused: {refused}, where no "
            "resource's metadata lives (fetching it would reach the network of the machine running the pack)"
        )
    response, body = await _exchange(client, "GET", url, headers={"accept": "application/json"})
    try:
        return response.status_code, json.loads(body)
    except ValueError:
        return response.status_code, None


@check(
    "protected-resource-metadata",
    sends="Over HTTP only, without the pack's caller: a POST of `initialize` to the MCP endpoint with no "
    f"`Authorization` header, one with the bearer token `{FORGED_TOKEN}`, and a GET of the protected-resource "
    "metadata document (the URL the 401 names, else RFC 9728's well-known URIs for the endpoint). Redirects are "
    f"not followed; each answer is read up to {MAX_DOCUMENT // 1024} KiB, whole within the call timeout; a URL "
    "the 401 names at a link-local, multicast, unspecified or reserved address (169.254.169.254) is refused "
    "unfetched.",
    blind="Everything a real token would show: whether the server validates signatures, audiences, expiry and "
    "scopes (the authorization steps specify that against the server's verifier), the authorization server's own "
    "metadata, and the `scope` the 401 SHOULD name. Not applicable over stdio and in process (no HTTP edge), nor "
    "on a server that answers a request without a token.",
    title="A protected HTTP server says where to get a token, and refuses a token it never issued",
    section="authorization",
    url="https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-location",
    rule="A server over HTTP that requires authorization MUST implement RFC 9728 protected-resource metadata: "
    "a request without a token is answered 401 with `WWW-Authenticate: Bearer` naming `resource_metadata`, or the "
    "document is served at its well-known URI; the document is a JSON object whose `authorization_servers` names "
    "at least one authorization server. An invalid token MUST be answered 401 too.",
    fix='Answer 401 with `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"` and serve the document '
    "(`resource`, `authorization_servers`) at `/.well-known/oauth-protected-resource<endpoint path>`: the SDK's "
    "`AuthSettings` does both, and `mcpbdd.kit.protected.protect` wraps any Starlette app so.",
)
async def protected_resource_metadata(probe: Probe) -> None:
    connector = probe.harness.connector
    if connector.kind not in _HTTP_KINDS:
        raise NotApplicable(
            f"protected-resource-metadata checks an HTTP edge and this server is reached "
            f"{_REACHED.get(connector.kind, connector.kind)}, where there is none (a server over stdio takes its "
            "credentials from the environment)"
        )
    endpoint = str(getattr(connector, "url"))  # noqa: B009 - both HTTP connectors have it, the Protocol does not
    async with httpx2.AsyncClient(timeout=probe.harness.timeout, follow_redirects=False) as client:
        try:
            await _judge(client, endpoint)
        except httpx2.HTTPError as exc:
            raise ConformanceFailure(f"{endpoint}: {type(exc).__name__}: {exc}") from None


async def _judge(client: httpx2.AsyncClient, endpoint: str) -> None:
    anonymous = await _post(client, endpoint, None)
    if anonymous.status_code != 401:
        raise NotApplicable(
            f"the server answered initialize without a token with {anonymous.status_code}: it does not require "
            "authorization (the spec leaves that to it), so it has no protected resource to describe"
        )
    challenge = anonymous.headers.get("www-authenticate", "")
    problems = []
    if not challenge.lower().startswith("bearer"):
        problems.append(f"the 401 without a token has WWW-Authenticate {challenge!r}, not a Bearer challenge")
    named = _challenge_parameters(challenge).get("resource_metadata")
    tried = [named] if named else metadata_urls(endpoint)
    found: tuple[str, Any] | None = None
    for url in tried:
        status, document = await _document(client, url, named=bool(named))
        if status == 200:
            found = (url, document)
            break
    if found is None:
        where = f"the resource_metadata {named!r} its 401 names" if named else "neither its 401 nor " + ", ".join(tried)
        problems.append(f"no protected-resource metadata: {where} serves a document (200)")
    else:
        problems += _document_problems(*found)
    forged = await _post(client, endpoint, FORGED_TOKEN)
    if forged.status_code != 401:
        problems.append(f"initialize with a bearer token nobody issued was answered {forged.status_code}, not 401")
    if problems:
        raise ConformanceFailure(f"POST {endpoint}: " + "; ".join(problems))


def _document_problems(url: str, document: Any) -> list[str]:
    if not isinstance(document, dict):
        return [f"the metadata at {url} is not a JSON object"]
    servers = document.get("authorization_servers")
    problems = []
    if not isinstance(servers, list) or not servers or not all(isinstance(s, str) and s for s in servers):
        problems.append(f"the metadata at {url} has authorization_servers {servers!r}, not a list naming one at least")
    if not isinstance(document.get("resource"), str):
        problems.append(f"the metadata at {url} has no resource")
    return problems
