"""No green that checks nothing: every step that could pass vacuously fails, saying why and the fix.

tests/behave_cases/features/vacuous_checks.feature holds one scenario per vacuous form
(an empty text or table, a count below what the phrase means, a leak or upstream check
before any call, a storage check of a tenant nobody knows, "every other tenant" with no
other tenant); each must fail on every harness, its message naming what was vacuous and
how to fix the scenario. Same pattern as tests/test_behave_runs.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_failures import assert_each_scenario_fails_with

FEATURE = "tests/behave_cases/features/vacuous_checks.feature"
EMPTY = "is empty, and every text contains the empty text, so this checks nothing"
NO_CALL_YET = "No call has been made yet in this scenario"

EXPECTED_FAILURES: dict[str, list[str]] = {
    "mentions an empty text": [f"The text to look for {EMPTY}", "write the words the result must mention"],
    "does not mention an empty text": [f"The text that must not appear {EMPTY}"],
    "a tool error mentioning an empty text": [
        f"The text the tool error must mention {EMPTY}",
        "or use 'Then the call fails with a tool error'",
    ],
    "suggests an empty hint": [f"The hint to look for {EMPTY}", "write the words the recovery hint must contain"],
    "the structured result contains an empty object": [
        "The expected JSON is {}, which every structured result contains, so this checks nothing",
        "name the keys and values that matter",
    ],
    "the structured result matches anything": [
        'The expected JSON is "#ignore", which every structured result matches, so this checks nothing'
    ],
    "no response mentions, before any call": [
        f"{NO_CALL_YET}, so no response can mention 'confidential' yet",
        "put this step after the calls whose responses it checks",
    ],
    "no response to a user who made no call": [
        "'erin' has made no call in this scenario, so no response to them can mention 'confidential' yet",
        'put this step after the calls it is about (When "erin" calls ...)',
    ],
    "no response mentions an empty text": [f"The text that must never appear {EMPTY}"],
    "fails the same way 0 times in a row": [
        f"{FEATURE}:53: 'the same way 0 times in a row' is no row: the count includes the call already made, "
        "so it must be at least 2 (the call and one repeat)"
    ],
    "fails the same way 1 times in a row": [f"{FEATURE}:57: 'the same way 1 times in a row' is no row"],
    "offers the tools of an empty table": [
        "The table lists no tool (a heading and no rows), and every server offers at least no tools",
        "add a row per tool the server must offer, or use 'Then the server offers exactly the tools:'",
    ],
    "storage seeded from an empty table": [
        f"{FEATURE}:64: the storage table has a heading and no rows, so it seeds nothing: add a row per key"
    ],
    "has no key, in a tenant nobody knows": [
        "The scenario knows no tenant 'acmee' (known: acme) and its storage holds nothing, "
        "so it has no key 'notes/n-1' whatever the server does",
        "check the tenant's name",
    ],
    "unchanged, a tenant nobody knows": [
        "The scenario knows no tenant 'initech' (known: acme) and its storage holds nothing, "
        "so it is unchanged whatever the server does"
    ],
    "unchanged, before any When step": [
        "'Unchanged' compares with the storage just before the first When step, and no When step has run yet",
        "put this step after the When step whose effect it checks",
    ],
    "every other tenant unchanged, with no other tenant": [
        "There is no other tenant to compare: the scenario knows only 'acme' (the last call's caller's tenant) "
        "and no other tenant's storage holds anything",
        'Introduce another tenant (Given the user "erin" of tenant "globex")',
    ],
    "the question says an empty text": [f"The text the question must say {EMPTY}"],
    "consent to an empty operation": [f"The text the question must say {EMPTY}"],
    "the call took 0 rounds": [f"{FEATURE}:95: a call takes at least 1 round, so 0 round(s) can never be right"],
    "the call took 1 round, before any call": ["no call has been made yet in this scenario"],
    "the call took the rounds of an earlier call": [
        "Expected the call (tools/call 'list_notes' as alice of tenant acme) to take 2 round(s), but it took 1"
    ],
    "the upstream received no request, before any call": [
        f"{NO_CALL_YET}, so the server cannot have sent https://docs.example.com anything"
    ],
    "the upstream received a request 0 times, before any call": [
        f"{NO_CALL_YET}, so the server cannot have sent https://docs.example.com anything"
    ],
    "an upstream no route answers received no request": [
        "No route in this scenario answers for https://docs.exmple.com (routes answer for: https://docs.example.com)",
        "any request to it would already have failed the call that sent it and this check cannot fail",
    ],
}


@pytest.mark.parametrize(
    "options",
    [
        ["-D", "mcpbdd.harness=context"],
        ["-D", "mcpbdd.harness=client"],
        ["-D", "mcpbdd.harness=client", "-D", "mcpbdd.client_mode=legacy"],
    ],
    ids=["context", "client", "client-legacy"],
)
def test_every_vacuous_check_fails_naming_why_and_the_fix(tmp_path: Path, options: list[str]) -> None:
    assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, options, tmp_path / "report.json")
