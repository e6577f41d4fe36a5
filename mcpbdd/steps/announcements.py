"""Announcements: what the server announces on its own, to a client listening for changes.

The client listens first (`When the client listens for changes to the tools list`); the era
decides the wire (`subscriptions/listen` on 2026-07-28, the session's notifications and
`resources/subscribe` on 2025-11-25). A check with no listen open is a broken specification, and
so is "announces nothing" before any call was made after the listen opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from behave import then, when

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import spec_errors

if TYPE_CHECKING:
    from mcpbdd.model.announcements import Topic


def _topic(context: Any, *, name: str | None = None, uri: str | None = None) -> Topic:
    """The list or resource a phrase names; one there is none of is a broken specification, naming what there is."""
    from mcpbdd.model.announcements import Topic

    with spec_errors(context):
        topic = Topic.of_list(name) if name is not None else Topic.resource(str(uri))
    return topic


@when("the client listens for changes to the {name:Text} list")
def client_listens_for_list(context: Any, name: str) -> None:
    """When the client listens for changes to the tools list  (or the prompts list, the resources list)"""
    world(context).listens.listen_for(_topic(context, name=name))


@when('the client listens for changes to the resource "{uri:Text}"')
def client_listens_for_resource(context: Any, uri: str) -> None:
    """When the client listens for changes to the resource "notes://n-1\""""
    world(context).listens.listen_for(_topic(context, uri=uri))


@then("the server announces that the {name:Text} list changed")
def server_announces_list_changed(context: Any, name: str) -> None:
    """Then the server announces that the tools list changed  (waits up to the call timeout)"""
    world(context).listens.check_announced(_topic(context, name=name))


@then('the server announces that the resource "{uri:Text}" changed')
def server_announces_resource_changed(context: Any, uri: str) -> None:
    """Then the server announces that the resource "notes://n-1" changed"""
    world(context).listens.check_announced(_topic(context, uri=uri))


@then("the server announces nothing")
def server_announces_nothing(context: Any) -> None:
    """Then the server announces nothing  (needs an open listen and a call after it)"""
    world(context).listens.check_nothing()


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
