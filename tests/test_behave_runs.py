"""behave runs in a subprocess (behave's main() leaks step definitions within one process).

Every assertion step of the vocabulary is shown to fail when it should, with a message
that says why; malformed specification data names the feature file and line; and a
passing run through `mcpbdd run` writes one Allure result per scenario and harness.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from expected_failures import ROOT, assert_each_scenario_fails_with, behave, on
from processes import mcpbdd_run

CASES = ROOT / "tests" / "behave_cases"
FEATURE = "tests/behave_cases/features/failing_assertions.feature"

EXPECTED_FAILURES: dict[str, list[str]] = {
    "succeeds, but the call failed": [
        "Expected the call to succeed, but tools/call 'get_note' as alice of tenant acme failed with a tool error",
        "Note n-9 not found",
    ],
    "mentions, but the text is elsewhere": ["Expected the response to mention 'Bread'", '"title": "Groceries"'],
    "structured contains, but a value differs": [
        "The structured result of tools/call 'create_note' as alice of tenant acme does not contain what was expected:",
        '$.title: expected "Grocery", got "Groceries"',
    ],
    "structured matches, but a marker does not hold": [
        "The structured result of tools/call 'create_note' as alice of tenant acme does not match what was expected:",
        '$.id: expected #uuid, got "n-1"',
    ],
    "tool error, but the call succeeded": [
        "Expected a tool error, but tools/call 'list_notes' as alice of tenant acme succeeded"
    ],
    "tool error mentioning, but it says something else": ["Expected the tool error to mention 'permission denied'"],
    "protocol error, but it was a tool error": [
        "Expected the protocol error -32602 (InvalidParams), but tools/call 'get_note' as alice of tenant acme "
        "failed with a tool error"
    ],
    "protocol error, but with another code": [
        "Expected the protocol error -32601 (MethodNotFound), but got -32602 (InvalidParams)",
        '"supported": ["markdown", "json"]',
    ],
    "outcome, but another channel": ['Expected the outcome "tool-error", but', "failed with the protocol error -32602"],
    "no response mentions, but one does": ["1 response(s) mention 'confidential'"],
    "no response to a user mentions, but one to them does": ["1 response(s) mention 'secret sauce'"],
    "fails the same way, but it succeeded": ["Expected the call to have failed before repeating it"],
    "offers the tool, but it is not there": ["missing: archive_notes", "It offers: create_note, get_note"],
    "offers exactly the tools, but there are more": [
        "not expected: get_note, list_notes, delete_note, export_notes, suggest_title, list_import_folders"
    ],
    "an unknown tool names the tools on offer": [
        "Unknown tool: archive_notes",
        "the server offers no tool 'archive_notes'; it offers: create_note, get_note, list_notes",
    ],
    "an outcome step with no call before it": ["no call has been made yet in this scenario"],
    "malformed JSON in a doc string": [f"{FEATURE}:80: the doc string is not valid JSON: Expecting value"],
    "a table with the wrong columns": [
        f"{FEATURE}:84: the table's columns are name | value; expected exactly argument | value"
    ],
    "a broken JSON cell in a table": [f"{FEATURE}:92: the table cell '[\"home\", ]' looks like JSON but is not valid"],
    "an unknown outcome word": [f"{FEATURE}:96: unknown outcome 'error': use one of ok, tool-error, protocol-error"],
    "asks by elicitation, but the call just succeeded": [
        "Expected the server to ask for input, but tools/call 'list_notes' as alice of tenant acme succeeded"
    ],
    "asks for a question the server did not ask": [
        "the server did not ask 'confirm_archive'; open questions: 'confirm' / 'elicitation-1' by elicitation"
    ],
    "asks by sampling, but it asks by elicitation": [
        "Expected the server to ask 'elicitation-1' by sampling, but it asks by elicitation"
    ],
    "the question says something else": [
        "Expected the question 'confirm' to say 'Archive', but it says "
        "'Allow the assistant to delete the note \"Old plan\" (n-1)? This cannot be undone.'"
    ],
    "the question requires other fields": ["to require the fields confirm, reason, but it requires confirm"],
    "the model answers a form": ["asks by elicitation, so it cannot be answered by sampling"],
    "the model is asked more than was queued": [
        r"the server asked the model 'Suggest a short title for this note:\n\nMilk'",
        "but no answer is queued for it",
    ],
    "the call took another number of rounds": [
        "Expected the call (tools/call 'delete_note' as alice of tenant acme) to take 3 round(s), but it took 2"
    ],
    "an answer when nothing is open": [
        "no question is open (the last call tools/call 'list_notes' as alice of tenant acme succeeded"
    ],
    "storage holds a key, but with another value": [
        "The value of 'notes/n-1' in tenant 'acme' does not match what was expected:",
        '$.title: expected "Grocery", got "Groceries"',
    ],
    "storage holds a key that was never written": ["The storage of tenant 'acme' has no key 'notes/n-1'"],
    "storage has no key, but it has": [
        "Expected the storage of tenant 'acme' to have no key 'notes/n-1', but it holds {\"id\": \"n-1\""
    ],
    "storage is unchanged, but a note was written": [
        "The storage of tenant 'acme' changed:\n+ meta/next-note-number = 2\n+ notes/n-1 = {"
    ],
    "every other tenant is unchanged, but another tenant changed": [
        "The storage of tenant 'globex' changed:",
        '+ notes/n-1 = {"author": "erin"',
    ],
    "a storage table with the wrong columns": [
        "the storage table needs the columns key | value (and optionally | ttl), got name | value"
    ],
    "a storage key that breaks the rules": ["'cache:v1:abc' is refused as a key", "use cache/v1/abc"],
    "a duration nobody understands": ["2 fortnights"],
    "asks for consent, but the call just succeeded": [
        "Expected the server to ask for consent, but tools/call 'list_notes' as alice of tenant acme succeeded"
    ],
    "asks for consent to something else": [
        "to say 'archive the note', but it says 'Allow the assistant to delete the note \"Old plan\" (n-1)?"
    ],
    "asks for consent again, but nothing was answered yet": [
        "Expected the server to ask again after an answer, but no answer was sent before"
    ],
    "the error reason is another one": ["Expected the failure reason 'consent_declined', but it is 'note_not_found'"],
    "the error reason of a failure that declares none": [
        "Expected the failure reason 'title_missing', but the failure declares none"
    ],
    "the error suggests something else": [
        "Expected the failure to suggest 'try again later', but its recovery hint is "
        "'List the notes to see which ids exist.'"
    ],
    "does not succeed, but it did": [
        "Expected the call not to succeed, but tools/call 'list_notes' as alice of tenant acme succeeded"
    ],
    "a replay with nothing to replay": ["there is no consented call to replay: no call has asked for input yet"],
    "an unknown user": [f"{FEATURE}:99: no user 'mallory' in this scenario (known: alice)"],
    # "The client" is the first caller declared until 'Given the caller is'; every outcome failure names the caller.
    "a second user does not change who the client is": [
        "Expected the call to succeed, but tools/call 'get_note' as alice of tenant acme failed with a tool error"
    ],
    "the caller chosen is named in the failure": [
        "Expected a tool error, but tools/call 'list_notes' as erin of tenant globex succeeded"
    ],
    "an anonymous caller is named in the failure": [
        "tools/call 'list_notes' as an anonymous caller (no access token) failed with a tool error"
    ],
    # ctx.elicit on a 2026-07-28 connection: the SDK's bare -32600, explained with both fixes.
    "a tool that asks mid-call on the 2026-07-28 protocol": [
        "failed with the protocol error -32600 \"Cannot send 'elicitation/create': this transport context has no "
        'back-channel for server-initiated requests."',
        "the tool called ctx.elicit(), which needs a channel back to the client during the call; on the 2026-07-28 "
        "protocol a request has none, so the SDK refused it (NoBackChannelError).",
        "with a parameter `Annotated[T, Resolve(fn)]` whose `fn` returns `Elicit(message, Model)`",
        "pin the scenario to that handshake with the tag @harness.client.legacy",
    ],
}


@pytest.mark.parametrize("harness", ["context", "client"])
def test_every_assertion_step_fails_with_a_readable_message(tmp_path: Path, harness: str) -> None:
    assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, on(harness), tmp_path / "report.json")


def test_a_bad_setting_stops_the_run_at_once_with_a_clear_message() -> None:
    run = behave(FEATURE, "-D", "mcpbdd.harness=wire")
    assert run.returncode != 0
    assert "harness: Input should be 'context' or 'client' (from -D mcpbdd.harness=wire)" in run.stdout + run.stderr


def test_mcpbdd_run_writes_one_allure_result_per_scenario_and_harness(tmp_path: Path) -> None:
    results = tmp_path / "allure-results"
    run = mcpbdd_run("--harness", "both", "--results", str(results), "-f", "progress")
    assert run.returncode == 0, run.stdout + run.stderr
    outcomes = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    names = sorted(result["name"] for result in outcomes)
    context = {n.rsplit(" [", 1)[0] for n in names if n.endswith("[context harness]")}
    client = {n.rsplit(" [", 1)[0] for n in names if n.endswith("[client harness]")}
    assert len(context) > 10
    assert context <= client, "every scenario the context pass ran, the client pass ran too"
    assert {result["status"] for result in outcomes} == {"passed"}
    exchanges = [json.loads(p.read_text()) for p in results.glob("*-attachment.json")]
    exchanges = [e for e in exchanges if isinstance(e, dict) and "request" in e]
    assert exchanges, "each MCP exchange is attached to the step that made it"
    assert all({"harness", "request", "channel", "duration_ms"} <= e.keys() for e in exchanges)
