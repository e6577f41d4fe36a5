"""What a reviewer sees in the Allure report: attachments, labels and parameters of a scenario.

Each function attaches to whatever Allure is running at the moment of the call: the
running step if there is one (an exchange goes on the step that made it), otherwise the
scenario. `allure.attach` is a no-op when no Allure formatter runs, so the hooks call
these unconditionally and a plain `behave` run pays next to nothing.

Every attachment is redacted: each function takes `secrets`, and falls back to the
secrets the hooks configured for the run (`use_secrets`, called from `before_all` with
`secrets` under `[tool.mcpbdd]`). mcpbdd's own formatter redacts every file it writes a
second time, so an attachment made by other code is covered too.

Every attachment is capped: one longer than `attachment_limit` bytes (`[tool.mcpbdd]`,
2 MiB by default, set by `use_attachment_limit` from `before_all`) keeps its first and
last half-limit and says, where the middle was, how many bytes were cut. A server that
answers 20 MB would otherwise write 40 MB per exchange (the result's text and its
structured copy) and as much again in a failed scenario's trace. Cut JSON is no longer
JSON, so it is attached as text (`…-attachment.cut.txt`, `.<kind>.cut.txt`).

Attachments available to any code (steps, hooks, a project's own `environment.py`):

- `attach_exchange(exchange)`: one request and its answer (pretty JSON, duration, caller).
- `attach_heard(entries)`: what the server sent on its own during one step (progress, log messages, announcements),
  from the scenario's journal (`mcpbdd.scenario.journal`).
- `attach_round(...)`, `attach_rounds(...)`: input-required rounds (question, answer, round).
- `attach_trace(trace)`: every exchange of a scenario, in order.
- `attach_storage_diff(diff, tenant=...)`: what an assertion found changed in storage
  (a `mcpbdd.storage.StorageDiff` or its rendered text).
- `attach_upstream_requests(requests)`: what the server sent to its upstream doubles.
- `attach_stderr(text)`: a server process's stderr (for stdio servers, on a failure).
- `attach_app_view(png, records)`: an opened app as the user sees it, with the view-host message log
  and the content-security violations (`mcpbdd.apps`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import allure
from pydantic import BaseModel

from mcpbdd.model.config import DEFAULT_ATTACHMENT_LIMIT
from mcpbdd.model.kinds import era_of, harness_label
from mcpbdd.model.outcome import TOOLS_CALL
from mcpbdd.model.redaction import Redactor, redactor_for
from mcpbdd.model.trace import Events, Exchange, ExchangeRecorded, Trace
from mcpbdd.reporting.verdicts import SCENARIO_FACTS
from mcpbdd.scenario.conversation import Conversation, RoundAnswered
from mcpbdd.scenario.journal import Heard

if TYPE_CHECKING:
    from mcpbdd.scenario.world import World

__all__ = [
    "ScenarioReport",
    "attach_app_view",
    "attach_exchange",
    "attach_json",
    "attach_heard",
    "attach_round",
    "attach_rounds",
    "attach_stderr",
    "label_pass",
    "attach_storage_diff",
    "attach_text",
    "attach_trace",
    "attach_upstream_requests",
    "use_attachment_limit",
    "use_secrets",
]

_configured = Redactor()
_limit: int = DEFAULT_ATTACHMENT_LIMIT


def use_secrets(secrets: Iterable[str]) -> None:
    """The run's secrets, redacted from every attachment made without explicit `secrets` (read-only config)."""
    global _configured
    _configured = redactor_for(secrets)


def _redactor(secrets: Iterable[str] | None) -> Redactor:
    return _configured if secrets is None else redactor_for(secrets)


def use_attachment_limit(limit: int) -> None:
    """The run's cap on one attachment, in bytes (`attachment_limit` under `[tool.mcpbdd]`)."""
    global _limit
    _limit = limit


def cap(body: str, limit: int | None = None) -> tuple[str, int]:
    """`body` cut to its first and last `limit // 2` bytes (UTF-8) around a note of the cut; and the bytes cut.

    Called on redacted text only: cutting first could leave half a secret at either edge.
    """
    limit = _limit if limit is None else limit
    data = body.encode("utf-8")
    if len(data) <= limit:
        return body, 0
    half = limit // 2
    # A character split by the cut loses its partial bytes ("ignore"), so nothing invalid is written.
    head, tail = data[:half].decode("utf-8", "ignore"), data[len(data) - half :].decode("utf-8", "ignore")
    cut = len(data) - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
    note = (
        f"\n\n[… {cut:,} bytes cut here by mcpbdd: this attachment held {len(data):,} bytes, more than "
        f"attachment_limit = {limit:,}; the first and last {half:,} bytes are kept …]\n\n"
    )
    return head + note + tail, cut


