"""The one table of the formatters `mcpbdd run` passes to behave: every entry loads, and the run's argv reads it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from behave.formatter.base import Formatter

from mcpbdd.runner.behave_argv import ReportFiles, behave_args
from mcpbdd.runner.formatters import FORMATTERS, MESSAGES, VERDICTS, formatter_module
from mcpbdd.runner.workers import PREIMPORT


def _load(path: str) -> type:
    module, _, name = path.partition(":")
    loaded = getattr(importlib.import_module(module), name)
    assert isinstance(loaded, type) and issubclass(loaded, Formatter), f"{path} is not a behave formatter"
    return loaded


@pytest.mark.parametrize("name", sorted(FORMATTERS))
def test_every_entry_names_a_behave_formatter(name: str) -> None:
    _load(FORMATTERS[name])


def test_a_wrong_entry_is_caught() -> None:
    with pytest.raises(AttributeError):
        _load("mcpbdd.reporting.verdicts:NoSuchFormatter")
    with pytest.raises(AssertionError, match="not a behave formatter"):
        _load("mcpbdd.reporting.verdicts:Verdict")


def test_the_argv_and_the_preimports_read_the_table() -> None:
    args = behave_args(
        ReportFiles(Path("r"), formats=[(VERDICTS, Path("v")), (MESSAGES, Path("m"))]), None, ["features"]
    )
    formats = [args[i + 1] for i, arg in enumerate(args) if arg == "--format"]
    assert formats == [FORMATTERS[n] for n in ("allure", VERDICTS, MESSAGES, "summary")]
    assert {formatter_module(n) for n in ("allure", "progress", "summary")} <= set(PREIMPORT)
