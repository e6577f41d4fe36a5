"""Generated calls: the verdicts (crash, leak, hang, refusal, mutation), shrinking, reproducibility, the inputs.

Each verdict is shown catching the weak server (tests/weak_server.py) with a readable report,
and the example notes server is shown surviving on every harness.

The tests of this concern that start processes are in tests/spawning/test_generated.py.
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import servers
import weak_server
from conftest import HARNESS_KINDS, make_harness
from hypothesis import HealthCheck, given, settings
from mcp_types import CallToolResult, TextContent

from mcpbdd.checks import schema as json_schema
from mcpbdd.checks.generated import (
    CLIENT_ARGUMENT_DEPTH,
    CRASH,
    DEEP,
    HANG,
    LEAK,
    LIMIT,
    MAX_HANGS,
    MUTATION,
    REFUSED,
    STDIO_ARGUMENT_DEPTH,
    CallRunner,
    Rules,
    ServerPaths,
    adversarial_inputs,
    check_generated_calls,
    check_generated_calls_in_world,
    default_seed,
    generate_inputs,
    judge,
    nesting_depth,
    plan_inputs,
    render_input,
    schema_strategy,
    server_paths,
)
from mcpbdd.checks.generated.inputs import _hypothesis_jsonschema_problem
from mcpbdd.checks.generated.paths import option_paths
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.connectors import Stdio
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.kit.principals import Principal
from mcpbdd.model.outcome import Call, Channel, Outcome, ProtocolError
from mcpbdd.scenario.world import World

ALICE = Principal("alice", "acme")
TEXT_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@pytest.fixture
async def weak_context() -> AsyncIterator[Any]:
    async with make_harness("context", weak_server.mcp, timeout=5.0) as harness:
        yield harness


@pytest.fixture(params=HARNESS_KINDS)
async def weak(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    async with make_harness(request.param, weak_server.mcp, timeout=5.0) as harness:
        yield harness


# the verdicts, one answer at a time --------------------------------------------------------------


def _tool_error(text: str, arguments: dict[str, Any] | None = None) -> Outcome:
    result = CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    return Outcome(Channel.TOOL_ERROR, Call.tool("shout", arguments or {}), result=result)


SHOUT = Call.tool("shout", {})
RULES = Rules("shout", ("sk-live-42",), ["/srv/app/server"])


def test_the_sdk_crash_form_is_a_crash_but_a_deliberate_tool_error_is_not() -> None:
    assert CRASH in judge(_tool_error("Error executing tool shout"), {}, RULES)
    nested = "Error executing tool shout: Error executing tool inner"
    assert CRASH in judge(_tool_error(nested), {}, RULES)
    assert judge(_tool_error("Error executing tool shout: the text is too long"), {}, RULES) == {}
    assert judge(_tool_error("Error executing tool other"), {}, RULES) == {}


def test_an_internal_error_and_a_lost_connection_are_crashes_and_a_timeout_is_a_hang() -> None:
    internal = Outcome(Channel.PROTOCOL_ERROR, SHOUT, error=ProtocolError(-32603, "Internal"))
    assert judge(internal, {}, RULES) == {CRASH: "the internal error -32603 'Internal'"}
    invalid = Outcome(Channel.PROTOCOL_ERROR, SHOUT, error=ProtocolError(-32602, "Invalid"))
    assert judge(invalid, {}, RULES) == {}
    closed = Outcome(Channel.TRANSPORT_FAILURE, SHOUT, failure="connection closed: EOF")
    assert judge(closed, {}, RULES) == {CRASH: "no answer at all: connection closed: EOF"}
    hung = Outcome(Channel.TRANSPORT_FAILURE, SHOUT, failure="no answer within the call timeout")
    assert HANG in judge(hung, {}, RULES)


def test_leaks_are_stack_frames_server_paths_and_secrets() -> None:
    frame = judge(_tool_error('oops\n  File "/x/y.py", line 3, in f'), {}, RULES)
    assert frame[LEAK].startswith("a stack frame (")
    assert LEAK in judge(_tool_error("Traceback (most recent call last):"), {}, RULES)
    assert "a path of the server's installation" in judge(_tool_error("see /srv/app/server/db.py"), {}, RULES)[LEAK]
    assert judge(_tool_error("see https://example.com/srv/app/server"), {}, RULES) == {}
    secret = judge(_tool_error("key sk-live-42 refused"), {}, RULES)[LEAK]
    assert secret == "configured secret #1 (sk-… 10 characters)"
    assert "sk-live-42" not in secret


def test_an_echo_of_the_input_is_not_a_leak() -> None:
    sneaky = 'File "/etc/passwd", line 1 and Traceback (most recent call last) and /srv/app/server'
    echoed = _tool_error(f"Error executing tool shout: unknown key {sneaky!r}", {"key": sneaky})
    assert judge(echoed, {"key": sneaky}, RULES) == {}


# the verdicts against the weak server ------------------------------------------------------------


@pytest.mark.anyio
async def test_a_crash_on_a_long_string_is_found_and_shrunk(weak: Any) -> None:
    report = await check_generated_calls(weak, "shout", 30)
    assert not report.ok
    assert set(report.failures) == {CRASH}
    first = report.failures[CRASH][0]
    assert first.source == "adversarial: a 10,000-character string in $.text"
    assert report.shrunk[CRASH].arguments == {"text": "a" * 1001}
    message = report.describe()
    assert 'the SDK\'s crash result "Error executing tool shout"' in message
    assert "shrunk to (in " in message and '{"text": "a" * 1001}' in message
    assert f"seed={default_seed('shout')}" in message
    with pytest.raises(AssertionError, match="did not survive 30 generated calls"):
        report.assert_ok()


@pytest.mark.anyio
async def test_many_crashes_read_as_one_failure_with_its_smallest_input_and_no_sdk_log(
    weak: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 16: a run with 12 crashes printed 437 lines; each distinct failure is told once."""
    caplog.set_level(logging.DEBUG, logger="mcp")
    report = await check_generated_calls(weak, "shout", 40)
    crashes = report.failures[CRASH]
    assert len(crashes) > 1, "the check needs several crashes of one kind"
    message = report.describe()
    assert message.count(f"crash in {len(crashes)} call(s): ") == 1, message  # one way of failing, told once
    assert message.count("input (") == 1, message  # its first input (then shrunk), not every one
    assert f"and {len(crashes) - 1} more call(s) failed the same way" in message, message
    assert len(message.splitlines()) < 15, message
    logged = [r for r in caplog.records if r.name.startswith("mcp") and r.levelno >= logging.WARNING]
    assert not logged, "the SDK's log of each crash (a traceback per call) stays out of the output"


