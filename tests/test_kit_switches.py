"""A test-only switch of the kit is never on in production silently: each one logs a WARNING naming itself.

The switches are environment variables mcpbdd sets for a server process it starts (the doubles file, the
upstream doubles, the fake authorization server) and the test authentication a test configuration mounts.
A production server that inherited one would trust a test file, a loopback double or another issuer; the
log says so at the first use, naming the variable. (The redirected issuer and the test authentication are
in tests/test_protected_edge.py, next to the edge they weaken.)
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mcpbdd.kit.doubles import ENV_DOUBLES, from_environment
from mcpbdd.kit.upstream import ENV_ALL, ENV_OTHER, LoopbackRoutes, env_var, upstream_base
from mcpbdd.storage.doubles_file import DoublesFile


def test_doubles_taken_from_the_environment_are_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "doubles.sqlite"
    DoublesFile.create(path)
    with caplog.at_level(logging.WARNING, logger="mcpbdd.kit.doubles"):
        assert from_environment({}) is None
        assert caplog.text == ""
        assert from_environment({ENV_DOUBLES: str(path)}) is not None
    assert f"the scenario's doubles are in use ({ENV_DOUBLES}={path})" in caplog.text
    assert "unset it in production" in caplog.text


def test_an_upstream_redirected_by_the_environment_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    variable = env_var("https://billing.switch.example")
    with caplog.at_level(logging.WARNING, logger="mcpbdd.kit.upstream"):
        assert upstream_base("https://billing.switch.example", {}) == "https://billing.switch.example"
        assert caplog.text == ""
        redirected = upstream_base("https://billing.switch.example", {variable: "http://127.0.0.1:41999"})
        assert redirected == "http://127.0.0.1:41999"
        other = upstream_base("https://unnamed.switch.example", {ENV_OTHER: "http://127.0.0.1:41998"})
        assert other.startswith("http://127.0.0.1:41998/")
        LoopbackRoutes.from_environment({ENV_ALL: '{"https://docs.switch.example": "http://127.0.0.1:41997"}'})
    for said in (f"{variable}=http://127.0.0.1:41999", f"{ENV_OTHER}=http://127.0.0.1:41998", f"{ENV_ALL}="):
        assert said in caplog.text
    assert caplog.text.count("unset it in production") == 3
