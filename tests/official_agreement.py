"""Where the pack and the official suite check one rule, their verdicts in one `mcpbdd conformance --official` run
agree: the assertions of that agreement, for every run that reads it.

Written once for its two readers: tests/spawning/test_conformance_reference.py (each reference server over stdio,
server-everything at its URL) and tests/spawning/test_conformance_official.py (the example server at its URL,
read from that module's one run there, which its other tests read too, so the example is not run twice).
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import yaml

from mcpbdd.conformance.agreement import disagreements, pack_verdicts
from mcpbdd.conformance.baseline import OFFICIAL, load_baseline
from mcpbdd.conformance.eras import NOT_THIS_ERA
from mcpbdd.conformance.summary import Summary, read_verdicts

__all__ = ["BASELINES", "Run", "assert_agreement", "baseline_options", "expected_entries"]

BASELINES = Path(__file__).resolve().parent / "reference" / "expected-failures"


@dataclass(frozen=True)
class Run:
    """One `mcpbdd conformance` run: the folder it ran in (its reports), what it said, and when it started (local
    time, as the JUnit files' timestamps)."""

    folder: Path
    done: subprocess.CompletedProcess[str]
    started: datetime


def expected_entries(name: str) -> list[str]:
    """The pack's entries of the server's baseline (its `official:` ones are the suite's, run only with --official)."""
    path = BASELINES / f"{name}.yaml"
    entries = list(yaml.safe_load(path.read_text(encoding="utf-8"))["server"]) if path.is_file() else []
    return [entry for entry in entries if not entry.startswith(OFFICIAL)]


def baseline_options(name: str) -> list[str]:
    """`--expected-failures` with the server's baseline, when it has one."""
    baseline = BASELINES / f"{name}.yaml"
    return ["--expected-failures", str(baseline)] if baseline.is_file() else []


def _official(junit: Path) -> list[dict[str, object]]:
    """The suite's checks as `mcpbdd conformance --official` wrote them (JUnit), with the suite's statuses."""
    found: list[dict[str, object]] = []
    for case in ET.parse(junit / "official" / "TESTS-official.xml").getroot().iter("testcase"):
        status, reason = "SUCCESS", ""
        skipped = case.find("skipped")
        if case.find("failure") is not None:
            status = "FAILURE"
        elif skipped is not None:
            status, reason = "SKIPPED", str(skipped.get("message"))
        elif any(line.startswith("warning:") for line in (case.findtext("system-out") or "").splitlines()):
            # the writer puts the check's spec references first, then the suite's warning
            status = "WARNING"
        scenario = (case.get("classname") or "").removeprefix("official.")
        found.append({"scenario": scenario, "id": case.get("name"), "status": status, "reason": reason})
    return found


def assert_agreement(case: str, run: Run) -> None:
    """The pack's verdicts and the suite's agree in `run` (of the case: a server's name, "NAME at its URL" when the
    run reached it at a URL), and each says what the server's era makes it say."""
    done, folder = run.done, run.folder
    name = case.split(" at ")[0]
    baseline = BASELINES / f"{name}.yaml"
    npm = name.startswith("server-")  # 2025-11-25 servers: the suite's 2026-07-28 scenarios do not apply to them
    # At its URL server-everything answers a foreign Host with 200: dns-rebinding-protection, a 2025-11-25 rule too
    # ("Servers MUST validate the Origin header"), is a genuine failure of the server's, which its baseline lists
    # (official:localhost-host-rebinding-rejected): reported as an expected failure, not failing the run.
    rebinding = case == "server-everything at its URL"
    assert done.returncode == 0, done.stdout + done.stderr
    baseline_read = load_baseline(baseline if baseline.is_file() else None)
    summary = Summary.of(read_verdicts(folder / "reports" / "junit"), baseline_read)
    assert not summary.unexpected, summary.unexpected
    pack = pack_verdicts(summary.verdicts)
    official = _official(folder / "reports" / "junit")
    assert disagreements(pack, official) == []
    assert "disagree" not in done.stdout
    statuses = {(check["scenario"], check["id"]): check["status"] for check in official}
    reasons = {(check["scenario"], check["id"]): check["reason"] for check in official}
    assert statuses[("tools-list", "tools-name-format")] == "SUCCESS" and set(pack["tool-names"]) == {"passed"}
    data_uri = ("sep-2164-resource-not-found", "sep-2164-data-uri")
    caching = ("caching", "sep-2549-tools-list-caching-hints")
    era_bound = [(check["scenario"], check["id"]) for check in official if check["reason"] == NOT_THIS_ERA]
    if npm:
        # a 2025-11-25 server: the suite's 2026-07-28-only scenarios (its own list says which) are not applicable,
        # saying why, where they failed it (no caching hints; at its URL -32000 "Server not initialized") or warned
        assert statuses[caching] == "SKIPPED" and reasons[caching] == NOT_THIS_ERA
        assert set(pack["caching-hints"]) == {"not applicable"}
        assert statuses[data_uri] == "SKIPPED" and reasons[data_uri] == NOT_THIS_ERA
        assert set(pack["unknown-resource"]) == {"expected failure"}  # the pack's rule applies on both eras
        scenarios = {scenario for scenario, _ in era_bound}
        assert {"caching", "sep-2164-resource-not-found", "server-stateless"} <= scenarios
        assert ("http-header-validation" in scenarios) == (" at " in case)  # over stdio: the bridge's, said first
        failed = [key for key, status in statuses.items() if status == "FAILURE"]
        expected = [(check["scenario"], check["id"]) for check in official if "expected: the" in str(check["reason"])]
        assert failed == [] and expected == (
            [("dns-rebinding-protection", "localhost-host-rebinding-rejected")] if rebinding else []
        )
        assert ("1 official check(s) failed as the expected-failures file says" in done.stdout) == rebinding
        assert f"{len(era_bound)} official check(s) not applicable, not passed: the server speaks only 2025-11-25" in (
            done.stdout
        )
        markdown = (folder / "reports" / "conformance.md").read_text(encoding="utf-8")
        assert f"| caching | sep-2549-tools-list-caching-hints | SKIPPED ({NOT_THIS_ERA}) (the suite said FAILURE)" in (
            markdown
        )
    else:
        # a 2026-07-28 server keeps every verdict the suite gave
        assert era_bound == [] and "2025-11-25; this scenario" not in done.stdout
        assert statuses[data_uri] == "SUCCESS" and set(pack["unknown-resource"]) == {"passed"}
        assert statuses[caching] == "SUCCESS" and pack["caching-hints"] == ["passed", "not applicable"]
