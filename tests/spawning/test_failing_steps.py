"""Every step fails when it should, with a message that says why: one table, a row per scenario and pass.

Each feature in tests/behave_cases/features/ named below is meant to fail, scenario by scenario: the assertion steps
(failing_assertions), the contract steps against the deliberately weak tests/weak_server.py (failing_contracts), the
storage and clock steps against servers that cannot see them (failing_doubles), the upstream steps (failing_upstream),
every step that could pass vacuously (vacuous_checks), the phrases a new user reached for (failing_vocabulary,
failing_short_checks), the authorization steps (failing_authorization), the progress and log-message steps
(failing_progress, failing_logs), the discovery, caching-hint and completion steps (failing_discovery), the
cancellation steps against a server that ignores a cancel (failing_cancellation) and the announcement steps
(failing_announcements, against tests/announcing_server.py's broken listen streams). behave runs
each feature once per pass, in a subprocess (its `main()` leaks step definitions within one process), with the JSON
formatter; the features of a pass that can share a process run in one (one start-up per pass, not one per feature, as
a user's run of a folder does), each feature's results read apart from the report. Every scenario must fail, and only
those the table names, and each failing step's message must hold its row's fragments: the JSON path of a schema
violation, the shrunk input of a crash, the feature file and line of malformed data, the fix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pytest
import weak_server
from behave_passes import PASSES, BehavePass
from expected_failures import FailingRun, FailingRunsOfPasses

__all__: list[str] = []

ASSERTIONS = "tests/behave_cases/features/failing_assertions.feature"

ASSERTION_FAILURES: dict[str, list[str]] = {
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
    "malformed JSON in a doc string": [f"{ASSERTIONS}:80: the doc string is not valid JSON: Expecting value"],
    "a table with the wrong columns": [
        f"{ASSERTIONS}:84: the table's columns are name | value; expected exactly argument | value"
    ],
    "a broken JSON cell in a table": [
        f"{ASSERTIONS}:92: the table cell '[\"home\", ]' looks like JSON but is not valid"
    ],
    "an unknown outcome word": [f"{ASSERTIONS}:96: unknown outcome 'error': use one of ok, tool-error, protocol-error"],
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
    "a storage key names a value nobody remembered": [
        f"{ASSERTIONS}:247: nothing is remembered as 'nope' (remembered: none yet)"
    ],
    "a storage key with a remembered id, but another value is stored there": [
        "The value of 'notes/n-1' in tenant 'acme' does not contain what was expected:",
        '$.title: expected "Grocery", got "Groceries"',
    ],
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
    "an unknown user": [f"{ASSERTIONS}:99: no user 'mallory' in this scenario (known: alice)"],
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


CONTRACTS = "tests/behave_cases/features/failing_contracts.feature"
OFFERED = (
    "it offers: lookup, shout, reading, connect, stall, panic, pick_color, silent, untyped, broken_schema, remember, "
    "profile"
)

CONTRACT_FAILURES: dict[str, list[str]] = {
    "output schema, but a result breaks it": [
        "1 of 1 result(s) of 'reading' do not match its output schema:",
        'result 1 (arguments {"region": "north"}):',
        "$.stations[1].code: 'rtm' does not match '^[A-Z]{3}$'",
        "$.stations[1].level: 11 is greater than the maximum of 10",
    ],
    "output schema, but the tool advertises none": [
        "The tool 'untyped' advertises no output schema, so its results cannot be checked against one"
    ],
    "output schema, but no call succeeded": [
        "No call of 'lookup' succeeded in this scenario, so there is no result to check",
        "its 1 call(s) ended: tool-error",
    ],
    "output schema, but the tool was not called": [
        "No call of 'shout' succeeded in this scenario",
        "(it was not called)",
    ],
    "output schema, of a tool the server does not offer": [f"The server offers no tool 'archive'; {OFFERED}"],
    "survives, but it leaks a traceback": [
        "'lookup' did not survive 20 generated calls (seed ",
        "leak in ",
        "a traceback ('p failed: Traceback (most recent call last): File \"/",
        'input (generated from the input schema): {"key": ""}',
        "found nothing smaller that fails this way",
        "Reproduce: await mcpbdd.checks.generated.check_generated_calls(harness, 'lookup', 20, seed=",
    ],
    "survives, but it crashes on a long string": [
        "'shout' did not survive 40 generated calls",
        "crash in ",
        'the SDK\'s crash result "Error executing tool shout"',
        'input (adversarial: a 10,000-character string in $.text): {"text": "x" * 10000}',
        "shrunk to (in ",
        '{"text": "a" * 1001}',
    ],
    "survives, but it names a configured secret": [
        "'connect' did not survive 10 generated calls",
        "call(s): configured secret #1 (sk-… 18 characters)",
        "could not reach '' with the API key «secret #1»",
    ],
    "survives, but it answers an internal error": [
        "'panic' did not survive 40 generated calls",
        "crash in ",
        "the internal error -32603 'Internal error'",
        '{"name": ""}',
    ],
    "survives, but the client refuses its answers": [
        "'reading' did not survive 10 generated calls",
        "refused in ",
        "RuntimeError: Invalid structured content returned by tool reading",
    ],
    "survives, a tool the server does not offer": [f"The server offers no tool 'archive'; {OFFERED}"],
    "survives no calls at all": [f"{CONTRACTS}:50: the number of generated calls must be at least 1, got 0"],
}


DOUBLES = "tests/behave_cases/features/failing_doubles.feature"

FIXES = [
    "Either take them in its lifespan: `doubles = scenario_doubles()` (from mcpbdd.kit.doubles)",
    'storage_adapter = "package.module:factory" under [tool.mcpbdd]',
    "Without them the step would check nothing.",
]

DOUBLES_FAILURES: dict[str, list[str]] = {
    "over stdio, unchanged, but the server wrote a note": [
        "The storage of tenant 'acme' changed:",
        '+ notes/n-1 = {"author": "alice", "body": "B", "created_at": "2026-01-01T00:00:00Z"',
    ],
    "over stdio, no key, but the server wrote it": [
        "Expected the storage of tenant 'acme' to have no key 'notes/n-1', but it holds",
    ],
    "seeded storage for an in-process server that keeps its own state": [
        'An earlier step relies on the scenario\'s doubles (seeding the storage of tenant "acme"), '
        'but the server "servers:awkward" did not take them.',
        *FIXES,
    ],
    "a storage check after a call to a server that keeps its own state": [
        'This step relies on the scenario\'s doubles (comparing the storage of tenant "acme" with before), '
        'but the server "servers:awkward" did not take them.',
        *FIXES,
    ],
    "the clock moved for a server that reads its own clock": [
        "This step relies on the scenario's doubles (moving the clock forward by 2 hours), "
        'but the server "servers:awkward" did not take them.',
        *FIXES,
    ],
    "the clock set for a server process that keeps its own state": [
        "An earlier step relies on the scenario's doubles (setting the clock to 2026-03-01T09:00:00+00:00), "
        'but the server "stdio: {python} -m servers" did not take them.',
        *FIXES,
    ],
}


UPSTREAM = "tests/behave_cases/features/failing_upstream.feature"

ROUTES_HEAD = "Routes, tried in order on origin, method and exact path:"

UPSTREAM_FAILURES: dict[str, list[str]] = {
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
        f"{UPSTREAM}:49: the upstream 'https://docs.example.com/v1' must be an origin only (scheme, host, port)",
        "put the path in the route instead",
    ],
    "an upstream without a scheme": [
        f"{UPSTREAM}:52: the upstream 'docs.example.com' must be an http:// or https:// origin"
    ],
    "an unknown HTTP method": [f"{UPSTREAM}:55: unknown HTTP method 'FETCH': use one of GET, HEAD, POST"],
    "a failure with a success status": [f"{UPSTREAM}:58: a failing upstream answers a status from 400 to 599, got 200"],
    "a path without its leading slash": [f"{UPSTREAM}:61: the path 'documents/d-1' must start with '/'"],
    "an answer that is not JSON": [f"{UPSTREAM}:66: the doc string is not valid JSON"],
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


VACUOUS = "tests/behave_cases/features/vacuous_checks.feature"
EMPTY = "is empty, and every text contains the empty text, so this checks nothing"
NO_CALL_YET = "No call has been made yet in this scenario"

VACUOUS_FAILURES: dict[str, list[str]] = {
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
        f"{VACUOUS}:53: 'the same way 0 times in a row' is no row: the count includes the call already made, "
        "so it must be at least 2 (the call and one repeat)"
    ],
    "fails the same way 1 times in a row": [f"{VACUOUS}:57: 'the same way 1 times in a row' is no row"],
    "offers the tools of an empty table": [
        "The table lists no tool (a heading and no rows), and every server offers at least no tools",
        "add a row per tool the server must offer, or use 'Then the server offers exactly the tools:'",
    ],
    "storage seeded from an empty table": [
        f"{VACUOUS}:64: the storage table has a heading and no rows, so it seeds nothing: add a row per key"
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
    "the call took 0 rounds": [f"{VACUOUS}:95: a call takes at least 1 round, so 0 round(s) can never be right"],
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


VOCABULARY = "tests/behave_cases/features/failing_vocabulary.feature"

VOCABULARY_FAILURES: dict[str, list[str]] = {
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
        f"{VOCABULARY}:44: no user 'mallory' in this scenario (known: rita)"
    ],
    "a prompt asked for by a user the scenario does not know": [
        f"{VOCABULARY}:47: no user 'mallory' in this scenario (known: rita)"
    ],
    "one key seeded with JSON that does not parse": [
        f"{VOCABULARY}:52: the doc string is not valid JSON: Expecting property name enclosed in double quotes"
    ],
    "one key seeded under a key the storage refuses": [
        f"{VOCABULARY}:56: 'notes:n-8' is refused as a key",
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
        f"{VOCABULARY}:63: the answer to 'confirm' does not fit its form: it has no field 'reason' "
        "(the question asks for: confirm (boolean, required))"
    ],
    "an answer without the field the question requires": [
        f"{VOCABULARY}:70: the answer to 'confirm' does not fit its form: the required field 'confirm' is missing"
    ],
    "an answer of the wrong type": [
        f"{VOCABULARY}:77: the answer to 'confirm' does not fit its form: 'confirm' is a boolean, not \"yes\""
    ],
    "an answer given in advance that does not fit the question": [
        "does not fit its form: it has no field 'confirmed' (the question asks for: confirm (boolean, required)); "
        "it was given in advance (Given the user will ...)"
    ],
}


SHORT_CHECKS = "tests/behave_cases/features/failing_short_checks.feature"

SHORT_CHECK_FAILURES: dict[str, list[str]] = {
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
    "a value at a path that is no path": [f"{SHORT_CHECKS}:46: the JSON path 'count' must start with $"],
    "a value that is not JSON": [f"{SHORT_CHECKS}:50: the expected value is not valid JSON: Expecting value"],
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
        f"{SHORT_CHECKS}:91: 'except under \"\"' leaves out every key (each starts with the empty prefix)"
    ],
}


AUTHORIZATION = "tests/behave_cases/features/failing_authorization.feature"

AUTHORIZATION_FAILURES: dict[str, list[str]] = {
    "refused as unauthenticated, but the call succeeded": [
        "the server answered tools/call list_notes of alice of tenant acme, which carried a valid token: a protected "
        "server must refuse it with HTTP 401 and a WWW-Authenticate challenge (the call ended ok)"
    ],
    "refused as unauthenticated, but it was refused for a scope": [
        "expected HTTP 401 (unauthenticated), the server answered HTTP 403 (WWW-Authenticate: Bearer "
        'error="insufficient_scope", scope="notes:write"'
    ],
    "refused for a scope, but the call succeeded": [
        "expected HTTP 403 insufficient_scope naming 'notes:write', but the server answered tools/call create_note "
        "of alice of tenant acme (the call ended ok): a token without that scope must not reach the tool"
    ],
    "refused for a scope, but it was refused as unauthenticated": [
        "expected HTTP 403 insufficient_scope naming 'notes:write', the server answered HTTP 401 "
        '(WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1:'
    ],
    "refused for another scope than the one named": [
        "the 403's WWW-Authenticate must name the scope 'notes:delete' in scope=\"...\""
    ],
    "the protection described otherwise": ["protected-resource metadata", "notes:read"],
    "a token shaped before the scenario says the server requires one": [
        f"{AUTHORIZATION}:43: the token of alice is shaped here, but the scenario never said the server requires a "
        "token: put `Given the server requires a token` before this step"
    ],
    "a token required of a server mcpbdd did not start": [
        f"{AUTHORIZATION}:47: the server at http://127.0.0.1:9/mcp was not started by mcpbdd, so it cannot be told "
        "where the run's fake authorization server is: give a command instead (`http: <command with {port}>`)"
    ],
}


PROGRESS = "tests/behave_cases/features/failing_progress.feature"

PROGRESS_FAILURES: dict[str, list[str]] = {
    "reported progress, but another number of times": [
        "Expected 3 progress report(s), but the call (tools/call 'import_notebook' as alice of tenant acme) "
        "sent 2 progress reports: 1 of 2 (\"Imported 'Milk'\"), 2 of 2 (\"Imported 'Eggs'\")"
    ],
    "the progress reached, but it stopped short": [
        "Expected a progress report of 3 of 3, but the call (tools/call 'stops_short' as alice of tenant acme) "
        "sent 2 progress reports: 1 of 3, 2 of 3"
    ],
    "the progress went backwards": [
        "Expected the progress never to go backwards, but it went back from 3 of 3 ('step 3') to 2 of 3 ('step 2')",
        "sent 3 progress reports: 1 of 3 ('step 1'), 3 of 3 ('step 3'), 2 of 3 ('step 2')",
    ],
    "a progress message says, but none does": [
        "Expected a progress message saying 'Imported', but the call (tools/call 'mumbles' as alice of tenant acme) "
        "sent 1 progress report: 1 of 1"
    ],
    "never went backwards, with a single report": [
        "'Never went backwards' compares each progress report with the one before, but the call "
        "(tools/call 'mumbles' as alice of tenant acme) sent 1 progress report: 1 of 1",
        "make a call that reports progress at least twice",
    ],
    "the progress of a resource read": [
        "'reported progress 0 times' is about a tool call's progress, but the last call was resources/read "
        "'notes://n-1' as alice of tenant acme"
    ],
    "the progress reached a point beyond its total": ["'2 of 1' is no point a progress can reach"],
    "a progress message says an empty text": ["The text the progress message must say is empty"],
}

LOGS = "tests/behave_cases/features/failing_logs.feature"
ASKED_NONE = (
    "checks the log messages of the call (tools/call '{tool}' as alice of tenant acme), but the client asked for none"
)

LOG_FAILURES: dict[str, list[str]] = {
    "logged, but at another level": [
        "Expected a log message at 'warning' mentioning 'Importing 1 notes', but the call (tools/call "
        "'import_notebook' as alice of tenant acme) sent 3 log messages: info 'Importing 1 notes' (from notes.import)"
    ],
    "logged, but from another logger": [
        "Expected a log message at 'info' from the logger 'notes.export' mentioning 'Importing 1 notes'",
        "info 'Importing 1 notes' (from notes.import)",
    ],
    "logged nothing above, but a warning came": [
        "Expected no log message above 'info', but some were: warning \"Note 'Eggs' has no body\" (from notes.import);"
    ],
    "no log message mentions, but one does": [
        "1 log message(s) mention 'sk-event-4242': info 'connecting with sk-event-4242' (from leaky) during "
        "tools/call 'leaky' as alice of tenant acme"
    ],
    "a server logs although the client asked for none": [
        "The client asked for no log messages, and on 2026-07-28 a server must then send none",
        "the call (tools/call 'chatty' as alice of tenant acme) sent 1 log message: error 'disk almost full' "
        "(from chatty)",
    ],
    "logged, with no level asked for": [
        ASKED_NONE.format(tool="import_notebook"),
        "put 'Given the client asks for log messages from level \"debug\"' (or another level) before the call",
    ],
    "logged at a level below the one asked for": [
        "The client asked for log messages from level 'warning', so a message at 'info' is never sent"
    ],
    "logged nothing above the highest level": ["No level is above 'emergency', so this checks nothing"],
    "asks for log messages from a level that does not exist": [
        f"{LOGS}:50: unknown log level 'verbose': use one of debug, info, notice, warning, error, critical"
    ],
    "no log message mentions, with no level asked for": [
        "No call so far asked for log messages, and on 2026-07-28 a server sends none then"
    ],
}

LEGACY_LOG_FAILURES = {
    **LOG_FAILURES,
    # 2025-11-25 has no per-request opt-in: what `chatty` does is allowed, and the check lacks its level.
    "a server logs although the client asked for none": [ASKED_NONE.format(tool="chatty")],
    # The notes server has no logging/setLevel handler, so on 2025-11-25 every level arrives.
    "logged, but at another level": ["Expected a log message at 'warning' mentioning 'Importing 1 notes'"],
}

DISCOVERY = "tests/behave_cases/features/failing_discovery.feature"
NO_PART = "a server describes itself with a JSON object of name, version, capabilities, instructions"

DISCOVERY_FAILURES: dict[str, list[str]] = {
    "describes itself, but under another name": [
        "The server's description of itself does not contain what was expected:",
        '$.name: expected "todo", got "notes"',
        '"instructions": "Team notes, one notebook per tenant."',
    ],
    "describes itself, but without a capability": ["$.capabilities.logging: missing (expected #object)"],
    "describes itself with nothing": [f"The expected description is {{}}, but {NO_PART}: name the parts that matter"],
    "describes itself with a part no description has": [
        "A server's description has no 'homepage': it holds name, version, capabilities, instructions"
    ],
    "describes itself with a list": [f'The expected description is ["notes"], but {NO_PART}'],
    "describes itself with a misspelt marker": [f"{DISCOVERY}:40: Unknown marker '#strin' at $.version"],
    "completions include, but the value is not offered": [
        "Expected the completions to include 'home', but completing the argument 'tag' of the prompt "
        "'summarize_notes' from 'g' suggested 'groceries'"
    ],
    "completions are, but in another order": [
        "Expected the completions 'groceries', 'garage', but completing the argument 'tag' of the prompt "
        "'summarize_notes' from 'g' suggested 'garage', 'groceries'"
    ],
    "completes against a server that declares no completions": [
        "The server declares no completions capability, so no client asks it to complete the argument 'tag' of the "
        "prompt 'summarize_notes': this specifies nothing the server offers"
    ],
    "completions checked before any was asked for": ["No completion was asked for yet in this scenario"],
    "completions are, with a table of two columns": [
        f"{DISCOVERY}:81: this step needs a table of one column below it, a value per row"
    ],
    "offers the resource template, but the server offers another": [
        "Expected the server to offer the resource template 'notes://{id}', but it offers: notes://{note_id}, "
        "note-data://{note_id}"
    ],
    "completes a template variable, but the value is not offered": [
        "Expected the completions to include 'n-2', but completing the variable 'note_id' of the resource template "
        "'notes://{note_id}' from 'n' suggested 'n-1'"
    ],
    "completes a variable the template does not have": [
        "The resource template 'notes://{note_id}' has no variable 'id' (its variables are note_id): name one of its "
        "variables"
    ],
    "completes a template variable against a server that declares no completions": [
        "The server declares no completions capability, so no client asks it to complete the variable 'id' of the "
        "resource template 'events://{id}': this specifies nothing the server offers"
    ],
}

# Caching hints exist on 2026-07-28 only: a 2025-11-25 pass skips these scenarios, so only the modern passes fail them.
CACHING_FAILURES: dict[str, list[str]] = {
    **DISCOVERY_FAILURES,
    "may be cached for, but for another time": [
        "Expected ttlMs 30000 (30 seconds), but the tools/list result (on 2026-07-28) carried ttlMs 300000 and "
        "cacheScope 'private'"
    ],
    "may be cached privately, but any client may share it": [
        "Expected cacheScope 'private', but the tools/list result (on 2026-07-28) carried ttlMs 1500 and "
        "cacheScope 'public'"
    ],
    "may be cached for a negative time": [
        "No result can be cached for -5 seconds: write a number of seconds from 0 up"
    ],
    "read may be cached for, but for another time": [
        "Expected ttlMs 300000 (300 seconds), but the resources/read result for 'notes://n-1' (on 2026-07-28) carried "
        "ttlMs 60000 and cacheScope 'private'"
    ],
    "may be cached publicly, but only the caller may keep it": [
        "Expected cacheScope 'public', but the tools/list result (on 2026-07-28) carried ttlMs 300000 and "
        "cacheScope 'private': a client may keep it only for the caller who got it"
    ],
    "read may be cached publicly, but only the caller may keep it": [
        "Expected cacheScope 'public', but the resources/read result for 'notes://n-1' (on 2026-07-28) carried "
        "ttlMs 60000 and cacheScope 'private'"
    ],
    "read may be cached privately, but any client may share it": [
        "Expected cacheScope 'private', but the resources/read result for 'events://status' (on 2026-07-28) carried "
        "ttlMs 1500 and cacheScope 'public'"
    ],
    "read may be cached, but the read failed": [
        "Expected the read to say how long it may be cached, but resources/read 'notes://n-404' as alice of tenant "
        "acme failed with the protocol error -32602 'Note n-404 not found'",
        "only a read that was answered carries caching hints",
    ],
}

# A call that is no read is the specification's mistake on every era (it fails before the era is asked).
NOT_A_READ: dict[str, list[str]] = {
    "read may be cached, but the last call was no read": [
        "The last call was tools/call 'list_notes' as alice of tenant acme, not a read, so there is no read whose "
        "caching hints to check: put 'When the client reads the resource \"...\"' just before this step"
    ],
}

# A server in another process (here one whose answers lose their hints over HTTP) is the client harness's only.
WIRE_CACHING_FAILURES: dict[str, list[str]] = {
    **CACHING_FAILURES,
    "may be cached for, but the server sends no hint": [
        "Expected a ttlMs caching hint, but the SDK's client refused the server's tools/list answer (on 2026-07-28; "
        "missing or invalid: cacheScope, resultType, ttlMs), so no client can use it",
        "every tools/list result must say how long a client may keep it and who may share it (SEP-2549)",
    ],
    "read may be cached for, but the server sends no hint": [
        "Expected a ttlMs caching hint, but the SDK's client refused the server's resources/read answer for "
        "'clean://milk' (on 2026-07-28; missing or invalid: cacheScope, resultType, ttlMs), so no client can use it",
        "every resources/read result must say how long a client may keep it and who may share it (SEP-2549)",
    ],
}

ANNOUNCEMENTS = "tests/behave_cases/features/failing_announcements.feature"
NO_LISTEN = "is about what a listen received, but no listen for {what} is open in this scenario"

# What every pass shows: an announcement that never came, one that came when none should, and the broken specifications.
ANNOUNCEMENT_FAILURES: dict[str, list[str]] = {
    # 2025-11-25: a resources/updated for a URI nobody subscribed to (the 2026-07-28 passes say it their way below).
    "an update of a resource the client did not listen to": [
        'The server announced that the resource "notes://elsewhere" changed, which no listen subscribed to: '
        'alice\'s listen for the resource "notes://n-1" received: resource "notes://elsewhere" changed'
    ],
    "an announcement that never comes": [
        "Expected the server to announce that the tools list changed (waited 1",
        "alice's listen for the tools list",
    ],
    "announces nothing, but something came": [
        "Expected the server to announce nothing, but it announced that the tools list changed: alice's listen for "
        "the tools list",
        "tools list changed",
    ],
    "announces, with no listen open": [
        "'the server announces that the tools list changed' " + NO_LISTEN.format(what="the tools list"),
        "add 'When the client listens for changes to the tools list' before the step that makes the change",
    ],
    "announces nothing, with no call after the listen": [
        "no call was made since the listen opened",
        "put a When step that calls the server between the listen and this check",
    ],
    "announces nothing, with no listen open": ["'the server announces nothing' " + NO_LISTEN.format(what="anything")],
    "listens for a list there is none of": [
        f"{ANNOUNCEMENTS}:61: there is no 'templates' list to listen to: use one of tools, prompts, resources"
    ],
}

# A 2026-07-28 listen stream broken three ways (tests/announcing_server.py); a 2025-11-25 pass skips these.
STREAM_FAILURES: dict[str, list[str]] = {
    **ANNOUNCEMENT_FAILURES,
    "an announcement that never comes": [
        *ANNOUNCEMENT_FAILURES["an announcement that never comes"],
        "received: the acknowledgement ({'toolsListChanged': True}) tagged",
    ],
    "an update of a resource the client did not listen to": [
        'The server sent alice\'s listen for the resource "notes://n-1"',
        'a kind it did not ask for (the resource "notes://elsewhere" changed)',
    ],
    "a kind the client did not ask for": [
        "The server sent alice's listen for the prompts list",
        "a kind it did not ask for (the tools list changed)",
        "received: the acknowledgement ({'promptsListChanged': True}) tagged",
    ],
    "a frame tagged with another id than the listen's": [
        "but tools list changed tagged 'listen-of-someone-else' (",
        "is tagged with an id no listen of this client has",
    ],
    "an announcement before the acknowledgement": [
        "Expected the server's acknowledgement as the first frame of alice's listen for the tools list",
        "but the first was tools list changed tagged",
    ],
}


# 2025-11-25: an MCPServer declares tools.listChanged: false, so the check says so at once instead of waiting.
LEGACY_ANNOUNCEMENT_FAILURES: dict[str, list[str]] = {
    **ANNOUNCEMENT_FAILURES,
    "an announcement that never comes": [
        "Expected the server to announce that the tools list changed (waited 0",
        "the server declared tools.listChanged: false in its capabilities, so a client does not expect it: alice's "
        "listen for the tools list",
    ],
}


CANCELLATION = "tests/behave_cases/features/failing_cancellation.feature"
STORED_ANYWAY = ["The storage of tenant 'acme' changed:", '+ notes/milk = {"title": "Milk"}']

CANCELLATION_FAILURES: dict[str, list[str]] = {
    # In-process as over a wire: the answer of a cancelled request is dropped; the work it went on with is stored.
    "cancelled in-process, but the server stores its work anyway": STORED_ANYWAY,
    # Over a wire the SDK drops the answer of a cancelled request; the work it went on with is stored anyway.
    "cancelled over stdio, but the server stores its work anyway": STORED_ANYWAY,
    "cancelled after more progress reports than the call makes": [
        "The client was to cancel the call after 5 progress reports, but the call (tools/call 'import_notebook' as "
        "alice of tenant acme) made only 2 and finished",
        "so there was nothing to cancel and this checks nothing: cancel after at most 2",
    ],
    "cancelled after the call had finished": [
        "The client was to cancel the call after 2000 milliseconds, but the call (tools/call 'list_notes' as alice "
        "of tenant acme) had finished",
        "a cancel that comes too late means nothing, so the specification is broken, not passed",
    ],
    "cancelled, with no cancel arranged": [
        "The last call (tools/call 'list_notes' as alice of tenant acme) was not cancelled by the client",
        "put 'Given the client cancels its next call after 1 progress report'",
    ],
    "a cancelled call does not succeed": [
        "Expected the call to succeed, but tools/call 'import_notebook' as alice of tenant acme got no answer: the "
        "client cancelled the call after 1 progress report ("
    ],
    "cancelled after no progress report at all": [
        f"{CANCELLATION}:44: a call cannot be cancelled after 0 progress reports: count from 1"
    ],
}


@dataclass(frozen=True)
class Feature:
    """A feature meant to fail: the passes it runs on, each scenario's expected fragments, options of its own, and a
    text no message may repeat."""

    path: str
    passes: tuple[str, ...]
    failures: Mapping[str, Sequence[str]]
    options: tuple[str, ...] = ()
    never: str | None = None
    shares_run: bool = True
    """Whether it runs in its pass's one behave process with the other features that share it, its options added to
    theirs: true when its options change nothing but its own scenarios (a secret only it names, a grace only a cancel
    waits); false when they would change others' (a short call timeout would fail their slower calls)."""

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[1].removesuffix(".feature")