def _attach(body: str, name: str, attachment_type: Any, extension: str | None = None) -> None:
    """One attachment, capped: a cut one is plain text whatever it was (`x.json` -> `x.cut.txt`), its name says so."""
    body, cut = cap(body)
    if cut:
        name = f"{name} (cut: {cut:,} bytes left out)"
        attachment_type, extension = "text/plain", (extension or "").removesuffix("json") + "cut.txt"
    allure.attach(body, name=name, attachment_type=attachment_type, extension=extension)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=_default)


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return str(value)


def attach_text(text: str, name: str, *, secrets: Iterable[str] | None = None) -> None:
    """Plain text, redacted and capped."""
    _attach(_redactor(secrets).redact(text), name, allure.attachment_type.TEXT)


def attach_json(value: Any, name: str, *, kind: str | None = None, secrets: Iterable[str] | None = None) -> None:
    """Any JSON-able value (pydantic models included), pretty-printed and redacted.

    `kind` names the file `<uuid>-attachment.<kind>.json` (Allure still shows it as JSON), so
    tools reading the results folder tell exchanges (`.json`) from rounds, traces and upstream
    requests (`.round.json`, `.rounds.json`, `.trace.json`, `.upstream.json`) by name alone.
    """
    body = _redactor(secrets).redact(_json(value))
    if kind is None:
        _attach(body, name, allure.attachment_type.JSON, "json")
    else:
        _attach(body, name, "application/json", f"{kind}.json")


def exchange_title(exchange: Exchange) -> str:
    """`tools/call get_note → tool-error · alice · 1.2 ms`: what a reviewer scans in the step tree."""
    outcome = exchange.outcome
    code = f" {outcome.error.code}" if outcome.error is not None else ""
    who = exchange.caller or "anonymous"
    return (
        f"{outcome.method} {outcome.target} → {outcome.channel.value}{code} · {who} · {outcome.duration * 1000:.1f} ms"
    )


def attach_exchange(exchange: Exchange, *, secrets: Iterable[str] | None = None) -> None:
    """One request and its answer (result, error or questions), with harness, caller and duration."""
    attach_json(exchange.to_json(), exchange_title(exchange), secrets=secrets)


_PLURALS = {"progress": "progress reports", "log message": "log messages"}
_SINGULARS = {"progress": "progress report"}


def heard_title(entries: Sequence[Heard]) -> str:
    """`notifications: 1 progress report, 3 log messages` (another kind: `tools list changed (2)`): what the
    attachment holds, by kind, in order of first arrival."""
    counts: dict[str, int] = {}
    for heard in entries:
        counts[heard.kind] = counts.get(heard.kind, 0) + 1
    parts = [
        f"{n} {_PLURALS[kind] if n != 1 else _SINGULARS.get(kind, kind)}" if kind in _PLURALS else f"{kind} ({n})"
        for kind, n in counts.items()
    ]
    return "notifications: " + ", ".join(parts)


def attach_heard(entries: Sequence[Heard], *, secrets: Iterable[str] | None = None) -> None:
    """What the server sent on its own during one step (progress reports, log messages, announcements), if anything:
    one attachment on that step, each entry with its kind and when it arrived (`.notifications.json`)."""
    if not entries:
        return
    body = [{**heard.to_json(), "at": _moment(heard.at)} for heard in entries]
    attach_json(body, heard_title(entries), kind="notifications", secrets=secrets)


