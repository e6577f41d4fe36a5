"""The Locust phrase's checks read Locust's statistics and fail on them, saying why
(tests/behave_cases/features/failing_locust.feature).

One behave run of the feature (a module fixture: two Locust runs of a master and two workers, ~1 min), shared by
every row. The error budget is judged from Locust's failures CSV (the channel and reason each worker reported);
the leak from the writes the workers reported acknowledged, found in the wrong tenant's storage afterwards; the
targets Locust cannot reach are refused before any process starts, saying which target works.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_failures import FailingRun, assert_failure_says, assert_only_these_failed, run_failing

FEATURE = "tests/behave_cases/features/failing_locust.feature"
HTTP_TARGET = 'Given the MCP server "http: {python} -m your.server --http 127.0.0.1:{port}"'

EXPECTED: dict[str, list[str]] = {
    "an error budget broken, read from Locust's statistics": [
        "Expected at most 5% tool errors 'rate_limited', but ",
        "were: rate_limited (",
        "calls by the locust load in 2.00 s, stopped because the 2 s run time ended",
    ],
    "a cross-tenant leak under Locust's load": [
        "Expected each tenant's storage to hold only what its own callers wrote, but",
        'entries crossed tenants:\n  tenant "',
        "-caller-",
        ", written by ",
        "calls by the locust load",
    ],
    "an in-process server, which Locust cannot reach": [
        f"{FEATURE}:29: Locust drives a server over Streamable HTTP from processes of its own, and this "
        "scenario's server is in-process",
        HTTP_TARGET,
        "-D mcpbdd.harness=client",
    ],
    "a stdio server, which Locust cannot reach": [
        f"{FEATURE}:36: Locust drives a server over Streamable HTTP",
        "is reached over stdio (a stdio server serves the one client that started it)",
        HTTP_TARGET,
    ],
    "a profile naming a tool the server does not offer, refused before Locust starts": [
        f"{FEATURE}:42: the load could not run on Locust: the profile calls 'archive_notes', which the server at "
        "http://127.0.0.1:",
        "does not offer; it offers 'append_note', 'create_note'",
    ],
}

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def failing_locust(tmp_path_factory: pytest.TempPathFactory) -> FailingRun:
    report = Path(tmp_path_factory.mktemp("failing-locust")) / "report.json"
    return run_failing(FEATURE, ["-D", "mcpbdd.harness=client"], report)


def test_every_locust_scenario_fails_and_only_those(failing_locust: FailingRun) -> None:
    assert_only_these_failed(failing_locust, EXPECTED)


@pytest.mark.parametrize(("scenario", "fragments"), EXPECTED.items(), ids=list(EXPECTED))
def test_each_check_on_locust_says_why(failing_locust: FailingRun, scenario: str, fragments: list[str]) -> None:
    assert_failure_says(failing_locust, scenario, fragments)


def test_the_budget_counts_every_third_call_locust_measured(failing_locust: FailingRun) -> None:
    """`flaky` refuses every third call: the share read back from Locust's CSVs is a third, not a guess."""
    message = failing_locust.messages["an error budget broken, read from Locust's statistics"]
    counted, _, rest = message.partition("'rate_limited', but ")[2].partition(" of ")
    calls = int(rest.split(" calls", 1)[0])
    assert calls > 10 and abs(int(counted) - calls / 3) <= 2, message
