"""Writes reference/lint/<rule>.md at build time: a page per rule of `mcpbdd lint` and the Tool surface phrases.

Each page comes from the rule's entry in `mcpbdd.surface_lint.rules` (its severity, why it matters, how
to fix it), so the page, the console's `fix:` line and the SARIF rule metadata cannot tell different
stories. mkdocs.yml lists the pages (tests/test_lint_docs.py keeps that list whole).
"""

from __future__ import annotations

import mkdocs_gen_files

from mcpbdd.surface_lint import RULES

__all__: list[str] = []

FAILS = {
    "error": "fails `mcpbdd lint` (exit 1) and the lint phrases",
    "warning": "fails the lint phrases; `mcpbdd lint` reports it and exits 0",
    "note": "reported only",
}
FAMILY = {
    "quality": "quality (what a model needs to choose and call the tool)",
    "poisoning": "poisoning (also checked by `Then no tool description hides instructions`)",
    "budget": "budget (only with `--max-tokens` or `--max-tool-tokens`)",
}

for rule in RULES:
    phrase = (
        "Then the tool surface costs at most 4000 tokens"
        if rule.id == "token-budget"
        else f'Then the tool surface passes the lint rule "{rule.id}"'
    )
    page = [
        f"# {rule.id}: {rule.title}",
        "",
        f"Severity: **{rule.severity}** ({FAILS[rule.severity]}) · family: {FAMILY[rule.family]}",
        "",
        "## Why it matters",
        "",
        rule.why,
        "",
        "## How to fix it",
        "",
        rule.fix,
        "",
        "## Check it",
        "",
        "```gherkin",
        phrase,
        "```",
        "",
        "```sh",
        f"mcpbdd lint package.module:mcp --rules {rule.id}",
        "```",
        "",
        f"Accept it for one tool in the baseline file: `- {rule.id}:TOOL` (or `- {rule.id}` for every tool).",
        "",
        "Back to [Lint rules](../lint.md).",
        "",
    ]
    with mkdocs_gen_files.open(f"reference/lint/{rule.id}.md", "w") as out:
        out.write("\n".join(page))
