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
2. The record binds the caller (client id and subject), the tool, the operation and a
   digest of the arguments.
3. Round 2: only `accept` with `confirm` exactly `true` against a matching, unexpired
   record lets the operation run, once; the record is deleted first.
4. An answer with no record, or an expired, malformed or foreign record (another caller,
   tool, operation or arguments) asks again and does nothing.
5. Decline, cancel, `confirm: false` or a wrong type against the caller's own record end
   the call with a tool error whose reason is `consent_declined` (no new question).
6. Replaying a redeemed round asks again: the operation has run exactly once.
7. A pre-answered `accept` from a client that did not declare elicitation is ignored, so
   it cannot bypass the question.

On the 2025-11-25 protocol there is no request state to replay: the gate asks mid-call
(`ctx.elicit`) and the answer arrives inside the same request.

    DELETE_CONSENT = ConsentGate("delete the note")

    @mcp.tool()
    async def delete_note(note_id: str, ctx: Context) -> Deleted | InputRequiredResult:
        decision = await DELETE_CONSENT.check(ctx, storage, clock, target=note_id, arguments={"note_id": note_id})
        if not decision.granted:
            return decision.response        # the question, or the consent_declined tool error
        ...                                 # runs once per consent
"""

from __future__ import annotations

import hashlib
import json
import secrets
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

from mcpbdd.kit.clock import Clock
from mcpbdd.kit.errors import Failure, tool_failure
from mcpbdd.storage import StorageError, TenantStorage

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


def _schema(operation: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {CONSENT_KEY: {"type": "boolean", "description": f"Allow the assistant to {operation}?"}},
        "required": [CONSENT_KEY],
    }


def _caller() -> dict[str, str | None]:
    token = get_access_token()
    return {"client_id": token.client_id if token else None, "subject": token.subject if token else None}


def _digest(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class ConsentGate:
    """Asks for consent to one operation, and redeems each consent once."""

    operation: str
    """What the user allows, as a phrase: "delete the note"."""
    ttl: timedelta = timedelta(minutes=10)
    """How long an unanswered question stays answerable (on the scenario's or production clock)."""

    def message(self, target: str) -> str:
        return f"Allow the assistant to {self.operation} {target}? This cannot be undone."

    async def check(
        self, ctx: Context, storage: TenantStorage, clock: Clock, *, target: str, arguments: dict[str, Any]
    ) -> Decision:
        """Decide this round: ask, refuse, or grant (granting redeems the stored consent)."""
        self._require_elicitation(ctx)
        if not is_version_at_least(ctx.request_context.protocol_version, _FIRST_MODERN):
            return await self._ask_mid_call(ctx, target)
        binding = {
            "caller": _caller(),
            "tool": ctx.request_context.params.get("name") if ctx.request_context.params else None,
            "operation": self.operation,
            "arguments": _digest(arguments),
        }
        answer = self._answer(ctx)
        record_key = ctx.request_state
        if answer is None or not record_key or not record_key.startswith(RECORD_PREFIX):
            return await self._ask(storage, clock, target, binding)
        try:
            record = await storage.get(record_key)
        except StorageError:
            record = None
        if not isinstance(record, dict) or record.get("binding") != binding:
            return await self._ask(storage, clock, target, binding)  # no, expired, malformed or foreign record
        if not await storage.delete(record_key):
            return await self._ask(storage, clock, target, binding)  # redeemed meanwhile by a concurrent retry
        if answer.action == "accept" and (answer.content or {}).get(CONSENT_KEY) is True:
            return Decision(granted=True)
        return Decision(granted=False, response=tool_failure(DECLINED))

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

    async def _ask(self, storage: TenantStorage, clock: Clock, target: str, binding: dict[str, Any]) -> Decision:
        record_key = f"{RECORD_PREFIX}{secrets.token_urlsafe(16)}"
        asked_at = clock.now().isoformat()
        await storage.set(record_key, {"binding": binding, "asked_at": asked_at}, ttl=self.ttl)
        question = ElicitRequest(
            params=ElicitRequestFormParams(message=self.message(target), requested_schema=_schema(self.operation))
        )
        return Decision(
            granted=False,
            response=InputRequiredResult(input_requests={CONSENT_KEY: question}, request_state=record_key),
        )

    async def _ask_mid_call(self, ctx: Context, target: str) -> Decision:
        """2025-11-25: ask over the back-channel; the answer comes back inside this request."""
        outcome = await ctx.elicit(self.message(target), Confirmation)
        if outcome.action == "accept" and outcome.data.confirm is True:
            return Decision(granted=True)
        return Decision(granted=False, response=tool_failure(DECLINED))


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
