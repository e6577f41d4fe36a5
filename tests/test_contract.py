"""Tool contracts: JSON Schema checks with JSON paths, `run_tool_contract` on every harness, the output-schema step.

Real SDK servers only: the example notes server keeps its contracts, the weak server
(tests/weak_server.py) breaks each one in a way the checks must name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import weak_server
from conftest import HARNESS_KINDS, make_harness

from mcpbdd.checks import schema as json_schema
from mcpbdd.checks.output_schema import (
    ACCEPTED,
    ARGUMENTS,
    INPUT_SCHEMA,
    OUTPUT,
    TEXT,
    CheckStatus,
    check_results_match_output_schema,
    run_tool_contract,
)
from mcpbdd.kit.principals import Principal
from mcpbdd.scenario.world import World

ALICE = Principal("alice", "acme")


@pytest.fixture(params=HARNESS_KINDS)
async def weak(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    async with make_harness(request.param, weak_server.mcp, timeout=5.0) as harness:
        yield harness


# JSON Schema checks ---------------------------------------------------------------------------


def test_an_invalid_schema_is_named_with_the_path_of_each_problem() -> None:
    problems = json_schema.schema_problems({"type": "object", "properties": {"count": {"type": "integr"}}})
    assert [str(p) for p in problems] == [
        "$.properties.count.type: 'integr' is not valid under any of the given schemas"
    ]
    assert json_schema.schema_problems({"type": "object"}) == []
    assert [str(p) for p in json_schema.schema_problems(["not", "a", "schema"])] == [
        "$: a schema is a JSON object or a boolean, got an array"
    ]


def test_violations_name_the_json_path_of_each_one_in_order() -> None:
    schema = {
        "type": "object",
        "properties": {
            "notes": {"type": "array", "items": {"$ref": "#/$defs/Note"}},
            "odd key": {"type": "integer"},
        },
        "required": ["notes"],
        "$defs": {"Note": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
    }
    found = json_schema.violations(schema, {"notes": [{"title": "ok"}, {"title": 3}, {}], "odd key": "x"})
    assert [str(v) for v in found] == [
        "$.notes[1].title: 3 is not of type 'string'",
        "$.notes[2]: 'title' is a required property",
        "$['odd key']: 'x' is not of type 'integer'",
    ]
    assert json_schema.violations(schema, {"notes": []}) == []


def test_the_dialect_a_schema_names_is_honoured() -> None:
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "number",
        "maximum": 5,
        "exclusiveMaximum": True,
    }
    assert [v.keyword for v in json_schema.violations(draft4, 5)] == ["maximum"]
    assert json_schema.schema_problems(draft4) == []


# run_tool_contract ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_notes_server_keeps_the_contract_of_create_note(notes_harness: Any) -> None:
    report = await run_tool_contract(notes_harness, "create_note", {"title": "T", "body": "B"}, caller=ALICE)
    assert report.ok, report.describe()
    assert {check.name: check.status for check in report.checks} == {
        INPUT_SCHEMA: CheckStatus.PASSED,
        ARGUMENTS: CheckStatus.PASSED,
        ACCEPTED: CheckStatus.PASSED,
        OUTPUT: CheckStatus.PASSED,
        TEXT: CheckStatus.PASSED,
    }
    report.assert_ok()


@pytest.mark.anyio
async def test_refusing_arguments_the_schema_allows_breaks_the_contract(notes_harness: Any) -> None:
    report = await run_tool_contract(notes_harness, "export_notes", {"format": "pdf"}, caller=ALICE)
    check = report.check(ACCEPTED)
    assert check.status is CheckStatus.FAILED
    assert "the input schema allows these arguments but the server refused them" in check.detail
    assert "-32602" in check.detail
    with pytest.raises(AssertionError, match="breaks its contract"):
        report.assert_ok()


@pytest.mark.anyio
async def test_arguments_outside_the_schema_are_named_and_not_held_against_the_server(notes_harness: Any) -> None:
    report = await run_tool_contract(notes_harness, "create_note", {"title": 42}, caller=ALICE)
    assert report.check(ARGUMENTS).status is CheckStatus.FAILED
    assert "$.title: 42 is not of type 'string'" in report.check(ARGUMENTS).detail
    assert "$: 'body' is a required property" in report.check(ARGUMENTS).detail
    assert report.check(ACCEPTED).status is CheckStatus.SKIPPED
    assert report.check(TEXT).status is CheckStatus.PASSED  # the validation error is readable text


@pytest.mark.anyio
async def test_a_question_instead_of_a_result_leaves_the_output_checks_open(notes_harness: Any) -> None:
    await notes_harness.call_tool(ALICE, "create_note", {"title": "T", "body": "B"})
    report = await run_tool_contract(notes_harness, "delete_note", {"note_id": "n-1"}, caller=ALICE)
    assert report.ok, report.describe()
    assert report.check(OUTPUT).status is CheckStatus.SKIPPED
    assert "input-required" in report.check(OUTPUT).detail


@pytest.mark.anyio
async def test_a_result_that_breaks_the_output_schema_is_named_by_path(weak: Any) -> None:
    report = await run_tool_contract(weak, "reading", {"region": "north"})
    check = report.check(OUTPUT)
    assert check.status is CheckStatus.FAILED
    if weak.name == "context":
        assert "$.stations[1].code: 'rtm' does not match '^[A-Z]{3}$'" in check.detail
        assert "$.stations[1].level: 11 is greater than the maximum of 10" in check.detail
    else:  # the SDK's client revalidates and refuses the result itself
        assert "the SDK client refused the result" in check.detail
        assert "Invalid structured content returned by tool reading" in check.detail
        assert report.client_error is not None
    assert report.check(ACCEPTED).status is CheckStatus.PASSED


@pytest.mark.anyio
async def test_a_tool_that_advertises_more_than_it_accepts_breaks_the_contract(weak: Any) -> None:
    report = await run_tool_contract(weak, "pick_color", {"color": "blue"})
    assert report.check(ARGUMENTS).status is CheckStatus.PASSED
    assert report.check(ACCEPTED).status is CheckStatus.FAILED
    assert "Input should be 'red' or 'green'" in report.check(ACCEPTED).detail


@pytest.mark.anyio
async def test_a_result_without_text_breaks_the_contract(weak: Any) -> None:
    report = await run_tool_contract(weak, "silent", {})
    assert report.check(TEXT).status is CheckStatus.FAILED
    assert "no non-empty text block (no content blocks)" in report.check(TEXT).detail
    assert report.check(OUTPUT).status is CheckStatus.SKIPPED


@pytest.mark.anyio
async def test_an_invalid_input_schema_breaks_the_contract(weak: Any) -> None:
    report = await run_tool_contract(weak, "broken_schema", {"size": 2})
    check = report.check(INPUT_SCHEMA)
    assert check.status is CheckStatus.FAILED
    assert "$.properties.size.type: 'integr' is not valid under any of the given schemas" in check.detail
    assert report.check(ARGUMENTS).status is CheckStatus.SKIPPED
    assert "$.properties.size.type" in report.describe()


@pytest.mark.anyio
async def test_an_unknown_tool_names_the_tools_on_offer(weak: Any) -> None:
    with pytest.raises(AssertionError, match="The server offers no tool 'archive'; it offers: lookup, shout"):
        await run_tool_contract(weak, "archive", {})


# the output-schema step's check, through a World ---------------------------------------------------


def _world(make_world: Callable[..., World], server: str, harness: str = "context") -> World:
    return make_world(server=server, harness=harness)


@pytest.mark.parametrize("harness", ["context", "client"])
def test_every_result_of_a_notes_tool_matches_its_output_schema(make_world: Callable[..., World], harness: str) -> None:
    world = _world(make_world, "mcpbdd.examples.notes:mcp", harness)
    world.add_user("alice", "acme")
    world.call_tool("create_note", {"title": "A", "body": "a", "tags": ["x"]})
    world.call_tool("create_note", {"title": "B", "body": "b"})
    world.call_tool("create_note", {"title": 42})  # a failed call is not a result
    checked = check_results_match_output_schema(world, "create_note")
    assert len(checked) == 2
    assert world.close() == []


def test_a_non_conforming_result_fails_the_check_with_its_paths(make_world: Callable[..., World]) -> None:
    world = _world(make_world, "weak_server:mcp")
    world.call_tool("reading", {"region": "north"})
    with pytest.raises(AssertionError) as failure:
        check_results_match_output_schema(world, "reading")
    message = str(failure.value)
    assert message.startswith("1 of 1 result(s) of 'reading' do not match its output schema:")
    assert "$.stations[1].code: 'rtm' does not match '^[A-Z]{3}$'" in message
    assert world.close() == []


def test_nothing_to_check_is_a_failure_not_a_pass(make_world: Callable[..., World]) -> None:
    world = _world(make_world, "weak_server:mcp")
    with pytest.raises(AssertionError, match="advertises no output schema"):
        check_results_match_output_schema(world, "untyped")
    with pytest.raises(AssertionError, match=r"No call of 'shout' succeeded .* \(it was not called\)"):
        check_results_match_output_schema(world, "shout")
    world.call_tool("lookup", {"key": "tau"})
    with pytest.raises(AssertionError, match=r"its 1 call\(s\) ended: tool-error"):
        check_results_match_output_schema(world, "lookup")
    assert world.close() == []
