"""The `mcpbdd` command end to end, each in a subprocess: exit codes, progress, steps, init, report.

These tests start processes; the in-process tests of this concern are in tests/test_cli.py.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import warm_python

from mcpbdd.runner.plan import plan_run
from mcpbdd.runner.timings import DEFAULT_PASS

ROOT = Path(__file__).resolve().parents[2]
FAILING = "tests/behave_cases/features/failing_assertions.feature"


def mcpbdd(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return warm_python.run(
        [sys.executable, "-m", "mcpbdd.cli.main", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


# exit codes ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def passing_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One serial run of features/notes.feature, its output piped (as CI's is), with every output file it can write;
    its process and its folder. The tests of its exit status and of what a pipe gets read it (one run, not two)."""
    folder = tmp_path_factory.mktemp("passing")
    outputs = ("--results", str(folder / "r"), "--junit", str(folder / "j"), "--timings", str(folder / "t.json"))
    env = {"MCPBDD_PROGRESS_DELAY": "0", "CI": ""}
    return mcpbdd("run", *outputs, "-f", "progress", "features/notes.feature", env=env), folder


def test_a_passing_run_exits_0(passing_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    run, folder = passing_run
    assert run.returncode == 0, run.stdout + run.stderr
    scenarios = plan_run(["features/notes.feature"]).scenarios
    assert f"mcpbdd: passed: {scenarios} passed, 0 failed in " in run.stdout, run.stdout
    # a run on the configured harness times each feature and scenario in the default column (the one pass it made)
    timings = json.loads((folder / "t.json").read_text())
    assert len(timings["scenarios"]) == scenarios, timings
    assert all(set(passes) == {DEFAULT_PASS} for part in ("features", "scenarios") for passes in timings[part].values())


def test_a_failing_run_exits_1_also_in_parallel(failing_run: subprocess.CompletedProcess[str]) -> None:
    """The module's run of a failing feature beside a passing one, in two jobs (the report tests read its results)."""
    assert failing_run.returncode == 1, failing_run.stdout + failing_run.stderr
    assert re.search(r"mcpbdd: FAILED: [1-9]\d* passed, [1-9]\d* failed", failing_run.stdout), failing_run.stdout


def test_a_run_filtered_by_tags_reports_what_ran_not_what_it_left_out(tmp_path: Path) -> None:
    """Two tag filters, both applied: the modern-era scenarios but the one on Locust's master and workers (the
    session's project run runs it; here it would only cost a Locust run)."""
    tags = ["-t", "@era.modern", "-t", "~@harness.client"]
    selected = plan_run(tags).scenarios
    assert 0 < selected < plan_run(["-t", "@era.modern"]).scenarios
    run = mcpbdd("run", "--jobs", "2", *tags, "--results", str(tmp_path / "r"), "-f", "progress")
    assert run.returncode == 0, run.stdout + run.stderr
    assert 0 < len(list((tmp_path / "r").glob("*-result.json"))) == selected
    assert f"mcpbdd: passed: {selected} passed, 0 failed in " in run.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["features/missing.feature"], "FileNotFoundError: features/missing.feature"),
        (["-D", "mcpbdd.harness=wire", "features/notes.feature"], "harness: Input should be 'context' or 'client'"),
        (["--jobs", "2", "-D", "mcpbdd.timeout=-1", "features/notes.feature"], "timeout: Input should be greater"),
        (["--shard", "3/2"], "I must be between 1 and N"),
        (["--jobs", "0"], "--jobs '0'"),
        (["--harness", "wire"], "unknown harness 'wire'"),
    ],
)
def test_a_usage_error_exits_2_with_the_reason(tmp_path: Path, args: list[str], message: str) -> None:
    run = mcpbdd("run", "--results", str(tmp_path / "r"), *args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stdout + run.stderr


def test_a_feature_that_does_not_parse_is_a_usage_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.feature"
    broken.write_text("Feature: broken\n  Scenario: a\n    Given a step\n  Nonsense: here\n")
    run = mcpbdd("run", "--results", str(tmp_path / "r"), str(broken))
    assert run.returncode == 2, run.stdout + run.stderr
    assert "ParserError" in run.stderr and "broken.feature" in run.stderr


def test_a_project_without_steps_is_told_what_to_add_and_loses_nothing(tmp_path: Path) -> None:
    """A newcomer who skipped the README's second step: exit 2, behave's reason, what to add, no "lost" scenario."""
    (tmp_path / "features").mkdir()
    (tmp_path / "features" / "first.feature").write_text(
        "Feature: first\n  Scenario: tools\n    When the client lists the tools\n"
    )
    (tmp_path / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "mcpbdd.examples.notes:mcp"\n')
    run = mcpbdd("run", cwd=tmp_path, env={"PYTHONPATH": str(ROOT)})
    assert run.returncode == 2, run.stdout + run.stderr
    assert "ConfigError: No steps directory" in run.stdout + run.stderr
    assert "add steps/mcpbdd_steps.py holding `from mcpbdd.steps import *`" in run.stderr, run.stderr
    assert "mcpbdd init" in run.stderr
    assert "LOST" not in (run.stdout + run.stderr).upper().replace("LOSES", ""), run.stdout + run.stderr


def _under_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run `mcpbdd` with a pseudo-terminal as stdout and stderr, as a developer's shell would."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpbdd.cli.main", *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env={**os.environ, **env},
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                data = os.read(controller, 65536)
            except OSError:  # the terminal closed: the process is done
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    process.wait(timeout=60)
    os.close(controller)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize(("ci", "shown"), [("", True), ("true", False)])
def test_a_terminal_shows_progress_unless_ci(tmp_path: Path, ci: str, shown: bool) -> None:
    env = {"MCPBDD_PROGRESS_DELAY": "0", "CI": ci}
    args = ["run", "--jobs", "2", "--results", str(tmp_path / "r"), "-f", "progress", "features/notes.feature"]
    out = _under_a_terminal([*args, "features/tenants.feature", "features/error_channels.feature"], env)
    progress = re.findall(r"mcpbdd: (\d+)/(\d+) scenarios", out)
    assert bool(progress) is shown, out[-2000:]
    if shown:
        done, total = map(int, progress[-1])
        assert 0 < done <= total


def test_a_pipe_gets_no_progress_line(passing_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """The passing run's stdout and stderr are pipes, CI unset and the progress line due at once: no line is drawn."""
    run = passing_run[0]
    assert run.returncode == 0, run.stdout
    assert "scenarios ·" not in run.stdout + run.stderr and "\x1b[2K" not in run.stdout + run.stderr


# steps --------------------------------------------------------------------------------------------------


REGISTRY = """
import json, mcpbdd.steps
from behave.step_registry import registry
ours = [m for ms in registry.steps.values() for m in ms if m.func.__module__.startswith("mcpbdd.steps.")]
print(json.dumps([m.pattern for m in ours]))
"""


def _placeholders(pattern: str) -> str:
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", pattern)


def test_steps_lists_every_registered_phrase_with_an_example_as_text_and_markdown() -> None:
    patterns = json.loads(warm_python.run([sys.executable, "-c", REGISTRY], capture_output=True, text=True).stdout)
    assert len(patterns) > 40
    text, markdown = mcpbdd("steps"), mcpbdd("steps", "--markdown")
    assert text.returncode == markdown.returncode == 0
    rows = [line for line in markdown.stdout.splitlines() if line.startswith("| `")]
    assert len(rows) == len(patterns), "one table row per registered step"
    for pattern in patterns:
        phrase = _placeholders(pattern).replace("|", "\\|")
        row = next((r for r in rows if f" {phrase}` |" in r), None)
        assert row is not None, f"{pattern!r} missing from the Markdown"
        assert re.match(r"^\| `[^`]+` \| `(Given|When|Then) [^`]+` \|", row), f"no example for {pattern!r}: {row}"
        assert f" {_placeholders(pattern)}" in text.stdout
    for heading in ("## Server and harness", "## Tenants and callers", "## Calls", "## Outcomes and error channels"):
        assert heading in markdown.stdout


# init ----------------------------------------------------------------------------------------------------


def test_init_scaffolds_a_project_whose_first_run_passes(tmp_path: Path) -> None:
    project = tmp_path / "project"
    first = mcpbdd("init", "--server", "mcpbdd.examples.notes:mcp", str(project))
    assert first.returncode == 0, first.stdout + first.stderr
    for path in ("environment.py", "steps/mcpbdd_steps.py", "features/notes.feature", "pyproject.toml"):
        assert (project / path).is_file(), path
    feature = (project / "features" / "notes.feature").read_text()
    assert "| create_note " in feature and "| delete_note " in feature
    pyproject = (project / "pyproject.toml").read_text()
    assert 'server = "mcpbdd.examples.notes:mcp"' in pyproject
    behave = warm_python.run([sys.executable, "-m", "behave"], cwd=project, capture_output=True, text=True, timeout=300)
    assert behave.returncode == 0, behave.stdout + behave.stderr
    assert "1 scenario passed, 0 failed" in behave.stdout
    run = mcpbdd("run", "-f", "progress", cwd=project)
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(list((project / "reports" / "allure-results").glob("*-result.json"))) == 1
    again = mcpbdd("init", "--server", "mcpbdd.examples.notes:mcp", str(project))
    assert again.returncode == 0 and again.stdout.count("kept") == 4


def test_init_adds_its_tables_to_an_existing_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mine"\n\n[tool.behave]\npaths = ["specs"]\n')
    run = mcpbdd("init", "--server", "mcpbdd.examples.notes:mcp", str(tmp_path))
    assert run.returncode == 0, run.stderr
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith('[project]\nname = "mine"') and '[tool.mcpbdd]\nserver = "mcpbdd.examples.notes:mcp"' in text
    assert text.count("[tool.behave]") == 1, "an existing table is left as it is"


def test_init_names_what_is_wrong_with_the_server() -> None:
    run = mcpbdd("init", "--server", "mcpbdd.examples.nope:mcp", "/tmp/never-created-by-mcpbdd")
    assert run.returncode == 2
    assert "cannot import 'mcpbdd.examples.nope'" in run.stderr


# report --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def failing_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One run of a failing feature beside a passing one, in two jobs: its process and its Allure results (read by
    the exit-status test and the report tests: one run, not two)."""
    folder = tmp_path_factory.mktemp("report") / "results"
    args = ("--jobs", "2", "--results", str(folder), "--no-junit", "-f", "progress", FAILING, "features/notes.feature")
    return mcpbdd("run", *args), folder


@pytest.fixture(scope="module")
def failing_run(failing_results: tuple[subprocess.CompletedProcess[str], Path]) -> subprocess.CompletedProcess[str]:
    return failing_results[0]


@pytest.fixture(scope="module")
def results(failing_results: tuple[subprocess.CompletedProcess[str], Path]) -> Path:
    run, folder = failing_results
    assert run.returncode == 1, run.stdout + run.stderr
    return folder


@pytest.mark.skipif(shutil.which("node") is None, reason="rendering needs Node.js (the no-Node case is tested below)")
def test_report_renders_one_self_contained_html_file(results: Path, tmp_path: Path) -> None:
    run = mcpbdd("report", str(results), "--output", str(tmp_path / "html"), "--name", "notes")
    assert run.returncode == 0, run.stdout + run.stderr
    page = tmp_path / "html" / "index.html"
    assert f"report written: {page}" in run.stdout and page.as_uri() in run.stdout
    last = run.stdout.strip().splitlines()[-3:]  # it ends with what the report holds, then where it is
    assert re.fullmatch(r"mcpbdd: scenarios: [1-9]\d* passed, [1-9]\d* failed, [1-9]\d* broken, 0 skipped", last[0]), (
        run.stdout
    )
    assert last[1:] == [f"mcpbdd: report written: {page}", f"mcpbdd: open it in a browser: {page.as_uri()}"]
    html = page.read_text(encoding="utf-8")
    assert not re.findall(r'(?:src|href)="(?!data:|#)[^"]+"', html), "everything is inlined: it opens from file://"
    assert "googletagmanager" not in html, "no analytics: the report makes no network request"
    summary = json.loads((tmp_path / "html" / "summary.json").read_text())
    assert summary["stats"]["total"] == len(list(results.glob("*-result.json")))


def _no_network_available() -> bool:
    """`unshare -rn` runs a command with no network at all (a user namespace: no root needed where allowed)."""
    if shutil.which("unshare") is None:
        return False
    return warm_python.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(shutil.which("node") is None or not _no_network_available(), reason="needs Node.js and unshare")
def test_report_renders_offline_once_allure_is_cached(results: Path, tmp_path: Path) -> None:
    from mcpbdd.reporting.html import allure_cli

    allure_cli()  # the one online moment: installs into the cache if it is cold
    offline = ["unshare", "-rn", sys.executable, "-m", "mcpbdd.cli.main", "report", str(results), "-o", str(tmp_path)]
    run = warm_python.run(offline, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "index.html").is_file()


def test_report_without_node_says_what_to_install(results: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    run = mcpbdd("report", str(results), env={"PATH": str(bare)})
    assert run.returncode == 2
    assert "needs Node.js >= 20 and npm" in run.stderr and "node is not on PATH" in run.stderr


def test_report_with_an_old_node_says_which_version_is_needed(results: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool, output in (("node", "v18.19.0"), ("npm", "9.2.0")):
        (bare / tool).write_text(f"#!/bin/sh\necho {output}\n")
        (bare / tool).chmod(0o755)
    run = mcpbdd("report", str(results), env={"PATH": f"{bare}:/bin"})
    assert run.returncode == 2
    assert "needs Node.js >= 20" in run.stderr and "v18.19.0" in run.stderr


def test_report_with_no_results_says_so(tmp_path: Path) -> None:
    run = mcpbdd("report", str(tmp_path / "nothing"))
    assert run.returncode == 2
    assert "no Allure results folder" in run.stderr and "mcpbdd run" in run.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="rendering Cucumber Messages needs Node.js")
def test_report_of_messages_named_by_a_relative_path_links_the_page(tmp_path: Path) -> None:
    """`report --messages reports/x.ndjson -o out`, both relative: the page and its file:// link, exit 0."""
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "x.ndjson").write_text("", encoding="utf-8")  # an empty stream renders an empty page
    run = mcpbdd("report", "--messages", "reports/x.ndjson", "-o", "out", cwd=tmp_path)
    if run.returncode != 0 and "could not install" in run.stdout + run.stderr:
        pytest.skip(f"@cucumber/html-formatter could not be installed from npm: {run.stderr[-300:]}")
    assert run.returncode == 0, run.stdout + run.stderr
    page = tmp_path / "out" / "cucumber.html"
    assert page.is_file() and "Traceback" not in run.stderr
    assert f"mcpbdd: open it in a browser: {page.resolve().as_uri()}" in run.stdout
