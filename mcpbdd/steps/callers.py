"""Tenants and callers: who makes the calls."""

from __future__ import annotations

from typing import Any

from behave import given

from mcpbdd.steps._world import world


@given('the tenant "{tenant:Text}"')
def the_tenant(context: Any, tenant: str) -> None:
    world(context).add_tenant(tenant)


@given('the user "{user:Text}" of tenant "{tenant:Text}"')
def the_user(context: Any, user: str, tenant: str) -> None:
    world(context).add_user(user, tenant)


@given('the user "{user:Text}" of tenant "{tenant:Text}" with the scopes "{scopes:Names}"')
def the_user_with_scopes(context: Any, user: str, tenant: str, scopes: list[str]) -> None:
    world(context).add_user(user, tenant, scopes)


@given('the caller is "{user:Text}"')
def the_caller_is(context: Any, user: str) -> None:
    world(context).switch_caller(user)