def _moment(at: float) -> str:
    """An arrival time as a reader reads it (UTC, milliseconds)."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def attach_trace(trace: Trace, *, secrets: Iterable[str] | None = None) -> None:
    """Every exchange of a scenario, in order (attached to a failed scenario)."""
    body = _redactor(secrets).redact(trace.render())
    _attach(body, f"MCP trace ({len(trace)} exchanges)", "application/json", "trace.json")


def attach_storage_diff(diff: Any, *, tenant: str | None = None, secrets: Iterable[str] | None = None) -> None:
    """What changed in a tenant's storage (a `StorageDiff` or its text): `+ key = value`, `- key`, `~ key: a -> b`.

    Call it from a storage assertion (on the step) or after a failed scenario.
    """
    text = diff.render() if hasattr(diff, "render") else str(diff)
    attach_text(text, f"storage changes of tenant {tenant}" if tenant else "storage changes", secrets=secrets)


def attach_upstream_requests(requests: Sequence[Any] | str, *, secrets: Iterable[str] | None = None) -> None:
    """The requests the server sent to its upstream doubles (a list of JSON-able records, or text), in order."""
    if isinstance(requests, str):
        attach_text(requests, "upstream requests", secrets=secrets)
    else:
        attach_json(list(requests), f"upstream requests ({len(requests)})", kind="upstream", secrets=secrets)


def attach_app_view(png: bytes, records: Mapping[str, Any], *, secrets: Iterable[str] | None = None) -> None:
    """An opened app: its screenshot, and what the host recorded (messages, errors, CSP violations), redacted."""
    allure.attach(png, name=f"app: {records.get('tool')}", attachment_type=allure.attachment_type.PNG)
    attach_json(dict(records), f"app {records.get('tool')}: view-host messages", kind="app", secrets=secrets)


def attach_stderr(text: str, *, name: str = "server stderr", secrets: Iterable[str] | None = None) -> None:
    """A server process's standard error (attach it when a scenario against a stdio server fails)."""
    attach_text(text or "(empty)", name, secrets=secrets)


# input-required rounds -------------------------------------------------------------------------------


@dataclass
class Round:
    """One round of a call that asked for input: what was asked and what was answered."""

    number: int
    questions: dict[str, Any]
    """question key -> the Question (key, kind, message, request)."""
    answers: dict[str, Any] = field(default_factory=dict)
    """question key -> the InputResponse sent (empty while unanswered, or for a tampered retry)."""

    def to_json(self, names: Mapping[str, list[str]]) -> dict[str, Any]:
        asked = []
        for key, question in self.questions.items():
            entry: dict[str, Any] = {"question": key, "kind": question.kind}
            if names.get(key, [key]) != [key]:
                entry["also named"] = [n for n in names[key] if n != key]
            if question.message:
                entry["message"] = question.message
            requested = getattr(question.request.params, "requested_schema", None)
            if requested is not None:
                entry["fields"] = requested if isinstance(requested, dict) else _default(requested)
            answer = self.answers.get(key)
            entry["answer"] = _default(answer) if answer is not None else "(not answered)"
            asked.append(entry)
        return {"round": self.number, "questions": asked}


def attach_round(
    call: str, round_: Round, names: Mapping[str, list[str]], *, secrets: Iterable[str] | None = None
) -> None:
    """The answers to one round, on the step that gave them (the call then goes on to the next round)."""
    keys = ", ".join(f"{names.get(k, [k])[-1]} {_verb(round_.answers.get(k))}" for k in round_.questions)
    body = {"call": call, **round_.to_json(names)}
    attach_json(body, f"input round {round_.number}: {keys}", kind="round", secrets=secrets)


def _verb(answer: Any) -> str:
    """`→ accept`, `→ decline`, `→ answered` (sampling, roots), `unanswered`: the round at a glance."""
    if answer is None:
        return "unanswered"
    return f"→ {getattr(answer, 'action', None) or 'answered'}"


def attach_rounds(call: str, rounds: Sequence[Round], names: Mapping[str, list[str]], final: str, **kw: Any) -> None:
    """A whole conversation: every round's questions and answers, and how the call ended."""
    body = {"call": call, "rounds": [r.to_json(names) for r in rounds], "ended": final}
    attach_json(body, f"input rounds of {call} ({len(rounds)} asked)", kind="rounds", secrets=kw.get("secrets"))


# one scenario --------------------------------------------------------------------------------------


def label_pass(kind: str, mode: str) -> tuple[str, str]:
    """The running scenario's pass as Allure sees it: its harness a parameter and a label, its protocol era a
    label (the 2026-07-28 client pass too, which its harness label does not name); returns (harness, era). Also
    for a scenario skipped before it starts (`@era.modern` on the 2025-11-25 pass): every pass is labelled."""
    harness, era = harness_label(kind, mode), era_of(kind, mode)
    allure.dynamic.parameter("harness", harness)
    allure.dynamic.label("harness", harness)
    allure.dynamic.label("era", era)
    return harness, era


