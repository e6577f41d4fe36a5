"""What a project requires of the machine: a missing required capability breaks, an optional one skips, saying why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpbdd.apps.browser import INSTALL_CHROMIUM, INSTALL_PLAYWRIGHT, AppsUnavailable, check_available
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


def test_chromium_without_playwright_breaks_a_project_that_requires_apps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Chromium alone is not apps: with Playwright not importable (a module that fails to import), a project
    requiring apps, or any CI run, is broken naming Playwright's install, not skipped."""
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    monkeypatch.setenv("MCPBDD_CHROMIUM", str(chromium))
    monkeypatch.setitem(sys.modules, "playwright.async_api", None)  # `import` raises ImportError
    with pytest.raises(AppsUnavailable) as missing:
        check_available()
    assert missing.value.capability == "apps" and missing.value.install == INSTALL_PLAYWRIGHT
    with pytest.raises(Broken, match="no Playwright for Python on this machine, and the project requires 'apps'"):
        skip_reason(missing.value, ("apps",), (), environ={})
    with pytest.raises(Broken, match="this is a CI run"):
        skip_reason(missing.value, (), ("official",), environ={"CI": "true"})


@pytest.mark.parametrize("optional", ["app", "apps official", "*", "all"])
def test_a_misspelt_optional_makes_nothing_optional_it_is_refused(optional: str) -> None:
    with pytest.raises(ConfigError, match="unknown capability"):
        load_settings(userdata={"mcpbdd.optional": optional})
