"""Log messages: what the server logged for the client during the last call.

The client asks first (`Given the client asks for log messages from level "info"`); the
era decides the wire (the request's `_meta` on 2026-07-28, `logging/setLevel` on
2025-11-25). A check of a call that asked for none is a broken specification; a 2026-07-28
server that logs without being asked fails every check, naming what arrived.
"""

from __future__ import annotations

from typing import Any

from behave import given, then

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import spec_errors


@given('the client asks for log messages from level "{level:Text}"')
def client_asks_for_log_messages(context: Any, level: str) -> None:
    """Given the client asks for log messages from level "info\""""
    with spec_errors(context):
        world(context).ask_for_log_messages(level)


@then('the server logged "{text:Text}" at level "{level:Text}"')
def server_logged(context: Any, text: str, level: str) -> None:
    """Then the server logged "Imported 3 notes" at level "info\""""
    from mcpbdd.checks import logs

    logs.logged(world(context).last, text, level)


@then('the server logged "{text:Text}" at level "{level:Text}" from the logger "{logger:Text}"')
def server_logged_from(context: Any, text: str, level: str, logger: str) -> None:
    """Then the server logged "Imported 3 notes" at level "info" from the logger "notes.import\""""
    from mcpbdd.checks import logs

    logs.logged(world(context).last, text, level, logger)


@then('the server logged nothing above "{level:Text}"')
def server_logged_nothing_above(context: Any, level: str) -> None:
    """Then the server logged nothing above "warning\""""
    from mcpbdd.checks import logs

    logs.logged_nothing_above(world(context).last, level)


@then('no log message mentions "{secret:Text}"')
def no_log_message_mentions(context: Any, secret: str) -> None:
    """Then no log message mentions "sk-live-"  (every call so far)"""
    from mcpbdd.checks import logs

    logs.no_log_message_mentions(world(context).outcomes, secret)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
