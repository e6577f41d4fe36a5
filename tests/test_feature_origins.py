"""`mcpbdd feature` remembers a value where it first appeared, and declares the caller a stdio session ran as.

A newcomer's recording: submit an expense (its result's `$.id` is "e-1"), list the expenses (`$.expenses[0].id` is
"e-1" too), approve "e-1". The feature must remember `$.id` from the submit (the listing only repeats it, and holds
it at index 0 only on an empty store); over stdio the server took its caller from the environment, so the feature
declares that caller (from the project's `env` setting) or says that none is declared. No process is started.
"""

from __future__ import annotations

from typing import Any

from mcpbdd.record.cassette import MODERN, Cassette, Exchange, Header
from mcpbdd.record.feature import caller_from_environment, plan_carries, render


def _call(seq: int, name: str, arguments: dict[str, Any], structured: Any) -> Exchange:
    result = {"content": [{"type": "text", "text": "ok"}], "isError": False, "structuredContent": structured}
    return Exchange(
        seq, {"id": seq, "method": "tools/call", "params": {"name": name, "arguments": arguments}}, {"result": result}
    )


CALLS = [
    _call(1, "submit_expense", {"amount": 12}, {"id": "e-1", "amount": 12}),
    _call(2, "list_expenses", {}, {"expenses": [{"id": "e-1", "amount": 12}]}),
    _call(3, "approve_expense", {"expense_id": "e-1"}, {"id": "e-1", "approved": True}),
]
CASSETTE = Cassette(Header("stdio", {"command": ["python", "-m", "expenses"]}, "2026-12-01T00:00:00Z", MODERN), CALLS)


def test_a_value_is_remembered_from_the_call_that_first_returned_it() -> None:
    carry = plan_carries(CALLS).carries["e-1"]
    assert (carry.source, carry.path) == (0, "$.id")
    text = render(CASSETTE, [], target="stdio: {python} -m expenses")
    submit, listing = text.index('"submit_expense"'), text.index('"list_expenses"')
    remembered = text.index("is remembered as")
    assert submit < remembered < listing and '"$.id" is remembered as "expense_id"' in text


def test_the_caller_a_stdio_session_ran_as_is_declared_from_the_env_setting() -> None:
    env = {"EXPENSES_USER": "{user}", "EXPENSES_TENANT": "{tenant}"}
    caller = caller_from_environment(env, {"EXPENSES_USER": "bob", "EXPENSES_TENANT": "acme", "HOME": "/root"})
    assert caller == ("bob", "acme")
    text = render(CASSETTE, [], target="stdio: {python} -m expenses", environment_caller=caller)
    assert '    And the user "bob" of tenant "acme"\n' in text


def test_without_a_mapping_the_feature_says_no_caller_is_declared() -> None:
    assert caller_from_environment({}, {"EXPENSES_USER": "bob"}) is None
    assert caller_from_environment({"EXPENSES_USER": "{user}"}, {"EXPENSES_USER": "bob"}) is None  # no tenant
    text = render(CASSETTE, [], target="stdio: {python} -m expenses")
    assert "# No caller is declared: the server took its caller from the environment" in text
    assert not [line for line in text.splitlines() if line.lstrip().startswith(("Given the user", "And the user"))]