@pytest.mark.anyio
async def test_a_traceback_in_an_error_is_a_leak(weak_context: Any) -> None:
    report = await check_generated_calls(weak_context, "lookup", 10)
    assert set(report.failures) == {LEAK}
    assert report.failures[LEAK][0].detail.startswith("a traceback ('p failed: Traceback (most recent call last)")
    assert report.shrunk[LEAK].arguments == {"key": ""}


@pytest.mark.anyio
async def test_a_path_of_the_server_is_a_leak_even_without_a_traceback(weak: Any) -> None:
    report = await check_generated_calls(weak, "profile", 6)
    assert set(report.failures) == {LEAK}
    detail = report.failures[LEAK][0].detail
    assert detail.startswith("a path of the server's installation (")
    assert str(Path(weak_server.__file__).resolve().parent) in detail
    assert str(Path(weak_server.__file__).resolve().parent) in server_paths(weak).installation
    told = await check_generated_calls(weak, "profile", 6, paths=["/somewhere/else"])
    assert told.ok, told.describe()  # the paths to watch can be given instead of found


@pytest.mark.anyio
async def test_a_configured_secret_in_an_answer_is_a_leak(weak_context: Any) -> None:
    report = await check_generated_calls(weak_context, "connect", 6, secrets=[weak_server.API_KEY])
    assert set(report.failures) == {LEAK}
    assert report.failures[LEAK][0].detail == "configured secret #1 (sk-… 18 characters)"
    assert "with the API key «secret #1»" in report.failures[LEAK][0].answer
    assert weak_server.API_KEY not in report.describe()  # the report must not repeat the leak it reports
    clean = await check_generated_calls(weak_context, "connect", 6)
    assert clean.ok, clean.describe()


@pytest.mark.anyio
async def test_a_hang_is_caught_by_the_per_call_timeout_and_not_shrunk(weak_context: Any) -> None:
    report = await check_generated_calls(weak_context, "stall", 4, timeout=0.2)
    assert HANG in report.failures
    assert report.failures[HANG][0].detail == "no answer within the generated-call timeout of 0.2 s"
    assert HANG not in report.shrunk
    assert "hanging inputs are not shrunk" in report.describe()


