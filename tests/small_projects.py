"""A throwaway project for a test that runs `mcpbdd run` on features of its own (test-only).

The killed-worker, rerun and diff tests each need the same folder: the steps and hooks installed with one line
each, their features, and `[tool.mcpbdd]` pointing at a test server; and they read the same report files.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SPLIT_FEATURES", "SPLIT_RESULTS", "report_options", "small_project", "split_project"]


def small_project(
    folder: Path, features: dict[str, str], server: str = "servers:awkward", harness: str = "context"
) -> Path:
    """`folder` as a project whose `features/` holds `features` (file name -> text), on `harness` (as configured)."""
    (folder / "features" / "steps").mkdir(parents=True)
    (folder / "features" / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    for name, text in features.items():
        (folder / "features" / name).write_text(text)
    (folder / "pyproject.toml").write_text(f'[tool.mcpbdd]\nserver = "{server}"\nharness = "{harness}"\n')
    return folder


def report_options(reports: Path, *, allure: str = "allure", cucumber_json: bool = True) -> list[str]:
    """`mcpbdd run`'s options writing every report file under `reports` (no coverage file)."""
    options = ["--results", str(reports / allure), "--junit", str(reports / "junit")]
    options += ["--messages", str(reports / "messages.ndjson")]
    if cucumber_json:
        options += ["--cucumber-json", str(reports / "cucumber.json")]
    return [*options, "--no-coverage"]


SERVERS_PY = Path(__file__).parent / "servers.py"

SPLIT_FEATURES = {
    "first.feature": (
        "Feature: a Background and a scenario pinned to one harness\n"
        "  Background:\n"
        '    When the client calls "report"\n'
        "  Scenario: the background's call\n"
        "    Then the call succeeds\n"
        "  Scenario: another call\n"
        '    When the client calls "whoami"\n'
        "    Then the call succeeds\n"
        "  @harness.client.auto\n"
        "  Scenario: pinned to the client harness\n"
        "    Then the call succeeds\n"
    ),
    "rows.feature": (
        "Feature: an Outline's rows\n"
        "  Scenario Outline: row <n>\n"
        '    When the client calls "depth" with {"value": <n>}\n'
        "    Then the call succeeds\n"
        "    Examples:\n"
        "      | n |\n" + "".join(f"      | {n} |\n" for n in range(1, 5))
    ),
    "rules.feature": (
        "Feature: a Rule's scenarios\n"
        "  Rule: the first rule\n"
        "    Scenario: in the rule\n"
        '      When the client calls "report"\n'
        "      Then the call succeeds\n"
        "  Rule: the second rule\n"
        "    Scenario: in the other rule\n"
        '      When the client calls "whoami"\n'
        "      Then the call succeeds\n"
    ),
    "stdio.feature": (
        "@harness.client\n"
        "Feature: a server process per scenario, the heaviest feature (CI shards split it by its rows)\n"
        "  Scenario Outline: over stdio, row <n>\n"
        f'    Given the MCP server "stdio: {{python}} {SERVERS_PY}"\n'
        '    When the client calls "report"\n'
        "    Then the call succeeds\n"
        "    Examples:\n"
        "      | n |\n" + "".join(f"      | {n} |\n" for n in range(1, 4))
    ),
}
"""A small project with each shape a split run (`--jobs`, `--shard`) must keep whole: several features, a Background,
an Outline's rows, Rules, a scenario pinned to one harness, a feature pinned to the client harness whose scenarios each
start a server process (the heaviest feature by far, so the CI shards split it by its rows). The Outline's tool is
called nowhere else, so no split of the features has one part cover every tool the whole covers."""

SPLIT_RESULTS = {"context": 8, "client": 12}
"""The results `mcpbdd run --harness both` writes for `SPLIT_FEATURES`, by pass: the context pass runs neither the
pinned scenario nor the stdio feature."""


def split_project(folder: Path, harness: str = "context") -> Path:
    """`folder` as a project of `SPLIT_FEATURES` on the test server `awkward` (tests/servers.py), on `harness`."""
    return small_project(folder, SPLIT_FEATURES, harness=harness)
