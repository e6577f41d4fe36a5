"""The conformance checks in process: each fails on the server that breaks its rule, with a readable message.

Each check runs over the SDK's real client and server (the client harness, both eras) against a
server from `conformance_servers` that goes wrong the way a hand-rolled dispatcher does; the clean
server passes every check that applies to it. The pack's features, the table of checks and the
expected-failures file are checked here too (their runs are in tests/spawning/test_conformance_cli.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import conformance_servers as variants
import pytest
from gherkin import Parser

from mcpbdd.conformance import PACK, ConformanceFailure, NotApplicable, Probe, all_checks, run_check
from mcpbdd.conformance.agreement import COUNTERPARTS, disagreements
from mcpbdd.conformance.baseline import EXPECTED_FAILURE, expect_official, load_baseline
from mcpbdd.conformance.summary import EXPECTED, FAILED, PASSED, Summary, Verdict
from mcpbdd.harness.client import ClientHarness
from mcpbdd.kit.principals import Principal

pytestmark = pytest.mark.anyio

MESSAGES = {
    "unknown-tool": "the call of a tool nobody listed was not refused: tools/call mcpbdd-no-such-tool",
    "invalid-arguments": "arguments breaking the input schema of 'lookup' was not refused",
    "unknown-resource": "the error code is -32002, not -32602",
    "tampered-request-state": "the retry with an altered request state: tools/call confirm {} came back as",
    "error-texts-leak-nothing": "leak in the answer: a traceback",
    "structured-results": "count: the client refused the server's answer",
    "error-channels": "a well-formed call answered with the internal error -32603 (a crash): tools/call lookup",
    "tool-names": "'look up/notes' is offered twice",
    "tool-schemas": "look up/notes inputSchema: $.properties.q.type: 'strin' is not valid",
    "pagination": "tools: still a nextCursor after 100 pages",
    "bad-cursor": "tools: the error -32603 'cannot decode the cursor', not -32602",
    "capabilities-served": "prompts is declared but its list request failed: -32601",
    "form-payloads": "tag_note, the form's payload: crash: the SDK's crash result \"Error executing tool tag_note\"",
}
UNBROKEN = {"caching-hints", "result-type"}
"""Rules the SDK's server keeps whatever its handlers return (its runner stamps the fields): no in-process variant
breaks them; tests/spawning/test_conformance_cli.py strips them from an HTTP server's answers instead."""


async def _verdict(
    server: Any, name: str, mode: str = "auto", caller: Principal | None = None, strict: bool = False
) -> str:
    async with ClientHarness(server, mode=mode) as harness:
        try:
            await run_check(Probe(harness, caller, strict=strict), name)
        except NotApplicable as reason:
            return f"not applicable: {reason}"
        except ConformanceFailure as failure:
            return f"failed: {failure}"
        return "passed"


SHOULDS = {"sep-2575-server-identifies-in-result-meta"}
"""SHOULD-level checks: a warning, a failure under strict (tested on their own below)."""


WIRE = {"jsonrpc-messages", "version-negotiation", "server-discover", "protected-resource-metadata"}
"""Rules of the messages themselves, which the SDK's server keeps whatever its handlers do, and of the HTTP edge,
which an in-process server does not have: hand-rolled servers break each instead
(tests/spawning/test_conformance_messages.py, over stdio, and tests/spawning/test_conformance_edge.py, over HTTP)."""


def test_every_check_but_the_sdk_stamped_ones_has_a_breaking_variant() -> None:
    assert set(MESSAGES) | UNBROKEN | SHOULDS | WIRE == {check.id for check in all_checks()}
    assert set(MESSAGES) == set(variants.VARIANTS)


@pytest.mark.parametrize("name", sorted(MESSAGES))
async def test_each_check_fails_on_the_server_that_breaks_it(name: str) -> None:
    verdict = await _verdict(variants.VARIANTS[name], name)
    assert verdict.startswith("failed: "), verdict
    assert MESSAGES[name] in verdict


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("name", sorted(c.id for c in all_checks()))
async def test_the_clean_server_passes_every_check_that_applies(name: str, mode: str) -> None:
    verdict = await _verdict(variants.clean, name, mode)
    assert verdict == "passed" or verdict.startswith("not applicable: "), verdict


async def test_a_form_refusal_must_name_the_field() -> None:
    verdict = await _verdict(variants.form_vague, "form-payloads")
    assert "rename: the form's payload was refused without naming a field (title)" in verdict


async def test_the_2026_rules_do_not_apply_on_2025_11_25() -> None:
    verdict = await _verdict(variants.clean, "caching-hints", "legacy")
    assert verdict == "not applicable: caching-hints is a 2026-07-28 rule and this session speaks 2025-11-25"


