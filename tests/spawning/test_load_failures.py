"""Every load check fails when it should, saying why (tests/behave_cases/features/failing_load.feature).

One behave run of the feature (a module fixture: it takes ~15 s, with a server that dies and calls that time out),
shared by every row. The server (tests/load_servers.py) is right one call at a time and wrong under load, so each
message below is the check catching what only concurrency shows: a tenant's note in another tenant's storage, a
caller reading another tenant's note, an acknowledged write that storage lost.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_failures import FailingRun, assert_failure_says, assert_only_these_failed, run_failing

FEATURE = "tests/behave_cases/features/failing_load.feature"

EXPECTED: dict[str, list[str]] = {
    "latency over budget": ["Expected p95 latency under 20 ms, but slow_echo: p95", "over 12 calls"],
    "an error budget broken": [
        "Expected at most 5% tool errors 'rate_limited', but 10 of 30 calls (33.3%) were: rate_limited (10)",
        "stopped because its 30 calls were made",
    ],
    "a cross-tenant leak that shows only under concurrency": [
        "Expected each tenant's storage to hold only what its own callers wrote, but",
        'entries crossed tenants:\n  tenant "',
        "-caller-",
        ", written by ",
    ],
    "a caller reads another tenant's note under concurrency": [
        "Expected no caller to read another tenant's data, but",
        "in list_notes",
    ],
    "a lost write": ["Expected every acknowledged write to be stored exactly once, but of 18 acknowledged,", "lost: '"],
    "a profile naming a tool the server does not offer": [
        f"{FEATURE}:44: the load profile names 'archive_notes', which the server does not offer; it offers: create_note"
    ],
    "a bound written another way": [
        f'{FEATURE}:47: a load needs a bound it can reach, written "for 5 seconds", "for 200 calls" or "3 times each"'
    ],
    "an integrity check with nothing to find": ["no acknowledged write names its call", "{caller} and {n}"],
    "a latency check of a tool the load did not call": [
        "no call of 'create_note' was made under load, so its latency cannot be judged (calls made: list_notes (6)"
    ],
    "calls that time out count against the budget, and the load still stops": [
        "Expected at most 0% timeouts, but 6 of 6 calls (100.0%) were",
        "stopped because its 6 calls were made",
    ],
    "a server that dies mid-load keeps what was measured": [
        "Expected at most 0% transport errors, but",
        "calls by the http load",
        "stopped because the server stopped answering (connection closed",
    ],
    "the upstream received fewer requests than the calls should have sent": [
        "Expected the upstream to receive GET /documents/d-42 once for each call of 'list_notes': 6 times, but it "
        "received it 0 times during the load"
    ],
    "a load with no bound": [
        f'{FEATURE}:75: a load needs a bound so that it stops by itself: add "for 5 seconds", "for 200 calls" or'
    ],
    "an unreachable target": [
        'The server "http://127.0.0.1:9/mcp" cannot start: it gave no first answer (ConnectError'
    ],
}


@pytest.fixture(scope="module")
def failing_load(tmp_path_factory: pytest.TempPathFactory) -> FailingRun:
    report = Path(tmp_path_factory.mktemp("failing-load")) / "report.json"
    return run_failing(FEATURE, ["-D", "mcpbdd.harness=client"], report)


def test_every_load_scenario_fails_and_only_those(failing_load: FailingRun) -> None:
    assert_only_these_failed(failing_load, EXPECTED)


@pytest.mark.parametrize(("scenario", "fragments"), EXPECTED.items(), ids=list(EXPECTED))
def test_each_load_check_says_why(failing_load: FailingRun, scenario: str, fragments: list[str]) -> None:
    assert_failure_says(failing_load, scenario, fragments)


def test_a_server_that_dies_mid_load_loses_no_measured_call(failing_load: FailingRun) -> None:
    """The calls answered before the server died are in the result: fewer errors than calls."""
    message = failing_load.messages["a server that dies mid-load keeps what was measured"]
    errors, _, rest = message.partition("Expected at most 0% transport errors, but ")[2].partition(" of ")
    calls = rest.split(" calls", 1)[0]
    assert 0 < int(errors) < int(calls), message
