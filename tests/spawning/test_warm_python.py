"""The warm parent of the tests' behave and `mcpbdd` commands (`warm_python.py`): a run forked from it sees what a
cold start sees, and it preloads nothing that reads the environment or the working folder at import (a fork would
see the warm parent's instead of its own run's)."""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import warm_python

READ_AT_IMPORT = ("environ", "environb", "getenv", "getcwd", "cwd")
"""What a module must not call or read while it is imported: the environment and the working folder (`os.getcwd`,
`Path.cwd`), which are the warm parent's then, not the fork's."""


def _run_at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a module body that run when it is imported: all but function bodies (a class body runs)."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(statement, ast.ClassDef):
            yield from _run_at_import(statement.body)
            continue
        yield statement


def _reads_environment_at_import(module: str) -> list[str]:
    """Where `module` reads the environment or the working folder while it is imported (`READ_AT_IMPORT`)."""
    source = Path(importlib.import_module(module).__file__ or "").read_text(encoding="utf-8")
    found = []
    for statement in _run_at_import(ast.parse(source).body):
        for node in ast.walk(statement):
            if isinstance(node, ast.Attribute) and node.attr in READ_AT_IMPORT:
                found.append(f"{module}:{statement.lineno}")
                break
    return found


def _preloaded_mcpbdd_modules() -> list[str]:
    """Every mcpbdd module the preload list brings in, imported in a fresh interpreter (as the warm parent does)."""
    code = (
        f"import importlib, json, sys\nfor name in {list(warm_python.PRELOAD)!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(n for n in sys.modules if n == 'mcpbdd' or n.startswith('mcpbdd.'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return list(json.loads(done.stdout))


def test_no_preloaded_mcpbdd_module_reads_the_environment_at_import() -> None:
    preloaded = _preloaded_mcpbdd_modules()
    assert "mcpbdd.scenario.world" in preloaded and len(preloaded) > 20, preloaded
    readers = [line for module in preloaded for line in _reads_environment_at_import(module)]
    assert readers == [], f"preloaded, these read the environment at import: {readers}"


def test_the_check_finds_a_module_that_reads_the_environment_at_import() -> None:
    """It can fail: the progress printer reads `MCPBDD_PROGRESS_DELAY` at import, so it is not preloaded."""
    assert _reads_environment_at_import("mcpbdd.runner.progress") == ["mcpbdd.runner.progress:32"]
    assert "mcpbdd.runner.progress" not in warm_python.PRELOAD


STEPS = """
import json, os, sys
from behave import given

@given("the run says where it is")
def step_impl(context):
    seen = {
        "argv": sys.argv[1:], "orig_argv": sys.orig_argv[1:], "cwd": os.getcwd(),
        "path": [entry.replace(os.getcwd(), "{cwd}") for entry in sys.path],
        "marker": os.environ.get("WARM_TEST_MARKER"), "executable": sys.executable, "ppid": os.getppid(),
        "world_preloaded": "mcpbdd.scenario.world" in sys.modules,
    }
    print("SEEN " + json.dumps(seen))
"""


def _seen(tmp_path: Path, name: str, cold: bool) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    """A one-step behave run in a folder of its own (warm, or cold with `MCPBDD_TESTS_COLD=1`): what it saw."""
    folder = tmp_path / name
    (folder / "features" / "steps").mkdir(parents=True)
    (folder / "features" / "steps" / "steps.py").write_text(STEPS)
    (folder / "features" / "where.feature").write_text(
        "Feature: where\n  Scenario: it\n    Given the run says where it is\n"
    )
    env = {**os.environ, "WARM_TEST_MARKER": name, "MCPBDD_TESTS_COLD": "1" if cold else ""}
    argv = [sys.executable, "-m", "behave", "--no-capture", "-f", "plain", "features/where.feature"]
    done = warm_python.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("SEEN ")]
    return done, json.loads(line.removeprefix("SEEN "))


def test_a_warm_run_is_a_fork_of_the_warm_parent_and_sees_what_a_cold_one_sees(tmp_path: Path) -> None:
    cold_run, cold = _seen(tmp_path, "cold", cold=True)
    warm_run, warm = _seen(tmp_path, "warm", cold=False)
    assert cold_run.returncode == warm_run.returncode == 0, cold_run.stdout + warm_run.stdout + warm_run.stderr
    assert warm.pop("ppid") in warm_python.server_pids(), "the warm run was not forked from the warm parent"
    assert cold.pop("ppid") == os.getpid()
    assert warm.pop("world_preloaded") is True  # the preload took effect
    cold.pop("world_preloaded")
    assert warm["cwd"] == str(tmp_path / "warm") and warm["marker"] == "warm"
    assert {**warm, "cwd": "", "marker": ""} == {**cold, "cwd": "", "marker": ""}
    paths = warm["path"]
    assert isinstance(paths, list) and "{cwd}" in paths  # `-m`: the working folder on sys.path, as a cold start


def test_a_warm_run_keeps_the_exit_code_and_stderr_of_a_failure(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "mcpbdd.cli.main", "run", "--no-such-option"]
    cold = warm_python.run(
        argv, cwd=tmp_path, env={**os.environ, "MCPBDD_TESTS_COLD": "1"}, capture_output=True, text=True
    )
    warm = warm_python.run(argv, cwd=tmp_path, capture_output=True, text=True)
    assert warm_python.argv_for(argv) != argv  # started warm
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert cold.returncode == 2 and "--no-such-option" in cold.stderr


def test_the_check_sees_a_class_body_and_the_working_folder(tmp_path: Path) -> None:
    """A class attribute and `Path.cwd()` run at import too; a function's body does not."""
    (tmp_path / "reads_at_import.py").write_text(
        "import os\nfrom pathlib import Path\n\n"
        "def later():\n    return os.environ['LATER']\n\n"
        "class Settings:\n    home = Path.cwd()\n\n"
        "    def method(self):\n        return os.getenv('LATER')\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        assert _reads_environment_at_import("reads_at_import") == ["reads_at_import:8"]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("reads_at_import", None)
