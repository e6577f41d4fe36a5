"""Making one generated call: the per-call timeout, the snapshot hook, the client's refusal, the verdicts.

The same call is made for every planned input and again for every candidate while
shrinking, so both go through one `CallRunner`. Its calls go straight to the harness, not
through the World, so they do not flood the scenario's trace.

A call the transport cannot carry is the transport's matter, not the tool's (`limits`): over
stdio it is not sent (it would only wait for the timeout), a call the SDK client refuses to
serialise or a parse error about nesting is recognised, and each comes back as `LIMIT`
instead of a verdict.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

from mcpbdd._text import clip
from mcpbdd.checks.generated.limits import TRANSPORT_LIMIT, answered_limit, client_limit, unsendable
from mcpbdd.checks.generated.verdicts import LIMIT, MUTATION, REFUSED, TIMEOUT_PREFIX, Rules, judge
from mcpbdd.harness.base import CLIENT_REFUSED, Harness
from mcpbdd.kit.principals import Principal
from mcpbdd.model.outcome import Call, Channel, Outcome

__all__ = ["CallRunner", "Snapshot"]

Snapshot = Callable[[], Any]
"""The state a rejected call must leave unchanged: called (and awaited if need be) before and after a call."""


class CallRunner:
    """Makes one call (with the per-call timeout and the snapshot hook) and judges it."""

    def __init__(
        self,
        harness: Harness,
        caller: Principal | None,
        tool: str,
        timeout: float | None,
        snapshot: Snapshot | None,
        rules: Rules,
    ) -> None:
        self.harness = harness
        self.caller = caller
        self.tool = tool
        self.timeout = timeout
        self.snapshot = snapshot
        self.rules = rules
        self.last_client_error = ""
        self.last_limit = ""

    async def _snapshot(self) -> Any:
        assert self.snapshot is not None
        value = self.snapshot()
        if inspect.isawaitable(value):
            value = await value
        return value

    async def call(self, arguments: dict[str, Any]) -> Outcome | None:
        """The call's Outcome, or None when no answer could be judged.

        None when the client refused the answer (`last_client_error` says why, `last_limit` is
        empty) or the call met a transport/SDK limit (`last_limit` says which).
        """
        self.last_client_error = self.last_limit = ""
        limit = unsendable(self.harness, self.tool, arguments)
        if limit is not None:
            self.last_limit = limit
            return None
        started = time.perf_counter()
        try:
            if self.timeout is None:
                outcome: Outcome = await self.harness.call_tool(self.caller, self.tool, arguments)
            else:
                async with asyncio.timeout(self.timeout):
                    outcome = await self.harness.call_tool(self.caller, self.tool, arguments)
        except TimeoutError:
            return Outcome(
                Channel.TRANSPORT_FAILURE,
                Call.tool(self.tool, arguments),
                failure=f"{TIMEOUT_PREFIX} the generated-call timeout of {self.timeout:g} s",
                duration=time.perf_counter() - started,
            )
        except Exception as exc:  # a harness that lets the SDK client's refusal escape
            self._refused(exc, arguments, f"{type(exc).__name__}: {clip(str(exc), 400)}")
            return None
        if outcome.failure and outcome.failure.startswith(TRANSPORT_LIMIT):  # the harness refused to send it
            self.last_limit = outcome.failure
            return None
        if outcome.failure and outcome.failure.startswith(CLIENT_REFUSED):
            refusal = outcome.failure[len(CLIENT_REFUSED) :]
            self._refused(refusal, arguments, clip(refusal, 400))
            return None
        return outcome

    def _refused(self, refusal: str | Exception, arguments: dict[str, Any], described: str) -> None:
        """A call the SDK client would not complete: the transport limit it met, else the refusal (`described`)."""
        limit = client_limit(refusal, arguments)
        if limit is not None:
            self.last_limit = limit
        else:
            self.last_client_error = f"the client refused the answer: {described}"

    async def attempt(self, arguments: dict[str, Any]) -> tuple[Outcome | None, dict[str, str]]:
        """Make the call and judge it: its Outcome (None if there is none to judge) and the verdicts it broke.

        A call that met a transport/SDK limit breaks no verdict: its only key is `LIMIT`, saying which.
        """
        before = await self._snapshot() if self.snapshot is not None else None
        outcome = await self.call(arguments)
        if outcome is None:
            return None, ({LIMIT: self.last_limit} if self.last_limit else {REFUSED: self.last_client_error})
        limit = answered_limit(outcome)
        if limit is not None:
            return outcome, {LIMIT: limit}
        found = judge(outcome, arguments, self.rules)
        if self.snapshot is not None and outcome.channel in (Channel.TOOL_ERROR, Channel.PROTOCOL_ERROR):
            after = await self._snapshot()
            if after != before:
                found[MUTATION] = (
                    f"the call was rejected ({outcome.channel.value}) but the state changed: "
                    f"before {clip(repr(before), 150)}, after {clip(repr(after), 150)}"
                )
        return outcome, found