EVERY_PASS = ("context", "client", "client-legacy")
FEATURES = (
    Feature(ASSERTIONS, ("context", "client"), ASSERTION_FAILURES),
    # The secret is configured so that the leak is named, never repeated (the feature's comment at line 35).
    Feature(
        CONTRACTS,
        ("context", "client"),
        CONTRACT_FAILURES,
        options=("-D", f"mcpbdd.secrets={weak_server.API_KEY}"),
        never=weak_server.API_KEY,
    ),
    # Its stdio scenarios need a server process, which the context harness cannot reach.
    Feature(DOUBLES, ("client",), DOUBLES_FAILURES),
    Feature(UPSTREAM, EVERY_PASS, UPSTREAM_FAILURES),
    Feature(VACUOUS, EVERY_PASS, VACUOUS_FAILURES),
    Feature(VOCABULARY, ("context", "client"), VOCABULARY_FAILURES),
    Feature(SHORT_CHECKS, EVERY_PASS, SHORT_CHECK_FAILURES),
    # Bearer tokens travel over HTTP only: the client harness, which starts the example server's HTTP process.
    Feature(AUTHORIZATION, ("client",), AUTHORIZATION_FAILURES),
    Feature(PROGRESS, EVERY_PASS, PROGRESS_FAILURES),
    # 2025-11-25 has no per-request opt-in to log messages: what the legacy pass expects differs (LEGACY_LOG_FAILURES).
    Feature(LOGS, ("context", "client"), LOG_FAILURES),
    Feature(LOGS, ("client-legacy",), LEGACY_LOG_FAILURES),
    # 2025-11-25 has no caching hints: its pass skips those scenarios (CACHING_FAILURES are the modern passes').
    Feature(DISCOVERY, ("context",), {**CACHING_FAILURES, **NOT_A_READ}),
    Feature(DISCOVERY, ("client",), {**WIRE_CACHING_FAILURES, **NOT_A_READ}),
    Feature(DISCOVERY, ("client-legacy",), {**DISCOVERY_FAILURES, **NOT_A_READ}),
    # A grace of a second: the stubborn server's work (100 ms after the cancel) is surely stored by its end. No other
    # feature here cancels a call, so the grace it sets for its pass's run changes nothing else.
    Feature(CANCELLATION, EVERY_PASS, CANCELLATION_FAILURES, options=("-D", "mcpbdd.cancel_grace=1")),
    # A short call timeout: the announcement that never comes is waited for that long (a run of its own).
    Feature(
        ANNOUNCEMENTS, ("context", "client"), STREAM_FAILURES, options=("-D", "mcpbdd.timeout=1"), shares_run=False
    ),
    Feature(
        ANNOUNCEMENTS,
        ("client-legacy",),
        LEGACY_ANNOUNCEMENT_FAILURES,
        options=("-D", "mcpbdd.timeout=1"),
        shares_run=False,
    ),
)
"""The features meant to fail, and the passes each runs on."""


