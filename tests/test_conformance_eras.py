"""The official suite beside the pack on a server of either era: which of its scenarios need 2026-07-28, how the
pack's verdicts say the server speaks only 2025-11-25, and what the summary and console show (not applicable,
never passed; a disagreement named). The runs against the reference servers are in
tests/spawning/test_conformance_reference.py; here the classification and the reporting, in process.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from mcpbdd.conformance import all_checks
from mcpbdd.conformance.agreement import disagreements, pack_verdicts
from mcpbdd.conformance.eras import (
    LEGACY_SESSION,
    NOT_THIS_ERA,
    modern_only_scenarios,
    not_applicable_on_legacy,
    scenario_eras,
    speaks_only_legacy,
)
from mcpbdd.conformance.summary import EXPECTED, FAILED, PASSED, SKIPPED, Verdict
from mcpbdd.runner.official import OfficialRun, _write_junit

LISTING = """Server scenarios (test against a server):
  - server-initialize [2025-06-18,2025-11-25]
  - server-stateless [2026-07-28]
  - tools-list [2025-06-18,2025-11-25,2026-07-28]
  - sep-2164-resource-not-found [2026-07-28]
  - sep-2640-skills-directory [extension]
  - dns-rebinding-protection [2025-11-25,2026-07-28]
  - caching [2026-07-28]
  - http-header-validation [2026-07-28]
  - tasks-lifecycle [extension]
