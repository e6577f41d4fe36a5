"""A scenario's one name, the same in every file: built here, read by every format.

A reader who finds a scenario in the console, the Allure report, a JUnit file, a Cucumber
Messages stream, the Cucumber JSON or the parity matrix must find it under the same name.
behave names an Outline row `Who the caller is -- @1.1 ` (the row's number, a trailing space
where the Examples have no name) and the hooks add the pass (`[client harness, legacy]`), so
left alone each format would print its own variant. `display_name` is the one name:

    Who the caller is -- user=alice [client harness, legacy]

- an Outline row is named by its example values, leaving out those the Outline's name shows
  already (`Adding <a>` with a=1, b=2 -> `Adding 1 -- b=2`);
- the pass follows in brackets, one space before it (`harness_suffix`);
- `plain_name` is the same name without the pass: what the parity matrix, whose columns are the
  passes, shows.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["display_name", "harness_suffix", "outline_row_name", "plain_name"]

_SUFFIX = re.compile(r"\s*(\[[^\[\]]*harness[^\[\]]*\])$")
"""The `[client harness, legacy]` the hooks add to a scenario's name (`mcpbdd.behave.before_feature`)."""


def harness_suffix(name: str) -> str:
    """The pass a name ends with, `[client harness, legacy]`; '' when it names none."""
    found = _SUFFIX.search(name)
    return found.group(1) if found else ""


def plain_name(name: str) -> str:
    """A name without the pass it ends with (the same in every column of the parity matrix)."""
    return _SUFFIX.sub("", name).rstrip()


def outline_row_name(scenario: Any, name: str) -> str:
    """`name` (behave's, of `scenario`) with an Outline row named by its example values, the pass kept.

    Any other scenario's name is returned as it is, but for the spaces before its pass.
    """
    suffix = harness_suffix(name)
    base = plain_name(name)
    row = getattr(scenario, "_row", None)
    if row is not None and " -- @" in base:
        base = base.partition(" -- @")[0]
        template = str(getattr(_outline_of(scenario), "name", "") or "")
        values = ", ".join(
            f"{heading}={cell}"
            for heading, cell in zip(row.headings, row.cells, strict=False)
            if f"<{heading}>" not in template
        )
        if values:
            base = f"{base} -- {values}"
    return f"{base} {suffix}" if suffix else base


def display_name(scenario: Any) -> str:
    """The scenario's one name, as every format writes it (its pass included once the hooks added it)."""
    return outline_row_name(scenario, str(getattr(scenario, "name", "") or getattr(scenario, "keyword", "")))


def _outline_of(scenario: Any) -> Any | None:
    """The Scenario Outline an Outline row came from (behave keeps it as a parent), or None."""
    from behave.model import Feature, ScenarioOutline

    parent = getattr(scenario, "parent", None)
    while parent is not None and not isinstance(parent, Feature):
        if isinstance(parent, ScenarioOutline):
            return parent
        parent = getattr(parent, "parent", None)
    return None
