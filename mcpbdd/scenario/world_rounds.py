"""The World's input rounds: calls that ask for input, answered from a plan or step by step, and replays.

The rounds themselves are `mcpbdd.scenario.conversation.InputRounds` (`self.input_rounds`); these are the
World's names for them, which the steps and the Python API use.
"""

from __future__ import annotations

from typing import Any

from mcp_types import InputResponse

from mcpbdd.model.outcome import Outcome
from mcpbdd.scenario.conversation import AnswerPlan, Conversation
from mcpbdd.scenario.world_questions import WorldQuestions

__all__ = ["WorldRounds"]


class WorldRounds(WorldQuestions):
    """The World's input rounds (a part of `World`)."""

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

    def check_answers_used(self) -> None:
        """At the scenario's end: every answer given in advance was used by a question (else an AssertionError)."""
        self.input_rounds.unused_answers()
