"""What a conformance run came to: a verdict per check and era, read from the run's JUnit XML, and its Markdown.

The run is `mcpbdd run`'s (so Allure, JUnit and Messages are the usual ones); this reads back
the JUnit files of its two passes (one per era), applies the expected-failures baseline and
writes the summary a CI job shows (`$GITHUB_STEP_SUMMARY`).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from mcpbdd.conformance.baseline import Baseline
from mcpbdd.conformance.registry import REFUSED_CALLER, WARNING, Check

__all__ = ["ERAS", "EXPECTED_FAILURE_TYPE", "PASSED", "REFUSED", "WARNED", "Summary", "Verdict", "read_verdicts"]

ERAS = {"client.auto": "2026-07-28", "client.legacy": "2025-11-25"}
"""The run's passes (JUnit sub-folders) and the protocol era each speaks."""

PASSED, FAILED, SKIPPED, EXPECTED = "passed", "failed", "not applicable", "expected failure"
REFUSED = REFUSED_CALLER
"""A check that found nothing wrong while the server refused its caller on some calls: never a pass."""
WARNED = WARNING
"""A SHOULD the server does not keep (a failure under --strict): never a pass."""
EXPECTED_FAILURE_TYPE = "expected-failure"
"""The `type` of the `<skipped>` an expected failure becomes once the run is over (`mcpbdd.reporting.expected`):
read back as the failure it is, which the baseline then expects (the files can be read again)."""
_MARK = {
    PASSED: "✅ passed",
    FAILED: "❌ failed",
    SKIPPED: "⚪ not applicable",
    REFUSED: "⛔ refused the caller",
    WARNED: "🟡 warning (SHOULD)",
    EXPECTED: "⚠️ expected failure",
}


@dataclass(frozen=True)
class Verdict:
    check: str
    era: str
    status: str
    message: str = ""


def _check_of(name: str) -> str:
    """The check id a scenario's name starts with (`unknown-tool: ...`)."""
    return name.split(":", 1)[0].strip()


def _skip_status(message: str) -> str:
    if f"not applicable: {REFUSED_CALLER}" in message:
        return REFUSED
    return WARNED if f"not applicable: {WARNING}" in message else SKIPPED