class ScenarioReport:
    """Everything one scenario reports: exchanges, rounds, and on failure the trace and storage changes.

    The behave hooks create one per scenario (`before_scenario`), subscribe it to the World's
    events (`ExchangeRecorded` -> `on_exchange`, `RoundAnswered` -> `on_round`) and finish it
    (`after_scenario`).
    """

    def __init__(self, world: World, secrets: Iterable[str] | None = None) -> None:
        self.world = world
        self.redactor = _redactor(secrets)
        self.secrets = self.redactor.secrets
        self._conversations: list[Conversation] = []
        self._rounds: dict[int, list[Round]] = {}
        self._upstream_seen = 0
        self.harness = self.era = ""

    def start(self, kind: str, mode: str) -> None:
        """The harness as an Allure parameter and label (filterable; two harnesses are two tests), and the protocol
        era as a label on every pass (the 2026-07-28 client pass too, which its harness label does not name)."""
        self.harness, self.era = label_pass(kind, mode)

    def subscribe(self, events: Events) -> None:
        """Listen to a scenario's events (the World's `events`)."""
        events.subscribe(RoundAnswered, self.on_round)
        events.subscribe(ExchangeRecorded, self.on_exchange)

    def on_round(self, event: RoundAnswered) -> None:
        """A round's answers are sent: attach them to the step that gave them (before the exchange they lead to)."""
        conversation = event.conversation
        if not any(seen is conversation for seen in self._conversations):
            self._conversations.append(conversation)
        round_ = Round(event.number, dict(event.questions), dict(event.answers))
        self._rounds.setdefault(id(conversation), []).append(round_)
        attach_round(str(conversation.call), round_, conversation.names, secrets=self.secrets)

    def on_exchange(self, event: ExchangeRecorded) -> None:
        """An exchange was recorded: attach it and what the server sent upstream meanwhile to the running step."""
        attach_exchange(event.exchange, secrets=self.secrets)
        self._attach_new_upstream_requests()

    def end_step(self) -> None:
        """A step ends (behave's `after_step`): attach what the server sent on its own while it ran (the journal's
        entries since the last step: the progress and log messages of its calls, what an open listen heard)."""
        attach_heard(self.world.journal.take(), secrets=self.secrets)

    def _attach_new_upstream_requests(self) -> None:
        """What the server sent upstream while making this call, on the same step."""
        requests = self.world.upstream.requests
        new, self._upstream_seen = requests[self._upstream_seen :], len(requests)
        if new:
            attach_upstream_requests([r.to_json() for r in new], secrets=self.secrets)

    def finish(self, scenario: Any) -> None:
        """At the end of the scenario: labels from what it did; rounds; if it failed: the trace, every upstream
        request and what changed in storage."""
        world = self.world
        tools = sorted({e.outcome.target for e in world.trace.exchanges if e.outcome.method == TOOLS_CALL})
        tenants = sorted(world.directory.tenants)
        if tools:
            allure.dynamic.label("tool", *tools)
        if tenants:
            allure.dynamic.label("tenant", *tenants)
        facts = {"harness": self.harness, "era": self.era, "tools": tools, "tenants": tenants}
        setattr(scenario, SCENARIO_FACTS, facts)  # for the formatters that read them (mcpbdd.reporting.verdicts)
        attach_heard(world.journal.take(), secrets=self.secrets)  # heard outside any step: on the scenario
        self._attach_conversations()
        status = scenario.status
        if not (status.has_failed() if hasattr(status, "has_failed") else status == "failed"):
            return
        if len(world.trace):
            attach_trace(world.trace, secrets=self.secrets)
        requests = world.upstream.requests
        if requests:
            attach_upstream_requests([r.to_json() for r in requests], secrets=self.secrets)
        self._attach_storage_changes()

    def _attach_conversations(self) -> None:
        """Every conversation that had a round answered, and the latest and the open one even without."""
        rounds = self.world.input_rounds
        for extra in (rounds.last, rounds.current):
            if extra is not None and not any(seen is extra for seen in self._conversations):
                self._conversations.append(extra)
        for conversation in self._conversations:
            told = list(self._rounds.get(id(conversation), []))
            if not conversation.finished:
                told.append(Round(conversation.rounds, dict(conversation.latest.questions)))
            final = conversation.latest.describe() if conversation.finished else "still waiting for answers"
            attach_rounds(str(conversation.call), told, conversation.names, final, secrets=self.secrets)

    def _attach_storage_changes(self) -> None:
        world = self.world
        if world.baseline is None:
            return
        for tenant in world.tenants_in_play():
            try:
                diff = world.storage_changes(tenant)
            except Exception:  # a report must never hide the scenario's own failure
                continue
            if diff:
                attach_storage_diff(diff, tenant=tenant, secrets=self.secrets)
