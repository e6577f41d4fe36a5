"""Carrying a value from one result into a later call: remember it by JSON path, write `${name}`."""

from __future__ import annotations

from typing import Any

from behave import step

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import spec_errors


@step('the result\'s "{path:Text}" is remembered as "{name:Text}"')
def remembers(context: Any, path: str, name: str) -> None:
    """Then the result's "$.id" is remembered as "note"  (later arguments and URIs write "${note}")"""
    with spec_errors(context):
        world(context).remember(name, path)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
