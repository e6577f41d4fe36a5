"""The phrases a new user reached for (issue 16): each fails when it should, and a misspelt step is answered.

behave runs in a subprocess (its main() leaks step definitions within one process).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_failures import assert_each_scenario_fails_with, behave, on

FEATURE = "tests/behave_cases/features/failing_vocabulary.feature"
MISSPELT = "tests/behave_cases/features/misspelt_steps.feature"

EXPECTED_FAILURES: dict[str, list[str]] = {
    "a protocol error, but the read succeeded": [
        "Expected a protocol error, but resources/read 'note-data://n-7' as rita of tenant northside succeeded"
    ],
    "a protocol error, but it was a tool error": [
        "Expected a protocol error, but tools/call 'get_note' as rita of tenant northside failed with a tool error"
    ],
    "a JSON resource holds another value": [
        "The structured result of resources/read 'note-data://n-7' as rita of tenant northside does not contain",
        '$.title: expected "Allergy", got "Allergies"',
    ],
    "a markdown resource has no JSON to compare": [
        "Expected a structured result, but resources/read 'notes://n-7' as rita of tenant northside returned no "
        "JSON contents (mime type text/markdown) (text: '# Allergies"
    ],
    "a prompt's messages say something else": [
        "The structured result of prompts/get 'summarize_notes' as rita of tenant northside does not match",
        '$.messages[0].role: expected "assistant", got "user"',
    ],
    "a resource read by a user the scenario does not know": [
        f"{FEATURE}:44: no user 'mallory' in this scenario (known: rita)"
    ],
    "a prompt asked for by a user the scenario does not know": [
        f"{FEATURE}:47: no user 'mallory' in this scenario (known: rita)"
    ],
    "one key seeded with JSON that does not parse": [
        f"{FEATURE}:52: the doc string is not valid JSON: Expecting property name enclosed in double quotes"
    ],
    "one key seeded under a key the storage refuses": [
        f"{FEATURE}:56: 'notes:n-8' is refused as a key",
        "use notes/n-8",
    ],
    "a key the tenant does not hold, next to the keys it does": [
        "The storage of tenant 'northside' has no key 'notes/n7'; it holds: notes/n-7"
    ],
    "a result that mentions what it must not": [
        "Expected the response not to mention 'Penicillin', but resources/read 'note-data://n-7' as rita of tenant "
        "northside succeeded"
    ],
    # An answer is checked against the question's form before it is sent.
    "an answer with a field the question does not have": [
        f"{FEATURE}:63: the answer to 'confirm' does not fit its form: it has no field 'reason' "
        "(the question asks for: confirm (boolean, required))"
    ],
    "an answer without the field the question requires": [
        f"{FEATURE}:70: the answer to 'confirm' does not fit its form: the required field 'confirm' is missing"
    ],
    "an answer of the wrong type": [
        f"{FEATURE}:77: the answer to 'confirm' does not fit its form: 'confirm' is a boolean, not \"yes\""
    ],
    "an answer given in advance that does not fit the question": [
        "does not fit its form: it has no field 'confirmed' (the question asks for: confirm (boolean, required)); "
        "it was given in advance (Given the user will ...)"
    ],
}


@pytest.mark.parametrize("harness", ["context", "client"])
def test_each_new_phrase_fails_with_a_readable_message(tmp_path: Path, harness: str) -> None:
    assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, on(harness), tmp_path / "report.json")


def test_a_misspelt_step_is_answered_with_the_nearest_phrases() -> None:
    run = behave(MISSPELT, "--format", "progress")
    assert run.returncode == 1, run.stdout + run.stderr
    assert (
        f"{MISSPELT}:9: no step matches 'Then the call succeed'; did you mean:\n"
        "    Then the call succeeds\n    Then the call does not succeed"
    ) in run.stderr
    assert f"{MISSPELT}:12: no step matches 'When the client calls the tool \"list_notes\"'; did you mean:\n" in (
        run.stderr
    )
    assert '    When the client calls "{tool}"\n' in run.stderr
    assert (
        f"{MISSPELT}:16: no step matches 'Then the moon is made of cheese'; no phrase of the vocabulary is close "
        "(`mcpbdd steps` lists them all)"
    ) in run.stderr
    # A Then step is a check: its seeding Given (the same words) is the wrong advice (issue 29).
    assert (
        f'{MISSPELT}:20: no step matches \'Then the storage of tenant "acme" holds "notes/n-1" equals to:\'; '
        'did you mean:\n    Then the storage of tenant "{tenant}" holds "{key}" equal to:\n'
    ) in run.stderr
    assert run.stderr.count("no step matches") == 4, "each undefined step once"


UNUSED = "tests/behave_cases/features/unused_answer.feature"


@pytest.mark.parametrize("mode", ["auto", "legacy", "context"])
def test_an_answer_given_in_advance_that_no_question_used_fails_the_scenario(mode: str) -> None:
    harness = ["-D", "mcpbdd.harness=context"]
    if mode != "context":
        harness = ["-D", "mcpbdd.harness=client", "-D", f"mcpbdd.client_mode={mode}"]
    run = behave(UNUSED, "--format", "progress", *harness)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "0 scenarios passed, 0 failed, 4 hook_error" in run.stdout, run.stdout
    assert (
        "The model's answer given in advance 'Weekly groceries' was never used: the server never asked the model "
        "(no question was asked in this scenario)"
    ) in run.stdout
    assert (
        "The model's answer given in advance 'Monthly groceries' was never used: the server asked the model only once "
        "(questions asked: "
    ) in run.stdout
    assert (
        "The answer given in advance for 'confirm_cancel' was never used: no question by that name was asked "
        "(no question was asked in this scenario)"
    ) in run.stdout
    assert "The answer given in advance for 'confirm_archive' was never used" in run.stdout
    assert "(questions asked: " in run.stdout and "'elicitation-1')" in run.stdout
