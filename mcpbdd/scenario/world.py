"""The World: everything one scenario knows, created fresh for it and closed after it.

Principals and tenants, the harness and its sessions (owned by the scenario's owner task),
the trace of every exchange and the outcome of the last call, the scenario's doubles
(storage, clock, upstream routes) and the values it remembered. All of that is the World's
and goes with it, so one scenario's state cannot leak into the next, and parallel jobs
(processes of their own) share nothing but read-only settings. Which harness the World
opens for its target, over which connector, is `mcpbdd.scenario.servers`.

What does outlive a scenario, and why, is what keeps servers cheap to start and never
what a scenario set up:

- the run's event loop (`runtime.RunLoop`, one per behave process), on which each
  scenario's owner task runs: an `mcp.Client` must be entered and exited in one task;
- `SharedServers` (`mcpbdd.scenario.shared`), with `reuse_server = "feature"`: server processes (and their
  sessions) kept for the whole feature by the feature's owner task, because a start can take a second;
  keeping their state apart between the feature's scenarios is the server's business (its tools, or the
  storage adapter);
- module state in `mcpbdd.harness.processes.spawn` (a warm fork server per entry point,
  directory and interpreter settings, kept for the run so each scenario's process is a fork
  of it; the line saying how servers start, printed once per process) and in
  `mcpbdd.harness.processes.spare` (stdio processes started ahead for the next scenarios,
  and the reasons a spare was not used, said once): both stopped when the run ends (`stop_all`,
  from behave's `after_all` and at exit);
- the doubles files `mcpbdd.harness.handover` reserves for those spares: each is new and empty, and handed to
  the next scenario that places its doubles in a file, which then owns it (a spare was started with its path).

The World's methods are synchronous (a step calls them and they drive the run's loop for
just that call); for async code use the harnesses (`ContextHarness`, `ClientHarness`).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from mcp_types import InputResponse, InputResponses, Tool

from mcpbdd.authorization.scenario import ScenarioAuthorization
from mcpbdd.harness.base import Harness, RequestTimeout
from mcpbdd.harness.handover import Placement
from mcpbdd.harness.targets import ServerTarget, error_summary, load_adapter, naming_the_target
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Directory, Principal, caller_label
from mcpbdd.model.caching import CacheHints
from mcpbdd.model.cancellation import CancelPlan
from mcpbdd.model.completions import Completing, Completions
from mcpbdd.model.config import Settings
from mcpbdd.model.errors import NoCallYet, NoServer, ServerCannotStart, TargetError
from mcpbdd.model.kinds import ClientMode, HarnessKind, check_capabilities, client_mode, harness_kind
from mcpbdd.model.outcome import LOG_LEVELS, RESOURCES_READ, TOOLS_CALL, Call, Channel, Outcome
from mcpbdd.model.trace import EventBus, Exchange, Trace
from mcpbdd.scenario.conversation import AnswerPlan, Conversation, InputRounds
from mcpbdd.scenario.journal import Journal
from mcpbdd.scenario.listens import Listens
from mcpbdd.scenario.remembered import Remembered
from mcpbdd.scenario.runtime import ScenarioOwner
from mcpbdd.scenario.servers import HarnessChoice, build_harness
from mcpbdd.scenario.shared import SharedServers
from mcpbdd.storage import ServiceAdapter, StorageAdapter, StorageDiff, StorageService, diff
from mcpbdd.upstream import Upstream

T = TypeVar("T")


class World:
    """One scenario's state. Configure it (server, harness, callers), then call and inspect."""

    def __init__(self, settings: Settings, owner: ScenarioOwner, *, shared: SharedServers | None = None) -> None:
        self.settings = settings
        self.owner = owner
        self.shared = shared
        self.directory = Directory()
        self.bus = self.events = EventBus()
        """Where the scenario tells what happens: `ExchangeRecorded`, `RoundAnswered` (`events`: its old name)."""
        self.trace = Trace(events=self.bus)
        self.outcomes: list[Outcome] = []
        self.server_target: str | None = settings.server
        self.harness_kind = harness_kind(settings.harness)
        self.client_mode = client_mode(settings.client_mode)
        self.capabilities: frozenset[str] = frozenset(check_capabilities(settings.capabilities))
        self._harness: Harness | None = None
        self._tool_names: list[str] | None = None
        self.completions: Completions | None = None
        """The last `completion/complete` answer (`complete`)."""
        self.upstream = Upstream()
        """The route table answering the server's outbound HTTP (`Given the upstream ... answers ...`)."""
        self._placement: Placement | None = None
        self._adapter: StorageAdapter | None = None
        self._place_doubles()
        self.baseline: dict[str, dict[str, Any]] | None = None
        """Every tenant's storage just before the first When step (what "is unchanged" compares with)."""
        self.input_rounds = InputRounds(self._resume, self._record, self.bus, max_rounds=settings.max_rounds)
        """Drives the rounds of calls that ask for input (the plan, the open conversation, replays)."""
        self.remembered = Remembered()
        """Values taken from results by JSON path; a later call's `${name}` sends them (`remember`)."""
        self.authorization = ScenarioAuthorization(lambda: self.clock, settings.tenant_claim)
        """Whether the server requires a token, and the JWT each caller sends (`mcpbdd.authorization`)."""
        self.listens = Listens(self)  # the scenario's listens, what each received, the announcement checks
        self.log_level: str | None = None
        """The level from which the client asks for log messages (`ask_for_log_messages`; None: it asks for none)."""
        self.cancel_plan: CancelPlan | None = None  # the next call's planned cancel (`cancel_next_call`)
        self.journal = Journal()
        """What the server sent on its own, in order, taken step by step by the reports (`hear`)."""
        self.start_failure: ServerCannotStart | None = None
        """Why the server could not be loaded or started in this scenario (the behave hooks stop a run on it)."""

    # configuration (before the first call) ------------------------------------------------------

    def _configurable(self, what: str) -> None:
        if self._harness is not None:
            raise RuntimeError(f"{what} must be set before the first call of the scenario (put it in a Given step)")

    def use_server(self, target: str) -> None:
        self._configurable("the server")
        ServerTarget.parse(target)  # fail on the Given step, not on the first call
        self.server_target = target
        self._place_doubles()

    def use_harness(self, kind: HarnessKind | str, mode: ClientMode | str | None = None) -> None:
        self._configurable("the harness")
        self.harness_kind = harness_kind(kind)
        if mode is not None:
            self.client_mode = client_mode(mode)

    def require_token(self) -> None:
        """The server requires a token: start the run's fake authorization server, mint JWTs for the callers."""
        self._configurable("that the server requires a token")
        if self.server_target and ServerTarget.parse(self.server_target).kind == "http":
            raise ValueError(
                f"the server at {self.server_target} was not started by mcpbdd, so it cannot be told where the "
                "run's fake authorization server is: give a command instead (`http: <command with {port}>`)"
            )
        self.authorization.require()

    def declare_capabilities(self, names: Iterable[str]) -> None:
        self._configurable("the client's capabilities")
        self.capabilities = frozenset(check_capabilities(names))

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
        self.directory.sign_out()

    @property
    def caller(self) -> Principal | None:
        return self.directory.caller

    # the harness ----------------------------------------------------------------------------------

    @property
    def harness_name(self) -> str:
        return f"client ({self.client_mode})" if self.harness_kind is HarnessKind.CLIENT else str(self.harness_kind)

    def _target(self) -> ServerTarget:
        if self.server_target is None:
            raise TargetError(
                'no MCP server to test: set server = "package.module:attr" under [tool.mcpbdd] in pyproject.toml, '
                'or add: Given the MCP server "package.module:attr"'
            )
        return ServerTarget.parse(self.server_target)

    def server_url(self) -> str:
        """The MCP URL the client reaches the server at over HTTP (starting it if need be)."""
        url = getattr(getattr(self.harness, "connector", None), "url", None)
        if not isinstance(url, str):
            raise TargetError(f"the server {self.server_target!r} is not reached over HTTP, so it has no URL")
        return url

    def server_stderr(self) -> str:
        """What a server process wrote to stderr in this scenario ('' in-process or before it started)."""
        return self._harness.server_stderr() if self._harness is not None else ""

    @property
    def harness(self) -> Harness:
        """The scenario's harness, opened (server lifespan entered, with the scenario's doubles) on first use.

        With `reuse_server = "feature"` a server in another process is opened in the feature's
        owner task and shared by the feature's scenarios; otherwise the scenario's owner owns it.
        """
        if self._harness is None:
            try:
                target = self._target()
            except TargetError as exc:  # no server named, or a malformed target: the set-up is wrong
                raise NoServer(str(exc)) from None
            shared = self.shared if target.kind != "inprocess" else None
            key = (self.server_target, self.harness_kind, self.client_mode, self.capabilities)
            if shared is not None and key in shared.harnesses:
                self._harness = shared.harnesses[key]
                return self._harness
            owner = shared.owner if shared is not None else self.owner
            try:
                choice = HarnessChoice(self.harness_kind, self.client_mode, self.capabilities)
                harness = build_harness(
                    target,
                    choice,
                    self.settings,
                    placement=self.placement,
                    upstream=self.upstream,
                    owner=owner,
                    authorization=self.authorization,
                )
            except ServerCannotStart as exc:
                raise self._cannot_start(exc) from None
            try:
                self.run(owner.enter_async(harness))
            except ServerCannotStart:
                raise  # named by `run`
            except Exception as exc:  # the context harness entering a lifespan that raises
                raise self._cannot_start(ServerCannotStart(f"its lifespan raised {error_summary(exc)}")) from exc
            if shared is not None:
                shared.harnesses[key] = harness
            self._harness = harness
        return self._harness

    # contracts ---------------------------------------------------------------------------------------

    def check_output_schema(self, tool: str) -> None:
        """Every ok result of `tool` in this scenario matches the output schema the server advertises."""
        from mcpbdd.checks import output_schema as contract

        contract.check_results_match_output_schema(self, tool)

    def check_tool_snapshot(self, path: str) -> Any:
        """The offered tools match the snapshot file at `path` (written instead with `update_snapshots`)."""
        from mcpbdd.checks import surface

        return surface.match_snapshot(self.offered_tools(), path, update=self.settings.update_snapshots)

    def ask(self, question: Callable[[Harness, Principal | None], Coroutine[Any, Any, T]]) -> T:
        """The server's answer to a `question` other than a call (`mcpbdd.checks.described.describe`,
        `mcpbdd.checks.cache_hints.cache_hints`, ...), asked as the current caller."""
        return self.run(question(self.harness, self.caller))

    def read_cache_hints(self) -> CacheHints:
        """The caching hints of the last call's result, a read, asked as its caller (a call of another kind is a
        broken specification)."""
        from mcpbdd.checks.cache_hints import read_cache_hints

        last = self.last
        caller = self._caller_for(self.trace.exchanges[-1].caller if len(self.trace) else None)
        return self.run(read_cache_hints(self.harness, caller, last))

    def complete(self, what: Completing, prefix: str) -> None:
        """Ask to complete `what` (a prompt's argument, a resource template's variable) from `prefix`;
        `completions` keeps the answer for the checks."""
        from mcpbdd.checks.completions import complete

        self.completions = self.run(complete(self.harness, self.caller, what, prefix))

    def complete_prompt_argument(self, prompt: str, argument: str, prefix: str) -> None:
        """Ask to complete `argument` of `prompt` from `prefix` (`complete`)."""
        self.complete(Completing.prompt_argument(prompt, argument), prefix)

    def complete_template_variable(self, uri_template: str, variable: str, prefix: str) -> None:
        """Ask to complete `variable` of the resource template `uri_template` from `prefix` (`complete`)."""
        self.complete(Completing.template_variable(uri_template, variable), prefix)

    def generated_calls(self, tool: str, n: int) -> Any:
        """`n` generated and adversarial calls of `tool`: no crash, leak, hang, or storage change from a refusal."""
        from mcpbdd.checks import generated

        def snapshot() -> dict[str, dict[str, Any]]:
            return {tenant: self.storage.snapshot(tenant) for tenant in self.tenants_in_play()}

        return generated.check_generated_calls_in_world(self, tool, n, seed=self.settings.seed, snapshot=snapshot)

    # storage and clock ------------------------------------------------------------------------------

    def tenants_in_play(self) -> list[str]:
        """Tenants the scenario named, the storage holds, or held at the baseline (an emptied tenant is in play)."""
        return sorted(set(self.storage.tenants()) | set(self.directory.tenants) | set(self.baseline or {}))

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

    def relies_on_doubles(self, what: str) -> None:
        """A check about to read the scenario's doubles: fails now when the server is known not to have taken them.

        Asked first by a step, so that a server blind to the doubles is named as the reason, before
        any other reason the same step could give (an unknown tenant, no other tenant).
        """
        self.placement.relied(what)

    def read_storage(self, tenant: str, key: str) -> Any:
        """The value the server stored under `key` in `tenant` (`MISSING` when there is none)."""
        self.placement.relied(f'reading the storage of tenant "{tenant}"')
        return self.storage.read(tenant, key)

    def storage_keys(self, tenant: str) -> list[str]:
        """Every key `tenant`'s storage holds now, sorted (what a "has no key" failure lists)."""
        return sorted(self.storage.snapshot(tenant))

    def set_clock(self, moment: datetime) -> None:
        """Set the clock the server reads (`Given the clock reads ...`)."""
        self.placement.relied(f"setting the clock to {moment.isoformat()}")
        self.clock.set(moment)

    def advance_clock(self, delta: timedelta | str) -> None:
        """Move the clock the server reads forward (`When 2 hours pass`): a timedelta or a duration like "2 hours"."""
        self.placement.relied(f"moving the clock forward by {delta}")
        self.clock.advance(delta)

    def storage_changes(self, tenant: str, *, except_under: str | None = None) -> StorageDiff:
        """What changed in `tenant`'s storage since the baseline (empty before the first When).

        `except_under`: a key prefix (`consent/`) whose keys may change; a ValueError when it is
        empty, since every key starts with the empty prefix and nothing would be compared.
        """
        self.placement.relied(f'comparing the storage of tenant "{tenant}" with before')
        before = (self.baseline or {}).get(tenant, {}) if self.baseline is not None else self.storage.snapshot(tenant)
        changes = diff(before, self.storage.snapshot(tenant))
        return changes if except_under is None else changes.outside(except_under)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Drive the run's loop for `coro`; a server that cannot start is named once, with its target."""
        try:
            return self.owner.run(coro)
        except ServerCannotStart as exc:
            raise self._cannot_start(exc) from None

    def _cannot_start(self, exc: ServerCannotStart) -> ServerCannotStart:
        """`exc` naming the scenario's target, remembered for the hooks (which stop a run that cannot work)."""
        named = naming_the_target(exc, self.server_target) if self.server_target else exc
        self.start_failure = named
        return named

    # calls ------------------------------------------------------------------------------------------

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

    # input-required rounds (driven by `self.input_rounds`) ---------------------------------------------

    @property
    def plan(self) -> AnswerPlan:
        """Answers given in advance (`Given the user will accept ...`)."""
        return self.input_rounds.plan

    @property
    def conversation(self) -> Conversation | None:
        """The latest call that asked for input (it stays open across other calls until answered)."""
        return self.input_rounds.current

    @property
    def last_conversation(self) -> Conversation | None:
        """The latest call that asked for input, answered or not."""
        return self.input_rounds.last

    @property
    def answered_last(self) -> bool:
        """Whether the last outcome answered a round (a retry or a replay) rather than a fresh call."""
        return self.input_rounds.answered_last

    def open_conversation(self) -> Conversation:
        return self.input_rounds.open()

    def question(self, name: str | None = None, kind: str | None = None) -> Any:
        """The open question a step means (by name, or the only one open)."""
        return self.input_rounds.question(name, kind)

    def answer(self, name: str | None, response: InputResponse) -> Outcome | None:
        """Answer one open question; when that completes the round, the call goes on and its outcome is returned."""
        return self.input_rounds.answer(name, response)

    def retry_tampered(self) -> Outcome:
        """Retry the open call with its request state altered, as an attacker would."""
        return self.input_rounds.retry_tampered()

    def replay(self, as_user: str | None = None) -> Outcome:
        """Send the last answered round again, as its caller or as `as_user` (a replay attack, in effect).

        When no round was answered yet but a question is open, this sends a forged consent
        (`accept` with `confirm: true`) against the open question's state (see `InputRounds.replay`).
        """
        return self.input_rounds.replay(self._caller_for(as_user) if as_user is not None else None)

    @property
    def rounds(self) -> int:
        """How many rounds the last call took: its conversation's rounds, or 1 when it asked nothing.

        About the last call only: an earlier call's rounds must not answer for a later call that asked nothing.
        """
        return self.input_rounds.rounds_of(self.last)

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

    def check_answers_used(self) -> None:
        """At the scenario's end: every answer given in advance was used by a question (else an AssertionError)."""
        self.input_rounds.unused_answers()

    def close(self) -> list[BaseException]:
        """Exit everything the scenario opened (in its owner task); returns what failed while closing."""
        errors = self.owner.close()
        self.placement.close()  # after the owner stopped the server processes that had the doubles file open
        return errors


__all__ = ["World"]
