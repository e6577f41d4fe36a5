"""Upstream services: what the services the server calls answer, and what they received.

An upstream is named by its origin (`"https://docs.example.com"`); routes match in the
order they are declared, on origin, method and exact path, and `once` routes answer one
request. A request no route matches fails the step that made the call, naming the
request and listing the routes (`mcpbdd.upstream`).

"Received 0 times" and "received no request" are real checks (a cache, a guard that must
keep the server from calling out), but only after a call and only for an origin a route
answers: any request to another origin already failed the call that sent it.
"""

from __future__ import annotations

from typing import Any

import parse
from behave import given, register_type, then

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import json_doc_string, spec_errors


@parse.with_pattern(r"[A-Za-z]+")
def _http_method(text: str) -> str:
    """Any word, so an unknown method (`FETCH`) fails with the accepted ones listed, not as an undefined step."""
    return text


register_type(HttpMethod=_http_method)


def _answers(context: Any, base: str, method: str, path: str, status: int, *, once: bool) -> None:
    body = json_doc_string(context)
    with spec_errors(context):
        world(context).upstream.answer(base, method, path, status, body, once=once)


@given('the upstream "{base:Text}" answers {method:HttpMethod} "{path:Text}" with status {code:d} and:')
def upstream_answers(context: Any, base: str, method: str, path: str, code: int) -> None:
    """Given the upstream "https://docs.example.com" answers GET "/documents/d-1" with status 200 and: (JSON)"""
    _answers(context, base, method, path, code, once=False)


@given('the upstream "{base:Text}" answers {method:HttpMethod} "{path:Text}" once with status {code:d} and:')
def upstream_answers_once(context: Any, base: str, method: str, path: str, code: int) -> None:
    """Given the upstream "https://docs.example.com" answers GET "/documents/d-1" once with status 200 and: (JSON)"""
    _answers(context, base, method, path, code, once=True)


@given('the upstream "{base:Text}" fails {method:HttpMethod} "{path:Text}" with status {code:d}')
def upstream_fails(context: Any, base: str, method: str, path: str, code: int) -> None:
    """Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 503"""
    with spec_errors(context):
        world(context).upstream.fail(base, method, path, code)


@given('the upstream "{base:Text}" fails {method:HttpMethod} "{path:Text}" once with status {code:d}')
def upstream_fails_once(context: Any, base: str, method: str, path: str, code: int) -> None:
    """Given the upstream "https://docs.example.com" fails GET "/documents/d-1" once with status 503"""
    with spec_errors(context):
        world(context).upstream.fail(base, method, path, code, once=True)


@given('the upstream "{base:Text}" times out on {method:HttpMethod} "{path:Text}"')
def upstream_times_out(context: Any, base: str, method: str, path: str) -> None:
    """Given the upstream "https://docs.example.com" times out on GET "/documents/d-1\""""
    with spec_errors(context):
        world(context).upstream.time_out(base, method, path)


@given('the upstream "{base:Text}" times out once on {method:HttpMethod} "{path:Text}"')
def upstream_times_out_once(context: Any, base: str, method: str, path: str) -> None:
    """Given the upstream "https://docs.example.com" times out once on GET "/documents/d-1\""""
    with spec_errors(context):
        world(context).upstream.time_out(base, method, path, once=True)


@given('the upstream "{base:Text}" is unreachable')
def upstream_unreachable(context: Any, base: str) -> None:
    """Given the upstream "https://docs.example.com" is unreachable  (every request fails to connect)"""
    with spec_errors(context):
        world(context).upstream.unreachable(base)


def _attach_requests(context: Any) -> None:
    from mcpbdd.reporting import attachments as report

    report.attach_upstream_requests([r.to_json() for r in world(context).upstream.requests])


@then('the upstream "{base:Text}" received {method:HttpMethod} "{path:Text}" {n:d} times')
def upstream_received(context: Any, base: str, method: str, path: str, n: int) -> None:
    """Then the upstream "https://docs.example.com" received GET "/documents/d-1" 2 times  (0: after a call)"""
    from mcpbdd.checks import upstream as check
    from mcpbdd.kit.upstream import origin_of

    w = world(context)
    try:
        with spec_errors(context):
            if n == 0:
                check.upstream_can_receive(origin_of(base), w.upstream.bases(), len(w.trace))
            w.upstream.assert_received(base, method, path, n)
    except AssertionError:
        _attach_requests(context)
        raise


@then('the upstream "{base:Text}" received {method:HttpMethod} "{path:Text}" {n:d} time')
def upstream_received_singular(context: Any, base: str, method: str, path: str, n: int) -> None:
    """Then the upstream "https://docs.example.com" received GET "/documents/d-1" 1 time"""
    upstream_received(context, base, method, path, n)


@then('the upstream "{base:Text}" received {method:HttpMethod} "{path:Text}" with:')
def upstream_received_with(context: Any, base: str, method: str, path: str) -> None:
    """Then the upstream "https://docs.example.com" received POST "/documents" with: (JSON; the keys that matter)"""
    from mcpbdd.checks import upstream as check

    body = json_doc_string(context)
    w = world(context)
    try:
        with spec_errors(context):
            check.upstream_body_names_something(body)
            w.upstream.assert_received_with(base, method, path, body)
    except AssertionError:
        _attach_requests(context)
        raise


@then('the upstream "{base:Text}" received no request')
def upstream_received_nothing(context: Any, base: str) -> None:
    """Then the upstream "https://docs.example.com" received no request  (after a call; an origin a route answers)"""
    from mcpbdd.checks import upstream as check
    from mcpbdd.kit.upstream import origin_of

    w = world(context)
    try:
        with spec_errors(context):
            check.upstream_can_receive(origin_of(base), w.upstream.bases(), len(w.trace))
            w.upstream.assert_no_request(base)
    except AssertionError:
        _attach_requests(context)
        raise


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
