"""Every server-side MUST and SHOULD of the specification, and what checks it: a pack check, the official suite, or
nothing, with the reason written next to it (`mcpbdd conformance --requirements`, and the docs site's table).

The requirements are the specification's own sentences (`requirements.json`, extracted from its pages by
`requirements_extract`, which records the commits it read). What covers each is said here, once:

- a pack check covers a requirement when `PACK` names the requirement's section and words (a rule per check,
  written against the sentence it checks, so a sentence that moves or changes falls out of coverage visibly);
- the official suite covers one when a check of its server scenarios cites the requirement's section (its spec
  links, extracted with the sentences): a section cited, which is looser than a sentence checked, and said so;
- any other requirement gets its page's reason (`REASONS`): why no client-side check can observe it, or which
  part of mcpbdd specifies it instead. Every page has one, so no requirement is "nothing" without a reason.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpbdd._text import markdown_text

__all__ = ["DATA", "PACK", "REASONS", "Requirement", "render", "requirements"]

DATA = Path(__file__).with_name("requirements.json")

PACK: tuple[tuple[str, str, str], ...] = (
    (r"server/tools#tool/", r"JSON Schema", "tool-schemas"),
    (r"server/tools#tool-names/", r".", "tool-names"),
    (r"server/tools#output-schema/", r"conform", "structured-results"),
    (r"server/tools#security-considerations/", r"Validate all tool inputs", "invalid-arguments"),
    (r"server/tools#security-considerations/", r"Validate all tool inputs", "form-payloads"),
    (r"server/tools#security-considerations/", r"Sanitize tool outputs", "error-texts-leak-nothing"),
    (r"server/(tools|resources|prompts)#(capabilities|listing-\w+)/", r"respond to", "capabilities-served"),
    (r"server/resources#error-handling/", r".", "unknown-resource"),
    (r"server/utilities/pagination#", r"cursor", "pagination"),
    (r"server/utilities/pagination#", r"[Ii]nvalid cursor|-32602", "bad-cursor"),
    (r"server/utilities/caching#(cacheable-results|time-to-live-ttl-field|cache-scope-field)/", r".", "caching-hints"),
    (
        r"basic/patterns/mrtr#server-requirements",
        r"requestState|state that fails verification",
        "tampered-request-state",
    ),
    (r"basic/(index|patterns/mrtr)#", r"resultType", "result-type"),
    (
        r"basic/index#(messages|result-responses|error-responses|notifications)/",
        r"JSON-RPC 2\.0 spec|same ID|a `result` field|an `error` field|codes MUST be integers|MUST NOT send a response",
        "jsonrpc-messages",
    ),
    (r"basic/index#meta/", r"missing any required field", "jsonrpc-messages"),
    (r"basic/transports(#stdio|/stdio#)/", r"MUST NOT write anything to its `stdout`", "jsonrpc-messages"),
    (r"basic/index#error-codes/", r"MUST NOT emit any code|SHOULD be allocated outside", "error-channels"),
    (r"basic/index#error-codes/", r"`-32002`", "unknown-resource"),
    (r"basic/index#schema-validation/", r"Schemas MUST be valid", "tool-schemas"),
    (r"basic/lifecycle#version-negotiation/", r"the server MUST respond with", "version-negotiation"),
    (r"basic/versioning#protocol-version-negotiation/", r"server/discover", "server-discover"),
    (r"server/discover#/", r"MUST implement it", "server-discover"),
    (
        r"basic/authorization(/index)?#(overview|authorization-server-location|authorization-server-discovery|"
        r"protected-resource-metadata-discovery-requirements)/",
        r"Protected Resource Metadata|`authorization_servers`|WWW-Authenticate Header|Well-Known URI|This can be "
        r"either|At the path|At the root|normative discovery requirements",
        "protected-resource-metadata",
    ),
    (r"basic/authorization(/index)?#token-handling/", r"Invalid or expired tokens", "protected-resource-metadata"),
)
"""(requirement id pattern, sentence pattern, pack check): the pack check checks the sentence. `unknown-tool` and
`error-channels` check the tools page's error-handling section, which states no MUST or SHOULD (it describes the
two channels), so they trace no sentence here; on 2026-07-28 `error-channels` traces the reserved error codes."""

_ALIASES = {
    "basic/transports/streamable-http": "basic/transports",
    "basic/transports/index": "basic/transports",
    "basic/patterns/mrtr": "basic/utilities/mrtr",
    "basic/patterns/cancellation": "basic/utilities/cancellation",
    "basic/patterns/progress": "basic/utilities/progress",
    "basic/authorization/index": "basic/authorization",
}
"""2026-07-28 pages under the names the official suite's links use (its links cite the draft's older paths)."""

REASONS: dict[str, str] = {
    "basic/authorization": "authorization that needs a real token (signatures, audiences, expiry, scopes, "
    "passthrough) or concerns the client and the authorization server (registration, redirect URIs, PKCE): not "
    "observable without an authorization server; mcpbdd's authorization steps specify the server's side against "
    "its own verifier (the Authorization guide); protected-resource-metadata checks what a client without a token "
    "sees",
    "basic/authorization#protected-resource-metadata-discovery-requirements": "the scopes a 401 SHOULD name, and "
    "how consistently: not checked by the pack (protected-resource-metadata checks the rest of the section)",
    "basic/authorization/index#protected-resource-metadata-discovery-requirements": "the scopes a 401 SHOULD name, "
    "and how consistently: not checked by the pack (protected-resource-metadata checks the rest of the section)",
    "basic/index": "the base protocol's summary and its rules for other parties: each rule of the page a server "
    "keeps is traced by its own section",
    "basic/index#requests": "the ids of requests the server sends (sampling, elicitation, roots): no pack check "
    "receives a server request; jsonrpc-messages checks the ids of the server's answers",
    "basic/index#notifications": "a notification of the server carrying an id: the SDK's transport decodes such a "
    "message as a request, so no client can tell it from one",
    "basic/index#resulttype": "which result types a server supports beyond the core ones: result-type checks "
    "that every result names one",
    "basic/index#error-codes": "rules for the specification's authors and for receivers (which codes are allocated, "
    "what a client may assume), and -32042 (2025-11-25 only, sent when a tool needs a URL answered): no pack call "
    "asks for one",
    "basic/index#statelessness": "statelessness across connections: the official suite's server-stateless "
    "scenario checks it at a URL (--official); each pack check runs on its own connections",
    "basic/index#auth": "authorization: its own page carries the rules",
    "basic/index#schema-dialect": "which JSON Schema dialects a server's validator supports: invisible from a "
    "client, which sees only the schemas (tool-schemas) and the refusals of arguments breaking them "
    "(invalid-arguments)",
    "basic/index#implementation-requirements": "how a server validates with the dialects it supports: invisible "
    "from a client beyond tool-schemas (the published schemas) and invalid-arguments (the refusals)",
    "basic/index#ref-resolution": "whether a server's validator dereferences a network `$ref`: not observable "
    "without a schema that names one, which the pack does not send",
    "basic/index#composition-keyword-resource-use": "bounds inside a server's validator: not observable without "
    "sending schemas, which a client does not",
    "basic/index#meta": "`_meta` key naming (what a key may look like, what either party must not assume of "
    "one), HTTP statuses (the official suite's http-header-validation checks them at a URL) and client "
    "capabilities a request would need (no generic call needs one): not checked by the pack; jsonrpc-messages "
    "checks that a request missing a required field is -32602",
    "basic/index#icons": "icons: rules for the party that fetches and renders an icon (a client), not for the "
    "server that names it",
    "basic/lifecycle": "the initialize handshake: every 2025-11-25 check opens a session with it (a server that "
    "breaks it fails every check); the official suite's lifecycle scenario checks it at a URL",
    "basic/transports": "the transports' framing and HTTP mechanics (statuses, SSE streams, resumption, headers, "
    "stdin and stderr): the SDK's transports carry the pack's messages rather than examine them; the official "
    "suite's http-header-validation, dns-rebinding-protection and server-stateless scenarios check parts of HTTP "
    "at a URL (--official), and the sections they cite are traced to them",
    "basic/transports/streamable-http#schema-extension": "x-mcp-header annotations in a tool's inputSchema: not "
    "yet checked by the pack (tools/list shows them; tool-schemas checks the schemas are valid JSON Schema)",
    "basic/utilities/cancellation": "cancellation: the cancellation steps specify it per tool (a scenario names the "
    "call to cancel); the pack cannot tell which generic call would run long enough to cancel",
    "basic/patterns/cancellation": "cancellation: the cancellation steps specify it per tool (a scenario names the "
    "call to cancel); the pack cannot tell which generic call would run long enough to cancel",
    "basic/utilities/progress": "progress: the progress steps specify it per tool; a generic call need not report any",
    "basic/patterns/progress": "progress: the progress steps specify it per tool; a generic call need not report any",
    "basic/utilities/ping": "ping: not checked by the pack (the official suite's utils scenario pings)",
    "basic/utilities/tasks": "tasks (experimental on 2025-11-25): the SDK's client does not drive them; no pack check",
    "basic/patterns/mrtr": "input rounds: the input-required steps specify them per tool (which answer, which "
    "question); the pack checks only what holds for any asking tool (a tampered state)",
    "basic/patterns/subscriptions": "subscriptions: the listen steps specify them (a scenario says what should be "
    "announced after which call); the pack cannot tell what a server will announce",
    "basic/patterns/index": "patterns overview: each pattern's page carries its rules",
    "basic/versioning": "extensions: which a server offers and how it falls back depends on the extension; no "
    "generic check can name one to negotiate",
    "basic/versioning#backward-compatibility-with-initialization-based-versions": "a 2026-07-28-only server's "
    "answer to `initialize`: not yet checked by the pack (version-negotiation checks servers that speak 2025-11-25)",
    "server/tools": "tool behaviour that depends on what a tool does (access control, rate limits, annotations, "
    "notifications, x-mcp-header on HTTP): the project's own features specify it",
    "server/resources": "resource contents and subscriptions depend on the server's data: the resource steps "
    "specify them; URI validation is reached only through templates the pack fills with unknown ids",
    "server/prompts": "prompt contents depend on the server: the prompt steps specify them; the pack reads prompt "
    "errors for leaks only",
    "server/utilities/pagination": "a rule for the requests a client sends (the page's sentence names no server)",
    "server/utilities/caching": "caching semantics beyond the hints being present (shared caches, invalidation)",
    "server/utilities/completion": "completions: the completion steps specify them per argument; no pack check",
    "server/utilities/logging": "log levels and notifications: the logging steps specify them; the pack reads log "
    "messages only for leaks",
    "server/discover": "a rule for clients (when to call server/discover)",
    "server/discover#discoverresult": "the optional DiscoverResult field the sentence names: not yet checked by "
    "server-discover, which checks the required ones",
}
"""Each page's (or section's: `page#anchor`) reason for a requirement no check covers; the longest matching key
wins."""


@dataclass(frozen=True)
class Requirement:
    """One server-side MUST or SHOULD of one era, and what checks it."""

    era: str
    id: str
    level: str
    text: str
    pack: tuple[str, ...]
    official: tuple[str, ...]
    reason: str | None

    @property
    def page(self) -> str:
        return self.id.split("#", 1)[0]

    @property
    def url(self) -> str:
        page, _, rest = self.id.partition("#")
        anchor = rest.rpartition("/")[0]
        return f"https://modelcontextprotocol.io/specification/{self.era}/{page}" + (f"#{anchor}" if anchor else "")

    @property
    def covered_by(self) -> str:
        parts = [f"pack: {', '.join(self.pack)}"] if self.pack else []
        parts += [f"official (cites the section): {', '.join(self.official)}"] if self.official else []
        return "; ".join(parts) or "nothing"


@functools.cache
def _data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return loaded


def _reason(ident: str) -> str:
    """The reason of the longest key naming the requirement's page (or a parent page) or its section."""
    page = ident.partition("#")[0]
    matches = [key for key in REASONS if page == key or ident.startswith((key + "/", key + "#"))]
    if not matches:
        raise LookupError(f"no reason written for the page {page!r}: add it to REASONS")
    return REASONS[max(matches, key=len)]


