"""The "Tool surface" phrases fail when they should, each message naming the tool and what it hides.

tests/behave_cases/features/failing_surface.feature against tests/poisoned_server.py, on the context harness and
the client harness in both eras (the listing a client receives over the wire must give the same verdicts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from behave_passes import PASSES, BehavePass
from expected_failures import FailingRun

FEATURE = "tests/behave_cases/features/failing_surface.feature"

POISONED = [
    'error description-missing: "ping" $.description: the tool has no description',
    'error hidden-instructions: "add" $.description: instructions to the model — <IMPORTANT>Before using this tool',
    'error invisible-characters: "weather" $.description: 18 tag character(s) spelling "read ~/.ssh/id_rsa"; 1 '
    "invisible character(s) (U+200B) — Give the weather forecast for a city<U+200B ZERO WIDTH SPACE> by its name.",
    'error invisible-characters: "colour" $.description: 3 invisible character(s) (U+001B)',
    'error cross-tool-steering: "send_message" $.description: steers the model\'s choice of tools — instead of '
    "`send_email`",
    'error exfiltrating-url: "translate" $.description: the URL has a placeholder',
    'error deceptive-markup: "summarize" $.description: an HTML comment, which renders as nothing',
    "fix: Remove the instructions.",
]
FAILURES: dict[str, list[str]] = {
    "lint rules, but the poisoned tools break them": [
        "The tool surface breaks the lint rules: 9 finding(s):",
        *POISONED,
    ],
    "lint rules, but the flawed tools break them": [
        "The tool surface breaks the lint rules: 11 finding(s):",
        'error name-case-collision: "Note_Stats" $.name: differs only in case from note_stats',
        'error schema-unsatisfiable: "rate_note" $.inputSchema.properties.stars.minimum: minimum 5 is above maximum 1',
        "error duplicate-tool: \"archive_old\" $: the same description and input schema as 'archive'",
        'warning description-short: "stats" $.description: 2 word(s), fewer than 5 — Gets data.',
        'warning parameter-undocumented: "search_notes" $.inputSchema.properties.query',
        'warning parameter-untyped: "tag_note" $.inputSchema.properties.tag',
        'warning name-shadows-common-tool: "read_file" $.name',
        'warning enum-without-meaning: "set_mode" $.inputSchema.properties.mode.enum',
        'warning output-schema-missing: "note_stats" $.outputSchema',
        'warning description-contradicts-schema: "rename_note" $.description: the description names the argument '
        "'new_name', which the schema does not have (its arguments: title)",
    ],
    "a named lint rule, broken": [
        'The tool surface breaks the lint rule "schema-unsatisfiable": 1 finding(s):',
        '"rate_note" $.inputSchema.properties.stars.minimum',
    ],
    "a lint rule that does not exist": [
        f"{FEATURE}:19: no lint rule 'descriptions-missing'; the rules: description-missing, description-short"
    ],
    "hides nothing, but the descriptions hide instructions": [
        "The tool surface hides instructions from its reader: 8 finding(s):",
        *[line for line in POISONED if "description-missing" not in line],
    ],
    "hides nothing, of a server with no tools": ["the server offers no tools: there is no tool surface to judge"],
    "surface budget, exceeded": [
        "The tool surface costs 458 tokens (7 tools), over the budget of 100 by 358. The dearest tools: weather 98, "
        "add 97"
    ],
    "description budget, exceeded": ['The description of "add" costs 44 tokens, over the budget of 10 by 34:'],
    "description budget, of a tool without a description": ['"ping" has no description: there is nothing to measure'],
    "description budget, of a tool the server does not offer": [
        "the server offers no tool 'multiply'; it offers: add, shout"
    ],
    "a budget of no tokens": [f"{FEATURE}:47: a token budget must be at least 1, got 0"],
}


@pytest.mark.parametrize("name", ["context", "client", "client-legacy"])
def test_every_surface_scenario_fails_saying_why(
    failing_runs: Callable[[str, BehavePass, Sequence[str]], FailingRun], name: str
) -> None:
    run = failing_runs(FEATURE, PASSES[name], ())
    assert run.returncode == 1, run.output
    assert sorted(run.messages) == sorted(FAILURES), "every scenario of the feature must fail, and only those"
    for scenario, fragments in FAILURES.items():
        for fragment in fragments:
            assert fragment in run.messages[scenario], f"{scenario!r}: {fragment!r} not in:\n{run.messages[scenario]}"
        assert "\x1b" not in run.messages[scenario] and "\u200b" not in run.messages[scenario]
