"""The checks of what a server offers: its tools and its resource templates (`mcpbdd/steps/server.py`).

A table with no rows names nothing, and every server offers at least no tools, so it is a
broken specification (`VacuousCheck`) unless the phrase says "exactly".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mcp_types import Tool

from mcpbdd.model.errors import VacuousCheck


def offers_tools(tools: Sequence[Tool], names: Iterable[str], *, exactly: bool = False) -> None:
    """The server offers at least `names` (or exactly them). No name at all is a check only with `exactly`."""
    offered = [tool.name for tool in tools]
    wanted = list(names)
    if not wanted and not exactly:
        raise VacuousCheck(
            "The table lists no tool (a heading and no rows), and every server offers at least no tools, so this "
            "checks nothing: add a row per tool the server must offer, or use 'Then the server offers exactly the "
            "tools:' to say it offers none"
        )
    missing = [name for name in wanted if name not in offered]
    extra = [name for name in offered if name not in wanted] if exactly else []
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing: {', '.join(missing)}")
        if extra:
            parts.append(f"not expected: {', '.join(extra)}")
        raise AssertionError(
            f"The server's tools differ from the specification ({'; '.join(parts)}). "
            f"It offers: {', '.join(offered) or 'no tools'}"
        )


def offers_resource_template(templates: Sequence[str], uri_template: str) -> None:
    """The server offers a resource template with exactly this URI template (`notes://{note_id}`)."""
    if not uri_template.strip():
        raise VacuousCheck("The resource template to look for is empty: write its URI template, e.g. notes://{id}")
    if uri_template not in templates:
        offered = ", ".join(templates) or "no resource templates"
        raise AssertionError(
            f"Expected the server to offer the resource template {uri_template!r}, but it offers: {offered}"
        )


__all__ = [
    "offers_resource_template",
    "offers_tools",
]
