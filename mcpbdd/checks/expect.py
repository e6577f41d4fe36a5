"""`mcpbdd.expect`: the checks of calls, questions, storage and offers, for pytest as for the steps.

Each check lives in the module of its concern, beside the steps that make it (`mcpbdd/checks/outcomes.py` for
`mcpbdd/steps/outcomes.py`, `rounds`, `server`, `storage`, `upstream`); this module gathers them under the one
name the public front has always offered, so `from mcpbdd import expect; expect.succeeds(outcome)` keeps working.
Define nothing here: a check's failure message has one home, its concern's module.
"""

from __future__ import annotations

from mcpbdd.checks.outcomes import (
    channel_is,
    does_not_mention,
    does_not_succeed,
    fails_with_a_protocol_error,
    fails_with_protocol_error,
    fails_with_tool_error,
    fails_with_tool_error_reason,
    mentions,
    nothing_mentions,
    reason_is,
    retryable,
    same_failure,
    structured_contains,
    structured_matches,
    succeeds,
    suggests,
    value_at,
)
from mcpbdd.checks.rounds import (
    answer_sent_before,
    asks_by,
    asks_for_input,
    asks_nothing,
    input_required,
    question_requires,
    question_says,
    took_rounds,
)
from mcpbdd.checks.server import (
    offers_resource_template,
    offers_tools,
)
from mcpbdd.checks.storage import (
    other_tenants_exist,
    storage_baseline_taken,
    storage_contains,
    storage_empty,
    storage_holds,
    storage_known,
    storage_lacks,
    storage_unchanged,
)
from mcpbdd.checks.upstream import (
    upstream_body_names_something,
    upstream_can_receive,
)
from mcpbdd.model.errors import Broken, VacuousCheck

__all__ = [
    "Broken",
    "VacuousCheck",
    "answer_sent_before",
    "asks_by",
    "asks_for_input",
    "asks_nothing",
    "channel_is",
    "does_not_mention",
    "does_not_succeed",
    "fails_with_a_protocol_error",
    "fails_with_protocol_error",
    "fails_with_tool_error",
    "fails_with_tool_error_reason",
    "input_required",
    "mentions",
    "nothing_mentions",
    "offers_resource_template",
    "offers_tools",
    "other_tenants_exist",
    "question_requires",
    "question_says",
    "reason_is",
    "retryable",
    "same_failure",
    "storage_baseline_taken",
    "storage_contains",
    "storage_empty",
    "storage_holds",
    "storage_known",
    "storage_lacks",
    "storage_unchanged",
    "structured_contains",
    "structured_matches",
    "succeeds",
    "suggests",
    "took_rounds",
    "upstream_body_names_something",
    "upstream_can_receive",
    "value_at",
]