@pytest.mark.anyio
async def test_generated_calls_stop_after_a_few_hangs(weak_context: Any) -> None:
    report = await check_generated_calls(weak_context, "stall", 40, timeout=0.1)
    assert len(report.failures[HANG]) == MAX_HANGS
    assert report.calls < 40
    assert f"stopped after {MAX_HANGS} hung calls: {40 - report.calls} call(s) were not made" in report.notes
    assert report.describe().startswith("'stall' did not survive 40 generated calls")


@pytest.mark.anyio
async def test_an_internal_error_is_a_crash(weak: Any) -> None:
    report = await check_generated_calls(weak, "panic", 20)
    assert set(report.failures) == {CRASH}
    assert report.failures[CRASH][0].detail == "the internal error -32603 'Internal error'"
    assert report.shrunk[CRASH].arguments == {"name": ""}


@pytest.mark.anyio
async def test_the_client_refusing_answers_is_a_failure_on_the_client_harness(weak: Any) -> None:
    report = await check_generated_calls(weak, "reading", 6)
    if weak.name == "context":
        assert report.ok, report.describe()  # no client in the loop: the output-schema step catches this instead
    else:
        assert set(report.failures) == {REFUSED}
        assert "Invalid structured content returned by tool reading" in report.failures[REFUSED][0].detail
        assert report.channels["client-refused"] >= 1


@pytest.mark.anyio
async def test_a_rejected_call_that_changes_the_snapshot_is_a_mutation(weak_context: Any) -> None:
    weak_server.MEMORY.clear()
    report = await check_generated_calls(weak_context, "remember", 10, snapshot=lambda: list(weak_server.MEMORY))
    assert set(report.failures) == {MUTATION}
    assert report.failures[MUTATION][0].detail.startswith("the call was rejected (tool-error) but the state changed")
    assert len(report.shrunk[MUTATION].arguments["item"]) == 101

    async def snapshot() -> list[str]:  # an async snapshot (a database read) is awaited
        return list(weak_server.MEMORY)

    assert MUTATION in (await check_generated_calls(weak_context, "remember", 4, snapshot=snapshot)).failures
    weak_server.MEMORY.clear()


@pytest.mark.anyio
async def test_the_notes_server_survives_on_every_harness(notes_harness: Any) -> None:
    await notes_harness.call_tool(ALICE, "create_note", {"title": "Groceries", "body": "Milk"})
    for tool in ("create_note", "get_note", "export_notes"):
        report = await check_generated_calls(notes_harness, tool, 40, caller=ALICE)
        assert report.ok, report.describe()
        assert report.calls == 40
        assert report.sources["adversarial"] == 20


@pytest.mark.anyio
async def test_an_unknown_tool_or_no_calls_is_a_usage_error(weak_context: Any) -> None:
    with pytest.raises(AssertionError, match="The server offers no tool 'archive'; it offers: lookup, shout"):
        await check_generated_calls(weak_context, "archive", 5)
    with pytest.raises(ValueError, match="at least 1"):
        await check_generated_calls(weak_context, "shout", 0)


# through a World (what the step does) -------------------------------------------------------------


def test_the_world_wrapper_calls_as_the_caller_and_keeps_the_trace_clean(make_world: Callable[..., World]) -> None:
    world = make_world(server="mcpbdd.examples.notes:mcp")
    world.add_user("alice", "acme")
    world.call_tool("create_note", {"title": "T", "body": "B"})
    report = check_generated_calls_in_world(world, "list_notes", 30)
    assert report.ok, report.describe()
    assert report.channels["ok"] > 0  # alice is signed in, so most calls list her notes
    assert len(world.trace) == 1 and len(world.outcomes) == 1
    with pytest.raises(AssertionError, match="The server offers no tool 'archive'"):
        check_generated_calls_in_world(world, "archive", 5)
    assert world.close() == []


def test_the_world_wrapper_watches_the_configured_secrets(make_world: Callable[..., World]) -> None:
    world = make_world(server="weak_server:mcp", secrets=(weak_server.API_KEY,))
    report = check_generated_calls_in_world(world, "connect", 6)
    assert set(report.failures) == {LEAK}
    assert report.failures[LEAK][0].detail == "configured secret #1 (sk-… 18 characters)"
    assert check_generated_calls_in_world(world, "connect", 6, secrets=()).ok
    assert world.close() == []


