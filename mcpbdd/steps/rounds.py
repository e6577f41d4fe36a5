"""Input-required rounds: the server's questions, the user's (and model's, and client's) answers.

Questions are named by the server's key, the resolver's short name, or kind and order
(`elicitation-1`); with exactly one question open the name may be left out. Answering
the last open question of a round sends the answers on (the retry, or the results of the
server's mid-call requests) and the outcome steps then see what the call came to.
"""

from __future__ import annotations

from typing import Any

from behave import given, then, when

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, json_doc_string, location, spec_errors

KINDS = {"by elicitation": "elicitation", "by sampling": "sampling", "for the roots": "roots"}


def _asks(context: Any, name: str | None, kind: str | None) -> None:
    from mcpbdd.checks import rounds as check

    w = world(context)
    with spec_errors(context):
        check.asks_for_input(w.conversation, w.last)
        # A named question is found whatever its kind, so a wrong kind is reported as such.
        question = w.question(name, kind if name is None else None)
    if kind is not None:
        check.asks_by(question, kind, named=name)


def _answer(context: Any, name: str | None, response: Any) -> None:
    with spec_errors(context):
        world(context).answer(name, response)


def _form(context: Any) -> dict[str, Any]:
    content = json_doc_string(context)
    if not isinstance(content, dict):
        raise SpecError(f"{location(context)}: an accepted form is a JSON object, got {type(content).__name__}")
    return content


def _roots(context: Any) -> list[tuple[str, str | None]]:
    table = getattr(context, "table", None)
    if table is None or "uri" not in table.headings:
        raise SpecError(f"{location(context)}: the roots need a table with a uri column (and optionally name)")
    return [(row["uri"].strip(), row["name"].strip() if "name" in table.headings else None) for row in table.rows]


@then("the server asks nothing")
def asks_nothing(context: Any) -> None:
    """Then the server asks nothing  (the last call asked no question, and none is left open)"""
    from mcpbdd.checks import rounds as check

    w = world(context)
    check.asks_nothing(w.conversation, w.last)


@then('the server asks for "{key:Text}"')
def asks_for(context: Any, key: str) -> None:
    """Then the server asks for "confirm_delete\""""
    _asks(context, key, None)


@then('the server asks for "{key:Text}" {how:Kind}')
def asks_for_by(context: Any, key: str, how: str) -> None:
    """Then the server asks for "confirm_delete" by elicitation  (or: by sampling, for the roots)"""
    _asks(context, key, KINDS[how])


@then("the server asks {how:Kind}")
def asks_by(context: Any, how: str) -> None:
    """Then the server asks by elicitation  (the only open question; or: by sampling, for the roots)"""
    _asks(context, None, KINDS[how])


def _question(context: Any, key: str | None) -> Any:
    with spec_errors(context):
        return world(context).question(key)


@then('the question "{key:Text}" says "{text:Text}"')
def question_says(context: Any, key: str, text: str) -> None:
    """Then the question "confirm_delete" says "cannot be undone\""""
    from mcpbdd.checks import rounds as check

    check.question_says(_question(context, key), text)


@then('the question says "{text:Text}"')
def the_question_says(context: Any, text: str) -> None:
    """Then the question says "cannot be undone\""""
    from mcpbdd.checks import rounds as check

    check.question_says(_question(context, None), text)


@then('the question "{key:Text}" requires the fields "{fields:Names}"')
def question_requires(context: Any, key: str, fields: list[str]) -> None:
    """Then the question "confirm_delete" requires the fields "confirm\""""
    from mcpbdd.checks import rounds as check

    check.question_requires(_question(context, key), fields)


@then('the question requires the fields "{fields:Names}"')
def the_question_requires(context: Any, fields: list[str]) -> None:
    """Then the question requires the fields "confirm\""""
    from mcpbdd.checks import rounds as check

    check.question_requires(_question(context, None), fields)


