"""A secret the run mints (a token of the fake authorization server) is masked by every Redactor, in every encoding,
from the moment it is registered; the processes of `mcpbdd run` share what they minted through one private file."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest

from mcpbdd.authorization.keys import run_key
from mcpbdd.authorization.tokens import TokenSpec, mint
from mcpbdd.model import minted
from mcpbdd.model.redaction import MASK, Redactor, redactor_for

TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZS1ydW4ta2V5"


def test_a_redactor_made_before_the_token_was_minted_masks_it_in_every_encoding() -> None:
    redactor, configured = Redactor(), redactor_for(["hunter2"])
    assert not redactor, "nothing to mask yet: a run without secrets costs nothing"
    minted.register(TOKEN)
    assert redactor, "now there is"
    encoded = base64.b64encode(f"Authorization: Bearer {TOKEN}".encode()).decode()
    document = json.dumps({"result": f"you sent Bearer {TOKEN}", "body": encoded, "key": "hunter2"})
    for each in (redactor, configured):
        redacted = json.loads(each.redact_json(document))
        assert TOKEN not in redacted["result"] and redacted["result"] == f"you sent Bearer {MASK}"
        assert encoded not in redacted["body"] and MASK in redacted["body"], "inside the base64 too"
    assert "hunter2" not in configured.redact(document) and "hunter2" in redactor.redact(document)


def test_every_token_minted_is_registered_as_it_is_issued() -> None:
    spec = TokenSpec("alice", "acme", ("notes:write",), "client", 0.0, 3600.0)
    tokens = {
        mint(spec.spoilt(flaw, signing=signing), resource="http://127.0.0.1:1/mcp", issuer="http://i")
        for flaw, signing in (("", "run"), ("unsigned", "none"), ("hmac", "hmac-public-key"))
    }
    assert set(minted.minted()) == tokens
    assert Redactor().redact(run_key().kid) == run_key().kid, "the key id is public: left alone"


def test_a_run_learns_what_its_processes_minted_from_their_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "minted-secrets"
    monkeypatch.setenv(minted.MINTED_ENV, str(shared))
    minted.register(TOKEN)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o600, "tokens are written for the run only"
    monkeypatch.setattr(minted, "_values", [])  # the run's own process, which minted nothing itself
    monkeypatch.setattr(minted, "_known", set())
    with shared.open("a") as stream:
        stream.write("a-second-token-being-writ")  # a line not yet finished is read next time
    minted.refresh(shared)
    assert minted.minted() == (TOKEN,)
    with shared.open("a") as stream:
        stream.write("ten\n")
    minted.refresh(shared)
    minted.refresh(tmp_path / "absent")
    assert minted.minted() == (TOKEN, "a-second-token-being-written")
    assert Redactor().redact(f"{TOKEN} a-second-token-being-written") == f"{MASK} {MASK}"
