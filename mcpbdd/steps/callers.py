"""Tenants and callers: who makes the calls.

"The client" (in `When the client calls ...` and every step that says no name) is the
first caller the scenario declares, a tenant's default user or a named user, until
`Given the caller is "..."` or `Given nobody is signed in` says otherwise. Declaring more
users never changes it, so adding a user to a Background cannot silently change who
makes the other scenarios' calls. `When "bob" calls ...` switches for that one call only.
Every outcome failure names the caller who made the call.
"""

from __future__ import annotations

from typing import Any

from behave import given

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import spec_errors


@given('the tenant "{tenant:Text}"')
def the_tenant(context: Any, tenant: str) -> None:
    """Given the tenant "acme"  (its default user is acme-user; the first caller declared is the client)"""
    world(context).add_tenant(tenant)


@given('the user "{user:Text}" of tenant "{tenant:Text}"')
def the_user(context: Any, user: str, tenant: str) -> None:
    """Given the user "alice" of tenant "acme"  (the first user declared is the client)"""
    with spec_errors(context):
        world(context).add_user(user, tenant)


@given('the user "{user:Text}" of tenant "{tenant:Text}" with the scopes "{scopes:Names}"')
def the_user_with_scopes(context: Any, user: str, tenant: str, scopes: list[str]) -> None:
    """Given the user "bob" of tenant "acme" with the scopes "notes:read, notes:write\""""
    with spec_errors(context):
        world(context).add_user(user, tenant, scopes)


@given('the caller is "{user:Text}"')
def the_caller_is(context: Any, user: str) -> None:
    """Given the caller is "erin"  (the client from now on, whoever was declared first)"""
    with spec_errors(context):
        world(context).switch_caller(user)


@given("nobody is signed in")
def nobody_signed_in(context: Any) -> None:
    """Given nobody is signed in  (the client's calls carry no access token from now on)"""
    world(context).sign_out()


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