@when('the user accepts "{key:Text}" with:')
def user_accepts(context: Any, key: str) -> None:
    """When the user accepts "confirm_delete" with: (a JSON object: the form's content)"""
    from mcpbdd.model import answers

    _answer(context, key, answers.accept(_form(context)))


@when("the user accepts with:")
def user_accepts_the_question(context: Any) -> None:
    """When the user accepts with: (a JSON object: the form's content)"""
    from mcpbdd.model import answers

    _answer(context, None, answers.accept(_form(context)))


@when('the user declines "{key:Text}"')
def user_declines(context: Any, key: str) -> None:
    """When the user declines "confirm_delete\""""
    from mcpbdd.model import answers

    _answer(context, key, answers.decline())


@when("the user declines")
def user_declines_the_question(context: Any) -> None:
    """When the user declines"""
    from mcpbdd.model import answers

    _answer(context, None, answers.decline())


@when('the user cancels "{key:Text}"')
def user_cancels(context: Any, key: str) -> None:
    """When the user cancels "confirm_delete\""""
    from mcpbdd.model import answers

    _answer(context, key, answers.cancel())


@when("the user cancels")
def user_cancels_the_question(context: Any) -> None:
    """When the user cancels"""
    from mcpbdd.model import answers

    _answer(context, None, answers.cancel())


@when('the model answers "{key:Text}" with "{text:Text}"')
def model_answers(context: Any, key: str, text: str) -> None:
    """When the model answers "ask_model_for_title" with "Weekly groceries\""""
    from mcpbdd.model import answers

    _answer(context, key, answers.model_reply(text))


@when('the model answers with "{text:Text}"')
def model_answers_the_question(context: Any, text: str) -> None:
    """When the model answers with "Weekly groceries\""""
    from mcpbdd.model import answers

    _answer(context, None, answers.model_reply(text))


@when('the client answers "{key:Text}" with the roots:')
def client_answers_roots(context: Any, key: str) -> None:
    """When the client answers "roots-1" with the roots: (a table: uri | name)"""
    from mcpbdd.model import answers

    _answer(context, key, answers.roots(_roots(context)))


@when("the client answers with the roots:")
def client_answers_the_roots_question(context: Any) -> None:
    """When the client answers with the roots: (a table: uri | name)"""
    from mcpbdd.model import answers

    _answer(context, None, answers.roots(_roots(context)))


@given('the user will accept "{key:Text}" with:')
def user_will_accept(context: Any, key: str) -> None:
    """Given the user will accept "confirm_delete" with: (a JSON object, used when the question comes)"""
    from mcpbdd.model import answers

    world(context).plan.by_name[key] = answers.accept(_form(context))


@given("the user will decline every question")
def user_will_decline_all(context: Any) -> None:
    """Given the user will decline every question"""
    world(context).plan.decline_everything = True


@given('the model will answer "{text:Text}"')
def model_will_answer(context: Any, text: str) -> None:
    """Given the model will answer "Weekly groceries"  (queued; nothing queued, or an answer left unused, fails)"""
    from mcpbdd.model import answers

    plan = world(context).plan
    plan.model_queue_used = True
    plan.model_replies.append(answers.model_reply(text))


@when("the client retries with a tampered request state")
def retries_tampered(context: Any) -> None:
    """When the client retries with a tampered request state"""
    with spec_errors(context):
        world(context).retry_tampered()


@then("the call took {rounds:d} rounds")
def call_took_rounds(context: Any, rounds: int) -> None:
    """Then the call took 2 rounds  (the last call; its first answer counts as round 1)"""
    from mcpbdd.checks import rounds as check

    w = world(context)
    with spec_errors(context):
        check.took_rounds(w.rounds, rounds, w.last)


@then("the call took 1 round")
def call_took_one_round(context: Any) -> None:
    """Then the call took 1 round  (the last call asked nothing)"""
    from mcpbdd.checks import rounds as check

    w = world(context)
    check.took_rounds(w.rounds, 1, w.last)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
