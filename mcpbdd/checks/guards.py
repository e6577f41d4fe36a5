"""The guards every check shares: a text or a JSON document that would make a check pass whatever the server does.

Every green must mean something was checked: an empty text to look for is in every response, and
`{}` (for contains) or a bare `#ignore` matches every JSON value, so a check given one raises
`VacuousCheck` instead, naming what was vacuous and how to fix the scenario.
"""

from __future__ import annotations

import json
from typing import Any

from mcpbdd._text import clip
from mcpbdd.model.errors import VacuousCheck


def needs_words(text: str, what: str, fix: str) -> None:
    """An empty (or blank) text is in every response, so a check for it would pass whatever the server says."""
    if not text.strip():
        raise VacuousCheck(
            f"The {what} is empty, and every text contains the empty text, so this checks nothing: {fix}"
        )


def needs_content(
    expected: Any,
    *,
    contains: bool,
    what: str = "structured result",
    instead: str = "use 'Then the call succeeds' when success is all that matters",
) -> None:
    """`{}` (for contains) and a bare `#ignore` match every structured result: such a check says nothing."""
    if expected == "#ignore" or (contains and expected == {}):
        raise VacuousCheck(
            f"The expected JSON is {json.dumps(expected)}, which every {what} "
            f"{'contains' if contains else 'matches'}, so this checks nothing: name the keys and values that matter "
            f"(or {instead})"
        )


def json_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return clip(text, 300, flat=False)


__all__ = ["json_text", "needs_content", "needs_words"]
