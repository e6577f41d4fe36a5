"""Record a real client's session, turn it into a feature, verify builds against it.

Real processes end to end: a real `mcp.Client` drives `mcpbdd record` over stdio (as a client's
configuration would), the recorder starts the real server; the written feature runs under behave
on the client harness; `mcpbdd verify` replays against the same server and a changed build.

The tests of this concern that start processes are in tests/spawning/test_record.py.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types
import pytest

from mcpbdd.cli.recording import split_command
from mcpbdd.model.paths import path_steps
from mcpbdd.record.assembler import Assembler
from mcpbdd.record.cassette import LEGACY, MODERN, CassetteError, Exchange, Header, parse
from mcpbdd.scenario.remembered import Remembered


def test_a_verdict_shows_control_characters_escaped_on_the_console_and_in_junit() -> None:
    from xml.etree import ElementTree

    from mcpbdd.record.verify import Report, Verdict, junit_xml

    hostile = Exchange(1, {"id": 1, "method": "tools/call", "params": {"name": "x\x1b[2J\x07"}})
    report = Report([Verdict(hostile, paths=[("$.a", 'expected "\x1b]0;owned\x07", got "b"')])])
    console = report.render()
    assert "\x1b" not in console and "\x07" not in console and "x\\u001b[2J\\u0007" in console
    suite = ElementTree.fromstring(junit_xml(report, "c\x1b.ndjson").encode())  # XML 1.0 has no ESC
    case = suite.find("testcase")
    assert case is not None and case.get("name") == "#1 tools/call x\\u001b[2J\\u0007"


# the pieces, without processes ---------------------------------------------------------------


def test_the_command_after_the_double_dash_is_the_servers() -> None:
    assert split_command(["record", "--out", "f", "--", "python", "-m", "x", "--out", "y"]) == (
        ["record", "--out", "f"],
        ["python", "-m", "x", "--out", "y"],
    )
    assert split_command(["run", "--", "x"]) == (["run", "--", "x"], [])


def test_the_replays_spawn_modes_are_the_harness_s() -> None:
    """`mcpbdd verify --spawn` lists the modes written out (its --help imports no SDK): the harness's, all of them."""
    from mcpbdd.cli.recording import SPAWN_MODES
    from mcpbdd.harness.processes.spawn import SPAWN_MODES as HARNESS_MODES

    assert SPAWN_MODES == HARNESS_MODES


def test_a_remembered_value_fills_later_arguments_with_its_type() -> None:
    memory = Remembered()
    memory.remember("note", {"notes": [{"id": "n-7", "n": 3}]}, "$.notes[0].id")
    memory.remember("count", {"notes": [{"id": "n-7", "n": 3}]}, "$.notes[0].n")
    assert memory.fill({"note_id": "${note}", "uri": "notes://${note}", "n": "${count}"}) == {
        "note_id": "n-7",
        "uri": "notes://n-7",
        "n": 3,
    }
    assert path_steps('$.a["b c"][2]') == ["a", "b c", 2]


def test_a_missing_path_or_name_says_what_is_there() -> None:
    memory = Remembered()
    with pytest.raises(LookupError, match=r"no \$\.idd \(at \$: id, title\)"):
        memory.remember("note", {"id": "n-1", "title": "t"}, "$.idd")
    with pytest.raises(LookupError, match="nothing is remembered as 'note'"):
        memory.fill({"note_id": "${note}"})
    with pytest.raises(ValueError, match="must start with"):
        path_steps("id")


def test_a_file_that_is_not_a_cassette_is_refused_by_line() -> None:
    with pytest.raises(CassetteError, match="no header line"):
        parse(['{"type": "exchange", "seq": 1, "request": {}}'])
    with pytest.raises(CassetteError, match=r"<cassette>:2: not JSON"):
        parse([json.dumps({"type": "header", "format": "mcpbdd-cassette", "version": 1}), "{oops"])


# the assembler, fed wire lines built with the SDK's JSON-RPC models ----------------------------


def _wire(message: Any) -> bytes:
    return str(message.model_dump_json(by_alias=True, exclude_none=True)).encode() + b"\n"


def _request(id_: int, method: str, params: dict[str, Any]) -> bytes:
    return _wire(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=id_, method=method, params=params))


def _result(id_: int, result: dict[str, Any]) -> bytes:
    return _wire(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=id_, result=result))


def _assembled(feed: list[tuple[str, bytes]]) -> list[Exchange]:
    done: list[Exchange] = []
    assembler = Assembler(done.append, Header("stdio", {"command": ["server"]}, "now"))
    for side, line in feed:
        (assembler.from_client if side == "client" else assembler.from_server)(line)
    return done


def test_concurrent_calls_keep_their_own_rounds_in_both_eras() -> None:
    """A modern retry finds its call by the echoed state; a mid-call request joins the call still pending."""
    asked = {"resultType": "input_required", "requestState": "s-1", "inputRequests": {"confirm": {}}}
    retry = {"name": "delete", "inputResponses": {"confirm": {"action": "accept"}}, "requestState": "s-1"}
    done = _assembled(
        [
            ("client", _request(1, "tools/call", {"name": "delete"})),
            ("server", _result(1, asked)),
            ("client", _request(2, "tools/call", {"name": "slow"})),
            ("client", _request(3, "tools/call", retry)),
            ("server", _result(3, {"content": [], "structuredContent": {"deleted": True}})),
            ("server", _request(0, "elicitation/create", {"message": "name?"})),
            ("client", _result(0, {"action": "accept", "content": {"name": "Ada"}})),
            ("server", _result(2, {"content": []})),
            ("client", b"not json-rpc\n"),
        ]
    )
    delete, slow = done
    assert (delete.seq, delete.target, slow.seq, slow.target) == (1, "delete", 2, "slow")
    assert delete.rounds == [{"era": MODERN, "asked": asked, "retry": {"id": 3, "params": retry}}]
    assert delete.response == {"result": {"content": [], "structuredContent": {"deleted": True}}}
    [legacy] = slow.rounds
    assert legacy["era"] == LEGACY and legacy["asked"]["method"] == "elicitation/create"
    assert legacy["answer"] == {"result": {"action": "accept", "content": {"name": "Ada"}}}
