"""`mcpbdd feature` writes recorded data as values: no name, text or answer becomes a line, a step or a keyword.

A cassette whose server name, tool names, arguments, results, questions and answers hold line
breaks (`\\n`, U+2028, U+0085), `\"\"\"`, `|`, `"`, `\\`, `${...}` and `Scenario:` at a line start is
rendered, then parsed by the Gherkin parser and by behave's: exactly one scenario, every step a
phrase of the vocabulary reading exactly the recorded values, and each call no step can carry
left out with a comment saying why. No process is started.
"""

from __future__ import annotations

import json
from typing import Any

from mcpbdd.record.cassette import LEGACY, MODERN, Exchange, Header

INJECTED = "\n  Scenario: injected\n    Given the MCP server \"stdio: sh -c 'touch /tmp/pwned'\"\n"


def _exchange(seq: int, method: str, params: dict[str, Any], response: dict[str, Any] | None, **more: Any) -> Exchange:
    return Exchange(seq, {"id": seq, "method": method, "params": params}, response, **more)


def _text_result(text: str, *, error: bool = False, structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": error}
    if structured is not None:
        result["structuredContent"] = structured
    return {"result": result}


def _hostile_cassette() -> Any:
    from mcpbdd.record.cassette import Cassette

    header = Header(
        "stdio",
        {"command": ["sh", "-c", "touch /tmp/pwned"], "info": {"name": f"evil{INJECTED}\u2028Feature: two"}},
        "2026-12-01\nScenario: date",
        MODERN,
        {"name": "client\u0085Scenario: c", "version": "1\u2029Examples:", "capabilities": {}},
    )
    title = 'a """ b\n  Scenario: t \\ | "q"'
    exchanges = [
        _exchange(
            1,
            "tools/call",
            {"name": "create", "arguments": {"title": title, "body": "\u2028Scenario: x\u0085y"}},
            _text_result("made", structured={"id": "n-1", "text": '"""\n    Scenario: y', "title": title}),
        ),
        _exchange(2, "tools/call", {"name": 'bad"name', "arguments": {}}, _text_result("ok")),
        _exchange(
            3,
            "tools/call",
            {"name": "get", "arguments": {"id": "n-1"}},
            _text_result('not "found"\u2028Scenario: z', error=True, structured={"error": {"reason": 'a"b'}}),
        ),
        _exchange(4, "prompts/get", {"name": "p", "arguments": {"x": "a|b", "n": "42", "j": "{x"}}, _prompt("P")),
        _exchange(5, "prompts/get", {"name": "q", "arguments": {"x": "back\\slash\nScenario: s"}}, _prompt("Q")),
        _exchange(
            6,
            "tools/call",
            {"name": "ask"},
            _text_result("asked"),
            rounds=[_elicitation('Sure?\n  Scenario: asked "yes"', {"note": 'x"""y\n"""'})],
        ),
        _exchange(7, "tools/call", {"name": "sample"}, _text_result("sampled"), rounds=[_sampling("line1\nline2")]),
        _exchange(8, "resources/read", {"uri": "notes://${evil}"}, {"result": {"contents": []}}),
        _exchange(9, "tools/call", {"name": "tool\u2028Scenario: n"}, _text_result("ok")),
        _exchange(10, "tools/call", {"name": "err"}, {"error": {"code": "1\nScenario: code", "message": "m"}}),
    ]
    return Cassette(header, exchanges)


def _prompt(text: str) -> dict[str, Any]:
    return {"result": {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}}


def _elicitation(message: str, content: dict[str, Any]) -> dict[str, Any]:
    asked = {"method": "elicitation/create", "params": {"message": message, "requestedSchema": {}}}
    answer = {"action": "accept", "content": content}
    return {
        "era": MODERN,
        "asked": {"resultType": "input_required", "inputRequests": {"k": asked}},
        "retry": {"id": 60, "params": {"inputResponses": {"k": answer}}},
    }


def _sampling(text: str) -> dict[str, Any]:
    asked = {"id": 0, "method": "sampling/createMessage", "params": {"messages": []}}
    return {"era": LEGACY, "asked": asked, "answer": {"result": {"content": {"type": "text", "text": text}}}}


def _matched(step: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The registered phrase a step of the Gherkin parser's document matches, and the values it reads."""
    from behave.model import Step
    from behave.step_registry import registry

    import mcpbdd.steps  # noqa: F401  (registers the vocabulary)

    keyword = step["keyword"].strip().lower()
    kind = {"and": "then"}.get(keyword, keyword)
    found = registry.find_match(Step("x.feature", 1, step["keyword"].strip(), kind, step["text"]))
    assert found is not None, f"no phrase matches {step['text']!r}"
    return found.func.__doc__ or "", {a.name: a.value for a in found.arguments}


def test_hostile_names_and_texts_round_trip_as_values_never_as_gherkin() -> None:
    from behave.parser import parse_feature
    from gherkin.parser import Parser
    from gherkin.token_scanner import TokenScanner

    from mcpbdd.record.feature import render

    text = render(_hostile_cassette(), [], target="stdio: {python} -m server")
    document: Any = Parser().parse(TokenScanner(text))["feature"]
    assert document["name"].startswith("A recorded session with the evil\\n  Scenario: injected")
    assert "\\u2028Feature: two" in document["name"]
    background, scenario = (child.get("background") or child.get("scenario") for child in document["children"])
    assert [c.get("scenario", {}).get("name") for c in document["children"]] == [None, "The recorded session"]
    assert background["steps"][0]["text"] == 'the MCP server "stdio: {python} -m server"'
    steps = scenario["steps"]
    read = [_matched(step)[1] for step in steps]
    tools = [r["tool"] for r in read if "tool" in r]
    assert tools == ["create", "get", "ask", "err"]  # bad"name, sample, the resource and tool\u2028... are left out
    assert [r["name"] for r in read if "name" in r] == ["id", "p", "q"]  # what is remembered, then the prompts
    title = 'a """ b\n  Scenario: t \\ | "q"'
    assert json.loads(read[0]["arguments"]) == {"title": title, "body": "\u2028Scenario: x\u0085y"}  # exactly
    docs = [json.loads(s["docString"]["content"]) for s in steps if "docString" in s]
    assert docs[0] == {"id": "n-1", "text": '"""\n    Scenario: y', "title": title}  # the result, escaped
    assert docs[1] == {"x": "back\\slash\nScenario: s"}  # no cell could hold it: a doc string
    assert docs[2] == {"note": 'x"""y\n"""'}  # the accepted form
    [table] = [s["dataTable"] for s in steps if "dataTable" in s]
    rows = [[c["value"] for c in row["cells"]] for row in table["rows"]]
    assert rows == [["argument", "value"], ["x", "a|b"], ["n", '"42"'], ["j", '"{x"']]  # cells read as JSON
    comments = [c["text"].strip() for c in Parser().parse(TokenScanner(text))["comments"]]
    left_out = [c.split(" (")[0] for c in comments if " is left out: " in c]
    assert left_out == ["# call #2", "# call #7", "# call #8", "# call #9"]
    assert "Then the call fails with a protocol error" in text  # a code that is no code is not written
    assert "the error reason is" not in text  # a reason with a quote is not checked, never half-written
    behave_feature = parse_feature(text)  # the parser that runs it reads the same
    assert len(behave_feature.scenarios) == 1
    ran = behave_feature.scenarios[0].steps
    assert [s.name for s in ran] == [s["text"] for s in steps]
    assert [s.text for s in ran if s.text is not None] == [s["docString"]["content"] for s in steps if "docString" in s]
    assert [[c.strip() for c in r.cells] for r in next(s.table for s in ran if s.table)] == rows[1:]


def test_a_result_or_header_of_the_wrong_shape_is_written_around_not_a_traceback() -> None:
    from mcpbdd.record.cassette import Cassette
    from mcpbdd.record.feature import render

    header = Header("stdio", {"info": "not an object"}, "2026-12-01", MODERN, {})
    odd = {"result": {"content": ["text", {"type": "text", "text": "Hello there"}], "isError": False}}
    text = render(Cassette(header, [_exchange(1, "tools/call", {"name": "t"}, odd)]), [], target="stdio: x")
    assert "Feature: A recorded session with the stdio: x server" in text
    assert 'And the result mentions "Hello there"' in text
