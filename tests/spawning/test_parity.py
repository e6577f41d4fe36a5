"""`mcpbdd run --harness all`: the parity matrix, JUnit properties and the timing file, from one real run.

tests/parity_cases/features/diverging.feature makes one scenario diverge on purpose (a mid-call
`ctx.elicit()` works only on the 2025-11-25 handshake) with nothing saying why, the same
scenario documented by `@parity.back_channel`, one that behaves the same everywhere and one
pinned to the client harness.

These tests start processes; the in-process tests of this concern are in tests/test_parity.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from processes import matrix_run_options, mcpbdd_run

FEATURE = "tests/parity_cases/features/diverging.feature"


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("parity")
    run = mcpbdd_run(
        *matrix_run_options(out),
        "-f",
        "progress",
        FEATURE,
    )
    return run, out


def _rows(out: Path) -> dict[str, dict[str, Any]]:
    matrix = json.loads((out / "parity.json").read_text())
    return {row["name"]: row for row in matrix["scenarios"]}


def test_the_matrix_has_a_column_per_harness_and_era(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    run, out = matrix_run
    assert run.returncode == 1, run.stdout + run.stderr  # the diverging scenarios fail where they cannot ask
    matrix = json.loads((out / "parity.json").read_text())
    assert [c["name"] for c in matrix["columns"]] == ["context", "client.auto", "client.legacy"]
    assert [c["title"] for c in matrix["columns"]] == ["context", "client 2026-07-28", "client 2025-11-25"]
    assert matrix["summary"] == {"scenarios": 4, "same": 1, "documented": 2, "unexplained": 1}


def test_a_scenario_made_to_diverge_is_flagged_unexplained_with_the_reason(
    matrix_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _run, out = matrix_run
    row = _rows(out)["A mid-call question, nothing saying it needs the old handshake"]
    assert row["verdicts"] == {"context": "failed", "client.auto": "failed", "client.legacy": "passed"}
    assert row["parity"] == "unexplained" and row["differs"] is True
    assert "no back-channel" in row["messages"]["client.auto"]
    markdown = (out / "parity.md").read_text()
    assert "**1 differ unexplained**" in markdown
    unexplained = markdown.split("## Unexplained differences", 1)[1].split("## Every scenario", 1)[0]
    assert "A mid-call question, nothing saying it needs the old handshake" in unexplained
    assert "documented as needing" not in unexplained


def test_a_tag_documents_the_difference(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _run, out = matrix_run
    rows = _rows(out)
    documented = rows["A mid-call question, documented as needing the old handshake"]
    assert documented["parity"] == "documented" and documented["explained_by"] == ["@parity.back_channel"]
    pinned = rows["Pinned to the client harness"]
    assert pinned["verdicts"] == {"context": "not run", "client.auto": "passed", "client.legacy": "passed"}
    assert pinned["parity"] == "documented" and pinned["explained_by"] == ["@harness.client"]
    assert rows["Who the caller is, the same everywhere"]["parity"] == "same"


def test_the_allure_report_carries_the_matrix(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _run, out = matrix_run
    results = [json.loads(p.read_text()) for p in (out / "allure").glob("*-result.json")]
    parity = [r for r in results if r["name"] == "Parity matrix"]
    assert len(parity) == 1 and parity[0]["status"] == "broken"
    attachment = out / "allure" / parity[0]["attachments"][0]["source"]
    assert attachment.read_text() == (out / "parity.md").read_text()


def test_each_junit_test_case_names_harness_era_tools_and_tenants(
    matrix_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """In its system-out, and the pass's harness and era in the suite's properties: junit-10.xsd allows no
    properties in a test case."""
    _run, out = matrix_run
    seen = {}
    for path in (out / "junit").rglob("TESTS-*.xml"):
        suite = ElementTree.parse(path).getroot()
        suite_properties = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
        assert set(suite_properties) == {"harness", "era"}, path
        for case in suite.iter("testcase"):
            assert case.find("properties") is None
            lines = (case.findtext("system-out") or "").splitlines()
            seen[case.get("name")] = dict(line.split(": ", 1) for line in lines[:5])
    legacy = seen["Who the caller is, the same everywhere [client harness, legacy]"]
    assert legacy == {
        "harness": "client, legacy",
        "era": "2025-11-25",
        "tools": "whoami",
        "tenants": "acme",
        "feature_file": f"{FEATURE}:18",
    }
    assert seen["Who the caller is, the same everywhere [context harness]"]["era"] == "2026-07-28"
    assert len(seen) == 11 and all(facts for facts in seen.values())


def test_the_timing_file_has_every_feature_and_pass(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _run, out = matrix_run
    timings = json.loads((out / "timings.json").read_text())
    assert set(timings["features"][FEATURE]) == {"context", "client.auto", "client.legacy"}
    assert all(seconds > 0 for seconds in timings["features"][FEATURE].values())


def test_the_stdio_column_runs_the_server_as_a_process_when_configured(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    run = mcpbdd_run(
        "--harness",
        "all",
        "-D",
        "mcpbdd.server=servers:awkward",
        "-D",
        "mcpbdd.parity_stdio=stdio: {python} tests/servers.py awkward",
        "--results",
        str(tmp_path / "allure"),
        "--junit",
        str(tmp_path / "junit"),
        "--parity",
        str(tmp_path),
        "--timings",
        str(tmp_path / "timings.json"),
        "-f",
        "progress",
        "tests/parity_cases/features/stdio.feature",
        env={"MCPBDD_TEST_PIDFILE": str(pids)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(pids.read_text().split()) == 1  # the stdio column started the server once, as its own process
    matrix = json.loads((tmp_path / "parity.json").read_text())
    assert [c["title"] for c in matrix["columns"]][-1] == "stdio 2026-07-28"
    (row,) = matrix["scenarios"]
    assert row["verdicts"] == {
        "context": "passed",
        "client.auto": "passed",
        "client.legacy": "passed",
        "stdio": "passed",
    }
    assert (tmp_path / "junit" / "stdio").is_dir()
