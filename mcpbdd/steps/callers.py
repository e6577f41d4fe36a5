"""Tenants and callers: who makes the calls."""

from __future__ import annotations

from typing import Any

from behave import given

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import spec_errors


@given('the tenant "{tenant:Text}"')
def the_tenant(context: Any, tenant: str) -> None:
    """Given the tenant "acme"  (its default user acme-user becomes the caller)"""
    world(context).add_tenant(tenant)


@given('the user "{user:Text}" of tenant "{tenant:Text}"')
def the_user(context: Any, user: str, tenant: str) -> None:
    """Given the user "alice" of tenant "acme"  (alice becomes the caller)"""
    with spec_errors(context):
        world(context).add_user(user, tenant)


@given('the user "{user:Text}" of tenant "{tenant:Text}" with the scopes "{scopes:Names}"')
def the_user_with_scopes(context: Any, user: str, tenant: str, scopes: list[str]) -> None:
    """Given the user "bob" of tenant "acme" with the scopes "notes:read, notes:write\""""
    with spec_errors(context):
        world(context).add_user(user, tenant, scopes)


@given('the caller is "{user:Text}"')
def the_caller_is(context: Any, user: str) -> None:
    """Given the caller is "alice\""""
    with spec_errors(context):
        world(context).switch_caller(user)


@given("nobody is signed in")
def nobody_signed_in(context: Any) -> None:
    """Given nobody is signed in  (calls carry no access token)"""
    world(context).sign_out()
