"""The types are checked: every module of the package is held to mypy's strict flags, behave's steps included.

`make lint` runs mypy as `[tool.mypy]` in pyproject.toml configures it (that the package passes is its
verdict; it is not run again here): `strict = true` for the whole package, behave's step decorators and
`parse.with_pattern` typed by the stubs in typings/. These tests show both are in force, over a copy of the
package, the kit's folder, its pyproject.toml and typings/: an untyped function is refused in the kit, storage
(kit/mcpbdd_kit) and the model
(what a production server imports, and a module that was once checked at the default level only), and a step
function keeps its signature through `@then(...)`: a call with an argument too many is refused, which it
would not be if the decorator were untyped (behave's own, Any, erases the signature). One mypy run over the
copy answers every test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNTYPED = "\n\ndef untyped_helper(value):\n    return value\n"
# A step that mypy can check only through the stub: the decorator must hand back the function's own type.
STEP = '''

@then("the stub keeps this step's signature")
def _typed_step(context: Any) -> None:
    """Then the stub keeps this step's signature"""


_typed_step(None, "an argument too many")
'''

STRICT = ("kit/mcpbdd_kit/clock.py", "kit/mcpbdd_kit/storage/keys.py", "mcpbdd/model/kinds.py")
STEPS = "mcpbdd/steps/logs.py"


def _mypy(project: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """mypy in `project` with the configuration of its pyproject.toml (its own cache: nothing shared)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", *targets],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """mypy over a copy of the package, the kit's own distribution (kit/), its pyproject.toml and typings/, the code
    above added to the modules."""
    project = tmp_path_factory.mktemp("types")
    for folder in ("mcpbdd", "kit"):
        shutil.copytree(ROOT / folder, project / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "typings", project / "typings")
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    for module, added in [*((strict, UNTYPED) for strict in STRICT), (STEPS, STEP)]:
        path = project / module
        path.write_text(path.read_text(encoding="utf-8") + added, encoding="utf-8")
    return _mypy(project, *STRICT, STEPS)


def _said(run: subprocess.CompletedProcess[str], module: str) -> list[str]:
    return [line for line in run.stdout.splitlines() if line.startswith(f"{module}:")]


@pytest.mark.parametrize("module", STRICT)
def test_the_strict_flags_refuse_an_untyped_function_anywhere_in_the_package(
    checked: subprocess.CompletedProcess[str], module: str
) -> None:
    assert checked.returncode == 1, checked.stdout + checked.stderr
    said = _said(checked, module)
    assert any("Function is missing a type annotation  [no-untyped-def]" in line for line in said), checked.stdout


def test_a_step_keeps_its_signature_through_behave_s_decorator(checked: subprocess.CompletedProcess[str]) -> None:
    said = _said(checked, STEPS)
    assert any('Too many arguments for "_typed_step"  [call-arg]' in line for line in said), checked.stdout
    assert not any("untyped-decorator" in line for line in said), checked.stdout


def test_nothing_else_is_refused(checked: subprocess.CompletedProcess[str]) -> None:
    """Only the code added above: the package itself passes (one error in each module changed)."""
    modules = len(STRICT) + 1
    assert f"Found {modules} errors in {modules} files (checked {modules} source files)" in checked.stdout, (
        checked.stdout
    )
