"""Consent gates: a destructive tool asks first, and proceeds only on a single-use, bound consent.

On the 2026-07-28 protocol a question and its answer are two separate requests, and the
SDK's sealed `request_state` can be replayed within its lifetime: retrying a confirmed
round runs the tool again. A gate that trusts "the answer says yes" can therefore be
replayed, by the same client or by anyone holding the state. This gate stores a record
when it asks and redeems it once:

1. Round 1 (no valid record): return an `InputRequiredResult` with one elicitation (key
   `confirm`, one required boolean `confirm`, a message naming the operation and its
   target); store `consent/<random id>` in the caller's tenant storage with a TTL read
   from the clock; do nothing else.
2. The record binds the caller (client id and subject), the tool, the operation, a
   digest of the arguments and a digest of what the question showed about the target.
3. Round 2: only `accept` with `confirm` exactly `true` against a matching, unexpired
   record lets the operation run, once; the record is deleted first.
4. An answer with no record, or an expired, malformed or foreign record (another caller,
   tool, operation or arguments) asks again and does nothing. So does an accept whose
   target changed since the question: the new question names the target as it is now.
5. Decline, cancel, `confirm: false` or a wrong type against the caller's own record end
   the call with a tool error whose reason is `consent_declined` (no new question).
6. Replaying a redeemed round asks again: the operation has run exactly once.
7. A pre-answered `accept` from a client that did not declare elicitation is ignored, so
   it cannot bypass the question.

Arguments alone do not say what the user agreed to: "delete n-1" asked about "Old plan"
must not delete whatever is stored under n-1 when the answer comes back. The tool passes
`shown`, which reads the target as it is now (`Shown`: how the question names it, and the
facts the user is agreeing about); the gate reads it when it asks and again when the answer
arrives, and a change asks again instead of acting.

On the 2025-11-25 protocol there is no request state to replay: the gate asks mid-call
(`ctx.elicit`) and the answer arrives inside the same request, after the user took their
time: the gate reads the target again then, and asks again (mid-call) if it changed.

    DELETE_CONSENT = ConsentGate("delete the note")

    @mcp.tool()
    async def delete_note(note_id: str, ctx: Context) -> Deleted | InputRequiredResult:
        async def shown() -> Shown:                 # the note as it is now (raises if it is gone)
            note = await find(note_id)
            return Shown(f'"{note.title}" ({note.id})', facts=note.model_dump(mode="json"))

        decision = await DELETE_CONSENT.check(ctx, storage, clock, arguments={"note_id": note_id}, shown=shown)
        if not decision.granted:
            return decision.response        # the question, or the consent_declined tool error
        ...                                 # runs once per consent, on the note the user was shown
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS, is_version_at_least
from pydantic import BaseModel, Field

from mcpbdd_kit.clock import Clock
from mcpbdd_kit.errors import Failure, tool_failure
from mcpbdd_kit.storage import StorageError, TenantStorage

CONSENT_KEY = "confirm"
"""The input-request key (and the form field) of every consent question."""

RECORD_PREFIX = "consent/"
DECLINED = Failure(
    "consent_declined",
    "The user did not give consent, so nothing was done.",
    hint="Ask the user again only if they change their mind.",
)
_FIRST_MODERN = MODERN_PROTOCOL_VERSIONS[0]
"""The first protocol version without mid-call requests: from it on, a question is an `InputRequiredResult`."""


class Confirmation(BaseModel):
    """The consent form of the older protocol era (one required boolean)."""

    confirm: bool = Field(description="Allow this operation?")


@dataclass(frozen=True)
class Decision:
    """What the gate decided: go ahead, or answer the call with `response` (a question or a refusal)."""

    granted: bool
    response: InputRequiredResult | CallToolResult | None = None


@dataclass(frozen=True)
class Shown:
    """What a consent question shows about its target, read from the target as it is now.

    A consent is given for what the user saw, not for whatever the arguments point at later:
    the gate binds both fields and asks again when either differs when the answer arrives.
    """

    target: str
    """How the question names the target: '"Old plan" (n-1)'."""
    facts: Any = None
    """What the user is agreeing about, JSON-able: the record itself, or its title, a body digest, a version."""


Look = Callable[[], Awaitable[Shown]]
"""Reads what the question shows about the target, as it is at the moment of the call."""


def _schema(operation: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {CONSENT_KEY: {"type": "boolean", "description": f"Allow the assistant to {operation}?"}},
        "required": [CONSENT_KEY],
    }


def _caller() -> dict[str, str | None]:
    token = get_access_token()
    return {"client_id": token.client_id if token else None, "subject": token.subject if token else None}


def _digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _shown_digest(shown: Shown) -> str:
    return _digest({"target": shown.target, "facts": shown.facts})


def _look(target: str | None, shown: Look | None) -> Look:
    """One way to read what the question shows: the tool's `shown`, or a fixed `target` phrase."""
    if shown is not None and target is None:
        return shown
    if target is None or shown is not None:
        raise TypeError("ConsentGate.check takes exactly one of target= (a phrase) or shown= (reads the target now)")
    fixed = Shown(target)

    async def look() -> Shown:
        return fixed

    return look


