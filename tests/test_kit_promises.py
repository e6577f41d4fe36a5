"""What the kit's error contracts, clock and principals promise a production server, one test per promise.

docs/reference/kit-security.md names each of these next to the promise it proves (the protected edge, the
JWKS verifier, the consent gate and the doubles have their own test files, named there too).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent

from mcpbdd.kit.clock import FrozenClock, SystemClock
from mcpbdd.kit.errors import CONTRACTS, ErrorContract, Failure
from mcpbdd.kit.principals import Principal, acting_as

GONE = Failure("note_gone", "The note is gone.", hint="List the notes.")
BUSY = Failure("busy", "Busy.", channel="protocol", code=-32000, retryable=True, hint="Retry in a minute.")


@pytest.fixture
def contract() -> Iterator[ErrorContract]:
    made = ErrorContract("kit_promise_tool", GONE, BUSY)
    yield made
    CONTRACTS.pop("kit_promise_tool", None)


def test_an_undeclared_reason_is_an_internal_error_naming_the_declared_ones(contract: ErrorContract) -> None:
    with pytest.raises(MCPError) as raised:
        contract.fail("made_up")
    assert raised.value.error.code == -32603
    assert raised.value.error.message == (
        "kit_promise_tool reported the undeclared failure 'made_up' (declared: busy, note_gone)"
    )


def test_the_declared_fields_win_over_what_the_caller_passes(contract: ErrorContract) -> None:
    with pytest.raises(MCPError) as raised:
        contract.fail("busy", data={"reason": "forged", "retryable": False, "extra": 1})
    data = raised.value.error.data
    assert data["reason"] == "busy" and data["retryable"] is True and data["extra"] == 1
    assert data["recovery"] == {"hint": "Retry in a minute."}


def test_a_reason_declared_twice_or_not_a_token_is_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        ErrorContract("kit_promise_twice", GONE, GONE)
    with pytest.raises(ValueError, match="snake_case token"):
        Failure("Note Gone<script>", "x")


def test_a_tool_failure_leads_with_the_sentence_then_the_recovery(contract: ErrorContract) -> None:
    result = contract.fail("note_gone")
    assert result.is_error and isinstance(result.content[0], TextContent)
    assert result.content[0].text == "The note is gone.\nRecovery: List the notes."
    assert result.structured_content == {
        "error": {
            "reason": "note_gone",
            "message": "The note is gone.",
            "retryable": False,
            "recovery": {"hint": "List the notes."},
        }
    }


def test_the_clock_refuses_naive_instants_and_moves_only_when_told() -> None:
    with pytest.raises(ValueError, match="has no timezone"):
        FrozenClock(datetime(2026, 1, 1))
    clock = FrozenClock()
    before = clock.now()
    assert clock.now() == before
    with pytest.raises(ValueError, match="moves forward only"):
        clock.advance(timedelta(seconds=-1))
    assert SystemClock().now().tzinfo is not None


def test_a_principal_is_installed_for_the_enclosed_code_only() -> None:
    alice = Principal("alice", "acme", ("notes:write",))
    assert get_access_token() is None
    with acting_as(alice):
        token = get_access_token()
        assert token is not None and token.subject == "alice" and token.claims == {"tenant": "acme"}
    assert get_access_token() is None


ROOT = Path(__file__).resolve().parent.parent
NAMED = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def _named_tests(text: str) -> list[tuple[str, str]]:
    return NAMED.findall(text)


def _missing(named: list[tuple[str, str]]) -> list[str]:
    missing = []
    for file, test in named:
        source = ROOT / file
        defined = source.is_file() and re.search(rf"^(async )?def {test}\(", source.read_text(), re.MULTILINE)
        if not defined:
            missing.append(f"{file}::{test}")
    return missing


def test_every_test_the_threat_model_names_exists() -> None:
    named = _named_tests((ROOT / "docs" / "reference" / "kit-security.md").read_text(encoding="utf-8"))
    assert len(named) > 40, "the threat model names a test for each promise"
    assert _missing(named) == []
    assert _missing([("tests/test_kit_promises.py", "test_a_promise_nobody_tests")]) == [
        "tests/test_kit_promises.py::test_a_promise_nobody_tests"
    ]