# inputs: reproducible, valid, adversarial ----------------------------------------------------------


def test_the_same_seed_gives_the_same_inputs_and_another_seed_others() -> None:
    first, _ = plan_inputs(TEXT_SCHEMA, 40, seed=7)
    again, _ = plan_inputs(TEXT_SCHEMA, 40, seed=7)
    other, _ = plan_inputs(TEXT_SCHEMA, 40, seed=8)
    assert first == again
    assert [a for s, a in first if s.startswith("generated")] != [a for s, a in other if s.startswith("generated")]
    assert default_seed("shout") == zlib.crc32(b"shout")


def test_half_the_calls_are_adversarial_and_every_kind_comes_early() -> None:
    plan, _ = plan_inputs(TEXT_SCHEMA, 20, seed=1)
    labels = [source for source, _ in plan if source.startswith("adversarial")]
    assert len(plan) == 20 and len(labels) == 10
    kinds = ["10,000-character", "control characters", "right-to-left", "format strings", "as $.text", "nested"]
    for kind in [*kinds, "dunder"]:
        assert any(kind in label for label in labels), (kind, labels)


def test_adversarial_inputs_cover_the_issue_list() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "count": {"type": "integer"}, "tags": {"type": "array"}},
        "required": ["name", "count"],
    }
    inputs = dict(adversarial_inputs(schema))
    labels = "\n".join(inputs)
    for expected in (
        "a 10,000-character string in $.name",
        "control characters in $.name",
        "a right-to-left override in $.name",
        "the number 2^64 as $.name",
        "null as $.count",
        f"arrays nested {DEEP} deep in $.count",
        "Python dunder keys",
        "prototype-pollution keys",
        "the required $.count left out",
        "2^63 in $.count",
        "a 10,000-item array in $.tags",
    ):
        assert expected in labels, expected
    dunder = inputs["adversarial: Python dunder keys"]
    assert dunder["name"] == "a" and dunder["count"] == 1 and "__class__" in dunder
    assert "adversarial: a string as $.name" not in inputs  # a valid value is not a wrong type


def test_the_builtin_strategy_generates_valid_inputs_for_the_usual_keywords() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^n-[0-9]+$"},
            "kind": {"enum": ["a", "b"]},
            "version": {"const": 2},
            "size": {"type": "integer", "minimum": 1, "maximum": 9},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 1, "uniqueItems": True},
            "owner": {"anyOf": [{"$ref": "#/$defs/User"}, {"type": "null"}]},
        },
        "required": ["id", "kind", "size", "tags"],
        "additionalProperties": False,
        "$defs": {"User": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
    }
    valid = json_schema.validator(schema)

    @settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(schema_strategy(schema))
    def every_value_is_valid(value: Any) -> None:
        assert valid.is_valid(value), list(valid.iter_errors(value))

    every_value_is_valid()


def test_hypothesis_jsonschema_is_used_when_it_works_and_named_when_it_does_not() -> None:
    problem = _hypothesis_jsonschema_problem()
    if problem is None:
        values, notes = generate_inputs(TEXT_SCHEMA, 20, 3, "hypothesis-jsonschema")
        assert values and notes == []
        assert all(json_schema.validator(TEXT_SCHEMA).is_valid(value) for value in values)
    else:
        with pytest.raises(RuntimeError, match="hypothesis-jsonschema is not usable"):
            generate_inputs(TEXT_SCHEMA, 20, 3, "hypothesis-jsonschema")
        values, notes = generate_inputs(TEXT_SCHEMA, 20, 3, "auto")
        assert values and notes == [f"inputs from mcpbdd's own schema strategy: hypothesis-jsonschema {problem}"]


def test_an_unreadable_schema_still_gets_calls_with_a_note() -> None:
    values, notes = generate_inputs({"type": "object", "properties": {"n": {"type": "integr"}}}, 10, 1, "builtin")
    assert values
    assert notes[0].startswith("the input schema is not valid JSON Schema ($.properties.n.type")


def test_inputs_are_rendered_for_a_reader() -> None:
    nested: Any = "x"
    for _ in range(50):
        nested = [nested]
    rendered = render_input({"text": "a" * 1001, "ctl": "\x00\u202e", "deep": nested, "many": [""] * 500})
    assert rendered == (
        '{"text": "a" * 1001, "ctl": "\\u0000\\u202e", "deep": [[[[[[[… 44 more levels of nesting …]]]]]]], '
        '"many": [""] * 500}'
    )


