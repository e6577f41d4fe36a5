"""The npm packages mcpbdd installs are pinned by lockfiles kept in the package, and none needs an install script.

`mcpbdd.reporting.npm` installs each set with `npm ci --ignore-scripts` from `npm_locks/<name>/`. These
checks keep the lockfiles honest: each pins exactly the versions the code names, every package in it
has an integrity hash, and none declares an install script (one that did would be installed broken
without it: decide then, and say so here).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpbdd.reporting.cucumber_html import HTML_FORMATTER_VERSION, MESSAGES_VERSION
from mcpbdd.reporting.html import ALLURE_VERSION
from mcpbdd.reporting.npm import LOCKS
from mcpbdd.runner.official import NODE, SUITE


def _pinned(*specs: str) -> dict[str, str]:
    return dict(spec.rsplit("@", 1) for spec in specs)


PINNED = {
    "allure": _pinned(f"allure@{ALLURE_VERSION}"),
    "cucumber-html": _pinned(
        f"@cucumber/html-formatter@{HTML_FORMATTER_VERSION}", f"@cucumber/messages@{MESSAGES_VERSION}"
    ),
    "conformance": _pinned(SUITE),
    "conformance-with-node": _pinned(SUITE, NODE),
}
"""Each lockfile folder and the packages (name -> exact version) the code that installs it names."""


def _read(name: str, file: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((LOCKS / name / file).read_text(encoding="utf-8"))
    return document


def test_every_lockfile_folder_is_one_the_code_installs() -> None:
    assert sorted(p.name for p in LOCKS.iterdir() if p.is_dir()) == sorted(PINNED)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_each_lockfile_pins_exactly_what_the_code_names(name: str) -> None:
    manifest, lock = _read(name, "package.json"), _read(name, "package-lock.json")
    assert manifest["dependencies"] == PINNED[name], "package.json: the exact versions the code names"
    assert lock["packages"][""]["dependencies"] == PINNED[name], "the lock was made from this package.json"
    for package, version in PINNED[name].items():
        assert lock["packages"][f"node_modules/{package}"]["version"] == version


@pytest.mark.parametrize("name", sorted(PINNED))
def test_every_package_is_hashed_and_none_has_an_install_script(name: str) -> None:
    packages = {path: entry for path, entry in _read(name, "package-lock.json")["packages"].items() if path}
    assert packages
    assert [path for path, entry in packages.items() if not entry.get("integrity")] == []
    assert [path for path, entry in packages.items() if entry.get("hasInstallScript")] == [], (
        "installed with --ignore-scripts: a package that needs its script must be decided on"
    )
