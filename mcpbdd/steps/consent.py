"""Consent gates: the server asks before a destructive operation, and each consent works once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from behave import then, when

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import inline_arguments, spec_errors

if TYPE_CHECKING:
    from mcp_types import InputResponses


def _consent_question(context: Any) -> Any:
    from mcpbdd.checks import rounds as check
    from mcpbdd.kit.consent import CONSENT_KEY

    w = world(context)
    conversation = check.asks_for_input(w.conversation, w.last, what="consent")
    with spec_errors(context):
        open_keys = conversation.open_questions
        name = CONSENT_KEY if CONSENT_KEY in open_keys else None  # a mid-call question (older era) has no key
        question = w.question(name, "elicitation")
    check.question_requires(question, [CONSENT_KEY])
    return question


@then("the server asks for consent")
def asks_for_consent(context: Any) -> None:
    """Then the server asks for consent"""
    _consent_question(context)


@then('the server asks for consent to "{operation:Text}"')
def asks_for_consent_to(context: Any, operation: str) -> None:
    """Then the server asks for consent to "delete the note\""""
    from mcpbdd.checks import rounds as check

    check.question_says(_consent_question(context), operation)


@then("the server asks for consent again")
def asks_for_consent_again(context: Any) -> None:
    """Then the server asks for consent again  (after an answer or a replay: nothing was done)"""
    from mcpbdd.checks import rounds as check

    check.answer_sent_before(world(context).answered_last)
    _consent_question(context)


@when("the user gives consent")
def gives_consent(context: Any) -> None:
    """When the user gives consent"""
    from mcpbdd.kit.consent import CONSENT_KEY
    from mcpbdd.model import answers

    question = _consent_question(context)
    with spec_errors(context):
        world(context).answer(question.key, answers.accept({CONSENT_KEY: True}))


@when("the user refuses consent")
def refuses_consent(context: Any) -> None:
    """When the user refuses consent"""
    from mcpbdd.model import answers

    question = _consent_question(context)
    with spec_errors(context):
        world(context).answer(question.key, answers.decline())


@when("the client replays the consented call")
def client_replays(context: Any) -> None:
    """When the client replays the consented call  (the last answered round, sent again)"""
    with spec_errors(context):
        world(context).replay()


@when('"{user:Text}" replays the consented call')
def user_replays(context: Any, user: str) -> None:
    """When "bob" replays the consented call  (someone else sends the consent round)"""
    with spec_errors(context):
        world(context).replay(as_user=user)


@when('the client calls "{tool:Text}" with {arguments:JsonObject} and consent given in advance')
def calls_with_consent_in_advance(context: Any, tool: str, arguments: str) -> None:
    """When the client calls "delete_note" with {"note_id": "n-1"} and consent given in advance"""
    from mcpbdd.kit.consent import CONSENT_KEY
    from mcpbdd.model import answers

    consent: InputResponses = {CONSENT_KEY: answers.accept({CONSENT_KEY: True})}
    world(context).call_tool(tool, inline_arguments(arguments, context), input_responses=consent)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
