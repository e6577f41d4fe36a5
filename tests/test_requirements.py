"""What a project requires of the machine: a missing required capability breaks, an optional one skips, saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbdd.apps.browser import INSTALL_CHROMIUM, AppsUnavailable
from mcpbdd.cli.conformance import with_settings
from mcpbdd.cli.main import build_parser
from mcpbdd.model.config import ConfigError, load_settings
from mcpbdd.model.errors import Broken
from mcpbdd.model.requirements import in_ci, is_required, skip_reason

NO_CHROMIUM = AppsUnavailable("no Chromium", INSTALL_CHROMIUM)


def test_a_capability_nobody_requires_is_skipped_with_its_reason_and_install_line() -> None:
    assert skip_reason(NO_CHROMIUM, (), (), environ={}) == f"no Chromium ({INSTALL_CHROMIUM})"


def test_a_required_capability_breaks_naming_the_install() -> None:
    with pytest.raises(Broken, match=r"no Chromium on this machine, and the project requires 'apps'.*apt-get install"):
        skip_reason(NO_CHROMIUM, ("apps",), (), environ={})


@pytest.mark.parametrize("value", ["true", "TRUE", "1", "yes", "woodpecker"])
def test_in_ci_every_capability_is_required_unless_optional(value: str) -> None:
    environ = {"CI": value}
    assert in_ci(environ)
    assert is_required("apps", (), (), environ)
    assert not is_required("apps", (), ("apps",), environ)
    with pytest.raises(Broken, match="this is a CI run"):
        skip_reason(NO_CHROMIUM, (), ("official",), environ=environ)
    assert skip_reason(NO_CHROMIUM, (), ("apps",), environ=environ).startswith("no Chromium")


@pytest.mark.parametrize("value", ["", "false", "0", "No", " "])
def test_outside_ci_nothing_is_required_by_default(value: str) -> None:
    assert not in_ci({"CI": value})
    assert not is_required("apps", (), (), {"CI": value})


def test_the_settings_refuse_an_unknown_capability_and_one_both_required_and_optional() -> None:
    assert load_settings({"mcpbdd.require": "apps,official"}).require == ("apps", "official")
    with pytest.raises(ConfigError, match="unknown capability 'chrome': use one of apps, official"):
        load_settings({"mcpbdd.require": "chrome"})
    with pytest.raises(ConfigError, match="apps cannot be both required and optional"):
        load_settings({"mcpbdd.require": "apps", "mcpbdd.optional": "apps"})


def test_a_project_that_requires_the_official_suite_gets_it_from_mcpbdd_conformance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "m:mcp"\nrequire = ["official"]\n')
    monkeypatch.chdir(tmp_path)
    chosen, _ = with_settings(build_parser().parse_args(["conformance"]))
    assert chosen.official is True
    chosen, _ = with_settings(build_parser().parse_args(["conformance", "--no-official"]))
    assert chosen.official is False, "the command line still wins"
