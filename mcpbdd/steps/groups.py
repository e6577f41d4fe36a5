"""The vocabulary's group titles and notes; `mcpbdd.phrases.vocabulary` reads the phrases from behave's registry.

Each step function's docstring opens with a concrete example line; `mcpbdd steps` shows
it, so the listing can never drift from the steps that actually exist.
"""

from __future__ import annotations

GROUPS = {
    "mcpbdd.steps.server": "Server and harness",
    "mcpbdd.steps.callers": "Tenants and callers",
    "mcpbdd.steps.calls": "Calls",
    "mcpbdd.steps.remembering": "Values carried between calls",
    "mcpbdd.steps.outcomes": "Outcomes and error channels",
    "mcpbdd.steps.storage": "Seeded storage and clock",
    "mcpbdd.steps.rounds": "Input-required rounds",
    "mcpbdd.steps.consent": "Consent gates",
    "mcpbdd.steps.upstream": "Upstream services",
    "mcpbdd.steps.contracts": "Contracts",
    "mcpbdd.steps.surface": "Tool surface",
    "mcpbdd.steps.conformance": "Conformance",
    "mcpbdd.steps.progress": "Progress of a long call",
    "mcpbdd.steps.logs": "Log messages",
    "mcpbdd.steps.announcements": "Announcements (listens and list changes)",
    "mcpbdd.steps.cancellation": "Cancellation",
    "mcpbdd.steps.discovery": "Discovery, completions and caching hints",
    "mcpbdd.steps.apps": "Apps (ui:// views)",
    "mcpbdd.steps.load": "Load",
}

NOTES = """
    Tags: @harness.context, @harness.client, @harness.client.auto (2026-07-28, the client's usual mode),
    @harness.client.legacy (2025-11-25) pick the harness of a feature or scenario (default: `harness`
    under [tool.mcpbdd], or -D mcpbdd.harness=...); @era.modern marks a scenario about what only
    2026-07-28 has (a request state to replay): a legacy pass skips it, saying why.
    Arguments: a JSON object doc string, inline JSON, or a table with the columns
    argument | value (a cell that reads as JSON is JSON, anything else is text).
    Carried values: "${name}" in arguments, a URI or a storage key sends what
    `the result's "$.id" is remembered as "name"` kept.
    Error codes: a number (-32602) or a name (InvalidParams, MethodNotFound, InternalError, ...).
    Outcomes: ok, tool-error, protocol-error, input-required, transport-failure.
"""


__all__ = ["GROUPS", "NOTES"]