def _scenarios() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(PACK.glob("*.feature")):
        document: Any = Parser().parse(path.read_text(encoding="utf-8"))  # read as plain JSON-like data
        for child in document["feature"]["children"]:
            inner = child["rule"]["children"] if "rule" in child else [child]
            found += [grandchild["scenario"] for grandchild in inner if "scenario" in grandchild]
    return found


def test_the_pack_has_one_scenario_per_check_naming_its_spec_section() -> None:
    """A reader opening the pack sees each check's id, its spec section's tag and link, and the one step."""
    checks = {check.id: check for check in all_checks()}
    scenarios = _scenarios()
    assert sorted(s["name"].split(":")[0] for s in scenarios) == sorted(checks)
    for scenario in scenarios:
        check = checks[scenario["name"].split(":")[0]]
        tags = {tag["name"] for tag in scenario["tags"]}
        assert {f"@check.{check.id}", f"@spec.{check.section}"} <= tags
        assert f"Spec: {check.url}" in scenario["description"]
        assert [step["text"] for step in scenario["steps"]] == [f'the server passes the conformance check "{check.id}"']


def test_the_expected_failures_file(tmp_path: Path) -> None:
    path = tmp_path / "baseline.yml"
    path.write_text("server:\n  - unknown-resource\n  - caching-hints@2026-07-28\n", encoding="utf-8")
    baseline = load_baseline(path)
    assert baseline.expects("unknown-resource", "2025-11-25")
    assert baseline.expects("caching-hints", "2026-07-28") and not baseline.expects("caching-hints", "2025-11-25")
    verdicts = [
        Verdict("unknown-resource", "2026-07-28", FAILED, "-32002"),
        Verdict("caching-hints", "2026-07-28", PASSED),
        Verdict("tool-names", "2026-07-28", FAILED, "bad name"),
    ]
    summary = Summary.of(verdicts, baseline)
    assert [v.status for v in summary.verdicts] == [EXPECTED, PASSED, FAILED]
    assert [v.check for v in summary.unexpected] == ["tool-names"]
    assert summary.stale == ["caching-hints@2026-07-28"]
    assert "remove them from the file" in summary.markdown("x:mcp", all_checks())


def test_the_expected_failures_file_names_official_checks_too(tmp_path: Path) -> None:
    """`official:id` turns a failure of the suite's into an expected one; one that ran and passed is stale; one
    that did not run says nothing; a failure the file does not name still fails."""
    path = tmp_path / "baseline.yml"
    path.write_text("server:\n  - official:host-rebinding\n  - official:now-fixed\n  - official:not-run\n")
    baseline = load_baseline(path)
    assert baseline.official == {"host-rebinding", "now-fixed", "not-run"} and baseline.entries == ()
    checks: list[dict[str, object]] = [
        {"scenario": "dns", "id": "host-rebinding", "status": "FAILURE", "errorMessage": "answered 200"},
        {"scenario": "tools", "id": "now-fixed", "status": "SUCCESS"},
        {"scenario": "tools", "id": "other", "status": "FAILURE", "errorMessage": "bad"},
    ]
    marked, stale = expect_official(checks, baseline.official)
    assert [check["status"] for check in marked] == [EXPECTED_FAILURE, "SUCCESS", "FAILURE"]
    assert marked[0]["reason"] == "expected: the file lists official:host-rebinding"
    assert marked[0]["errorMessage"] == "answered 200"  # what failed is kept for the report
    assert stale == ["official:now-fixed"]
    empty = tmp_path / "empty.yml"
    empty.write_text("- 'official: '\n")
    with pytest.raises(ValueError, match="an empty official: entry"):
        load_baseline(empty)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- no-such-check\n", "unknown conformance check 'no-such-check'"),
        ("server: 3\n", "must list check ids"),
        ("server: [\n", "is not YAML"),
    ],
)
def test_a_bad_expected_failures_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "baseline.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        load_baseline(path)


def test_the_site_lists_a_page_per_check() -> None:
    """docs/gen/conformance.py writes a page per check; mkdocs.yml's nav must list each (a strict build needs it)."""
    nav = (Path(__file__).parents[1] / "mkdocs.yml").read_text(encoding="utf-8")
    listed = re.findall(r"- ([\w-]+): reference/conformance/([\w-]+)\.md", nav)
    assert [name for name, _ in listed] == [page for _, page in listed] == [check.id for check in all_checks()]


