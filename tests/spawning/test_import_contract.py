"""The import contracts: the layers hold, and a production server that imports the kit gets no test framework with it.

`lint-imports` (run by `make lint`: that the contracts hold on the package is its verdict, not run again
here) checks the contracts in pyproject.toml statically; these tests show it fails on a forbidden import
(one: that import-linter refuses each kind of arrow is import-linter's own business), that the layers are
exhaustive, that an indirect import counts and an import for type checking does not, and check at run
time what importing the kit loads.

These tests start processes; the in-process tests of this concern are in tests/test_import_contract.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST_FRAMEWORKS = ("behave", "hypothesis", "hypothesis_jsonschema", "allure", "allure_behave", "allure_commons")


def _lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` in `project`, on the `mcpbdd` and `mcpbdd_kit` packages found there (not the installed ones)."""
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), str(project / "kit")])}
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache", "--no-logo"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the package, the kit's and its pyproject.toml, to break on purpose."""
    for folder in ("mcpbdd", "kit"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_line(module: Path, line: str) -> None:
    text = module.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    assert marker in text
    module.write_text(text.replace(marker, f"{marker}\n{line}\n", 1), encoding="utf-8")


LAYERS = "The layers, from the command line down to the kit and storage"
FRAMEWORKS = "The kit and storage import no test framework"
KIT_ALONE = "The kit's distribution imports nothing of mcpbdd"


def _verdicts(run: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    # lint-imports wraps a long contract name over two lines: read the verdicts from the text unwrapped
    return re.findall(r"([^.\n]*?) (KEPT|BROKEN)\b", " ".join(run.stdout.split()))


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("kit/mcpbdd_kit/clock.py", "import hypothesis", FRAMEWORKS),
        ("kit/mcpbdd_kit/storage/keys.py", "import gherkin", FRAMEWORKS),
        ("kit/mcpbdd_kit/storage/keys.py", "from mcpbdd import _version", KIT_ALONE),
    ],
)
def test_a_forbidden_import_breaks_a_contract(project: Path, module: str, line: str, contract: str) -> None:
    _add_line(project / module, line)
    run = _lint_imports(project)
    assert run.returncode == 1, run.stdout + run.stderr
    verdicts = _verdicts(run)
    assert any(contract in name and verdict == "BROKEN" for name, verdict in verdicts), verdicts


def test_every_module_of_the_package_is_in_a_layer(project: Path) -> None:
    """The layers contract is exhaustive: a new top-level module or package that no layer names breaks it."""
    (project / "mcpbdd" / "newcomer.py").write_text('"""A module no layer names."""\n', encoding="utf-8")
    run = _lint_imports(project)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "mcpbdd.newcomer" in run.stdout
    assert any(LAYERS in name and verdict == "BROKEN" for name, verdict in _verdicts(run))


def test_an_indirect_import_counts(project: Path) -> None:
    """The world reaches hypothesis only through lazy imports of the checks: the contracts still see it."""
    _add_line(project / "kit" / "mcpbdd_kit" / "consent.py", "import mcpbdd.scenario.world")
    run = _lint_imports(project)
    # all three: the example server reaches the world through the kit, a layer below it
    assert "Contracts: 0 kept, 3 broken." in run.stdout
    assert "mcpbdd_kit.consent -> mcpbdd.scenario.world" in run.stdout
    assert "mcpbdd_kit is not allowed to import hypothesis:" in run.stdout
    assert "mcpbdd_kit is not allowed to import mcpbdd:" in run.stdout


def test_an_import_for_type_checking_only_is_allowed(project: Path) -> None:
    """An import of mcpbdd's harness that only type checking sees does not break the kit's contracts."""
    _add_line(
        project / "kit" / "mcpbdd_kit" / "clock.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mcpbdd.harness import Harness",
    )
    run = _lint_imports(project)
    assert run.returncode == 0, run.stdout + run.stderr


def test_importing_the_kit_and_storage_loads_no_test_framework() -> None:
    code = (
        "import sys\n"
        "import mcpbdd.kit.consent, mcpbdd.kit.errors, mcpbdd.kit.auth, mcpbdd.kit.doubles, mcpbdd.kit.clock\n"
        "import mcpbdd.kit.upstream, mcpbdd.storage\n"
        f"frameworks = {TEST_FRAMEWORKS!r}\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in frameworks))\n"
        "print('mcp.server.mcpserver' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded, sdk_loaded = run.stdout.splitlines()
    assert loaded == "[]"
    assert sdk_loaded == "True"  # the kit does use the SDK: the check above looked at a real import
