"""Answers to a server's questions, built as the SDK's own result models.

A question (an input request) is answered the same way on both protocol eras: on
2026-07-28 the answers travel in the retry's `input_responses`; on 2025-11-25 they are
the results of the server's mid-call requests. Either way they are an `ElicitResult`,
a `CreateMessageResult` or a `ListRootsResult`, built here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitResult,
    InputResponse,
    ListRootsResult,
    Root,
    TextContent,
)

from mcpbdd.model.outcome import Question

MODEL_NAME = "mcpbdd-model"
"""The model name a scripted sampling answer reports."""

KIND_OF_ANSWER = {ElicitResult: "elicitation", CreateMessageResult: "sampling", ListRootsResult: "roots"}


def accept(content: dict[str, Any]) -> ElicitResult:
    """The user accepts an elicitation with this form content."""
    return ElicitResult(action="accept", content=content)


def decline() -> ElicitResult:
    return ElicitResult(action="decline")


def cancel() -> ElicitResult:
    return ElicitResult(action="cancel")


def model_reply(text: str, model: str = MODEL_NAME) -> CreateMessageResult:
    """The client's model answers a sampling request with this text."""
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=text), model=model, stop_reason="endTurn"
    )


def roots(entries: Iterable[tuple[str, str | None]]) -> ListRootsResult:
    """The client shares these roots (uri, optional name).

    Validated from the plain string, as the wire's would be (`Root.uri` is typed `FileUrl`): a uri that is not a
    file URL fails with pydantic's message for `Root`.
    """
    return ListRootsResult(roots=[Root.model_validate({"uri": uri, "name": name or None}) for uri, name in entries])


def answer_kind(response: InputResponse) -> str:
    for model, kind in KIND_OF_ANSWER.items():
        if isinstance(response, model):
            return kind
    return type(response).__name__


def check_fits(question: Question, response: InputResponse) -> None:
    """An answer fits its question before it is sent, or the step fails saying why.

    An elicitation gets an elicitation answer, and so on; and an accepted form holds only the
    fields the question asks for, every required one, each of its type (and among its choices).
    Otherwise the SDK would refuse it with a bare "does not match the requested schema", or a
    lenient server would take it: either way a mistake in the scenario, named here with the
    fields the question asks for. (A harness's `resume` sends whatever it is given, for a test
    that means to send a malformed answer.)
    """
    kind = answer_kind(response)
    if kind != question.kind:
        raise ValueError(f"the question {question.key!r} asks by {question.kind}, so it cannot be answered by {kind}")
    if isinstance(response, ElicitResult) and response.action == "accept":
        problem = _form_problem(_requested_schema(question), response.content or {})
        if problem is not None:
            raise ValueError(
                f"the answer to {question.key!r} does not fit its form: {problem} "
                f"(the question asks for: {_fields(_requested_schema(question))})"
            )


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
}


def _requested_schema(question: Question) -> dict[str, Any]:
    schema = getattr(question.request.params, "requested_schema", None) if question.request.params else None
    if schema is None:
        return {}
    return schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)


def _type_fits(value: Any, wanted: str | None) -> bool:
    if wanted is None or wanted not in _JSON_TYPES:
        return True
    if isinstance(value, bool) and wanted != "boolean":
        return False  # JSON's true is no number
    return isinstance(value, _JSON_TYPES[wanted])


def _form_problem(schema: dict[str, Any], content: dict[str, Any]) -> str | None:
    """The first way `content` does not fit the form `schema`, or None."""
    if not schema:
        return None  # a form-less question (a URL elicitation): nothing to check the content against
    properties: dict[str, Any] = schema.get("properties", {})
    for name, value in content.items():
        if name not in properties:
            return f"it has no field {name!r}"
        field_schema = properties[name]
        wanted = field_schema.get("type")
        if not _type_fits(value, wanted):
            return f"{name!r} is a {wanted}, not {json.dumps(value)}"
        choices = field_schema.get("enum")
        if choices is not None and value not in choices:
            return f"{name!r} is one of {', '.join(json.dumps(c) for c in choices)}, not {json.dumps(value)}"
    missing = [name for name in schema.get("required", []) if name not in content]
    if missing:
        names = ", ".join(map(repr, missing))
        many = len(missing) > 1
        return f"the required field{'s' if many else ''} {names} {'are' if many else 'is'} missing"
    return None


def _fields(schema: dict[str, Any]) -> str:
    """`confirm (boolean, required), reason (string)`."""
    required = set(schema.get("required", []))
    listed = [
        f"{name} ({', '.join(filter(None, [spec.get('type'), 'required' if name in required else None]))})"
        for name, spec in schema.get("properties", {}).items()
    ]
    return ", ".join(listed) or "no fields"


def required_fields(question: Question) -> list[str]:
    """The fields an elicitation's form requires (empty for other kinds of question)."""
    if not isinstance(question.request, ElicitRequest):
        return []
    return list(_requested_schema(question).get("required", []))


__all__ = [
    "KIND_OF_ANSWER",
    "MODEL_NAME",
    "accept",
    "answer_kind",
    "cancel",
    "check_fits",
    "decline",
    "model_reply",
    "required_fields",
    "roots",
]
