"""`[tool.mcpbdd.conformance]`: what `mcpbdd conformance` runs with no arguments, its options winning over the file.

In process: the settings are read and every usage error is reported before any run starts (the run with
no arguments, end to end, is in tests/spawning/test_conformance_cli.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mcpbdd.cli.conformance import with_settings
from mcpbdd.cli.main import build_parser, main
from mcpbdd.model.config import ConfigError, load_settings
from mcpbdd.runner.exits import EXIT_USAGE


def _project(folder: Path, text: str) -> Path:
    (folder / "pyproject.toml").write_text(text, encoding="utf-8")
    return folder


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["conformance", *argv])


SECTION = """
[tool.mcpbdd]
server = "mcpbdd.examples.notes:mcp"

[tool.mcpbdd.conformance]
target = "stdio: {python} -m mcpbdd.examples.notes"
only = ["unknown-tool", "tool-names"]
skip = "pagination"
expected_failures = "ci/known.yml"
official = true
"""


def test_the_section_supplies_every_option_not_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, SECTION)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # the file is found above, and its paths are read from its own folder
    chosen, _ = with_settings(_args())
    assert chosen.target == "stdio: {python} -m mcpbdd.examples.notes"
    assert chosen.only == ["unknown-tool", "tool-names"] and chosen.skip == ["pagination"]
    assert chosen.expected_failures == tmp_path / "ci" / "known.yml"
    assert chosen.official is True


def test_the_command_line_wins_over_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_project(tmp_path, SECTION))
    argv = ["mcpbdd.examples.notes:mcp", "--only", "bad-cursor", "--skip", "tool-names", "--no-official"]
    chosen, _ = with_settings(_args(*argv, "--expected-failures", "mine.yml"))
    assert chosen.target == "mcpbdd.examples.notes:mcp"
    assert chosen.only == ["bad-cursor"] and chosen.skip == ["tool-names"]
    assert chosen.expected_failures == Path("mine.yml") and chosen.official is False


def test_without_a_target_the_server_setting_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_project(tmp_path, '[tool.mcpbdd]\nserver = "mcpbdd.examples.notes:mcp"\n'))
    chosen, _ = with_settings(_args())
    assert chosen.target == "mcpbdd.examples.notes:mcp"
    assert chosen.only is None and chosen.skip is None and chosen.expected_failures is None
    assert chosen.official is False


def test_an_unknown_key_is_a_usage_error_listing_the_known_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(_project(tmp_path, '[tool.mcpbdd.conformance]\ntarget = "m:mcp"\nofficail = true\n'))
    assert main(["conformance"]) == EXIT_USAGE
    said = capsys.readouterr().err
    assert (
        "conformance.officail: unknown setting; known settings: target, only, skip, expected_failures, official" in said
    )
    assert f"(from [tool.mcpbdd.conformance] in {tmp_path / 'pyproject.toml'})" in said


def test_a_bad_value_names_the_setting(tmp_path: Path) -> None:
    _project(tmp_path, "[tool.mcpbdd.conformance]\nofficial = 'sometimes'\n")
    with pytest.raises(ConfigError, match=r"conformance\.official: Input should be a valid boolean"):
        load_settings({}, start=tmp_path)


def test_with_no_target_anywhere_it_says_where_to_put_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["conformance"]) == EXIT_USAGE
    assert "no server to check: pass TARGET, or set target under [tool.mcpbdd.conformance]" in capsys.readouterr().err


def test_an_unknown_check_in_the_file_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(_project(tmp_path, '[tool.mcpbdd.conformance]\ntarget = "m:mcp"\nonly = ["no-such-check"]\n'))
    assert main(["conformance"]) == EXIT_USAGE
    assert "unknown conformance check 'no-such-check'" in capsys.readouterr().err


def _chosen(tags: list[str]) -> set[str]:
    """The pack's checks that behave's `--tags` options (each one more condition, as behave joins them) select."""
    from behave.tag_expression import make_tag_expression

    from mcpbdd.conformance import all_checks

    expressions = [make_tag_expression(value) for option, value in zip(tags[::2], tags[1::2], strict=True)]
    assert all(option == "--tags" for option in tags[::2]), tags
    ids = [check.id for check in all_checks()]
    return {id for id in ids if all(expression.check([f"check.{id}"]) for expression in expressions)}


def test_skip_alone_leaves_every_other_check_and_beside_only_narrows_its_choice() -> None:
    """`--skip` alone runs the whole pack but the checks named; beside `--only` it takes them out of that choice.
    (The spawning tier runs `--skip` beside `--only`, on two checks, rather than the whole pack less one.)"""
    from mcpbdd.conformance import all_checks
    from mcpbdd.runner.conformance import tag_filter

    every = {check.id for check in all_checks()}
    assert len(every) >= 20 and "tool-names" in every and "unknown-resource" in every
    assert _chosen(tag_filter(None, ["tool-names"])) == every - {"tool-names"}
    assert _chosen(tag_filter(["unknown-resource", "tool-names"], None)) == {"unknown-resource", "tool-names"}
    assert _chosen(tag_filter(["unknown-resource", "tool-names"], ["tool-names"])) == {"unknown-resource"}