@dataclass(frozen=True)
class Run:
    """One behave process of a pass: the features it runs and the options they need."""

    features: tuple[str, ...]
    options: tuple[str, ...]


def run_of(feature: Feature, behave_pass: str) -> Run:
    """The behave process of `behave_pass` that runs `feature`: its own, or the one every sharing feature of the pass
    runs in (their options together)."""
    if not feature.shares_run:
        return Run((feature.path,), feature.options)
    sharing = [other for other in FEATURES if other.shares_run and behave_pass in other.passes]
    return Run(tuple(other.path for other in sharing), tuple(option for other in sharing for option in other.options))


RUNS = [pytest.param(feature, name, id=f"{feature.name}-{name}") for feature in FEATURES for name in feature.passes]
"""A test per feature and pass (the features of one pass that share a run are read from it)."""

ROWS = [
    pytest.param(feature, name, scenario, fragments, id=f"{feature.name}-{name}-{scenario}")
    for feature in FEATURES
    for name in feature.passes
    for scenario, fragments in feature.failures.items()
]
"""The table: a row per feature, pass and scenario, with the fragments its failing step's message must hold."""


@pytest.fixture(scope="module", autouse=True)
def _runs_begun_side_by_side(request: pytest.FixtureRequest, failing_runs: FailingRunsOfPasses) -> None:
    """Every run the selected tests of this module read, begun at once, a few side by side (`FailingRuns`), in the
    order the tests read them: each test waits for its own run only, most of them for one that has already ended."""
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.path == request.path and "feature" in params:
            run = run_of(params["feature"], params["behave_pass"])
            failing_runs.start_together(run.features, PASSES[params["behave_pass"]], run.options)