"""
"""Lines of `conformance list --server` from @modelcontextprotocol/conformance 0.2.0-alpha.12, as it prints them."""

MODERN_ONLY = [check.id for check in all_checks() if check.modern_only]


def test_the_suites_own_list_says_which_scenarios_check_only_2026_07_28() -> None:
    eras = scenario_eras(LISTING)
    assert eras["tools-list"] == {"2025-06-18", "2025-11-25", "2026-07-28"}
    assert modern_only_scenarios(eras) == {
        "server-stateless",
        "sep-2164-resource-not-found",
        "caching",
        "http-header-validation",
    }  # an extension is no revision; a scenario of both eras applies to both
    assert scenario_eras("") == {} and modern_only_scenarios({}) == set()


def _legacy(check: str) -> Verdict:
    return Verdict(check, "2026-07-28", SKIPPED, f"not applicable: {check} is a 2026-07-28 rule and {LEGACY_SESSION}")


def test_the_packs_2026_07_28_pass_says_whether_the_server_speaks_only_2025_11_25() -> None:
    assert "caching-hints" in MODERN_ONLY
    tools = Verdict("tool-names", "2026-07-28", PASSED)
    assert speaks_only_legacy([tools, _legacy("caching-hints"), _legacy("result-type")], MODERN_ONLY) is True
    # a 2026-07-28 session: the check ran, whatever its verdict (or did not apply for a reason of its own)
    assert speaks_only_legacy([tools, Verdict("caching-hints", "2026-07-28", FAILED, "no ttlMs")], MODERN_ONLY) is False
    assert speaks_only_legacy([Verdict("caching-hints", "2026-07-28", EXPECTED)], MODERN_ONLY) is False
    no_input = Verdict("tampered-request-state", "2026-07-28", SKIPPED, "not applicable: no tool asks for input")
    assert speaks_only_legacy([no_input], MODERN_ONLY) is False
    # the 2025-11-25 pass says nothing of the server's era; with no 2026-07-28-only check run, it is unknown
    assert (
        speaks_only_legacy([tools, Verdict("caching-hints", "2025-11-25", SKIPPED, LEGACY_SESSION)], MODERN_ONLY)
        is None
    )


CHECKS: list[dict[str, object]] = [
    {"scenario": "tools-list", "id": "tools-name-format", "status": "SUCCESS"},
    {"scenario": "caching", "id": "sep-2549-tools-list-caching-hints", "status": "FAILURE", "errorMessage": "no ttlMs"},
    {"scenario": "sep-2164-resource-not-found", "id": "sep-2164-error-code", "status": "SUCCESS"},
    {"scenario": "http-header-validation", "id": "http-header-validation", "status": "SKIPPED", "reason": "not "
     "applicable over stdio: the bridge's"},
]  # fmt: skip


def test_on_a_2025_11_25_server_the_2026_07_28_scenarios_are_not_applicable_saying_why(tmp_path: Path) -> None:
    """Failed or passed, a check of a 2026-07-28-only scenario is not applicable there: never failed, never passed."""
    scenarios = modern_only_scenarios(scenario_eras(LISTING))
    run = OfficialRun(checks=not_applicable_on_legacy(CHECKS, scenarios))
    by_id = {check["id"]: check for check in run.checks}
    assert by_id["tools-name-format"] == CHECKS[0]  # a scenario of both eras keeps its verdict
    assert by_id["sep-2549-tools-list-caching-hints"]["status"] == "SKIPPED"
    assert by_id["sep-2549-tools-list-caching-hints"]["reason"] == NOT_THIS_ERA
    assert by_id["sep-2164-error-code"]["status"] == "SKIPPED"  # a pass is not applicable either, not passed
    assert by_id["http-header-validation"]["reason"] == CHECKS[3]["reason"]  # the first reason stays
    assert run.failed == []
    assert NOT_THIS_ERA == (
        "not applicable: the server speaks only 2025-11-25; this scenario checks the 2026-07-28 protocol"
    )
    markdown = run.markdown()
    assert f"| caching | sep-2549-tools-list-caching-hints | SKIPPED ({NOT_THIS_ERA}) (the suite said FAILURE) |" in (
        markdown
    )
    assert "1 SUCCESS, 3 not applicable" in markdown
    assert (
        "2 official check(s) not applicable, not passed: the server speaks only 2025-11-25 and these scenarios "
        "check the 2026-07-28 protocol (caching, sep-2164-resource-not-found)"
    ) in run.console()
    _write_junit(run, tmp_path)
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "TESTS-official.xml").getroot().iter("testcase")}
    skipped = cases["sep-2549-tools-list-caching-hints"].find("skipped")
    assert skipped is not None and skipped.get("message") == NOT_THIS_ERA
    assert cases["sep-2549-tools-list-caching-hints"].find("failure") is None


def test_on_a_2026_07_28_server_a_genuine_failure_still_fails() -> None:
    """Without the pack's finding of a 2025-11-25 server nothing is reclassified: the suite's failure fails the run."""
    run = OfficialRun(checks=[dict(check) for check in CHECKS])
    assert [check["id"] for check in run.failed] == ["sep-2549-tools-list-caching-hints"]
    assert "the official check sep-2549-tools-list-caching-hints failed: no ttlMs" in run.console()
    assert not any("2025-11-25" in line for line in run.console())


def test_where_the_pack_and_the_suite_disagree_the_summary_and_the_console_say_so() -> None:
    """A stub verdict set: the pack passed tool-names on both eras, the suite failed its tools-name-format."""
    pack = pack_verdicts([Verdict("tool-names", "2026-07-28", PASSED), Verdict("tool-names", "2025-11-25", PASSED)])
    assert pack == {"tool-names": [PASSED, PASSED]}
    checks: list[dict[str, object]] = [{"scenario": "tools-list", "id": "tools-name-format", "status": "FAILURE"}]
    run = OfficialRun(checks=checks, disagreements=disagreements(pack, checks))
    said = "tool-names passed in the pack, the suite said: tools-name-format FAILURE"
    assert run.disagreements == [said]
    assert f"### Where the pack and the official suite disagree\n\n- {said}" in run.markdown()
    assert f"the pack and the official suite disagree: {said}" in run.console()
    agreeing = OfficialRun(checks=[{**checks[0], "status": "SUCCESS"}])
    assert "disagree" not in agreeing.markdown() and not agreeing.console()
