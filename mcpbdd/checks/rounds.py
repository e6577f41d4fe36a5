"""The checks of a server's questions: what it asks, how, and in how many rounds (`mcpbdd/steps/rounds.py`,
`mcpbdd/steps/consent.py`).

The scenario's open round of questions belongs to the scenario layer, above this one, so the
checks take it as an opaque value and hand it back (`asks_for_input`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from mcpbdd.checks.guards import needs_words
from mcpbdd.model.answers import required_fields
from mcpbdd.model.outcome import Channel, Outcome, Question

_Open = TypeVar("_Open")
"""The scenario's open round of questions, whatever its type (`asks_for_input` hands it back)."""


def question_says(question: Question, text: str) -> None:
    """The question's message (what the user sees) contains `text`, case-insensitively."""
    needs_words(text, "text the question must say", "write the words the question must say")
    if text.lower() not in question.message.lower():
        raise AssertionError(
            f"Expected the question {question.key!r} to say {text!r}, but it says {question.message!r}"
        )


def question_requires(question: Question, fields: Sequence[str]) -> None:
    """The question's form requires exactly these fields (in any order)."""
    if question.kind != "elicitation":
        raise AssertionError(f"The question {question.key!r} asks by {question.kind}; only a form requires fields")
    required = required_fields(question)
    if sorted(required) != sorted(fields):
        raise AssertionError(
            f"Expected the question {question.key!r} to require the fields {', '.join(fields)}, "
            f"but it requires {', '.join(required) or 'no fields'}"
        )


def asks_for_input(conversation: _Open | None, last: Outcome, *, what: str = "input") -> _Open:
    """A question is open: `conversation` is the scenario's open round (None: none), returned for the step to use.

    The round stays open across other calls until it is answered, so the failure names
    what the last call came to, not the call that asked. Typed loosely because the round
    belongs to the scenario layer, above this one.
    """
    if conversation is None:
        raise AssertionError(f"Expected the server to ask for {what}, but {last.describe()}")
    return conversation


def asks_by(question: Question, kind: str, *, named: str | None = None) -> None:
    """The question asks by `kind` (elicitation, sampling, roots); `named`: what the specification called it.

    A question is found by name whatever its kind, so that a wrong kind is reported as
    such here instead of as a question the server did not ask.
    """
    if question.kind != kind:
        name = question.key if named is None else named
        raise AssertionError(f"Expected the server to ask {name!r} by {kind}, but it asks by {question.kind}")


def asks_nothing(conversation: object | None, last: Outcome) -> None:
    """No question is open after the last call (`conversation`: the scenario's open round, None when none).

    About the scenario's open round, not only the last call: a question asked earlier and
    never answered is still waiting, and "the server asks nothing" would hide it.
    """
    if last.channel is Channel.INPUT_REQUIRED:
        asked = ", ".join(f"{key!r} by {q.kind}" for key, q in last.questions.items()) or "a question"
        raise AssertionError(f"Expected the server to ask nothing, but it asks {asked}: {last.describe()}")
    if conversation is not None:
        raise AssertionError(
            "Expected the server to ask nothing, but an earlier question is still open (unanswered); "
            f"the last call: {last.describe()}"
        )


def answer_sent_before(answered_last: bool) -> None:
    """A step that says the server asks *again* claims an answer (or a replay) was sent first; without one it would
    only repeat that the server asked."""
    if not answered_last:
        raise AssertionError("Expected the server to ask again after an answer, but no answer was sent before")


def input_required(outcome: Outcome, kind: str | None = None) -> dict[str, Question]:
    """The call asked for input (of `kind`, when given); returns its questions by key, for pytest users."""
    if outcome.channel is not Channel.INPUT_REQUIRED:
        raise AssertionError(f"Expected the server to ask for input, but {outcome.describe()}")
    if kind is not None and not any(q.kind == kind for q in outcome.questions.values()):
        asked = ", ".join(f"{k!r} by {q.kind}" for k, q in outcome.questions.items())
        raise AssertionError(f"Expected a question by {kind}, but the server asks {asked}")
    return dict(outcome.questions)


def took_rounds(actual: int, expected: int, outcome: Outcome | None = None) -> None:
    """The last call (`outcome`, named in the failure) took `expected` rounds; a call that asked nothing took 1."""
    if expected < 1:
        raise ValueError(f"a call takes at least 1 round, so {expected} round(s) can never be right: count from 1")
    if actual != expected:
        which = f" ({outcome.request_line})" if outcome is not None else ""
        raise AssertionError(f"Expected the call{which} to take {expected} round(s), but it took {actual}")


__all__ = [
    "answer_sent_before",
    "asks_by",
    "asks_for_input",
    "asks_nothing",
    "input_required",
    "question_requires",
    "question_says",
    "took_rounds",
]
