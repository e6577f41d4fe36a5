"""A project's own step built on mcpbdd's assertions: its frame stays in the failure's trace, mcpbdd's do not."""

from typing import Any

from behave import then

from mcpbdd import expect


@then("the note is about bread")
def the_note_is_about_bread(context: Any) -> None:
    expect.mentions(context.mcp.last, "bread")
