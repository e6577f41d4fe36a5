"""The lint report for people and programs: console lines, a Markdown summary, JSON.

Everything a server wrote (tool names, quoted passages) is shown through `visible.reveal`, then escaped
for the format: Markdown through `mcpbdd._text`'s quoting (no tag, link or table column injected), JSON
with every non-ASCII character escaped. No terminal control sequence reaches the console.
"""

from __future__ import annotations

import json
from typing import Any

from mcpbdd._text import markdown_code, markdown_text
from mcpbdd.surface_lint.findings import Finding
from mcpbdd.surface_lint.report import LintReport
from mcpbdd.surface_lint.visible import reveal

__all__ = ["console_lines", "json_report", "markdown_report", "summary_line"]


def _counts(report: LintReport) -> str:
    open_ = report.open
    parts = [f"{sum(f.severity == level for f in open_)} {level}(s)" for level in ("error", "warning", "note")]
    accepted = len(report.findings) - len(open_)
    return ", ".join(parts) + (f", {accepted} accepted by the baseline" if accepted else "")


def summary_line(target: str, report: LintReport) -> str:
    return (
        f"{reveal(target, 200)}: {len(report.tokens)} tool(s), {_counts(report)}; the surface costs "
        f"{report.total_tokens} tokens"
    )


def console_lines(target: str, report: LintReport) -> list[str]:
    """A line per finding (with its fix under it), the baseline's stale entries, the token costs, the summary."""
    lines: list[str] = []
    for found in report.findings:
        mark = " (accepted)" if found.accepted else ""
        lines.append(f"{found}{mark}")
        if not found.accepted:
            lines.append(f"    fix: {found.rule.fix}")
    for entry in report.stale:
        lines.append(f"the baseline accepts {reveal(entry, 200)}, which is found no more: remove it from the file")
    if report.tokens:
        costs = ", ".join(f"{reveal(name, 80)} {cost}" for name, cost in report.tokens.items())
        lines.append(f"tokens per tool: {costs}")
    lines.append(summary_line(target, report))
    return lines


def _cell(found: Finding) -> str:
    quote = f" {markdown_code(found.quoted)}" if found.quoted else ""
    return markdown_text(found.message) + quote


def markdown_report(target: str, report: LintReport) -> str:
    """A Markdown summary (a CI job's `$GITHUB_STEP_SUMMARY`): a table of findings and one of token costs."""
    verdict = "failed" if report.failed else "passed"
    lines = [f"## mcpbdd lint {markdown_code(reveal(target, 200), cell=False)}: {verdict}", ""]
    lines += [markdown_text(summary_line(target, report)), ""]
    if report.findings:
        lines += ["| Severity | Rule | Tool | Where | Finding |", "| --- | --- | --- | --- | --- |"]
        for found in report.findings:
            severity = f"{found.severity} (accepted)" if found.accepted else found.severity
            tool = markdown_code(reveal(found.tool, 120)) if found.tool is not None else "(surface)"
            lines.append(
                f"| {severity} | {markdown_code(found.rule.id)} | {tool} | "
                f"{markdown_code(reveal(found.path, 200))} | {_cell(found)} |"
            )
        lines.append("")
    for entry in report.stale:
        lines.append(f"- the baseline accepts {markdown_code(reveal(entry, 200), cell=False)}, found no more")
    if report.tokens:
        lines += ["", "| Tool | Tokens |", "| --- | ---: |"]
        lines += [f"| {markdown_code(reveal(name, 120))} | {cost} |" for name, cost in report.tokens.items()]
        lines.append(f"| **total** | **{report.total_tokens}** |")
    return "\n".join(lines) + "\n"


def json_report(target: str, report: LintReport) -> str:
    """The report as JSON (ASCII only: every character a server chose arrives escaped)."""
    document: dict[str, Any] = {
        "target": target,
        "failed": report.failed,
        "findings": [
            {
                "rule": f.rule.id,
                "severity": f.severity,
                "tool": None if f.tool is None else reveal(f.tool, 200),
                "path": reveal(f.path, 200),
                "message": f.message,
                "quoted": f.quoted,
                "accepted": f.accepted,
                "fix": f.rule.fix,
            }
            for f in report.findings
        ],
        "stale": list(report.stale),
        "tokens": {"total": report.total_tokens, "tools": dict(report.tokens)},
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"