@dataclass(frozen=True)
class ConsentGate:
    """Asks for consent to one operation, and redeems each consent once."""

    operation: str
    """What the user allows, as a phrase: "delete the note"."""
    ttl: timedelta = timedelta(minutes=10)
    """How long an unanswered question stays answerable (on the scenario's or production clock)."""

    def message(self, target: str, *, changed: bool = False) -> str:
        question = f"Allow the assistant to {self.operation} {target}? This cannot be undone."
        return f"This changed since you were asked. {question}" if changed else question

    async def check(
        self,
        ctx: Context,
        storage: TenantStorage,
        clock: Clock,
        *,
        arguments: dict[str, Any],
        target: str | None = None,
        shown: Look | None = None,
    ) -> Decision:
        """Decide this round: ask, refuse, or grant (granting redeems the stored consent).

        Pass `shown` (reads the target as it is now) so a consent acts only on what its question
        showed; `target` (a fixed phrase) binds the arguments alone, for targets that cannot change.
        Whatever `shown` raises (the target is gone) propagates to the tool, which reports it.
        """
        look = _look(target, shown)
        current = await look()
        self._require_elicitation(ctx)
        if not is_version_at_least(ctx.request_context.protocol_version, _FIRST_MODERN):
            return await self._ask_mid_call(ctx, current, look)
        binding = {
            "caller": _caller(),
            "tool": ctx.request_context.params.get("name") if ctx.request_context.params else None,
            "operation": self.operation,
            "arguments": _digest(arguments),
        }
        shown_now = _shown_digest(current)
        answer = self._answer(ctx)
        record_key = ctx.request_state
        if answer is None or not record_key or not record_key.startswith(RECORD_PREFIX):
            return await self._ask(storage, clock, current, binding, shown_now)
        try:
            record = await storage.get(record_key)
        except StorageError:
            record = None
        if not isinstance(record, dict) or record.get("binding") != binding:
            return await self._ask(storage, clock, current, binding, shown_now)  # no, expired, malformed or foreign
        if not await storage.delete(record_key):
            return await self._ask(storage, clock, current, binding, shown_now)  # redeemed by a concurrent retry
        if answer.action != "accept" or (answer.content or {}).get(CONSENT_KEY) is not True:
            return Decision(granted=False, response=tool_failure(DECLINED))
        if record.get("shown") != shown_now:  # the user said yes to something that is no longer there
            return await self._ask(storage, clock, current, binding, shown_now, changed=True)
        return Decision(granted=True)

    def _require_elicitation(self, ctx: Context) -> None:
        """A client that cannot show the user a form cannot consent (rule 7: its answers are never read).

        Refused the way the SDK refuses a `Resolve(...)` elicitation for such a client, so both
        kinds of question fail the same way.
        """
        capabilities = ctx.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            raise MCPError(
                code=MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=f"Client did not declare the form elicitation capability needed to ask to {self.operation}",
                data={"requiredCapabilities": {"elicitation": {"form": {}}}},
            )

    def _answer(self, ctx: Context) -> ElicitResult | None:
        """The client's answer to the consent question, if it gave one of the right kind."""
        answer = (ctx.input_responses or {}).get(CONSENT_KEY)
        return answer if isinstance(answer, ElicitResult) else None

    async def _ask(
        self,
        storage: TenantStorage,
        clock: Clock,
        shown: Shown,
        binding: dict[str, Any],
        shown_digest: str,
        *,
        changed: bool = False,
    ) -> Decision:
        record_key = f"{RECORD_PREFIX}{secrets.token_urlsafe(16)}"
        record = {"binding": binding, "shown": shown_digest, "asked_at": clock.now().isoformat()}
        await storage.set(record_key, record, ttl=self.ttl)
        message = self.message(shown.target, changed=changed)
        question = ElicitRequest(
            params=ElicitRequestFormParams(message=message, requested_schema=_schema(self.operation))
        )
        return Decision(
            granted=False,
            response=InputRequiredResult(input_requests={CONSENT_KEY: question}, request_state=record_key),
        )

    async def _ask_mid_call(self, ctx: Context, shown: Shown, look: Look) -> Decision:
        """2025-11-25: ask over the back-channel; the answer comes back inside this request.

        The user may take minutes to answer: the target is read again then, and a change asks
        again about the target as it is now.
        """
        changed = False
        while True:
            outcome = await ctx.elicit(self.message(shown.target, changed=changed), Confirmation)
            if outcome.action != "accept" or outcome.data.confirm is not True:
                return Decision(granted=False, response=tool_failure(DECLINED))
            now = await look()
            if _shown_digest(now) == _shown_digest(shown):
                return Decision(granted=True)
            shown, changed = now, True


async def carry_record(source: TenantStorage, target: TenantStorage, request_state: str | None) -> None:
    """Copy round one's consent record into round two's storage, for tests with separate mock contexts.

    Two `MockContext`s built by hand each have their own storage; the record the gate wrote
    while asking lives in the first. Carry it over (with its remaining TTL unknown, so with the
    gate's default TTL) before calling round two. A harness shares one storage and needs none of this.
    """
    if not request_state or not request_state.startswith(RECORD_PREFIX):
        raise ValueError(f"{request_state!r} is not a consent record key (round one's request state)")
    record = await source.get(request_state)
    if record is None:
        raise ValueError(f"round one's storage has no consent record {request_state!r} (expired or redeemed?)")
    await target.set(request_state, record, ttl=ConsentGate.ttl)


__all__ = [
    "CONSENT_KEY",
    "DECLINED",
    "RECORD_PREFIX",
    "Confirmation",
    "ConsentGate",
    "Decision",
    "Look",
    "Shown",
    "carry_record",
]
