"""The contract steps fail when they should, with a message that says why (behave in a subprocess).

The scenarios in tests/behave_cases/features/failing_contracts.feature run against the
deliberately weak server tests/weak_server.py (importable because tests/ is on PYTHONPATH)
and must all fail; each message must name what is wrong: the JSON path of a schema
violation, the shrunk input of a crash, what leaked, the tools on offer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import weak_server
from expected_failures import assert_each_scenario_fails_with

ROOT = Path(__file__).resolve().parent.parent
FEATURE = "tests/behave_cases/features/failing_contracts.feature"
OFFERED = (
    "it offers: lookup, shout, reading, connect, stall, panic, pick_color, silent, untyped, broken_schema, remember, "
    "profile"
)

EXPECTED_FAILURES: dict[str, list[str]] = {
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
    "survives no calls at all": [f"{FEATURE}:50: the number of generated calls must be at least 1, got 0"],
}


@pytest.mark.parametrize("harness", ["context", "client"])
def test_every_contract_step_fails_with_a_readable_message(tmp_path: Path, harness: str) -> None:
    options = ["-D", f"mcpbdd.harness={harness}", "-D", f"mcpbdd.secrets={weak_server.API_KEY}"]
    messages = assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, options, tmp_path / "report.json")
    assert weak_server.API_KEY not in json.dumps(messages), "a report of a leaked secret must not repeat it"
