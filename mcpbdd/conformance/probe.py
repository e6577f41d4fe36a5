"""What a conformance check reaches the server through: one client session, its listings, its calls.

A check needs the wire as a client sees it: the server's declared capabilities, every page of
each list as it came (which fields were sent, not the model's defaults), and calls classified
into Outcomes exactly as the scenarios' are (`harness.send`). So the pack runs on the client
harness (in-process, stdio or HTTP, on either era); the context harness has no wire to check.
Listings are cached for the probe's life, so the checks of one scenario list once.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp import Client
from mcp_types import ServerCapabilities, Tool
from pydantic import ValidationError

from mcpbdd.checks.generated.paths import server_paths
from mcpbdd.checks.generated.verdicts import TIMEOUT_PREFIX, Rules
from mcpbdd.checks.schema import minimal
from mcpbdd.conformance.registry import REFUSED_CALLER, CallerRefused, ConformanceFailure
from mcpbdd.harness.base import CLIENT_REFUSED, bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.kit.principals import Principal, acting_as, caller_label
from mcpbdd.model.outcome import Call, Channel, Outcome

__all__ = [
    "LISTS",
    "MAX_PAGES",
    "TOOL_NAME",
    "Page",
    "Probe",
    "ServerLost",
    "caller_refusal",
    "minimal_arguments",
    "unused_name",
]

MAX_PAGES = 100
"""Pages followed per list before the listing is judged endless (a cursor that never runs out)."""

LISTS = ("tools", "resources", "templates", "prompts")
"""The lists a server may serve, by the capability that declares them (templates: `resources`)."""

_CAPABILITY = {"tools": "tools", "resources": "resources", "templates": "resources", "prompts": "prompts"}
_METHOD = {
    "tools": "tools/list",
    "resources": "resources/list",
    "templates": "resources/templates/list",
    "prompts": "prompts/list",
}


class ServerLost(ConformanceFailure):
    """A call ended the server or got no answer in time: the check stops at that call and names it.

    The calls after it would only meet a closed connection (or wait out the timeout each), so the check's
    verdict is this one call; the next check runs against a fresh server (`mcpbdd conformance` starts one
    per check).
    """


_REFUSES_CALLER = re.compile(
    r"\b(?:unauthori[sz]ed|unauthenticated|not authenticated|authentication required|forbidden|permission denied|"
    r"access denied|insufficient[_ ]scope|not allowed for this (?:user|caller|tenant)|sign in|log ?in required|"
    r"no (?:access )?token|missing (?:access )?token|invalid token)\b",
    re.IGNORECASE,
)


def caller_refusal(outcome: Outcome) -> str | None:
    """Why the answer is a refusal of the caller rather than of the call (a 401/403 at the edge, or an error whose
    text says so), or None. A check cannot judge a tool it never got to run: it reports the refusal instead."""
    if outcome.http is not None and outcome.http.status in (401, 403):
        return f"{outcome.call}: {outcome.http}"
    if outcome.channel in (Channel.TOOL_ERROR, Channel.PROTOCOL_ERROR):
        message = outcome.error.message if outcome.error is not None else outcome.text
        if _REFUSES_CALLER.search(message or ""):
            return f"{outcome.call}: {message.strip()[:160]!r}"
    return None


@dataclass(frozen=True)
class Page:
    """One page of a list as it came: its items, its cursor and the fields the server actually sent."""

    method: str
    items: list[Any]
    next_cursor: str | None
    sent: frozenset[str]
    """The result's fields present on the wire (`ttl_ms`, `cache_scope`, `result_type`, ...)."""
    meta: dict[str, Any] | None = None
    """The result's `_meta`, as it came."""


