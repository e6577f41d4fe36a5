"""Allure attachments: each MCP exchange on the step that made it, the whole trace on a failure.

`allure.attach` is a no-op unless an Allure listener is running (the allure-behave
formatter), so the hooks call these unconditionally and a plain `behave` run pays
almost nothing.
"""

from __future__ import annotations

import json

import allure

from mcpbdd.trace import Exchange, Trace


def attach_exchange(exchange: Exchange) -> None:
    """One request and its answer (pretty JSON, with duration), attached to the running step."""
    outcome = exchange.outcome
    name = f"{outcome.method} {outcome.target} -> {outcome.channel.value}"
    allure.attach(
        json.dumps(exchange.to_json(), indent=2, ensure_ascii=False, default=str),
        name=name,
        attachment_type=allure.attachment_type.JSON,
    )


def attach_trace(trace: Trace) -> None:
    """Every exchange of a failed scenario, in order, attached to the scenario."""
    allure.attach(trace.render(), name="MCP trace (all exchanges)", attachment_type=allure.attachment_type.JSON)
