"""The World's calls: sending a tool call, a read or a prompt as a caller, and what came back.

Every exchange is traced with its caller, its progress and log messages journalled on the step that
made it, and an upstream request no route matched fails that step. The last outcome, each user's
outcomes and the tools the server offers are what the checks read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp_types import InputResponse, InputResponses, Tool

from mcpbdd.harness.base import RequestTimeout
from mcpbdd.kit.principals import Principal, caller_label
from mcpbdd.model.cancellation import CancelPlan
from mcpbdd.model.errors import NoCallYet
from mcpbdd.model.outcome import LOG_LEVELS, RESOURCES_READ, TOOLS_CALL, Call, Channel, Outcome
from mcpbdd.model.trace import Exchange
from mcpbdd.scenario.world_server import WorldServer

__all__ = ["WorldCalls"]


class WorldCalls(WorldServer):
    """The World's calls (a part of `World`)."""

    def _record(self, caller: Principal | None, outcome: Outcome) -> Outcome:
        """Trace an exchange; the outcome returned names its caller, so every failure message says who called."""
        outcome = replace(outcome, caller=caller_label(caller))
        self.trace.record(Exchange(self.harness_name, caller.user if caller else None, outcome))
        self.outcomes.append(outcome)
        self.journal.hear_outcome(outcome)  # its progress and log messages, on the step that made the call
        if outcome.channel is not Channel.TRANSPORT_FAILURE:
            self.placement.answered()  # a step that relied on the doubles can now tell whether the server took them
        self.upstream.check()  # an outbound request no route matched fails the step that made the call
        return outcome

    def hear(self, kind: str, payload: dict[str, Any]) -> None:
        """Something the server sent on its own arrived now (`kind`: a short phrase; `payload`: plain JSON)."""
        self.journal.hear(kind, payload)

    def ask_for_log_messages(self, level: str) -> None:
        """From now on every call asks for the server's log messages from `level` up (the era decides the wire:
        the request's `_meta` on 2026-07-28, `logging/setLevel` on 2025-11-25)."""
        normal = level.strip().lower()
        if normal not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}: use one of {', '.join(LOG_LEVELS)}")
        self.log_level = normal

    def cancel_next_call(self, *, after_reports: int | None = None, after_ms: float | None = None) -> None:
        """The next call is cancelled part-way (`mcpbdd.model.cancellation`); its Outcome says what followed."""
        self.cancel_plan = CancelPlan(after_reports, after_ms, self.settings.cancel_grace)

    def _resume(
        self, caller: Principal | None, outcome: Outcome, answers: InputResponses, request_state: str | None
    ) -> Outcome:
        harness = self.harness
        harness.log_level = self.log_level
        return self.run(harness.resume(caller, outcome, answers, request_state))

    def _caller_for(self, as_user: str | None) -> Principal | None:
        return self.directory.user(as_user) if as_user is not None else self.caller

    def send(
        self, call: Call, *, as_user: str | None = None, input_responses: dict[str, InputResponse] | None = None
    ) -> Outcome:
        """Make `call` as the current caller (or `as_user`); `input_responses` pre-answers questions not yet asked.

        A call that asks for input opens a conversation (answered from the plan where it can).
        """
        caller = self._caller_for(as_user)
        call = self._filled(call)
        sent_before = len(self.upstream.requests)
        harness = self.harness
        harness.log_level = self.log_level  # a harness shared by a feature's scenarios asks as this one does
        harness.cancel_next, self.cancel_plan = self.cancel_plan, None
        outcome = self.run(harness.send(caller, call, input_responses=input_responses or None))
        held = self.upstream.held_after(sent_before, self.settings.timeout) if outcome.failure else None
        if held is not None:  # a call that timed out while a held upstream request kept the server waiting
            outcome = replace(outcome, note=held)
        if call.method == TOOLS_CALL and outcome.channel in (Channel.TOOL_ERROR, Channel.PROTOCOL_ERROR):
            # The server answered: ask what it offers, so a misspelt tool name reads as one.
            try:
                offered_names = self.tool_names()
            except RequestTimeout as exc:
                self.input_rounds.begin(caller, outcome)  # the call's own answer stays in the trace
                raise RequestTimeout(
                    exc.request,
                    exc.timeout,
                    f"asked after tools/call {call.target!r} was answered ({outcome.channel.value}), "
                    "to tell whether the server offers that tool",
                ) from None
            if call.target not in offered_names:
                offered = ", ".join(offered_names) or "no tools"
                outcome = replace(outcome, note=f"the server offers no tool {call.target!r}; it offers: {offered}")
        return self.input_rounds.begin(caller, outcome)

    def remember(self, name: str, path: str) -> Any:
        """Keep the value at JSON `path` of the last result (its structured content) as `name`."""
        return self.remembered.remember(name, self.last.structured, path)

    def _filled(self, call: Call) -> Call:
        """`call` with every remembered `${name}` in its arguments (and a resource URI) replaced."""
        if call.method == RESOURCES_READ:
            return replace(call, target=self.remembered.fill(call.target))
        return replace(call, arguments=self.remembered.fill(call.arguments))

    def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        as_user: str | None = None,
        input_responses: dict[str, InputResponse] | None = None,
    ) -> Outcome:
        """Call a tool as the current caller (or `as_user`); `input_responses` pre-answers questions not yet asked."""
        return self.send(Call.tool(name, arguments), as_user=as_user, input_responses=input_responses)

    def read_resource(self, uri: str, *, as_user: str | None = None) -> Outcome:
        return self.send(Call.resource(uri), as_user=as_user)

    def get_prompt(self, name: str, arguments: dict[str, str] | None = None, *, as_user: str | None = None) -> Outcome:
        return self.send(Call.prompt(name, arguments), as_user=as_user)

    def offered_tools(self) -> list[Tool]:
        tools = self.run(self.harness.list_tools(self.caller))
        self._tool_names = [tool.name for tool in tools]
        return tools

    def tool_names(self) -> list[str]:
        names = self._tool_names
        return names if names is not None else [tool.name for tool in self.offered_tools()]

    def outcomes_of(self, user: str) -> list[Outcome]:
        """The outcomes of every call `user` made in this scenario."""
        self.directory.user(user)  # an unknown name is a mistake in the specification
        return [e.outcome for e in self.trace.exchanges if e.caller == user]

    @property
    def last(self) -> Outcome:
        """The outcome of the last call of any kind; a clear failure when there was none."""
        if not self.outcomes:
            raise NoCallYet("no call has been made yet in this scenario: add a When step that calls the server")
        return self.outcomes[-1]

    def repeat_last(self, times: int) -> list[Outcome]:
        """Make the last call again `times` times, as the same caller."""
        call = self.last.call
        as_user = self.trace.exchanges[-1].caller
        return [self.send(call, as_user=as_user) for _ in range(times)]