class Probe:
    """One scenario's way to the server for the conformance checks (a `ClientHarness` and its caller)."""

    def __init__(
        self, harness: ClientHarness, caller: Principal | None, secrets: tuple[str, ...] = (), strict: bool = False
    ) -> None:
        self.harness = harness
        self.strict = strict
        """Whether a SHOULD the server does not keep fails its check (`--strict`) rather than warns."""
        self.caller = caller
        self.secrets = tuple(s for s in secrets if s)
        self._pages: dict[str, list[Page]] = {}
        self._paths: Any = None
        self.refusals: list[str] = []
        """The caller refusals met so far (`caller_refusal`), in order: what `run_check` reports if nothing else."""

    @property
    def who(self) -> str:
        """Who the checks call as, as a failure or skip message says it."""
        return caller_label(self.caller)

    async def client(self) -> Client:
        """The caller's session; `CallerRefused` when a protected server refused to open it (401, 403)."""
        edge = getattr(self.harness.connector, "edge", None)
        try:
            return await self.harness.session(self.caller)  # bounded by the harness's start timeout
        except Exception:
            self._refused_at_edge("opening the session", edge)
            raise

    async def modern(self) -> bool:
        """Whether the session speaks 2026-07-28 (the SDK's auto mode), not the 2025-11-25 handshake."""
        return str((await self.client()).protocol_version) >= "2026"

    async def capabilities(self) -> ServerCapabilities:
        return (await self.client()).server_capabilities or ServerCapabilities()

    async def declares(self, name: str) -> bool:
        """Whether the server declared the capability that serves the list (or feature) `name`."""
        return getattr(await self.capabilities(), _CAPABILITY.get(name, name), None) is not None

    async def request(self, what: str, send: Callable[[], Awaitable[Any]]) -> Any:
        """One request bounded by the call timeout, sent as the probe's caller.

        A request refused at a protected server's HTTP edge (401, 403) raises `CallerRefused` saying so: a
        list the check could not read was never judged."""
        edge = getattr(self.harness.connector, "edge", None)  # an HTTP connector records 401s and 403s
        if edge is not None:
            edge.take(self.caller)

        async def acting() -> Any:
            with acting_as(self.caller, self.harness.tenant_claim):
                return await send()

        try:
            return await bounded(what, self.harness.timeout, acting())
        except Exception:
            self._refused_at_edge(what, edge)
            raise

    def _refused_at_edge(self, what: str, edge: Any) -> None:
        """Raise `CallerRefused` when the request `what` just failed because the HTTP edge refused the caller."""
        refusal = edge.take(self.caller) if edge is not None else None
        if refusal is None or refusal.status not in (401, 403):
            return
        self.refusals.append(f"{what}: {refusal}")
        raise CallerRefused(
            f"{REFUSED_CALLER} ({self.who}): {what}: {refusal}. Name a caller it accepts: mcpbdd conformance "
            "--user/--tenant/--scopes/--token, or [tool.mcpbdd.conformance]"
        ) from None

    async def page(self, name: str, cursor: str | None) -> Page:
        """One page of the list `name` (`tools`, `resources`, `templates`, `prompts`) from `cursor`."""
        client = await self.client()
        senders = {
            "tools": client.list_tools,
            "resources": client.list_resources,
            "templates": client.list_resource_templates,
            "prompts": client.list_prompts,
        }
        try:
            result = await self.request(_METHOD[name], lambda: senders[name](cursor=cursor))
        except ValidationError as exc:  # the SDK client cannot accept the answer: what a client sees of it
            fields = ", ".join(sorted({".".join(str(p) for p in error["loc"]) or "$" for error in exc.errors()}))
            raise ConformanceFailure(
                f"{_METHOD[name]}: the SDK's client refused the server's answer (missing or invalid: {fields})"
            ) from None
        field = {"templates": "resource_templates"}.get(name, name)
        sent = frozenset(result.model_fields_set)
        return Page(_METHOD[name], list(getattr(result, field)), result.next_cursor, sent, result.meta)

    async def pages(self, name: str) -> list[Page]:
        """Every page of the list `name`, followed cursor by cursor (at most `MAX_PAGES`)."""
        if name not in self._pages:
            pages = [await self.page(name, None)]
            while pages[-1].next_cursor and len(pages) < MAX_PAGES:
                pages.append(await self.page(name, pages[-1].next_cursor))
            self._pages[name] = pages
        return self._pages[name]

    async def items(self, name: str) -> list[Any]:
        """Everything the list `name` holds, or [] when the server does not declare it."""
        if not await self.declares(name):
            return []
        return [item for page in await self.pages(name) for item in page.items]

    async def tools(self) -> list[Tool]:
        return list(await self.items("tools"))

    async def send(self, call: Call) -> Outcome:
        """Make `call` as the probe's caller; `ServerLost` when the server ended or stalled on it.

        A refusal of the caller (`caller_refusal`) is remembered in `refusals`: the check's verdict says so."""
        outcome = await self.harness.send(self.caller, call)
        failure = outcome.failure or ""
        if (
            outcome.channel is Channel.TRANSPORT_FAILURE
            and outcome.http is None
            and not failure.startswith(CLIENT_REFUSED)
        ):
            arguments = call.arguments or {}
            if failure.startswith(TIMEOUT_PREFIX):
                if await self._alive():
                    return outcome  # a slow call, not a hung server: the check judges the answer it did not get
                raise ServerLost(
                    f"hang: {call} {arguments} as {self.who} got {failure}, and the server answers no ping since; "
                    "the check stops at this call"
                )
            raise ServerLost(
                f"the server stopped answering at {call} {arguments} as {self.who}: {failure} (a crash or an exit "
                "of the server's process: the check stops at this call)"
            )
        refusal = caller_refusal(outcome)
        if refusal is not None:
            self.refusals.append(refusal)
        return outcome

    async def _alive(self) -> bool:
        """Whether the server still answers a ping within the call timeout (after a call that got no answer)."""
        try:
            client = await self.client()
            await self.request("ping", client.send_ping)
        except Exception:
            return False
        return True

    def rules(self, tool: str) -> Rules:
        """What the leak verdict looks for in an answer about `tool` (the generated calls' rules)."""
        if self._paths is None:
            self._paths = server_paths(self.harness)
        return Rules(tool, self.secrets, self._paths)


def minimal_arguments(tool: Tool) -> dict[str, Any]:
    """Arguments the tool's input schema accepts: the required ones only, each its smallest value."""
    value = minimal(tool.input_schema)
    return value if isinstance(value, dict) else {}


def unused_name(names: list[str], stem: str) -> str:
    """A name none of `names` is: `stem`, or `stem-2`, `stem-3`, ..."""
    taken = set(names)
    candidate, number = stem, 1
    while candidate in taken:
        number += 1
        candidate = f"{stem}-{number}"
    return candidate


TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
"""SEP-986's tool names: 1 to 128 of ASCII letters, digits, `_`, `-` and `.`."""
