"""A Python server that cannot start because its command runs another Python is told to write `{python}`.

A newcomer copied `stdio: python -m mypackage` from the docs: `python` on the PATH was the system Python, without
the package, and every check failed with a bare ModuleNotFoundError. No process is started here: the PATH is a
folder of this test's, holding a `python` that is or is not this interpreter.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mcpbdd.harness.targets import naming_the_target
from mcpbdd.model.errors import ServerCannotStart

FAILED = ServerCannotStart("it ended before its first answer: ModuleNotFoundError: No module named 'mypackage'")


def test_a_bare_python_that_is_another_interpreter_gets_the_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "python"
    other.write_text("#!/bin/sh\nexit 1\n")
    other.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    message = str(naming_the_target(FAILED, "stdio: python -m mypackage"))
    assert "No module named 'mypackage'" in message
    assert f"the command's 'python' is {other}, not the Python mcpbdd runs in, {sys.executable}" in message
    assert "write {python} instead of 'python' to start the server with it, as in \"stdio: {python} -m mypackage\"" in (
        message
    )


def test_this_interpreter_or_the_placeholder_gets_no_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.symlink(sys.executable, tmp_path / "python3")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert "instead of" not in str(naming_the_target(FAILED, "stdio: python3 -m mypackage"))
    assert "instead of" not in str(naming_the_target(FAILED, "stdio: {python} -m mypackage"))
    assert "instead of" not in str(naming_the_target(FAILED, "stdio: node server.js"))


def test_an_http_command_gets_its_own_prefix_in_the_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no python at all on this PATH
    message = str(naming_the_target(FAILED, "http: python -m mypackage --port {port}"))
    assert "the command's 'python' is not on the PATH" in message
    assert '"http: {python} -m mypackage --port {port}"' in message