SUITE = [
    {"scenario": "tools-list", "id": "tools-list", "status": "SUCCESS"},
    {"scenario": "tools-list", "id": "tools-name-format", "status": "SUCCESS"},
    {"scenario": "sep-2164-resource-not-found", "id": "sep-2164-no-empty-contents", "status": "SUCCESS"},
    {"scenario": "sep-2164-resource-not-found", "id": "sep-2164-data-uri", "status": "WARNING"},
    {"scenario": "caching", "id": "sep-2549-tools-list-caching-hints", "status": "FAILURE"},
    {"scenario": "caching", "id": "sep-2549-resources-read-caching-hints", "status": "SKIPPED"},
]
"""The suite's verdicts on server-everything (a 2025-11-25 server that answers -32602 without data.uri)."""


def test_the_pack_and_the_official_suite_agree_where_they_check_one_rule() -> None:
    """The pack's verdicts on server-everything agree with the suite's; a pack check that did not apply (caching
    hints on 2025-11-25) is not compared, and an expected failure is still a failure of the rule."""
    assert set(COUNTERPARTS) <= {check.id for check in all_checks()}
    pack = {
        "tool-names": ["passed", "passed"],
        "unknown-resource": ["expected failure", "expected failure"],
        "caching-hints": ["not applicable", "not applicable"],
    }
    assert disagreements(pack, SUITE) == []
    assert disagreements({**pack, "tool-names": ["passed", "failed"]}, SUITE) == [
        "tool-names failed in the pack, the suite said: tools-name-format SUCCESS"
    ]
    assert disagreements({**pack, "unknown-resource": ["passed", "passed"]}, SUITE) == [
        "unknown-resource passed in the pack, the suite said: sep-2164-no-empty-contents SUCCESS, sep-2164-data-uri "
        "WARNING"
    ]
    assert disagreements({**pack, "caching-hints": ["passed", "not applicable"]}, SUITE) == [
        "caching-hints passed in the pack, the suite said: sep-2549-tools-list-caching-hints FAILURE"
    ]


def test_the_docs_show_the_table_of_counterparts() -> None:
    """docs/reference/conformance.md shows `COUNTERPARTS` as a table: a row per pack check, its checks in order."""
    page = (Path(__file__).parents[1] / "docs" / "reference" / "conformance.md").read_text(encoding="utf-8")
    rows = {row[0]: row for row in re.findall(r"^\| ([\w-]+) \| ([\w-]+) \| ([\w, -]+) \| .+ \|$", page, re.M)}
    for name, counterpart in COUNTERPARTS.items():
        assert rows.get(name) == (name, counterpart.scenario, ", ".join(counterpart.checks)), name


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    ("server", "where"),
    [
        (variants.traceback_on_failure, "tools/call find_note"),
        (variants.template_leak, "resources/read notes://mcpbdd-no-such-id-"),
        (variants.prompt_leak, "prompts/get summarise"),
        (variants.log_leak, "leak in log message error 'Traceback"),
    ],
)
async def test_a_leak_behind_a_well_formed_request_that_fails_is_found(server: Any, where: str, mode: str) -> None:
    """The refusals of malformed requests are the SDK's and clean; the traceback is in what a well-formed request
    that fails inside the server answers (or logs): the check reads those too."""
    verdict = await _verdict(server, "error-texts-leak-nothing", mode)
    assert verdict.startswith("failed: an error text leaks what stays on the server"), verdict
    assert "a traceback" in verdict and where in verdict, verdict


@pytest.mark.parametrize(
    ("server", "code"), [(variants.reserved_refusal, -32600), (variants.server_range_refusal, -32001)]
)
async def test_a_domain_refusal_on_a_reserved_code_is_the_wrong_channel(server: Any, code: int) -> None:
    verdict = await _verdict(server, "error-channels")
    assert f"a well-formed call answered with the reserved JSON-RPC code {code}" in verdict, verdict


async def test_a_domain_refusal_on_an_application_code_is_a_legitimate_channel() -> None:
    assert await _verdict(variants.application_refusal, "error-channels") == "passed"


async def test_a_tool_that_refuses_the_caller_is_reported_as_such_not_passed() -> None:
    """Anonymous, the tool refuses before it reads the blank cursor: that is no pass (nor a silent skip); named as
    a caller it accepts, the crash the form's payload causes is found."""
    anonymous = await _verdict(variants.members_only, "form-payloads")
    refused = "not applicable: refused the caller (an anonymous caller (no access token)) on 2 call(s)"
    assert anonymous.startswith(refused), anonymous
    assert "Unauthorized: sign in first." in anonymous and "--user/--tenant/--scopes/--token" in anonymous
    alice = await _verdict(variants.members_only, "form-payloads", caller=Principal("alice", "acme"))
    assert alice.startswith("failed: a tool does not take a form client's payload"), alice
    assert "list_notes, the form's payload: crash" in alice


