"""npm installs from a lockfile with `npm ci`, never running install scripts; a failure says why.

Real npm, no network: the package installed is a local tarball (`npm pack` of a folder made here)
whose postinstall script would write a marker file. `install` must put the package in place from
the lockfile and the script must not have run; a lockfile that changed installs afresh; one that
cannot be installed is an `InstallError` carrying npm's words. The official suite that ends
without writing its checks did not run: `mcpbdd conformance` then exits 2 with the reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcpbdd.reporting.npm import InstallError, install
from mcpbdd.runner.official import _run_scenarios

NPM = shutil.which("npm")
pytestmark = pytest.mark.skipif(NPM is None, reason="needs npm")


def _npm(*args: str, cwd: Path) -> None:
    assert NPM is not None
    subprocess.run([NPM, *args, "--loglevel=error"], cwd=cwd, check=True, capture_output=True, timeout=120)


def _locked(tmp_path: Path, marker: Path, version: str = "1.0.0") -> Path:
    """A lockfile folder pinning a local tarball whose postinstall script writes `marker`."""
    package = tmp_path / f"package-{version}"
    package.mkdir()
    script = f"node -e \"require('fs').writeFileSync({json.dumps(str(marker))}, 'the install script ran')\""
    manifest = {"name": "scripted", "version": version, "main": "index.js", "scripts": {"postinstall": script}}
    (package / "package.json").write_text(json.dumps(manifest))
    (package / "index.js").write_text("module.exports = 42;\n")
    _npm("pack", "--pack-destination", str(tmp_path), cwd=package)
    lock = tmp_path / "locks" / f"lock-{version}"  # as deep as the cache's staging folder: the tarball's
    lock.mkdir(parents=True)  # relative path in the lockfile leads to it from both
    (lock / "package.json").write_text(json.dumps({"name": "mcpbdd-test", "private": True}))
    _npm("install", "--package-lock-only", "--ignore-scripts", str(tmp_path / f"scripted-{version}.tgz"), cwd=lock)
    return lock


def test_the_lockfile_is_installed_and_no_install_script_runs(tmp_path: Path) -> None:
    assert NPM is not None
    marker = tmp_path / "marker"
    lock = _locked(tmp_path, marker)
    home = tmp_path / "cache" / "scripted"
    entry = install(NPM, home, lock, home / "node_modules" / "scripted" / "index.js", quiet=True)
    assert entry.read_text() == "module.exports = 42;\n"
    assert json.loads((home / "node_modules" / "scripted" / "package.json").read_text())["version"] == "1.0.0"
    assert not marker.exists(), "npm ran the package's postinstall script"
    newer = _locked(tmp_path, marker, "1.0.1")
    install(NPM, home, newer, entry, quiet=True)  # the same home, another lockfile: installed afresh
    assert json.loads((home / "node_modules" / "scripted" / "package.json").read_text())["version"] == "1.0.1"
    assert not marker.exists()


def test_a_lockfile_npm_cannot_install_is_an_error_carrying_npm_s_words(tmp_path: Path) -> None:
    assert NPM is not None
    lock = _locked(tmp_path, tmp_path / "marker")
    locked = json.loads((lock / "package-lock.json").read_text())
    locked["packages"]["node_modules/scripted"]["integrity"] = "sha512-" + "A" * 86 + "=="  # not in npm's cache
    (lock / "package-lock.json").write_text(json.dumps(locked))
    (tmp_path / "scripted-1.0.0.tgz").unlink()  # and not where the lockfile says
    home = tmp_path / "cache" / "scripted"
    with pytest.raises(
        InstallError, match=r"npm could not install the packages of .*package-lock.json \(npm ci\):"
    ) as e:
        install(NPM, home, lock, home / "node_modules" / "scripted" / "index.js", quiet=True)
    assert "npm error" in str(e.value), "npm's own words"
    assert not home.exists() and [p.name for p in home.parent.iterdir()] == [], "nothing half-installed"


def test_a_suite_that_ends_without_its_checks_did_not_run() -> None:
    fails = [sys.executable, "-c", "import sys; print('boom: cannot start', file=sys.stderr); sys.exit(3)"]
    result = _run_scenarios(fails, "http://127.0.0.1:9/mcp", ("tools-list", "caching"), 30)
    assert result.skipped == (
        "the suite's scenario tools-list ended with exit code 3 and wrote no checks: boom: cannot start"
    )
    assert result.checks == [] and result.failed == []


def test_an_npm_that_never_finishes_fails_the_install_instead_of_hanging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcpbdd.reporting import npm

    stuck = tmp_path / "npm"
    stuck.write_text("#!/bin/sh\nexec sleep 60\n")  # a registry that stops answering, as npm shows it
    stuck.chmod(0o755)
    monkeypatch.setattr(npm, "INSTALL_TIMEOUT", 1.0)
    home = tmp_path / "cache" / "allure"
    with pytest.raises(InstallError, match="npm ci did not finish within 1 s"):
        install(str(stuck), home, npm.LOCKS / "allure", home / "node_modules" / "allure" / "cli.js", quiet=True)
    assert [p.name for p in home.parent.iterdir()] == [], "nothing half-installed"
