"""Reading step arguments: typed phrase parameters, JSON doc strings and tables.

A specification's data is where product owners make mistakes, so every failure here
names the feature file and line and says what was expected, and nothing is guessed
silently.

Table cells: a cell that reads as JSON is JSON (`42`, `true`, `["a"]`, `{"k": 1}`,
`"42"`), anything else is the text as written (`Groceries`). A cell that starts like a
JSON object or array but does not parse is an error, not a string.

JSON anywhere in a specification (a doc string, inline arguments, a table cell) may nest
at most `MAX_JSON_DEPTH` arrays and objects inside each other; deeper is refused before
any harness sees it, so both harnesses treat it alike (see `MAX_JSON_DEPTH` for why 100).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

import parse
from behave import register_type

from mcpbdd.model.errors import Broken


class SpecError(Broken):
    """The specification itself is malformed (bad JSON, a table with the wrong columns): reported as broken."""


MAX_JSON_DEPTH: Final = 100
"""How many arrays and objects JSON in a specification may nest inside each other (`{"a": [1]}` nests 2).

Why a limit, and why this one (measured on mcp 2.3 / pydantic-core 2.50): Python's JSON
parser gives up near 1,000 levels with a RecursionError; the client harness's serialiser
refuses arguments nested 255 deep in-process ("Maximum serialization depth exceeded")
while the context harness takes any depth; and a server over stdio silently drops a
request whose JSON nests deeper than 200 (arguments 198 deep), so the call just times
out. One limit well inside all of these, checked when the step reads its JSON, gives the
same clear failure on every harness and transport.
"""

_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')
"""A JSON string (skipped whole, so brackets inside text do not count) or one bracket."""


def nesting_beyond(text: str, limit: int = MAX_JSON_DEPTH) -> int | None:
    """The offset in `text` where JSON first nests deeper than `limit`, or None.

    A scan, not a parse: it must not recurse on the very input it guards against, and it
    runs before `json.loads`, which would otherwise fail with a RecursionError.
    """
    depth = 0
    for token in _JSON_TOKENS.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return token.start()
        elif bracket in "]}":
            depth -= 1
    return None


def _verbatim(pattern: str) -> Callable[[str], str]:
    """A step parameter type that keeps the text it matched as it is: `pattern` alone decides what matches."""

    @parse.with_pattern(pattern)
    def keep(text: str) -> str:
        return text

    return keep


@parse.with_pattern(r"[^\"]*")
def _name_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


register_type(
    Text=_verbatim(r'[^"]*'),
    Names=_name_list,
    CodeWord=_verbatim(r"-?\d+|[A-Za-z][A-Za-z _-]*[A-Za-z]"),
    Kind=_verbatim(r"by elicitation|by sampling|for the roots"),
    # The listings that carry caching hints (SEP-2549); `mcpbdd.model.caching.LISTINGS` maps each to its method.
    Listing=_verbatim(r"tools list|resources list|prompts list|resource templates list"),
    # Any word, so an unknown unit ("fortnights") fails with the accepted ones listed, not as undefined.
    Unit=_verbatim(r"[A-Za-z]+"),
    Amount=_verbatim(r"\d+(?:\.\d+)?"),
    # A JSON value written on the step line (`is 2`, `is "open"`, `is true`); never "remembered as ...",
    # so `the result's "$.id" is remembered as "note"` keeps its own step.
    JsonValue=_verbatim(r"(?!remembered as ).+"),
    # Inline JSON arguments: from the first `{` to the last `}`, so a phrase may not follow them.
    JsonObject=_verbatim(r"\{.*\}"),
)


def current_step(context: Any) -> Any:
    """The running behave step (the mcpbdd `before_step` hook records it; behave itself does not)."""
    return getattr(context, "mcpbdd_step", None)


def _filename(context: Any) -> str:
    step = current_step(context)
    return step.filename if step is not None else "(unknown feature file)"


def _line(context: Any) -> int:
    step = current_step(context)
    return step.line if step is not None else 0


def location_line(context: Any) -> int:
    """The running step's line in its feature file (where a value written on the step line is)."""
    return _line(context)


def location(context: Any) -> str:
    """`features/notes.feature:12` for the running step."""
    return f"{_filename(context)}:{_line(context)}"


