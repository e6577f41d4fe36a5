"""Writes reference/conformance/<check>.md at build time: a page per check of the conformance pack.

Each page comes from the check's entry in `mcpbdd.conformance.registry` (its rule, the spec section it
cites, how to fix a failure) and from its scenario in the bundled pack, so the page, the pack and the
check cannot tell different stories. mkdocs.yml lists the pages (tests/test_conformance.py keeps
that list whole).
"""

from __future__ import annotations

import mkdocs_gen_files

from mcpbdd.conformance import PACK, all_checks

__all__: list[str] = []


def scenario_text(check_id: str) -> str:
    """The check's scenario as the pack has it (tags to its step), dedented."""
    for path in sorted(PACK.glob("*.feature")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if line.strip().startswith(f"@check.{check_id} "):
                end = next(i for i in range(number, len(lines)) if "Then the server passes" in lines[i])
                block = lines[number : end + 1]
                indent = min(len(x) - len(x.lstrip()) for x in block if x.strip())
                return "\n".join(x[indent:] for x in block)
    raise LookupError(f"no scenario in the pack for {check_id}")


for check in all_checks():
    era = "2026-07-28 only (not applicable on 2025-11-25)" if check.modern_only else "both (2026-07-28 and 2025-11-25)"
    page = [
        f"# {check.id}: {check.title}",
        "",
        f"Spec section: [{check.section}]({check.url}) · eras: {era} · tag `@check.{check.id}`",
        "",
        "## What the spec requires",
        "",
        check.rule,
        "",
        "## What it sends",
        "",
        check.sends,
        "",
        "Every call is made as the run's caller (`--user`, or anonymous; the summary says who). A call that ends "
        "the server or gets no answer within the timeout stops the check, which fails naming it; the next check "
        "meets a fresh server. A check whose calls the server refused as this caller reads *refused the caller*, "
        "never passed.",
        "",
        "## What it cannot see",
        "",
        check.blind,
        "",
        "## How to fix a failure",
        "",
        check.fix,
        "",
        "## The scenario",
        "",
        "```gherkin",
        scenario_text(check.id),
        "```",
        "",
        "Run only this check, or use it from your own feature:",
        "",
        "```sh",
        f"mcpbdd conformance package.module:mcp --only {check.id}",
        "```",
        "",
        "```gherkin",
        f'Then the server passes the conformance check "{check.id}"',
        "```",
        "",
        "Back to [Conformance](../conformance.md).",
        "",
    ]
    with mkdocs_gen_files.open(f"reference/conformance/{check.id}.md", "w") as out:
        out.write("\n".join(page))