# transport limits: a deep input the transport cannot carry is not the tool's failure --------------


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_arguments_beyond_the_client_serialiser_are_the_sdks_limit_not_a_refusal(mode: str) -> None:
    """The SDK client raises `Maximum serialization depth exceeded` before sending: the tool never saw the call."""
    async with make_harness(f"client-{mode}", servers.zones, timeout=5.0) as harness:
        runner = CallRunner(harness, None, "open_document", None, None, Rules("open_document", (), []))
        outcome, found = await runner.attempt({"path": _nested(300)})
        assert outcome is None and set(found) == {LIMIT}
        assert "Maximum serialization depth exceeded" in found[LIMIT]
        report = await check_generated_calls(harness, "open_document", 30, depth=300)
        assert report.ok, report.describe()
        assert report.channels["transport/SDK limit"] == 2
        assert "2 call(s) hit a transport/SDK limit and never reached the tool" in report.describe()


@pytest.mark.anyio
async def test_the_measured_client_limit_is_the_sdks_serialiser() -> None:
    """The figure the reports quote is where the installed SDK client stops (checked here, not assumed)."""
    async with make_harness("client-auto", servers.zones, timeout=5.0) as harness:
        runner = CallRunner(harness, None, "open_document", None, None, Rules("open_document", (), []))
        deepest = {"path": _nested(CLIENT_ARGUMENT_DEPTH - 2)}
        assert nesting_depth(deepest) == CLIENT_ARGUMENT_DEPTH
        outcome, found = await runner.attempt(deepest)
        assert outcome is not None and outcome.channel is Channel.TOOL_ERROR and found == {}  # reached the server
        outcome, found = await runner.attempt({"path": _nested(CLIENT_ARGUMENT_DEPTH - 1)})
        assert outcome is None and set(found) == {LIMIT}


@pytest.mark.anyio
async def test_the_context_harness_refuses_what_the_client_cannot_send_the_same_way() -> None:
    """No client and no wire, but the same limit as the client harness: one verdict per input on both."""
    async with make_harness("context", servers.zones, timeout=5.0) as harness:
        report = await check_generated_calls(harness, "open_document", 30, depth=300)
        assert report.ok, report.describe()
        assert report.channels["transport/SDK limit"] == 2


def test_the_corpus_nests_below_every_measured_transport_limit() -> None:
    deepest = max(
        nesting_depth(arguments) for _, arguments in adversarial_inputs({"properties": {"value": {"type": "string"}}})
    )
    assert deepest == DEEP + 2  # the arguments object, the value's DEEP levels around an empty container
    assert deepest + 10 < min(STDIO_ARGUMENT_DEPTH, CLIENT_ARGUMENT_DEPTH)
    assert deepest + 10 < 128  # serde_json's default recursion limit (Rust servers)


def test_the_measured_stdio_limit_is_the_sdks_parser() -> None:
    """The figure the stdio guard uses is what the SDK's own parser accepts (checked here, not assumed)."""
    from mcp_types import jsonrpc_message_adapter

    def message(depth: int) -> str:
        arguments: Any = {"value": _nested(depth - 2)}
        return json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": arguments}}
        )

    assert nesting_depth({"value": _nested(STDIO_ARGUMENT_DEPTH - 2)}) == STDIO_ARGUMENT_DEPTH
    jsonrpc_message_adapter.validate_json(message(STDIO_ARGUMENT_DEPTH))
    with pytest.raises(ValueError, match="recursion limit exceeded"):
        jsonrpc_message_adapter.validate_json(message(STDIO_ARGUMENT_DEPTH + 1))


# leaks of the server's side that are not its own code ---------------------------------------------


