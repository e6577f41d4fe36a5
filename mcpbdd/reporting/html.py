"""`mcpbdd report`: Allure results -> one self-contained HTML file that opens from `file://`.

Rendered by Allure 3 (the npm package `allure`, Node >= 20) with its "awesome" plugin in
single-file mode: a multi-file Allure report loads its data with `fetch`, which browsers
refuse on `file://`, so a reviewer could not just open it from a CI artifact.

Allure is installed on first use into a cache (`~/.cache/mcpbdd/allure/<version>`, or
under `$MCPBDD_CACHE`, or `$XDG_CACHE_HOME`), pinned to one version, and reused: later
renders need no network (`mcpbdd.reporting.npm`). Without Node the command says so, and how to fix it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpbdd.reporting.npm import LOCKS, InstallError, cache_root, install

__all__ = ["ALLURE_VERSION", "NodeMissing", "RenderError", "allure_cli", "cache_root", "render"]

ALLURE_VERSION = "3.18.0"
"""The Allure 3 release the report is rendered with (pinned: a report must not change with npm's mood)."""


NODE_MAJOR = 20
"""Allure 3's minimum Node.js major version."""
HIDDEN_LABELS = ("host", "thread", "language", "framework")
"""Labels the timeline uses but a reviewer does not need to read on every test."""


class NodeMissing(RuntimeError):
    """Node.js (and npm) are needed to render the HTML report, and are not installed."""


class RenderError(RuntimeError):
    """Installing or running Allure failed; the message carries its output."""


def _node() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise NodeMissing(
            f"the HTML report is rendered by Allure 3, which needs Node.js >= {NODE_MAJOR} and npm, and "
            f"{'node' if node is None else 'npm'} is not on PATH. Install Node.js (https://nodejs.org, or your "
            "package manager: apt-get install nodejs npm), then run `mcpbdd report` again. "
            "The Allure results themselves are complete without it."
        )
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < NODE_MAJOR:
        raise NodeMissing(
            f"the HTML report is rendered by Allure 3, which needs Node.js >= {NODE_MAJOR}, and {node} is "
            f"{version or 'of an unknown version'}. Install a newer Node.js (https://nodejs.org), then run "
            "`mcpbdd report` again. The Allure results themselves are complete without it."
        )
    return node, npm


def allure_cli(*, version: str = ALLURE_VERSION, quiet: bool = False) -> list[str]:
    """The command that runs Allure 3, installing it into the cache first if needed."""
    node, npm = _node()
    home = cache_root() / "allure" / version
    try:
        lock = LOCKS / "allure"  # pins ALLURE_VERSION (tests/test_npm_locks.py)
        entry = install(npm, home, lock, home / "node_modules" / "allure" / "cli.js", quiet=quiet)
    except InstallError as exc:
        raise RenderError(str(exc)) from exc
    return [node, str(entry)]


def render(
    results: Sequence[Path],
    output: Path,
    *,
    name: str = "mcpbdd report",
    quiet: bool = False,
    coverage: Mapping[str, Any] | None = None,
    history: Path | None = None,
) -> Path:
    """Render the results folders (several: CI shards, merged) into `output/index.html`; returns that path.

    `coverage` (a merged coverage document) replaces the folders' own `coverage.*` environment entries,
    so a report merged from shards shows the run's coverage, not one shard's (rendered from scratch copies).
    `history` is Allure 3's history file (JSON lines, one per report rendered): read for each test's earlier
    results (its History tab, the trend charts, new/flaky/fixed markers) and appended with this report's, so
    the next report shows this run. It must live outside `output`, which is emptied first.
    """
    missing = [str(folder) for folder in results if not folder.is_dir()]
    if missing:
        raise FileNotFoundError(f"no Allure results folder at {', '.join(missing)} (run `mcpbdd run` first)")
    empty = [str(folder) for folder in results if not any(folder.glob("*-result.json"))]
    if len(empty) == len(results):
        raise FileNotFoundError(f"no test results in {', '.join(empty)} (run `mcpbdd run` first)")
    command = allure_cli(quiet=quiet)
    output = output.resolve()
    if output.exists():
        shutil.rmtree(output)
    options = {"singleFile": True, "reportName": name, "stepTreeExpansion": "expand_failed_only"}
    config = {
        "name": name,
        "output": str(output),
        "hideLabels": list(HIDDEN_LABELS),
        "plugins": {"awesome": {"options": options}},
    }
    if history is not None:
        history = history.resolve()
        if history.is_relative_to(output):
            raise ValueError(f"the history file {history} is inside the report folder {output}, which is emptied")
        history.parent.mkdir(parents=True, exist_ok=True)
        config["historyPath"] = str(history)
    with tempfile.TemporaryDirectory(prefix="mcpbdd-allure-") as scratch:
        rc = Path(scratch) / "allurerc.json"
        rc.write_text(json.dumps(config))
        if coverage is not None:
            from mcpbdd.reporting.coverage_environment import with_coverage

            copies = Path(scratch) / "results"
            copies.mkdir()
            results = with_coverage([folder.resolve() for folder in results], coverage, copies)
        folders = [str(folder.resolve()) for folder in results]
        done = subprocess.run(
            [*command, "generate", "--config", str(rc), *folders], cwd=scratch, capture_output=True, text=True
        )
    page = output / "index.html"
    if done.returncode != 0 or not page.is_file():
        raise RenderError(f"Allure could not render the report (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    page.write_text(without_analytics(page.read_text(encoding="utf-8")), encoding="utf-8")
    return page


ANALYTICS = re.compile(
    r"\s*<script async src=\"https://www\.googletagmanager\.com/gtag/js[^\"]*\"></script>\s*<script>.*?</script>",
    re.DOTALL,
)


def without_analytics(html: str) -> str:
    """The page without Allure's Google Analytics tag (on unconditionally in 3.18): a test report opened from
    a CI artifact or a laptop must not report to a third party, and makes no network request at all."""
    return ANALYTICS.sub("", html, count=1)