def _official(page: str, anchor: str, cited: dict[str, list[str]]) -> tuple[str, ...]:
    name = _ALIASES.get(page, page)
    found = cited.get(f"{name}#{anchor}", []) + cited.get(name, [])
    return tuple(dict.fromkeys(found))


def requirements(era: str | None = None) -> list[Requirement]:
    """Every requirement (of `era`, or of both), each with what covers it."""
    data = _data()
    found: list[Requirement] = []
    for name, items in data["eras"].items():
        if era is not None and name != era:
            continue
        for item in items:
            ident, text = item["id"], item["text"]
            page, _, rest = ident.partition("#")
            pack = tuple(check for where, words, check in PACK if re.match(where, ident) and re.search(words, text))
            official = _official(page, rest.rpartition("/")[0], data["official"])
            reason = None if pack or official else _reason(ident)
            found.append(Requirement(name, ident, item["level"], text, pack, official, reason))
    return found


def render(era: str | None = None, markdown: bool = False) -> str:
    """The table: a row per requirement (era, anchor, level, what covers it or why nothing does, the sentence)."""
    rows = requirements(era)
    source = _data()["source"]
    counts = {
        level: (sum(r.level == level for r in rows), sum(r.level == level and bool(r.pack) for r in rows))
        for level in ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT")
    }
    summary = ", ".join(f"{level}: {n} ({p} by the pack)" for level, (n, p) in counts.items())
    head = [
        f"Server-side requirements of the MCP specification ({summary}), from {source['specification']}; the "
        f"official suite's citations from {source['official']}.",
        "",
    ]
    if markdown:
        lines = [*head, "| era | requirement | level | covered by | sentence (cut) |", "|---|---|---|---|---|"]
        for r in rows:
            covered = r.covered_by if r.reason is None else f"nothing: {r.reason}"
            # The spec's own Markdown (links, code, emphasis) is remote text here: written literally, never as markup.
            text, covered = markdown_text(r.text), covered.replace("|", "\\|")
            lines.append(f"| {r.era} | [{r.id}]({r.url}) | {r.level} | {covered} | {text} |")
        return "\n".join(lines) + "\n"
    lines = head
    for r in rows:
        covered = r.covered_by if r.reason is None else f"nothing: {r.reason}"
        lines += [f"{r.era}  {r.level:<10} {r.id}", f"    {r.text}", f"    covered by {covered}"]
    return "\n".join(lines) + "\n"
