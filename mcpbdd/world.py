"""The World: everything one scenario knows, created fresh for it and closed after it.

Principals and tenants, the harness and its sessions (owned by the scenario's owner
task), the trace of every exchange and the outcome of the last call. Nothing mutable
outlives the scenario, so scenarios cannot leak into each other and parallel runs share
nothing but read-only settings.

The World's methods are synchronous (a step calls them and they drive the run's loop
for just that call); for async code use the harnesses (`ContextHarness`,
`ClientHarness`) directly.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from mcp_types import InputResponse, Tool

from mcpbdd.answers import accept, check_fits
from mcpbdd.config import Settings
from mcpbdd.conversation import AnswerPlan, Conversation, ConversationError, RoundLimitExceeded
from mcpbdd.harness.base import Harness
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.connectors import Connector, Http, InProcess, Stdio
from mcpbdd.harness.context import ContextHarness
from mcpbdd.harness.handover import Placement, remove_doubles_file, temporary_doubles_file
from mcpbdd.harness.http_process import HttpProcess
from mcpbdd.harness.mock_context import CAPABILITIES
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles
from mcpbdd.outcome import Channel, Outcome
from mcpbdd.principals import Directory, Principal
from mcpbdd.runtime import ScenarioOwner
from mcpbdd.storage import ServiceAdapter, StorageAdapter, StorageDiff, StorageService, diff
from mcpbdd.storage.doubles_file import DoublesFile
from mcpbdd.targets import ServerTarget, TargetError, load_inprocess
from mcpbdd.trace import Exchange, Trace
from mcpbdd.upstream import Upstream

T = TypeVar("T")

HARNESSES = ("context", "client")


class NoCallYet(AssertionError):
    """An outcome step ran before any call was made."""


class SharedServers:
    """Servers in other processes kept for a whole feature (`reuse_server = "feature"`), owned by one task.

    Start-up dominates some suites (a Python server takes ~1 s to start). With reuse, the first
    scenario of a feature starts the server and the rest of the feature talks to the same process
    and session; isolating their state is then the server's business (its own tools, or the
    storage adapter), not mcpbdd's. The feature's owner task stops them when the feature ends.
    """

    def __init__(self, owner: ScenarioOwner) -> None:
        self.owner = owner
        self.harnesses: dict[tuple[Any, ...], Harness] = {}
        self._doubles_file: DoublesFile | None = None

    def doubles_file(self) -> DoublesFile:
        """The doubles file the feature's server processes were (or will be) started with."""
        if self._doubles_file is None:
            self._doubles_file = temporary_doubles_file()
        return self._doubles_file

    def close(self) -> list[BaseException]:
        self.harnesses.clear()
        errors = self.owner.close()
        if self._doubles_file is not None:
            remove_doubles_file(self._doubles_file)
            self._doubles_file = None
        return errors


