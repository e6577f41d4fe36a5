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
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field

from mcp_types import InputResponse

from mcpbdd.answers import decline
from mcpbdd.outcome import Channel, Outcome, Question
from mcpbdd.principals import Principal


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

    def open_round(self, outcome: Outcome) -> None:
        """A new answer from the server: name its questions and start collecting answers."""
        self.latest = outcome
        self.history.append(outcome)
        self.answers = {}
        for key, question in outcome.questions.items():
            if key in self.names:
                continue
            names = [key]
            short = key.rsplit(":", 1)[-1]
            if short != key:
                names.append(short)
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
            return f"; the call {self.latest.method} {self.latest.target!r} has no open question"
        asked = ", ".join(f"{self._label(k)} by {q.kind}" for k, q in self.open_questions.items())
        return f"; open questions: {asked}"

    def give(self, question: Question, response: InputResponse) -> bool:
        """Record an answer; True when every open question of the round is answered (time to go on)."""
        self.answers[question.key] = response
        return not self.open_questions