def skipped_in_messages(path: Path, era: str) -> list[Verdict]:
    """The skipped scenarios of one pass's Cucumber Messages, with their reasons (behave writes no JUnit for a
    feature whose every scenario was skipped, so a run whose every check refused the caller is read here)."""
    if not path.is_file():
        return []
    names: dict[str, str] = {}
    cases: dict[str, str] = {}
    started: dict[str, str] = {}
    found: dict[str, Verdict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        envelope = json.loads(line) if line.strip() else {}
        if "pickle" in envelope:
            names[envelope["pickle"]["id"]] = envelope["pickle"]["name"]
        elif "testCase" in envelope:
            cases[envelope["testCase"]["id"]] = envelope["testCase"]["pickleId"]
        elif "testCaseStarted" in envelope:
            started[envelope["testCaseStarted"]["id"]] = envelope["testCaseStarted"]["testCaseId"]
        elif "testStepFinished" in envelope:
            step = envelope["testStepFinished"]
            result = step.get("testStepResult", {})
            name = names.get(cases.get(started.get(step.get("testCaseStartedId", ""), ""), ""), "")
            if name and result.get("status") == "SKIPPED" and result.get("message"):
                message = result["message"].strip()
                found[name] = Verdict(_check_of(name), era, _skip_status(message), message)
    return list(found.values())


def read_verdicts(junit: Path, messages: Path | None = None) -> list[Verdict]:
    """Every scenario of the run's JUnit files (`junit/<pass>/*.xml`) as a verdict per check and era; for a pass
    with no JUnit file, its skipped scenarios from its Cucumber Messages (`messages`, one file per pass)."""
    found: list[Verdict] = []
    empty: list[str] = []
    for folder, era in ERAS.items():
        paths = sorted((junit / folder).glob("*.xml"))
        if not paths and messages is not None:
            found += skipped_in_messages(messages.with_name(f"{messages.stem}.{folder}{messages.suffix}"), era)
            if any(verdict.era == era for verdict in found):
                continue
        if not paths:
            empty.append(era)
        for path in paths:
            for case in ET.parse(path).getroot().iter("testcase"):
                status, message = PASSED, ""
                for tag, meaning in (("failure", FAILED), ("error", FAILED), ("skipped", SKIPPED)):
                    element = case.find(tag)
                    if element is not None:
                        expected = element.get("type") == EXPECTED_FAILURE_TYPE
                        status = FAILED if expected else meaning
                        message = (element.get("message") or element.text or "").strip()
                        if meaning == SKIPPED and not expected:
                            status = _skip_status(message)
                        break
                found.append(Verdict(_check_of(case.get("name", "")), era, status, message))
    # behave writes no JUnit for a feature whose every scenario was skipped: on such an era each check that ran
    # elsewhere was skipped too (a 2026-07-28 rule on 2025-11-25, say); a run that failed to start never gets here.
    ran = list(dict.fromkeys(verdict.check for verdict in found))
    found += [Verdict(check, era, SKIPPED, "skipped on this era") for era in empty for check in ran]
    return found


@dataclass
class Summary:
    """The verdicts with the baseline applied: what fails, what was expected, which entries now pass."""

    verdicts: list[Verdict]
    unexpected: list[Verdict]
    stale: list[str]
    """Baseline entries whose check passed on an era they name: remove them from the file."""

    @classmethod
    def of(cls, verdicts: list[Verdict], baseline: Baseline) -> Summary:
        applied: list[Verdict] = []
        stale: list[str] = []
        for verdict in verdicts:
            entry = baseline.entry(verdict.check, verdict.era)
            if verdict.status == FAILED and entry is not None:
                verdict = Verdict(verdict.check, verdict.era, EXPECTED, verdict.message)
            elif verdict.status == PASSED and entry is not None and entry not in stale:
                stale.append(entry)
            applied.append(verdict)
        return cls(applied, [v for v in applied if v.status == FAILED], stale)

    @property
    def refused_only(self) -> bool:
        """Whether the server refused the caller and no check judged anything (none passed or failed): a run that
        checked nothing, which must not read as green."""
        judged = any(v.status in (PASSED, FAILED, EXPECTED) for v in self.verdicts)
        return not judged and any(v.status == REFUSED for v in self.verdicts)

    def markdown(self, target: str, checks: list[Check], caller: str = "") -> str:
        """The job summary: who the pack called as, a row per check, a column per era, then each failure's message."""
        by_key = {(v.check, v.era): v for v in self.verdicts}
        eras = list(ERAS.values())
        lines = [
            f"## mcpbdd conformance: `{target}`",
            "",
            *([f"Called as {caller}.", ""] if caller else []),
            f"| check | spec | {' | '.join(eras)} |",
            f"|---|---|{'---|' * len(eras)}",
        ]
        for check in checks:
            cells = [_MARK[by_key[(check.id, era)].status] if (check.id, era) in by_key else "" for era in eras]
            if not any(cells):
                continue
            lines.append(f"| {check.id} | [{check.section}]({check.url}) | {' | '.join(cells)} |")
        counts = {status: sum(v.status == status for v in self.verdicts) for status in _MARK}
        lines += ["", ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "no check ran"]
        for verdict in self.verdicts:
            if verdict.status in (FAILED, EXPECTED, REFUSED, WARNED):
                lines += [
                    "",
                    f"### {verdict.check} ({verdict.era}): {verdict.status}",
                    "",
                    "```",
                    verdict.message,
                    "```",
                ]
        if self.stale:
            lines += ["", "### Expected failures that now pass (remove them from the file)", ""]
            lines += [f"- `{entry}`" for entry in self.stale]
        return "\n".join(lines) + "\n"
