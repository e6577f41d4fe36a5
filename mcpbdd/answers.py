"""Answers to a server's questions, built as the SDK's own result models.

A question (an input request) is answered the same way on both protocol eras: on
2026-07-28 the answers travel in the retry's `input_responses`; on 2025-11-25 they are
the results of the server's mid-call requests. Either way they are an `ElicitResult`,
a `CreateMessageResult` or a `ListRootsResult`, built here.
"""

from __future__ import annotations

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

from mcpbdd.outcome import Question

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
    """The client shares these roots (uri, optional name)."""
    return ListRootsResult(roots=[Root(uri=uri, name=name or None) for uri, name in entries])


def answer_kind(response: InputResponse) -> str:
    for model, kind in KIND_OF_ANSWER.items():
        if isinstance(response, model):
            return kind
    return type(response).__name__


def check_fits(question: Question, response: InputResponse) -> None:
    """An elicitation gets an elicitation answer, and so on; anything else is a mistake in the scenario."""
    kind = answer_kind(response)
    if kind != question.kind:
        raise ValueError(f"the question {question.key!r} asks by {question.kind}, so it cannot be answered by {kind}")


def required_fields(question: Question) -> list[str]:
    """The fields an elicitation's form requires (empty for other kinds of question)."""
    if not isinstance(question.request, ElicitRequest):
        return []
    schema = getattr(question.request.params, "requested_schema", None)
    if schema is None:
        return []
    data = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)
    return list(data.get("required", []))


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