async def test_a_server_that_does_not_name_its_version_in_result_meta_gets_a_warning_failed_when_strict() -> None:
    """The SDK's `MCPServer` stamps its name and an empty version: a SHOULD not kept, never a pass."""
    check = "sep-2575-server-identifies-in-result-meta"
    warned = await _verdict(variants.form_vague, check)
    assert warned.startswith("not applicable: warning (SHOULD): the server does not identify itself"), warned
    assert "tools/list: _meta['io.modelcontextprotocol/serverInfo'] = {'name': 'form-vague', 'version': ''}" in warned
    assert "has no version" in warned
    strict = await _verdict(variants.form_vague, check, strict=True)
    assert strict.startswith("failed: warning (SHOULD)") and strict.endswith("(a SHOULD, failed under --strict)")
    assert await _verdict(variants.clean, check) == "passed"
    assert (await _verdict(variants.clean, check, "legacy")).startswith("not applicable: ")


def test_the_summary_reads_refused_and_warned_apart_from_not_applicable(tmp_path: Path) -> None:
    """A skip that is a refusal of the caller or a SHOULD not kept has a status of its own, from JUnit or, for a
    pass whose every scenario was skipped (behave writes no JUnit then), from its Cucumber Messages."""
    from mcpbdd.conformance.summary import REFUSED, SKIPPED, WARNED, read_verdicts

    folder = tmp_path / "junit" / "client.auto"
    folder.mkdir(parents=True)
    cases = [
        ("form-payloads: x", "not applicable: refused the caller (an anonymous caller) on 2 call(s)"),
        ("sep-2575-server-identifies-in-result-meta: x", "not applicable: warning (SHOULD): no version"),
        ("unknown-resource: x", "not applicable: the server declares no resources capability"),
    ]
    body = "".join(f'<testcase name="{name}"><skipped message="{message}"/></testcase>' for name, message in cases)
    (folder / "TESTS-conformance.xml").write_text(f"<testsuite>{body}</testsuite>", encoding="utf-8")
    messages = tmp_path / "conformance.ndjson"
    envelopes = [
        {"pickle": {"id": "p1", "name": cases[0][0]}},
        {"testCase": {"id": "c1", "pickleId": "p1"}},
        {"testCaseStarted": {"id": "s1", "testCaseId": "c1"}},
        {
            "testStepFinished": {
                "testCaseStartedId": "s1",
                "testStepResult": {"status": "SKIPPED", "message": cases[0][1]},
            }
        },
    ]
    legacy = tmp_path / "conformance.client.legacy.ndjson"
    legacy.write_text("\n".join(json.dumps(e) for e in envelopes) + "\n", encoding="utf-8")
    found = {(v.check, v.era): v.status for v in read_verdicts(tmp_path / "junit", messages)}
    assert found == {
        ("form-payloads", "2026-07-28"): REFUSED,
        ("sep-2575-server-identifies-in-result-meta", "2026-07-28"): WARNED,
        ("unknown-resource", "2026-07-28"): SKIPPED,
        ("form-payloads", "2025-11-25"): REFUSED,
    }


async def test_a_flood_of_log_messages_is_read_to_the_end() -> None:
    """400 log messages per call, the traceback in the 334th: the check reads them all, and says which one."""
    verdict = await _verdict(variants.flood, "error-texts-leak-nothing")
    assert verdict.startswith("failed: an error text leaks what stays on the server"), verdict[:300]
    assert "leak in log message debug 'Traceback (most recent call last)" in verdict


def test_a_run_the_server_refused_everywhere_judged_nothing() -> None:
    """Refused the caller wherever a check applied, and nothing passed or failed: never green (exit 1)."""
    from mcpbdd.conformance.baseline import Baseline
    from mcpbdd.conformance.summary import REFUSED, SKIPPED

    refused = [Verdict("form-payloads", "2026-07-28", REFUSED), Verdict("caching-hints", "2025-11-25", SKIPPED)]
    assert Summary.of(refused, Baseline()).refused_only
    judged = [*refused, Verdict("tool-names", "2026-07-28", PASSED)]
    assert not Summary.of(judged, Baseline()).refused_only
    assert not Summary.of([Verdict("caching-hints", "2025-11-25", SKIPPED)], Baseline()).refused_only


async def test_a_code_mcp_defines_for_its_own_answers_is_no_wrong_channel() -> None:
    """A tool needing a client capability the client did not declare answers -32021, which MCP defines: legitimate,
    unlike -32600 or -32001 borrowed for a domain refusal."""
    verdict = await _verdict(variants.needs_capability, "error-channels")
    assert verdict == "passed", verdict


async def test_the_http_edge_check_is_not_applicable_in_process_saying_why() -> None:
    verdict = await _verdict(variants.clean, "protected-resource-metadata")
    assert verdict.startswith(
        "not applicable: protected-resource-metadata checks an HTTP edge and this server is "
        "reached in process, where there is none"
    ), verdict
