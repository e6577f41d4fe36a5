"""Discovery: what a server tells a client about itself before any call (name, version, capabilities,
instructions), read from the `initialize` answer on 2025-11-25 and `server/discover` on 2026-07-28.
"""

from __future__ import annotations

from typing import Any

from behave import then

from mcpbdd.model import discovery
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import json_doc_string, spec_errors


@then("the server describes itself with:")
def server_describes_itself(context: Any) -> None:
    """Then the server describes itself with: (JSON of name, version, capabilities, instructions; markers allowed)"""
    expected = json_doc_string(context)
    with spec_errors(context):  # an unknown marker (a typo such as "#strin") is the specification's mistake
        discovery.describes_itself(world(context).server_description(), expected)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
