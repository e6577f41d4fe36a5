"""Writing recorded values into a feature file so that they stay values: never a line, a step or a keyword.

What `mcpbdd feature` writes comes from a cassette and from a server's answers: data a remote
party chose. A server named `notes\\n  Scenario: x\\n    Given the MCP server "stdio: sh -c '...'"`
must not add a scenario that starts a command. So every value goes through one of these:

- `visible(text)`: free text (the Feature's name, a description or a comment). Every character
  that ends a line for some reader (`\\n`, `\\r`, U+2028, U+2029, U+0085, ...: behave splits
  lines with `str.splitlines`) and every other control character is written as an escape
  (`\\n`, `\\u2028`), so the text stays on its line and no keyword can start one.
- `quoted(text, what)`: a `"..."` step argument. The steps read it with the `Text` parameter
  type (`[^"]*`, mcpbdd.steps.arguments), which has no escape: a value holding a quote, a line
  break or a control character cannot be written, and `Unwritable` says which and why.
- `json_text(value)`: JSON for a doc string or inline arguments, with every line-ending and
  control character escaped inside its strings, and three quotes in a row written `\\u0022` so
  that the Gherkin parser (which reads `\\"\\"\\"` inside a doc string as `\"\"\"`) and behave
  (which does not) read the same JSON, and no line of it can close the doc string.
- `cell(text)`: a table cell, `|` escaped. behave and the Gherkin parser disagree on every other
  backslash escape (`\\\\`, `\\n`), and both strip a cell: a value with a backslash, a control
  character or surrounding spaces cannot be written as a cell (`Unwritable`).
- `reference_free(value)`: call arguments are filled with remembered values where they hold
  `${name}`, with no escape: a recorded `${...}` cannot be written as an argument.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

__all__ = ["Unwritable", "can_quote", "cell", "json_text", "quoted", "reference_free", "visible"]

_BREAKS = frozenset({"Cc", "Zl", "Zp"})
"""Unicode categories of the characters escaped or refused: controls (line feeds among them) and line separators."""
_HIGH_CONTROLS = re.compile("[\x7f-\x9f\u2028\u2029]")
"""What `json.dumps(..., ensure_ascii=False)` leaves raw of those (it escapes only U+0000 to U+001F)."""
_REFERENCE = re.compile(r"\$\{[^{}]+\}")
"""A remembered value's reference, as `mcpbdd.scenario.remembered` fills it."""


class Unwritable(ValueError):
    """A recorded value that no step can carry as it is (the message says which value and why)."""


def _breaking(char: str) -> bool:
    return unicodedata.category(char) in _BREAKS


def _escape(char: str) -> str:
    return json.dumps(char)[1:-1]  # \n, \t, \u2028, \u0085 ...


def visible(text: Any) -> str:
    """`text` on one line: each line break or control character written as its JSON escape."""
    return "".join(_escape(c) if _breaking(c) else c for c in str(text))


def _why_not_quoted(text: str) -> str | None:
    if '"' in text:
        return "a double quote"
    if any(_breaking(c) for c in text):
        return "a line break or a control character"
    return None


def quoted(text: Any, what: str) -> str:
    """`"text"` for a step's quoted argument; `Unwritable` if the text holds what the argument cannot."""
    if not isinstance(text, str):
        raise Unwritable(f"{what} {visible(json.dumps(text))} is not a string")
    why = _why_not_quoted(text)
    if why is not None:
        raise Unwritable(f"{what} {visible(json.dumps(text))} holds {why}, which a quoted step argument cannot")
    return f'"{text}"'


def can_quote(text: Any) -> bool:
    """Whether `quoted` would write `text`."""
    return isinstance(text, str) and _why_not_quoted(text) is None


def json_text(value: Any, *, indent: int | None = None) -> str:
    """`value` as JSON that keeps to its lines and reads the same to behave and to the Gherkin parser."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    text = _HIGH_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    # Inside JSON `\"\"\"` can only be three escaped quotes in a row (see the module docstring).
    return text.replace('\\"\\"\\"', "\\u0022\\u0022\\u0022")


def cell(text: object, what: str) -> str:
    """`text` as a table cell (`|` escaped); `Unwritable` if either parser would read it differently."""
    text = str(text)
    if "\\" in text:
        raise Unwritable(f"{what} {visible(json.dumps(text))} holds a backslash, which a table cell cannot")
    if any(_breaking(c) for c in text):
        raise Unwritable(f"{what} {visible(json.dumps(text))} holds a line break or a control character")
    if text != text.strip():
        raise Unwritable(f"{what} {visible(json.dumps(text))} starts or ends with a space, which a cell loses")
    return text.replace("|", "\\|")


def reference_free(value: Any, what: str) -> None:
    """`Unwritable` if a string in `value` holds `${...}`, which the step would fill with a remembered value."""
    if isinstance(value, dict):
        for item in value.values():
            reference_free(item, what)
    elif isinstance(value, list):
        for item in value:
            reference_free(item, what)
    elif isinstance(value, str) and _REFERENCE.search(value):
        shown = visible(json.dumps(value))
        raise Unwritable(f"{what} {shown} holds ${{...}}, which the step would read as a remembered value")
