"""A capability the project requires that the machine lacks breaks the run; a skip always says why.

`features/apps.feature` needs Chromium. These runs hide it (a PATH without it) and show the three
answers: this project requires apps (its `[tool.mcpbdd] require`), so the run fails, naming the
install; a project that lets apps be skipped gets a green run whose summary counts the skipped
scenarios under their reason; and a CI run (`CI=true`) fails unless the project lists apps as optional.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from processes import TESTS, mcpbdd_run

from mcpbdd.apps.browser import INSTALL_CHROMIUM, INSTALL_PLAYWRIGHT

pytestmark = pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason=INSTALL_PLAYWRIGHT)

ROOT = TESTS.parent
SKIPPED = f"6 skipped: no Chromium ({INSTALL_CHROMIUM})"


def _without_chromium(tmp_path: Path, *options: str, ci: str = "") -> subprocess.CompletedProcess[str]:
    """`mcpbdd run` of the app features, context harness, on a PATH that holds only this interpreter."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python").symlink_to(sys.executable)
    out = tmp_path / "reports"
    run = ["--harness", "context", "--no-coverage", "--results", str(out / "allure"), "--junit", str(out / "junit")]
    env = {"PATH": str(bin_dir), "CI": ci, "MCPBDD_CHROMIUM": ""}
    return mcpbdd_run(*run, "--timings", str(out / "timings.json"), *options, "features/apps.feature", env=env)


def test_required_apps_without_chromium_fail_the_run_naming_the_install(tmp_path: Path) -> None:
    run = _without_chromium(tmp_path)  # this project's pyproject.toml: require = ["apps"]
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert "0 passed, 0 failed, 6 broken" in output
    assert output.count("no Chromium on this machine, and the project requires 'apps'") == 6
    assert f"install it: {INSTALL_CHROMIUM}" in output
    assert "skipped" not in output.split("mcpbdd: FAILED")[1]


def test_optional_apps_without_chromium_skip_and_the_summary_says_why(tmp_path: Path) -> None:
    run = _without_chromium(tmp_path, "-D", "mcpbdd.require=", "-D", "mcpbdd.optional=apps", ci="true")
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "mcpbdd: passed: 0 passed, 0 failed, 6 skipped" in output
    assert f"mcpbdd:   {SKIPPED}\n" in output


def test_in_ci_a_capability_not_listed_optional_fails_the_run(tmp_path: Path) -> None:
    run = _without_chromium(tmp_path, "-D", "mcpbdd.require=", ci="true")
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert "6 broken" in output
    assert (
        "this is a CI run (CI is set), where a missing capability fails the scenario unless [tool.mcpbdd] "
        "optional lists 'apps'"
    ) in output


def test_require_on_the_command_line_wins_over_optional(tmp_path: Path) -> None:
    run = _without_chromium(tmp_path, "--require", "apps", "-D", "mcpbdd.require=", "-D", "mcpbdd.optional=apps")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "6 broken" in run.stdout


def _chromium_script(tmp_path: Path, *tools: str) -> subprocess.CompletedProcess[str]:
    """`.ci/chromium` on a PATH of a user who is not root (`id -u` says 1000), holding only `tools` (stubs)."""
    bin_dir = tmp_path / "ci-bin"
    bin_dir.mkdir(parents=True)
    for name, body in {"id": "echo 1000", **dict.fromkeys(tools, "exit 0")}.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    env = {**os.environ, "PATH": str(bin_dir), "MCPBDD_CHROMIUM": ""}
    script = ROOT / ".ci" / "chromium"
    return subprocess.run(["/bin/bash", str(script)], env=env, capture_output=True, text=True, timeout=60)


def test_ci_finds_chromium_or_fails_naming_the_install(tmp_path: Path) -> None:
    assert _chromium_script(tmp_path / "with", "chromium").returncode == 0
    missing = _chromium_script(tmp_path / "without")
    assert missing.returncode == 1
    assert "Install it: sudo apt-get install chromium" in missing.stderr
    planned = subprocess.run(["make", "-n", "features"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert ".ci/chromium" in planned.stdout, "make test runs the app features only after finding Chromium"


def _nginx_script(tmp_path: Path, nginx: str, ci: str) -> subprocess.CompletedProcess[str]:
    """`.ci/nginx` run by a user who is not root (`id -u` says 1000), told nginx is at `nginx`."""
    bin_dir = tmp_path / "ci-bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "id").write_text("#!/bin/sh\necho 1000\n")
    (bin_dir / "id").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "MCPBDD_NGINX": nginx, "CI": ci}
    script = ROOT / ".ci" / "nginx"
    return subprocess.run(["/bin/bash", str(script)], env=env, capture_output=True, text=True, timeout=60)


def test_ci_finds_nginx_or_fails_naming_the_install_and_elsewhere_says_the_tests_skip(tmp_path: Path) -> None:
    stub = tmp_path / "nginx"
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    assert _nginx_script(tmp_path / "with", str(stub), ci="true").returncode == 0
    in_ci = _nginx_script(tmp_path / "ci", str(tmp_path / "absent"), ci="true")
    assert in_ci.returncode == 1, in_ci.stdout
    assert "CI=true requires the reverse-proxy deployment tests. Install it: sudo apt-get install nginx" in in_ci.stderr
    outside = _nginx_script(tmp_path / "outside", str(tmp_path / "absent"), ci="")
    assert outside.returncode == 0, outside.stderr
    assert "the reverse-proxy deployment tests will skip. Install it: sudo apt-get install nginx" in outside.stdout
    planned = subprocess.run(["make", "-n", "pytest"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert planned.stdout.index(".ci/chromium") < planned.stdout.index(".ci/nginx"), "one apt-get at a time"


def test_make_test_installs_the_environment_and_the_browser_side_by_side() -> None:
    """On a fresh machine `make test` installs the virtual environment (pip) and Chromium and nginx (apt-get) at once:
    `test` itself needs neither (its sub-make runs three jobs), the tests need all three, and only apt-get's two wait
    for each other (one holder of the package lock at a time)."""
    database = subprocess.run(["make", "-pnq", "test"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    needs: dict[str, set[str]] = {}
    for line in database.splitlines():
        target, colon, prerequisites = line.partition(":")
        if colon and target in {"test", "pytest", "lint", "docs", "chromium", "nginx"} and ":=" not in line:
            needs.setdefault(target, set()).update(prerequisites.split())
    assert needs["test"] == set(), "make test installs the environment before it can start apt-get"
    assert needs["pytest"] == {".venv/.installed", "chromium", "nginx"}
    assert needs["chromium"] == set() and needs["nginx"] == {"chromium"}
    assert needs["lint"] == needs["docs"] == {".venv/.installed"}
