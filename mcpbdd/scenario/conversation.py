"""One call's conversation with the user: the rounds of questions, the answers, the round count.

Era-neutral on purpose. A 2026-07-28 server returns its questions (`InputRequiredResult`)
and the client retries with the answers; a 2025-11-25 server asks mid-call and waits.
Either way a scenario sees the same thing here: the open questions of the current
round, answered one by one or all at once, and the call going on once the last open
question of the round is answered.

Questions are found by the server's key (`mcpbdd.examples.notes:confirm_delete`), by
the resolver's short name (`confirm_delete`), or by kind and order within the call
(`elicitation-1`, `sampling-1`, `roots-1`) — the only name a mid-call request of the
older era has, and so the name that works on both eras.

`InputRounds` drives the rounds of a scenario's calls: it answers what the plan
(`Given the user will ...`) can, goes on when a round is complete, stops at `max_rounds`,
and sends tampered or replayed rounds for the attack steps. It is synchronous (the World
hands it a `resume` that drives the scenario's loop) and emits `RoundAnswered` for each
round it sends, which the report attaches to the step that answered.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mcp_types import InputResponse, InputResponses

from mcpbdd.kit.consent import CONSENT_KEY
from mcpbdd.kit.principals import Principal
from mcpbdd.model.answers import accept, check_fits, decline
from mcpbdd.model.outcome import Call, Channel, Outcome, Question
from mcpbdd.model.trace import Events

__all__ = [
    "AnswerPlan",
    "Conversation",
    "ConversationError",
    "InputRounds",
    "Record",
    "Resume",
    "RoundAnswered",
    "RoundLimitExceeded",
]


class ConversationError(ValueError):
    """A scenario answered something nobody asked, or asked about a question that is not open."""


class RoundLimitExceeded(AssertionError):
    """The server kept asking past the configured number of rounds."""


@dataclass
class AnswerPlan:
    """Answers given in advance (`Given the user will ...`), used as questions arrive."""

    by_name: dict[str, InputResponse] = field(default_factory=dict)
    decline_everything: bool = False
    model_replies: deque[InputResponse] = field(default_factory=deque)
    model_queue_used: bool = False

    def answer_for(self, question: Question, names: list[str]) -> InputResponse | None:
        for name in names:
            if name in self.by_name:
                return self.by_name.pop(name)
        if question.kind == "elicitation" and self.decline_everything:
            return decline()
        if question.kind == "sampling" and self.model_queue_used:
            if not self.model_replies:
                raise AssertionError(
                    f"the server asked the model {question.message!r} ({question.key}), "
                    "but no answer is queued for it: add another 'Given the model will answer ...'"
                )
            return self.model_replies.popleft()
        return None


def _reply_text(reply: InputResponse) -> str:
    """The text of a queued model answer (`Given the model will answer "..."`), to name it in a failure."""
    content = getattr(reply, "content", None)
    text = getattr(content, "text", None)
    return text if isinstance(text, str) else str(reply)


@dataclass
class Conversation:
    """The rounds of one call that asked for input."""

    caller: Principal | None
    latest: Outcome
    rounds: int = 1
    answers: dict[str, InputResponse] = field(default_factory=dict)
    names: dict[str, list[str]] = field(default_factory=dict)
    """question key -> every name it answers to (key, short name, kind-and-order)."""
    _numbers: dict[str, itertools.count[int]] = field(default_factory=dict)
    history: list[Outcome] = field(default_factory=list)
    last_sent: tuple[Outcome, dict[str, InputResponse], str | None] | None = None
    """The last answered round as sent: (its questions' outcome, the answers, the request state)."""

    def __post_init__(self) -> None:
        self.open_round(self.latest)

    @property
    def finished(self) -> bool:
        return self.latest.channel is not Channel.INPUT_REQUIRED

    @property
    def call(self) -> Call:
        """The call this conversation is about (every round retries the same one)."""
        return self.latest.call

    def open_round(self, outcome: Outcome) -> None:
        """A new answer from the server: name its questions and start collecting answers."""
        self.latest = outcome
        self.history.append(outcome)
        self.answers = {}
        for key, question in outcome.questions.items():
            if key in self.names:
                continue
            names: list[str] = []
            for name in (key, *question.aliases):
                for each in (name, name.rsplit(":", 1)[-1]):
                    if each not in names:
                        names.append(each)
            order = f"{question.kind}-{next(self._numbers.setdefault(question.kind, itertools.count(1)))}"
            if order not in names:
                names.append(order)
            self.names[key] = names

    @property
    def open_questions(self) -> dict[str, Question]:
        return {k: q for k, q in self.latest.questions.items() if k not in self.answers}

    def find(self, name: str | None, kind: str | None = None) -> Question:
        """The open question a step means: by name, or the only open one (of `kind`) when no name is given."""
        candidates = {k: q for k, q in self.open_questions.items() if kind is None or q.kind == kind}
        if name is None:
            if len(candidates) == 1:
                return next(iter(candidates.values()))
            what = f"{kind} question" if kind else "question"
            if not candidates:
                raise ConversationError(f"no {what} is open{self._listing()}")
            raise ConversationError(
                f"{len(candidates)} {what}s are open ({', '.join(self._label(k) for k in candidates)}); name one"
            )
        matches = [q for k, q in candidates.items() if name in self.names.get(k, [k])]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise ConversationError(f"the server did not ask {name!r}{self._listing()}")
        raise ConversationError(f"{name!r} names several open questions; use the full key")

    def names_of(self, question: Question) -> list[str]:
        return self.names.get(question.key, [question.key])

    def _label(self, key: str) -> str:
        return " / ".join(repr(n) for n in self.names.get(key, [key]))

    def _listing(self) -> str:
        if not self.open_questions:
            return f"; the call {self.call.method} {self.call.target!r} has no open question"
        asked = ", ".join(f"{self._label(k)} by {q.kind}" for k, q in self.open_questions.items())
        return f"; open questions: {asked}"

    def give(self, question: Question, response: InputResponse) -> bool:
        """Record an answer; True when every open question of the round is answered (time to go on)."""
        self.answers[question.key] = response
        return not self.open_questions


@dataclass(frozen=True, slots=True)
class RoundAnswered:
    """Event: a round's answers are being sent (emitted by `InputRounds` just before the send).

    `number` is the round answered (1 for the call's first questions); `answers` is empty for
    a retry with a tampered request state.
    """

    conversation: Conversation
    number: int
    questions: Mapping[str, Question]
    answers: Mapping[str, InputResponse]


Resume = Callable[[Principal | None, Outcome, InputResponses, str | None], Outcome]
"""Sends a round's answers for an `input_required` outcome (with a request state) and returns the next outcome."""

Record = Callable[[Principal | None, Outcome], Outcome]
"""Records an outcome as the scenario's latest exchange (the trace, the outcomes, the upstream check).

Returns the outcome as recorded (stamped with its caller), which is what the rounds go on with."""


class InputRounds:
    """The input-required rounds of one scenario's calls: the plan, the open conversation, the last one.

    Every outcome of the scenario passes through `begin` (a fresh call) or a round sent here,
    so this knows which call is waiting for answers and how many rounds the latest took.
    """

    def __init__(
        self, resume: Resume, record: Record, events: Events, *, max_rounds: int, plan: AnswerPlan | None = None
    ) -> None:
        self._resume = resume
        self._record = record
        self.events = events
        self.max_rounds = max_rounds
        self.plan = plan if plan is not None else AnswerPlan()
        """Answers given in advance (`Given the user will accept ...`)."""
        self.current: Conversation | None = None
        """The latest call that asked for input (it stays open across other calls until answered)."""
        self.last: Conversation | None = None
        """The latest call that asked for input, answered or not."""
        self.answered_last = False
        """Whether the latest outcome answered a round (a retry or a replay) rather than a fresh call."""
        self._latest: Outcome | None = None
        self.asked: dict[str, list[str]] = {}
        """Every question asked in the scenario (its key) -> the names it answered to, for the unused-answer check."""
        self.asked_kinds: dict[str, str] = {}
        """Every question asked in the scenario (its key) -> its kind (elicitation, sampling, roots)."""

    def unused_answers(self) -> None:
        """Fail naming each answer given in advance that no question used.

        Both kinds: an answer by name (`Given the user will accept "X" with:`) and a queued model
        answer (`Given the model will answer "..."`). An answer nobody asked for is a scenario that
        did not go where its author thought (the server never asked, asked under another name, or
        asked the model fewer times): passing silently would hide that.
        """
        asked = "; ".join(" / ".join(repr(n) for n in names) for names in self.asked.values())
        context = f"({'questions asked: ' + asked if asked else 'no question was asked in this scenario'})"
        problems = []
        if self.plan.by_name:
            unused = ", ".join(repr(name) for name in self.plan.by_name)
            problems.append(
                f"The answer given in advance for {unused} was never used: no question by that name was asked"
            )
        if self.plan.model_replies:
            texts = ", ".join(repr(_reply_text(reply)) for reply in self.plan.model_replies)
            sampled = sum(kind == "sampling" for kind in self.asked_kinds.values())
            times = " once" if sampled == 1 else f" {sampled} times"
            why = f"the server asked the model only{times}" if sampled else "the server never asked the model"
            problems.append(f"The model's answer given in advance {texts} was never used: {why}")
        if problems:
            raise AssertionError(f"{'; '.join(problems)} {context}")

    def begin(self, caller: Principal | None, outcome: Outcome) -> Outcome:
        """Record a call's first answer; if it asks for input, start its conversation and answer from the plan."""
        self.answered_last = False
        outcome = self._note(caller, outcome)
        if outcome.channel is not Channel.INPUT_REQUIRED:
            return outcome
        conversation = Conversation(caller, outcome)
        self.current = self.last = conversation
        return self._answer_from_plan(conversation)

    def open(self) -> Conversation:
        """The conversation waiting for answers; a clear failure when no question is open."""
        if self.current is None:
            last = f" (the last call {self._latest.describe()})" if self._latest is not None else ""
            raise ConversationError(f"no question is open{last}")
        return self.current

    def question(self, name: str | None = None, kind: str | None = None) -> Question:
        """The open question a step means (by name, or the only one open)."""
        return self.open().find(name, kind)

    def answer(self, name: str | None, response: InputResponse) -> Outcome | None:
        """Answer one open question; when that completes the round, the call goes on and its outcome is returned."""
        conversation = self.open()
        question = conversation.find(name)
        check_fits(question, response)
        if conversation.give(question, response):
            self._go_on(conversation)
            return self._answer_from_plan(conversation)
        return None

    def retry_tampered(self) -> Outcome:
        """Retry the open call with its request state altered, as an attacker would."""
        conversation = self.open()
        state = conversation.latest.request_state
        if not state:
            raise ConversationError(
                "this call carries no request state to tamper with (a 2025-11-25 server asks mid-call instead)"
            )
        middle = len(state) // 2
        tampered = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1 :]
        self._go_on(conversation, request_state=tampered)
        return conversation.latest

    def replay(self, caller: Principal | None = None) -> Outcome:
        """Send the last answered round again, as its caller or as `caller` (a replay attack, in effect).

        When no round was answered yet but a question is open, this sends a forged consent
        (`accept` with `confirm: true`) against the open question's state, as someone who
        saw the question but was never asked would.
        """
        conversation = self.last
        if conversation is None:
            raise ConversationError("there is no consented call to replay: no call has asked for input yet")
        if conversation.last_sent is not None:
            questions, answers, state = conversation.last_sent
        elif not conversation.finished:
            questions, state = conversation.latest, conversation.latest.request_state
            answers = {key: accept({CONSENT_KEY: True}) for key in questions.questions}
        else:
            raise ConversationError("there is no answered round to replay")
        if questions.pending is not None or not state:
            raise ConversationError(
                "replaying needs a request state, which only the 2026-07-28 era has (a 2025-11-25 server asks mid-call)"
            )
        sender = caller if caller is not None else conversation.caller
        outcome = self.begin(sender, self._resume(sender, questions, answers, state))
        self.answered_last = True
        return outcome

    def rounds_of(self, outcome: Outcome) -> int:
        """How many rounds the call that ended in `outcome` took: its conversation's, or 1 when it asked nothing."""
        conversation = self.last
        if conversation is not None and any(seen is outcome for seen in conversation.history):
            return conversation.rounds
        return 1

    def _note(self, caller: Principal | None, outcome: Outcome) -> Outcome:
        self._latest = self._record(caller, outcome)
        return self._latest

    def _answer_from_plan(self, conversation: Conversation) -> Outcome:
        """Answer what the plan can; go on while that answers a whole round."""
        while not conversation.finished:
            ready = False
            for question in list(conversation.open_questions.values()):
                self.asked[question.key] = conversation.names_of(question)
                self.asked_kinds[question.key] = question.kind
                planned = self.plan.answer_for(question, conversation.names_of(question))
                if planned is not None:
                    try:
                        check_fits(question, planned)
                    except ValueError as error:  # the scenario's answer, given in an earlier step: a failure
                        raise AssertionError(f"{error}; it was given in advance (Given the user will ...)") from None
                    ready = conversation.give(question, planned)
            if not ready:
                break
            self._go_on(conversation)
        return conversation.latest

    def _go_on(self, conversation: Conversation, request_state: str | None = None) -> None:
        """Send the round's answers (retry, or results of parked requests) and take the next answer."""
        latest = conversation.latest
        if conversation.rounds >= self.max_rounds:
            raise RoundLimitExceeded(
                f"{latest.call.method} {latest.call.target!r} is still asking after "
                f"{conversation.rounds} rounds, the limit (max_rounds = {self.max_rounds}); "
                f"last questions: {', '.join(latest.questions)}"
            )
        state = request_state if request_state is not None else latest.request_state
        answers = dict(conversation.answers)
        conversation.last_sent = (latest, answers, state)
        self.events.emit(RoundAnswered(conversation, conversation.rounds, latest.questions, answers))
        outcome = self._resume(conversation.caller, latest, conversation.answers, state)
        self.answered_last = True
        conversation.rounds += 1
        conversation.open_round(self._note(conversation.caller, outcome))
        if conversation.finished and self.current is conversation:
            self.current = None