@contextlib.contextmanager
def spec_errors(context: Any) -> Iterator[None]:
    """Turn a mistake in the specification's words (unknown user, outcome, code) into a located SpecError."""
    try:
        yield
    except (ValueError, LookupError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        raise SpecError(f"{location(context)}: {message}") from None


def json_doc_string(context: Any) -> Any:
    """The step's doc string as JSON, or a SpecError naming the file, line and the JSON problem."""
    text = getattr(context, "text", None)
    if text is None:
        raise SpecError(f"{location(context)}: this step needs a JSON doc string (between triple quotes) below it")
    return parse_json(text, context, what="the doc string")


def parse_json(text: str, context: Any, *, what: str, first_line: int | None = None) -> Any:
    """`text` as JSON; a SpecError naming the file and line of a syntax error or of too deep a nesting."""
    start = first_line if first_line is not None else _line(context) + 2
    deep = nesting_beyond(text)
    if deep is not None:
        line = start + text.count("\n", 0, deep)
        raise SpecError(f"{_filename(context)}:{line}: {what} holds {_TOO_DEEP}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        line = start + exc.lineno - 1
        raise SpecError(
            f"{_filename(context)}:{line}: {what} is not valid JSON: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno})\n{_indent(text)}"
        ) from None


def cell_value(text: str, context: Any, line: int) -> Any:
    """A table cell: JSON where it reads as JSON, else the text as written (see the module's docstring)."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")) and nesting_beyond(stripped) is not None:
        raise SpecError(f"{_filename(context)}:{line}: the table cell holds {_TOO_DEEP}")
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as exc:
        if stripped.startswith(("{", "[")):
            raise SpecError(
                f"{_filename(context)}:{line}: the table cell {stripped!r} looks like JSON but is not valid: {exc.msg}"
            ) from None
        return text


def table_mapping(context: Any, key_column: str, value_column: str) -> dict[str, Any]:
    """A two-column table (`key_column | value_column`) as a dict, values read as JSON where they are."""
    table = getattr(context, "table", None)
    if table is None:
        raise SpecError(f"{location(context)}: this step needs a table with the columns {key_column} | {value_column}")
    headings = [h.strip() for h in table.headings]
    if headings != [key_column, value_column]:
        raise SpecError(
            f"{location(context)}: the table's columns are {' | '.join(headings)}; "
            f"expected exactly {key_column} | {value_column}"
        )
    result: dict[str, Any] = {}
    for row in table.rows:
        key = row[key_column].strip()
        if key in result:
            raise SpecError(f"{_filename(context)}:{row.line}: {key_column} {key!r} appears twice in the table")
        result[key] = cell_value(row[value_column], context, row.line)
    return result


def table_column(context: Any, column: str) -> list[str]:
    """One named column of the step's table."""
    table = getattr(context, "table", None)
    if table is None:
        raise SpecError(f"{location(context)}: this step needs a table with a {column} column")
    if column not in table.headings:
        raise SpecError(
            f"{location(context)}: the table has the columns {' | '.join(table.headings)}; it needs a {column} column"
        )
    return [row[column].strip() for row in table.rows]


def call_arguments(context: Any) -> dict[str, Any]:
    """A call's arguments: a JSON object doc string, or a table `argument | value`."""
    if getattr(context, "table", None) is not None:
        return table_mapping(context, "argument", "value")
    value = json_doc_string(context)
    if not isinstance(value, dict):
        raise SpecError(f"{location(context)}: the arguments must be a JSON object, got {type(value).__name__}")
    return value


def inline_arguments(text: str, context: Any) -> dict[str, Any]:
    value = parse_json(text, context, what="the inline arguments", first_line=_line(context))
    if not isinstance(value, dict):
        raise SpecError(f"{location(context)}: the arguments must be a JSON object, got {type(value).__name__}")
    return value


_TOO_DEEP = (
    f"JSON nested deeper than {MAX_JSON_DEPTH} levels (arrays and objects inside each other), the limit for JSON "
    "in a specification: a harness cannot send much deeper (see docs/reference/limits.md)"
)


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())


__all__ = [
    "MAX_JSON_DEPTH",
    "SpecError",
    "call_arguments",
    "cell_value",
    "current_step",
    "inline_arguments",
    "json_doc_string",
    "location",
    "location_line",
    "nesting_beyond",
    "parse_json",
    "spec_errors",
    "table_column",
    "table_mapping",
]