def failing_run(failing_runs: FailingRunsOfPasses, feature: Feature, behave_pass: BehavePass) -> FailingRun:
    """`feature`'s part of the run of `behave_pass` that runs it."""
    run = run_of(feature, behave_pass.name)
    return failing_runs.together(run.features, behave_pass, run.options)[feature.path]


@pytest.mark.parametrize(("feature", "behave_pass"), RUNS, indirect=["behave_pass"])
def test_every_scenario_of_the_feature_fails_and_only_those(
    failing_runs: FailingRunsOfPasses, feature: Feature, behave_pass: BehavePass
) -> None:
    run = failing_run(failing_runs, feature, behave_pass)
    assert run.returncode == 1, run.output
    assert sorted(run.messages) == sorted(feature.failures), "every scenario of the feature must fail, and only those"
    if feature.never is not None:
        assert feature.never not in json.dumps(run.messages), "a report of a leaked secret must not repeat it"


@pytest.mark.parametrize(("feature", "behave_pass", "scenario", "fragments"), ROWS, indirect=["behave_pass"])
def test_each_failing_step_says_why(
    failing_runs: FailingRunsOfPasses,
    feature: Feature,
    behave_pass: BehavePass,
    scenario: str,
    fragments: Sequence[str],
) -> None:
    messages = failing_run(failing_runs, feature, behave_pass).messages
    assert scenario in messages, f"{scenario!r} did not fail; the scenarios that failed: {sorted(messages)}"
    for fragment in fragments:
        assert fragment in messages[scenario], f"{scenario!r}: {fragment!r} not in:\n{messages[scenario]}"