class World:
    """One scenario's state. Configure it (server, harness, callers), then call and inspect."""

    def __init__(self, settings: Settings, owner: ScenarioOwner, *, shared: SharedServers | None = None) -> None:
        self.settings = settings
        self.owner = owner
        self.shared = shared
        self.directory = Directory()
        self.trace = Trace()
        self.outcomes: list[Outcome] = []
        self.server_target: str | None = settings.server
        self.harness_kind: str = settings.harness
        self.client_mode: str = settings.client_mode
        self.capabilities: frozenset[str] = frozenset(settings.capabilities)
        self._harness: Harness | None = None
        self._tool_names: list[str] | None = None
        self.upstream = Upstream()
        """The route table answering the server's outbound HTTP (`Given the upstream ... answers ...`)."""
        self._placement: Placement | None = None
        self._adapter: StorageAdapter | None = None
        self._place_doubles()
        self.baseline: dict[str, dict[str, Any]] | None = None
        """Every tenant's storage just before the first When step (what "is unchanged" compares with)."""
        self.plan = AnswerPlan()
        """Answers given in advance (`Given the user will accept ...`)."""
        self.conversation: Conversation | None = None
        """The latest call that asked for input (it stays open across other calls until answered)."""
        self.last_conversation: Conversation | None = None
        self.answered_last = False
        """Whether the last outcome answered a round (a retry or a replay) rather than a fresh call."""
        self.on_exchange: Callable[[Exchange], None] | None = None
        """Called with every exchange as it is recorded (the behave hooks attach it to the report)."""

    # configuration (before the first call) ------------------------------------------------------

    def _configurable(self, what: str) -> None:
        if self._harness is not None:
            raise RuntimeError(f"{what} must be set before the first call of the scenario (put it in a Given step)")

    def use_server(self, target: str) -> None:
        self._configurable("the server")
        ServerTarget.parse(target)  # fail on the Given step, not on the first call
        self.server_target = target
        self._place_doubles()

    def use_harness(self, kind: str, mode: str | None = None) -> None:
        self._configurable("the harness")
        if kind not in HARNESSES:
            raise ValueError(f"unknown harness {kind!r}: use one of {', '.join(HARNESSES)}")
        self.harness_kind = kind
        if mode is not None:
            self.client_mode = mode

    def declare_capabilities(self, names: Iterable[str]) -> None:
        self._configurable("the client's capabilities")
        chosen = frozenset(names)
        unknown = chosen - set(CAPABILITIES)
        if unknown:
            raise ValueError(f"unknown client capabilities {sorted(unknown)}: use any of {', '.join(CAPABILITIES)}")
        self.capabilities = chosen

    # the scenario's doubles (storage, clock, upstream), where the server can reach them -----------------

    def _place_doubles(self) -> None:
        """In memory for an in-process server; in a doubles file for a process mcpbdd starts (see `handover`)."""
        shared = self.shared
        placement = Placement.for_target(
            self.server_target,
            self.upstream,
            excused=self.settings.storage_adapter is not None,
            previous=self._placement,
            shared_file=shared.doubles_file if shared is not None else None,
        )
        if placement is not self._placement:
            spec = self.settings.storage_adapter
            self._placement = placement
            self._adapter = load_adapter(spec, placement.doubles) if spec else ServiceAdapter(placement.doubles.storage)

    @property
    def placement(self) -> Placement:
        assert self._placement is not None
        return self._placement

    @property
    def doubles(self) -> Doubles:
        """What the server's lifespan gets from `scenario_doubles()`."""
        return self.placement.doubles

    @property
    def clock(self) -> FrozenClock:
        """The scenario's clock: frozen, moved only by steps; storage TTLs and the server read it."""
        return self.placement.clock

    @property
    def storage_service(self) -> StorageService:
        return self.placement.doubles.storage

    @property
    def storage(self) -> StorageAdapter:
        """What the storage steps seed and inspect (a project with foreign storage plugs its adapter here)."""
        assert self._adapter is not None
        return self._adapter

    # callers ------------------------------------------------------------------------------------

    def add_tenant(self, tenant: str) -> Principal:
        return self.directory.add_tenant(tenant)

    def add_user(self, user: str, tenant: str, scopes: Iterable[str] = ()) -> Principal:
        return self.directory.add_user(user, tenant, tuple(scopes))

    def switch_caller(self, user: str) -> Principal:
        return self.directory.switch_to(user)

    def sign_out(self) -> None:
        """Make the following calls anonymous (no access token), as an unauthenticated client's."""
        self.directory.caller = None

    @property
    def caller(self) -> Principal | None:
        return self.directory.caller

    # the harness ----------------------------------------------------------------------------------

    @property
    def harness_name(self) -> str:
        return f"client ({self.client_mode})" if self.harness_kind == "client" else self.harness_kind

    def _target(self) -> ServerTarget:
        if self.server_target is None:
            raise TargetError(
                'no MCP server to test: set server = "package.module:attr" under [tool.mcpbdd] in pyproject.toml, '
                'or add: Given the MCP server "package.module:attr"'
            )
        return ServerTarget.parse(self.server_target)

    def _build_harness(self, target: ServerTarget, owner: ScenarioOwner) -> Harness:
        """The configured harness for `target`, opening its sessions in `owner`'s task."""
        common: dict[str, Any] = {
            "capabilities": self.capabilities,
            "timeout": self.settings.timeout,
            "tenant_claim": self.settings.tenant_claim,
        }
        if self.harness_kind == "context":
            if target.kind != "inprocess":
                raise TargetError(
                    f"server target {target}: the context harness calls an in-process server's handlers; "
                    "a server in another process needs the client harness (-D mcpbdd.harness=client)"
                )
            return ContextHarness(load_inprocess(target), doubles=self.doubles, **common)
        connector = InProcess(load_inprocess(target), self.doubles) if target.kind == "inprocess" else None
        return ClientHarness(
            connector or self._connector(target),
            mode=self.client_mode,
            enter_in_owner=lambda fn: owner.call_in_owner(lambda _stack: fn()),
            start_timeout=self.settings.start_timeout,
            **common,
        )

    def _connector(self, target: ServerTarget) -> Connector:
        if target.kind == "stdio":
            return Stdio(
                target.spec,
                env=self.settings.env,
                cwd=self.settings.cwd,
                upstream=self.upstream,
                upstream_bases=self.settings.upstreams,
                extra_env=self.placement.environment(),
            )
        if target.kind == "http-command":
            return HttpProcess(
                target.spec,
                env=self.settings.env,
                cwd=self.settings.cwd,
                extra_env=self.placement.environment(),
                upstream=self.upstream,
                upstream_bases=self.settings.upstreams,
                tokens=self.settings.tokens,
                start_timeout=self.settings.start_timeout,
            )
        return Http(target.spec, tokens=self.settings.tokens)

    def server_stderr(self) -> str:
        """What a server process wrote to stderr in this scenario ('' in-process or before it started)."""
        harness = self._harness
        return harness.server_stderr() if isinstance(harness, ClientHarness) else ""

    @property
    def harness(self) -> Harness:
        """The scenario's harness, opened (server lifespan entered, with the scenario's doubles) on first use.

        With `reuse_server = "feature"` a server in another process is opened in the feature's
        owner task and shared by the feature's scenarios; otherwise the scenario's owner owns it.
        """
        if self._harness is None:
            target = self._target()
            shared = self.shared if target.kind != "inprocess" else None
            key = (self.server_target, self.harness_kind, self.client_mode, self.capabilities)
            if shared is not None and key in shared.harnesses:
                self._harness = shared.harnesses[key]
                return self._harness
            owner = shared.owner if shared is not None else self.owner
            harness = self._build_harness(target, owner)
            self.run(owner.enter_async(harness))
            if shared is not None:
                shared.harnesses[key] = harness
            self._harness = harness
        return self._harness

    # contracts ---------------------------------------------------------------------------------------

    def check_output_schema(self, tool: str) -> None:
        """Every ok result of `tool` in this scenario matches the output schema the server advertises."""
        from mcpbdd.checks import output_schema as contract

        contract.check_results_match_output_schema(self, tool)

    def generated_calls(self, tool: str, n: int) -> Any:
        """`n` generated and adversarial calls of `tool`: no crash, leak, hang, or storage change from a refusal."""
        from mcpbdd.checks import generated

        def snapshot() -> dict[str, dict[str, Any]]:
            return {tenant: self.storage.snapshot(tenant) for tenant in self.tenants_in_play()}

        return generated.check_generated_calls_in_world(self, tool, n, seed=self.settings.seed, snapshot=snapshot)

    # storage and clock ------------------------------------------------------------------------------

    def tenants_in_play(self) -> list[str]:
        """Tenants the scenario named or the storage holds."""
        return sorted(set(self.storage.tenants()) | set(self.directory.tenants))

    def seed_storage(self, tenant: str, groups: dict[float | None, dict[str, Any]]) -> None:
        """Seed `tenant` with entries grouped by TTL in seconds (None: no TTL)."""
        self.placement.relied(f'seeding the storage of tenant "{tenant}"')
        self.directory.tenants.setdefault(tenant, f"{tenant}-user")
        for ttl, mapping in groups.items():
            if ttl is None:
                self.storage.seed(tenant, mapping)
            elif isinstance(self.storage, ServiceAdapter):
                self.storage.seed(tenant, mapping, ttl)
            else:
                raise ValueError(f"{type(self.storage).__name__} cannot seed entries with a ttl")

    def other_tenants(self) -> list[str]:
        """Every tenant in play except the one that made the last call (or the current caller's)."""
        last_caller = self.trace.exchanges[-1].caller if len(self.trace) else None
        principal = self.directory.users.get(last_caller) if last_caller else self.caller
        own = principal.tenant if principal is not None else None
        return [tenant for tenant in self.tenants_in_play() if tenant != own]

    def take_baseline(self) -> None:
        """Snapshot every tenant's storage (done just before the first When step)."""
        self.baseline = {tenant: self.storage.snapshot(tenant) for tenant in self.tenants_in_play()}

    def before_step(self, step_type: str) -> None:
        """The behave hook's call: the first When takes the storage baseline."""
        if step_type == "when" and self.baseline is None:
            self.take_baseline()

    def read_storage(self, tenant: str, key: str) -> Any:
        """The value the server stored under `key` in `tenant` (`MISSING` when there is none)."""
        self.placement.relied(f'reading the storage of tenant "{tenant}"')
        return self.storage.read(tenant, key)

    def set_clock(self, moment: datetime) -> None:
        """Set the clock the server reads (`Given the clock reads ...`)."""
        self.placement.relied(f"setting the clock to {moment.isoformat()}")
        self.clock.set(moment)

    def advance_clock(self, delta: timedelta) -> None:
        """Move the clock the server reads forward (`When 2 hours pass`)."""
        self.placement.relied(f"moving the clock forward by {delta}")
        self.clock.advance(delta)

    def storage_changes(self, tenant: str) -> StorageDiff:
        """What changed in `tenant`'s storage since the baseline (empty before the first When)."""
        self.placement.relied(f'comparing the storage of tenant "{tenant}" with before')
        before = (self.baseline or {}).get(tenant, {}) if self.baseline is not None else self.storage.snapshot(tenant)
        return diff(before, self.storage.snapshot(tenant))

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.owner.run(coro)

    # calls ------------------------------------------------------------------------------------------

    def _record(self, caller: Principal | None, outcome: Outcome) -> Outcome:
        exchange = Exchange(self.harness_name, caller.user if caller else None, outcome)
        self.trace.record(exchange)
        self.outcomes.append(outcome)
        if self.on_exchange is not None:
            self.on_exchange(exchange)
        if outcome.channel is not Channel.TRANSPORT_FAILURE:
            self.placement.answered()  # a step that relied on the doubles can now tell whether the server took them
        self.upstream.check()  # an outbound request no route matched fails the step that made the call
        return outcome

    def _caller_for(self, as_user: str | None) -> Principal | None:
        return self.directory.user(as_user) if as_user is not None else self.caller

    def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        as_user: str | None = None,
        input_responses: dict[str, InputResponse] | None = None,
    ) -> Outcome:
        """Call a tool as the current caller (or `as_user`); `input_responses` pre-answers questions not yet asked."""
        caller = self._caller_for(as_user)
        harness = self.harness
        if input_responses:
            outcome = self.run(harness.call_tool(caller, name, arguments, input_responses=input_responses))
        else:
            outcome = self.run(harness.call_tool(caller, name, arguments))
        if outcome.channel in (Channel.TOOL_ERROR, Channel.PROTOCOL_ERROR):  # the server answered: ask what it offers
            offered_names = self.tool_names()
            if name not in offered_names:
                offered = ", ".join(offered_names) or "no tools"
                outcome = replace(outcome, note=f"the server offers no tool {name!r}; it offers: {offered}")
        return self._begin(caller, outcome)

    def read_resource(self, uri: str, *, as_user: str | None = None) -> Outcome:
        caller = self._caller_for(as_user)
        harness = self.harness
        return self._begin(caller, self.run(harness.read_resource(caller, uri)))

    def get_prompt(self, name: str, arguments: dict[str, str] | None = None, *, as_user: str | None = None) -> Outcome:
        caller = self._caller_for(as_user)
        harness = self.harness
        return self._begin(caller, self.run(harness.get_prompt(caller, name, arguments)))

    # input-required rounds ---------------------------------------------------------------------------

    def _begin(self, caller: Principal | None, outcome: Outcome) -> Outcome:
        """Record a call's first answer; if it asks for input, start its conversation."""
        self.answered_last = False
        self._record(caller, outcome)
        if outcome.channel is not Channel.INPUT_REQUIRED:
            return outcome
        conversation = Conversation(caller, outcome)
        self.conversation = self.last_conversation = conversation
        return self._answer_from_plan(conversation)

    def _answer_from_plan(self, conversation: Conversation) -> Outcome:
        """Answer what the plan can; go on while that answers a whole round."""
        while not conversation.finished:
            ready = False
            for question in list(conversation.open_questions.values()):
                planned = self.plan.answer_for(question, conversation.names_of(question))
                if planned is not None:
                    check_fits(question, planned)
                    ready = conversation.give(question, planned)
            if not ready:
                break
            self._go_on(conversation)
        return conversation.latest

    def _go_on(self, conversation: Conversation, request_state: str | None = None) -> None:
        """Send the round's answers (retry, or results of parked requests) and take the next answer."""
        if conversation.rounds >= self.settings.max_rounds:
            raise RoundLimitExceeded(
                f"{conversation.latest.method} {conversation.latest.target!r} is still asking after "
                f"{conversation.rounds} rounds, the limit (max_rounds = {self.settings.max_rounds}); "
                f"last questions: {', '.join(conversation.latest.questions)}"
            )
        state = request_state if request_state is not None else conversation.latest.request_state
        conversation.last_sent = (conversation.latest, dict(conversation.answers), state)
        outcome = self.run(self.harness.resume(conversation.caller, conversation.latest, conversation.answers, state))
        self.answered_last = True
        conversation.rounds += 1
        self._record(conversation.caller, outcome)
        conversation.open_round(outcome)
        if conversation.finished and self.conversation is conversation:
            self.conversation = None

    def open_conversation(self) -> Conversation:
        if self.conversation is None:
            last = f" (the last call {self.last.describe()})" if self.outcomes else ""
            raise ConversationError(f"no question is open{last}")
        return self.conversation

    def question(self, name: str | None = None, kind: str | None = None) -> Any:
        """The open question a step means (by name, or the only one open)."""
        return self.open_conversation().find(name, kind)

    def answer(self, name: str | None, response: InputResponse) -> Outcome | None:
        """Answer one open question; when that completes the round, the call goes on and its outcome is returned."""
        conversation = self.open_conversation()
        question = conversation.find(name)
        check_fits(question, response)
        if conversation.give(question, response):
            self._go_on(conversation)
            return self._answer_from_plan(conversation)
        return None

    def retry_tampered(self) -> Outcome:
        """Retry the open call with its request state altered, as an attacker would."""
        conversation = self.open_conversation()
        state = conversation.latest.request_state
        if not state:
            raise ConversationError(
                "this call carries no request state to tamper with (a 2025-11-25 server asks mid-call instead)"
            )
        middle = len(state) // 2
        tampered = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1 :]
        self._go_on(conversation, request_state=tampered)
        return conversation.latest

    def replay(self, as_user: str | None = None) -> Outcome:
        """Send the last answered round again, as its caller or as `as_user` (a replay attack, in effect).

        When no round was answered yet but a question is open, this sends a forged consent
        (`accept` with `confirm: true`) against the open question's state, as someone who
        saw the question but was never asked would.
        """
        conversation = self.last_conversation
        if conversation is None:
            raise ConversationError("there is no consented call to replay: no call has asked for input yet")
        if conversation.last_sent is not None:
            questions, answers, state = conversation.last_sent
        elif not conversation.finished:
            questions, state = conversation.latest, conversation.latest.request_state
            answers = {key: accept({"confirm": True}) for key in questions.questions}
        else:
            raise ConversationError("there is no answered round to replay")
        if questions.pending is not None or not state:
            raise ConversationError(
                "replaying needs a request state, which only the 2026-07-28 era has (a 2025-11-25 server asks mid-call)"
            )
        caller = self._caller_for(as_user) if as_user is not None else conversation.caller
        outcome = self.run(self.harness.resume(caller, questions, answers, state))
        self._begin(caller, outcome)
        self.answered_last = True
        return outcome

    @property
    def rounds(self) -> int:
        """How many rounds the latest call that asked for input took (1 when no call asked anything)."""
        return self.last_conversation.rounds if self.last_conversation is not None else 1

    def offered_tools(self) -> list[Tool]:
        tools = self.run(self.harness.list_tools(self.caller))
        self._tool_names = [tool.name for tool in tools]
        return tools

    def tool_names(self) -> list[str]:
        if self._tool_names is None:
            self.offered_tools()
        assert self._tool_names is not None
        return self._tool_names

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
        last = self.last
        exchange = self.trace.exchanges[-1]
        as_user = exchange.caller
        repeats: list[Outcome] = []
        for _ in range(times):
            if last.method == "tools/call":
                repeats.append(self.call_tool(last.target, last.arguments, as_user=as_user))
            elif last.method == "resources/read":
                repeats.append(self.read_resource(last.target, as_user=as_user))
            else:
                repeats.append(self.get_prompt(last.target, last.arguments, as_user=as_user))
        return repeats

    def close(self) -> list[BaseException]:
        """Exit everything the scenario opened (in its owner task); returns what failed while closing."""
        errors = self.owner.close()
        self.placement.close()  # after the owner stopped the server processes that had the doubles file open
        return errors


def load_adapter(spec: str, doubles: Doubles) -> StorageAdapter:
    """Build the configured foreign-storage adapter: `module:factory`, called with the scenario's doubles."""
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise TargetError(f"storage_adapter {spec!r} is not 'package.module:factory'")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise TargetError(f"storage_adapter {spec!r} cannot be loaded: {exc}") from exc
    return factory(doubles)


__all__ = ["HARNESSES", "Channel", "NoCallYet", "World", "load_adapter"]
