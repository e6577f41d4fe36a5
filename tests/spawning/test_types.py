"""The types are checked: the kit and storage are held to mypy's strict flags, and only they are.

`make lint` runs mypy as `[tool.mypy]` in pyproject.toml configures it (that the package passes is its
verdict; it is not run again here): every module at mypy's default level, and the strict flags for
`mcpbdd_kit.*` (the kit and its storage: what production servers import) through a per-module override.
These tests show the override is in force (an untyped function in a copy of a kit or storage module, in the kit's
own distribution kit/mcpbdd_kit, is
refused) and that it stays scoped (the same function elsewhere in the package passes, so strictness has
not leaked to every module, as `strict = true` in an override would make it). One mypy run over a copy
with the function added to the three modules answers all three tests.
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


STRICT = ("kit/mcpbdd_kit/clock.py", "kit/mcpbdd_kit/storage/keys.py")
SCOPED = "mcpbdd/model/kinds.py"


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """mypy over a copy of the package, the kit's and its pyproject.toml, an untyped function added to each module
    below."""
    project = tmp_path_factory.mktemp("types")
    for folder in ("mcpbdd", "kit"):
        shutil.copytree(ROOT / folder, project / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    for module in (*STRICT, SCOPED):
        path = project / module
        path.write_text(path.read_text(encoding="utf-8") + UNTYPED, encoding="utf-8")
    return _mypy(project, *STRICT, SCOPED)


@pytest.mark.parametrize("module", STRICT)
def test_the_strict_flags_refuse_an_untyped_function_in_the_kit_and_storage(
    checked: subprocess.CompletedProcess[str], module: str
) -> None:
    run = checked
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"{module}:" in run.stdout, run.stdout
    said = [line for line in run.stdout.splitlines() if line.startswith(f"{module}:")]
    assert any("Function is missing a type annotation  [no-untyped-def]" in line for line in said), run.stdout


def test_the_strict_flags_stay_with_the_kit_and_storage(checked: subprocess.CompletedProcess[str]) -> None:
    run = checked
    assert f"{SCOPED}:" not in run.stdout, run.stdout
    # checked, and only the strict modules' functions refused (one error each)
    assert f"Found {len(STRICT)} errors in {len(STRICT)} files (checked 3 source files)" in run.stdout, run.stdout
