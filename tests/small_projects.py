"""A throwaway project for a test that runs `mcpbdd run` on features of its own (test-only).

The killed-worker, rerun and diff tests each need the same folder: the steps and hooks installed with one line
each, their features, and `[tool.mcpbdd]` pointing at a test server; and they read the same report files.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["report_options", "small_project"]


def small_project(folder: Path, features: dict[str, str], server: str = "servers:awkward") -> Path:
    """`folder` as a project whose `features/` holds `features` (file name -> text), on the context harness."""
    (folder / "features" / "steps").mkdir(parents=True)
    (folder / "features" / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    for name, text in features.items():
        (folder / "features" / name).write_text(text)
    (folder / "pyproject.toml").write_text(f'[tool.mcpbdd]\nserver = "{server}"\nharness = "context"\n')
    return folder


def report_options(reports: Path, *, allure: str = "allure", cucumber_json: bool = True) -> list[str]:
    """`mcpbdd run`'s options writing every report file under `reports` (no coverage file)."""
    options = ["--results", str(reports / allure), "--junit", str(reports / "junit")]
    options += ["--messages", str(reports / "messages.ndjson")]
    if cucumber_json:
        options += ["--cucumber-json", str(reports / "cucumber.json")]
    return [*options, "--no-coverage"]
