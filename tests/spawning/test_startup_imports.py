"""behave starts light: installing mcpbdd's hooks and steps loads none of what a phrase loads when it runs.

Every behave process (each shard, each `mcpbdd run --jobs` worker, `mcpbdd steps`) imports
`mcpbdd.steps` and `mcpbdd.behave`; the SDK, the World, the reports and every optional capability
load at the first scenario or phrase that needs them (bench/bench_startup.py measures the start-up).
A fresh interpreter is the only clean view of what an import loads, hence a subprocess.

The other side of loading late: a capability missing on the machine must still fail (or skip) at
the phrase's first use with the message that says what to install, never a bare ImportError.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from behave_passes import PASSES
from expected_failures import ROOT

from mcpbdd.apps.browser import INSTALL_PLAYWRIGHT

HEAVY = (
    # the SDK and what it stands on
    "mcp",
    "mcp_types",
    "anyio",
    "httpx",
    "starlette",
    "uvicorn",
    "sse_starlette",
    # what phrases, reports and other commands need
    "allure",
    "allure_commons",
    "hypothesis",
    "hypothesis_jsonschema",
    "jsonschema",
    "yaml",
    "jwt",
    "cryptography",
    "gherkin",
    "cucumber_messages",
    "playwright",
    "sqlite3",
    # mcpbdd's own heavy parts: they import the above
    "mcpbdd.scenario.world",
    "mcpbdd.harness",
    "mcpbdd.apps",
    "mcpbdd.authorization",
    "mcpbdd.conformance",
    "mcpbdd.record",
    "mcpbdd.checks.generated",
    "mcpbdd.reporting.attachments",
    "mcpbdd.storage",
    "mcpbdd_kit.storage",  # the same modules under the kit's own name
    "mcpbdd.upstream",
)
"""Module prefixes that `import mcpbdd.steps, mcpbdd.behave` must not load."""

PROBE = """
import json, sys
{extra}
import mcpbdd.steps, mcpbdd.behave
heavy = json.loads(sys.argv[1])
print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))))
"""


def loaded_heavy(extra: str = "") -> list[str]:
    """The heavy modules a fresh interpreter holds after importing the hooks and steps (and `extra` first)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(extra=extra), json.dumps(HEAVY)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return list(json.loads(done.stdout))


def test_importing_the_hooks_and_steps_loads_nothing_heavy() -> None:
    assert loaded_heavy() == [], "load these where the phrase or hook that needs them runs, not at import"


def test_the_probe_sees_a_heavy_module_loaded_up_front() -> None:
    """The check above can fail: the same probe, with the SDK imported first, names it."""
    found = loaded_heavy("import mcp.types")
    assert "mcp" in found
    assert "mcp_types" in found


def test_without_playwright_an_app_phrase_says_what_to_install(tmp_path: Path) -> None:
    """The app steps load the app host at their first use: with no Playwright, the scenarios say to install it."""
    shadow = tmp_path / "no-playwright" / "playwright"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'playwright\' (hidden by the test)", name="playwright")\n'
    )
    report = tmp_path / "report.json"
    paths = [str(shadow.parent), str(ROOT), str(ROOT / "tests")]
    options = [*PASSES["context"].options, "--no-capture", "-f", "json", "-o", str(report)]
    run = subprocess.run(
        [sys.executable, "-m", "behave", "features/apps.feature", *options],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = run.stdout + run.stderr
    scenarios = [element for feature in json.loads(report.read_text()) for element in feature["elements"]]
    scenarios = [s for s in scenarios if s["type"] == "scenario"]
    assert scenarios, output
    assert "passed" not in {s["status"] for s in scenarios}, "no app scenario passes without Playwright"
    # This project requires apps (`require = ["apps"]`): a missing Playwright breaks the scenario, naming the install.
    messages = "\n".join(
        "\n".join(step["result"].get("error_message") or [])
        if isinstance(step["result"].get("error_message"), list)
        else str(step["result"].get("error_message") or "")
        for s in scenarios
        for step in s.get("steps", [])
        if "result" in step
    )
    assert "no Playwright for Python on this machine, and the project requires 'apps'" in messages, messages[-3000:]
    assert f"install it: {INSTALL_PLAYWRIGHT}" in messages, messages[-3000:]
    assert "Traceback" not in output, output[-3000:]


COMMAND_PROBE = """
import json, sys
from mcpbdd.cli import main
main.build_parser({command!r})
{extra}
heavy = json.loads(sys.argv[1])
print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))))
"""


def command_loads(command: str | None, extra: str = "") -> list[str]:
    """The heavy modules a fresh interpreter holds once `mcpbdd COMMAND`'s parser is built (all of them: None)."""
    probe = COMMAND_PROBE.format(command=command, extra=extra)
    done = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(HEAVY)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_a_command_imports_only_its_own_module() -> None:
    """`mcpbdd run` (its parser and the run's own module: behave's parser for the plan, the report writers) and
    `mcpbdd coverage` load neither the SDK nor the conformance pack that another command (`mcpbdd conformance`)
    imports: every `mcpbdd run` of a CI job, and every one the test suite starts, would pay more than a second."""
    run = {name.split(".")[0] for name in command_loads("run", "import mcpbdd.runner.run")}
    assert run <= {"gherkin", "allure_commons", "cucumber_messages"}, run
    assert command_loads("coverage", "import mcpbdd.cli.coverage") == []


def test_the_command_probe_sees_another_commands_imports() -> None:
    """The check above can fail: the parser of every command (`mcpbdd --help`) loads the SDK and the pack."""
    found = command_loads(None)
    assert "mcp" in found and "mcpbdd.conformance" in found
