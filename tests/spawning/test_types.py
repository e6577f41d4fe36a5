"""The types are checked: mypy passes on the package, and the kit and storage are held to its strict flags.

`make lint` runs mypy as `[tool.mypy]` in pyproject.toml configures it: every module at mypy's
default level, and the strict flags for `mcpbdd.kit.*` and `mcpbdd.storage.*` (what production
servers import) through a per-module override. These tests show the override is in force (an
untyped function in a copy of a kit or storage module is refused) and that it stays scoped (the
same function elsewhere in the package passes, so strictness has not leaked to every module, as
`strict = true` in an override would make it).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNTYPED = "\n\ndef untyped_helper(value):\n    return value\n"


def _mypy(project: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """mypy in `project` with the configuration of its pyproject.toml (its own cache: nothing shared)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", *targets],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the package and its pyproject.toml, to add an untyped function to."""
    shutil.copytree(ROOT / "mcpbdd", tmp_path / "mcpbdd", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_package_type_checks() -> None:
    run = _mypy(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("Success: no issues found"), run.stdout


@pytest.mark.parametrize("module", ["mcpbdd/kit/clock.py", "mcpbdd/storage/keys.py"])
def test_the_strict_flags_refuse_an_untyped_function_in_the_kit_and_storage(project: Path, module: str) -> None:
    path = project / module
    path.write_text(path.read_text(encoding="utf-8") + UNTYPED, encoding="utf-8")
    run = _mypy(project, module)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"{module}:" in run.stdout, run.stdout
    assert "Function is missing a type annotation  [no-untyped-def]" in run.stdout, run.stdout


def test_the_strict_flags_stay_with_the_kit_and_storage(project: Path) -> None:
    module = "mcpbdd/model/kinds.py"
    path = project / module
    path.write_text(path.read_text(encoding="utf-8") + UNTYPED, encoding="utf-8")
    run = _mypy(project, module)
    assert run.returncode == 0, run.stdout + run.stderr
