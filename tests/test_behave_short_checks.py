"""The short checks a new user reached for (issue 29) fail when they should, saying why.

behave runs in a subprocess (its main() leaks step definitions within one process), on the
context harness and on the client harness in both eras: the messages are the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_failures import assert_each_scenario_fails_with

FEATURE = "tests/behave_cases/features/failing_short_checks.feature"

EXPECTED_FAILURES: dict[str, list[str]] = {
    "retryable, but the failure says a retry will not help": [
        "Expected the failure to be retryable, but it says it is not retryable: tools/call 'get_note' as alice of "
        "tenant acme failed with a tool error: Note n-404 not found."
    ],
    "not retryable, but the failure says a retry can help": [
        "Expected the failure to be not retryable, but it says it is retryable: tools/call 'import_note'"
    ],
    "retryable, but the failure does not say": [
        "Expected the failure to be not retryable, but it does not say whether a retry can help (no 'retryable' in "
        "its structured error or error data): tools/call 'create_note'"
    ],
    "retryable, but the call succeeded": [
        "Expected a failure that says whether a retry can help, but tools/call 'list_notes' as alice of tenant acme "
        "succeeded"
    ],
    "the tool error, but another reason": [
        "Expected the failure reason 'note_locked', but it is 'note_not_found': tools/call 'get_note'"
    ],
    "the tool error, but a protocol error came": [
        "Expected the tool error 'export_format_unsupported', but tools/call 'export_notes' as alice of tenant acme "
        "failed with the protocol error -32602"
    ],
    "a value at a path, but another value": [
        "The value at $.count of the structured result of tools/call 'list_notes' as alice of tenant acme does not "
        "match what was expected:\n$: expected 2, got 1"
    ],
    "a value at a path the result does not have": [
        "Expected $.total to be 1, but the result has no $.total (at $: count, notes): tools/call 'list_notes'"
    ],
    "a value at a path that is no path": [f"{FEATURE}:46: the JSON path 'count' must start with $"],
    "a value that is not JSON": [f"{FEATURE}:50: the expected value is not valid JSON: Expecting value"],
    "the server asks nothing, but it asks": [
        # 'confirm' on 2026-07-28; a 2025-11-25 mid-call question is named by kind and order ('elicitation-1')
        "Expected the server to ask nothing, but it asks '",
        "' by elicitation: tools/call 'delete_note' as alice of tenant acme asked for input",
    ],
    "a stored value containing, but another value": [
        "The value of 'notes/n-2' in tenant 'acme' does not contain what was expected:\n"
        '$.title: expected "Retrospective", got "Retro"'
    ],
    "a stored value containing nothing in particular": [
        "The expected JSON is {}, which every stored value contains, so this checks nothing"
    ],
    "a stored value containing, under a key the tenant does not hold": [
        "The storage of tenant 'acme' has no key 'notes/n-7'; it holds: notes/n-1"
    ],
    "empty, but the tenant holds a note": [
        "Expected the storage of tenant 'acme' to be empty, but it holds 1 key(s): notes/n-1"
    ],
    "empty, of a tenant the scenario does not know": [
        "The scenario knows no tenant 'initech' (known: acme) and its storage holds nothing, so it is empty "
        "whatever the server does"
    ],
    "unchanged except under a prefix, but a key outside it changed": [
        "The storage of tenant 'acme' changed outside 'consent/':\n+ meta/next-note-number = 3\n+ notes/n-2 = "
    ],
    "unchanged except under the empty prefix": [
        f"{FEATURE}:91: 'except under \"\"' leaves out every key (each starts with the empty prefix)"
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
def test_each_short_check_fails_with_a_readable_message(tmp_path: Path, options: list[str]) -> None:
    assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, options, tmp_path / "report.json")


def test_the_short_checks_are_listed() -> None:
    from mcpbdd.phrases import vocabulary

    listed = {(p.keyword, p.phrase) for phrases in vocabulary.vocabulary().values() for p in phrases}
    for phrase in [
        ("Then", "the error is retryable"),
        ("Then", "the error is not retryable"),
        ("Then", 'the call fails with the tool error "{reason}"'),
        ("Then", 'the result\'s "{path}" is {value}'),
        ("Then", "the server asks nothing"),
        ("Then", 'the storage of tenant "{tenant}" holds "{key}" containing:'),
        ("Then", 'the storage of tenant "{tenant}" is empty'),
        ("Then", 'the storage of tenant "{tenant}" is unchanged except under "{prefix}"'),
        ("Given", "{amount} {unit} have passed"),
    ]:
        assert phrase in listed, phrase