@pytest.fixture(params=HARNESS_KINDS)
async def zones(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    async with make_harness(request.param, servers.zones, timeout=5.0) as harness:
        yield harness


@pytest.mark.anyio
async def test_a_site_packages_path_in_an_error_is_a_leak(zones: Any) -> None:
    report = await check_generated_calls(zones, "zone", 6)
    assert set(report.failures) == {LEAK}
    detail = report.failures[LEAK][0].detail
    assert detail.startswith("a path of the server's installation (") and "mcpbdd_test_zones" in detail


@pytest.mark.anyio
async def test_a_temp_folder_path_in_an_error_is_a_leak(zones: Any) -> None:
    report = await check_generated_calls(zones, "cached_zone", 6)
    assert set(report.failures) == {LEAK}
    assert report.failures[LEAK][0].detail.startswith("a path of the server's temp folder (")


@pytest.mark.anyio
async def test_a_path_the_input_supplied_is_not_a_leak(zones: Any) -> None:
    report = await check_generated_calls(zones, "open_document", 30)
    assert report.ok, report.describe()
    for path in ("/home/alice/notes.txt", "/tmp/x.zone", "C:\\Users\\alice\\x.txt", tempfile.gettempdir() + "/y"):
        outcome = await zones.call_tool(None, "open_document", {"path": path})
        assert outcome.channel is Channel.TOOL_ERROR
        assert judge(outcome, {"path": path}, Rules("open_document", (), server_paths(zones))) == {}


def test_a_path_the_servers_command_line_configures_is_not_a_leak(tmp_path: Path) -> None:
    """The reference git server refuses a repository path outside the one `--repository` confines it to, naming that
    one: the operator wrote it on the command line and the model needs it, so it is an echo, not a leak."""
    repository = tmp_path / "repo"
    command = f"{sys.executable} -m mcp_server_git --repository {repository} --log=/var/log/git.log {tmp_path}/x.py"
    harness = ClientHarness(Stdio(command, ProcessOptions(cwd=str(tmp_path))))  # not entered: no process starts
    rules = Rules("git_log", (), server_paths(harness))
    refusal = f"Error executing tool git_log: Repository path 'a' is outside the allowed repository '{repository}'"
    assert judge(_tool_error(refusal), {"repo_path": "a"}, rules) == {}
    assert LEAK in judge(_tool_error(f"cannot open '{tmp_path}/secret.txt'"), {}, rules)  # the working folder still
    assert LEAK in judge(_tool_error(f"failed in {tmp_path}/x.py"), {}, rules)  # a positional script is no option
    assert option_paths(
        ["node", "--no-warnings", "/srv/x.js", "--repository", "/srv/repo", "--log=/var/log/x", "r/p"]
    ) == (
        "/var/log/x",
        "/srv/repo",
    )


def test_paths_under_common_roots_are_leaks_in_errors_but_may_be_a_successful_answer() -> None:
    rules = Rules("shout", (), ServerPaths(installation=("/srv/app/server",)))
    for text in (
        "cannot open '/home/bob/.config/app.toml'",
        "[Errno 2] No such file or directory: '/var/lib/app/db.sqlite'",
        "File name too long: '/opt/venv/lib/python3.11/site-packages/tzdata/zoneinfo/xxxx'",
        "failed in C:\\Users\\bob\\app\\main.py",
        "see /Users/bob/app",
    ):
        assert judge(_tool_error(text), {}, rules)[LEAK].startswith("an absolute path the input did not supply ("), text
    ok = Outcome(
        Channel.OK,
        SHOUT,
        result=CallToolResult(content=[TextContent(type="text", text="saved to /tmp/export.csv")]),
    )
    assert judge(ok, {}, rules) == {}  # a file tool's answer may be a path
    installed = Outcome(
        Channel.OK,
        SHOUT,
        result=CallToolResult(content=[TextContent(type="text", text="in /srv/app/server/x.py")]),
    )
    assert LEAK in judge(installed, {}, rules)  # the server's installation never
    for text in ("see https://example.com/home/x", "mode a/usr/b", "the value '/home/alice/x'"):
        assert judge(_tool_error(text), {"path": "/home/alice/x"}, rules) == {}, text
    assert judge(_tool_error("no such file: '/home/alice/x'"), {"path": "x"}, rules)[LEAK]
    long_path = "/home/alice/" + "a" * 100 + "/end"  # pydantic echoes a long input as its head ... tail
    truncated = "Input should be a valid integer [type=int_parsing, input_value='/home/alice/aaaaaaaaaaaa...aaaaa/end']"
    assert judge(_tool_error(truncated), {"n": long_path}, rules) == {}
    mixed = "Invalid timezone: File name too long: '/opt/tools/timevenv/lib/tzdata/zoneinfo/aaaa'"
    leak = judge(_tool_error(mixed), {"timezone": "aaaa", "time": "a"}, rules)[LEAK]  # a key echoed inside the path
    assert "/opt/tools/timevenv/lib" in leak
    assert judge(_tool_error("cannot open /tmp/x"), {}, Rules("shout", (), ["/srv"])) == {}  # paths= given: only those
