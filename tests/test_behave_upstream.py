"""The upstream steps fail when they should, with a message that says why (behave in a subprocess).

Same pattern as tests/test_behave_runs.py: run tests/behave_cases/features/failing_upstream.feature
with the JSON formatter and compare each scenario's failure message with the expected fragments.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_failures import assert_each_scenario_fails_with

FEATURE = "tests/behave_cases/features/failing_upstream.feature"

ROUTES_HEAD = "Routes, tried in order on origin, method and exact path:"

EXPECTED_FAILURES: dict[str, list[str]] = {
    "a request no route matches": [
        "The server sent an upstream request that no route matches: GET https://docs.example.com/documents/d-2",
        "(the server was answered 502 Bad Gateway)",
        ROUTES_HEAD,
        "  1. GET https://docs.example.com/documents/d-1 → answers 200\n"
        "  2. GET https://docs.example.com.evil/documents/d-2 → answers 200",
        'To answer it, add: Given the upstream "https://docs.example.com" answers GET "/documents/d-2" with status 200',
    ],
    "a request when no route is declared": [
        "no route matches: GET https://docs.example.com/documents/d-1",
        "(none: no upstream route is declared in this scenario)",
    ],
    "a once route that was used up": [
        "no route matches: GET https://docs.example.com/documents/d-1",
        "1. GET https://docs.example.com/documents/d-1 → answers 200, once, already used",
    ],
    "received a number of times, but another number": [
        "Expected the upstream https://docs.example.com to receive GET /documents/d-1 3 times, "
        "but it received it once.",
        "Requests sent to https://docs.example.com, in order:\n  1. GET https://docs.example.com/documents/d-1 → "
        "fails with 503",
    ],
    "received a request, but it never came": [
        "to receive GET /documents/d-1 once, but it received it 0 times. It received no request at all",
        "1. GET https://docs.example.com/documents/d-1 → fails with 503",
    ],
    "received no request, but one came": [
        "Expected the upstream https://docs.example.com to receive no request, but it received 1.",
        "1. GET https://docs.example.com/documents/d-1 → fails with 503",
    ],
    "an upstream that is not an origin": [
        f"{FEATURE}:49: the upstream 'https://docs.example.com/v1' must be an origin only (scheme, host, port)",
        "put the path in the route instead",
    ],
    "an upstream without a scheme": [
        f"{FEATURE}:52: the upstream 'docs.example.com' must be an http:// or https:// origin"
    ],
    "an unknown HTTP method": [f"{FEATURE}:55: unknown HTTP method 'FETCH': use one of GET, HEAD, POST"],
    "a failure with a success status": [f"{FEATURE}:58: a failing upstream answers a status from 400 to 599, got 200"],
    "a path without its leading slash": [f"{FEATURE}:61: the path 'documents/d-1' must start with '/'"],
    "an answer that is not JSON": [f"{FEATURE}:66: the doc string is not valid JSON"],
    "received a body, but another body": [
        'Expected the upstream https://docs.example.com to receive POST /documents with a body containing {"title": '
        '"Roadmap", "source": "notes/n-1"}, but none of the 1 such request(s) does:\n'
        '  1. {"title":"Plan","body":"Ship it","tags":[],"source":"notes/n-1"}\n'
        '       $.title: expected "Roadmap", got "Plan"'
    ],
    "received a body, but no such request came": [
        "Expected the upstream https://docs.example.com to receive POST /documents with a body, but it received no "
        "such request. It received no request at all",
    ],
    "received a body that says nothing in particular": [
        "The expected JSON is {}, which every JSON body contains, so this checks nothing"
    ],
}


@pytest.mark.parametrize(
    "options",
    [["-D", "mcpbdd.harness=context"], ["-D", "mcpbdd.harness=client"], ["-D", "mcpbdd.client_mode=legacy"]],
    ids=["context", "client", "client-legacy"],
)
def test_every_upstream_step_fails_with_a_readable_message(tmp_path: Path, options: list[str]) -> None:
    if "mcpbdd.client_mode=legacy" in options:
        options = ["-D", "mcpbdd.harness=client", *options]
    assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, options, tmp_path / "report.json")


def test_the_upstream_steps_are_listed_in_their_own_group() -> None:
    from mcpbdd.phrases import vocabulary

    entries = vocabulary.vocabulary()["Upstream services"]
    phrases = [entry.phrase for entry in entries]
    assert 'the upstream "{base}" answers {method} "{path}" with status {code} and:' in phrases
    assert 'the upstream "{base}" received no request' in phrases
    assert all(entry.example.startswith(("Given the upstream", "Then the upstream")) for entry in entries)
