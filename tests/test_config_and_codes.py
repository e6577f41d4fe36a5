"""Settings validation and JSON-RPC code names."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbdd.harness.targets import ServerTarget, load_inprocess
from mcpbdd.kit.errors import code_name, parse_code
from mcpbdd.model.config import ConfigError, load_settings
from mcpbdd.model.errors import TargetError
from mcpbdd.model.outcome import Channel


def write_pyproject(folder: Path, body: str) -> Path:
    (folder / "pyproject.toml").write_text(f"[tool.mcpbdd]\n{body}\n", encoding="utf-8")
    return folder


def test_pyproject_settings_are_read_and_userdata_overrides_them(tmp_path: Path) -> None:
    write_pyproject(tmp_path, 'server = "pkg.mod:mcp"\nharness = "client"\ntimeout = 2')
    settings = load_settings({"mcpbdd.timeout": "0.5", "unrelated": "x"}, start=tmp_path)
    assert (settings.server, settings.harness, settings.timeout) == ("pkg.mod:mcp", "client", 0.5)


def test_a_bad_setting_names_itself_its_source_and_the_choices(tmp_path: Path) -> None:
    write_pyproject(tmp_path, 'harness = "wire"')
    with pytest.raises(ConfigError) as caught:
        load_settings({"mcpbdd.timeout": "-1"}, start=tmp_path)
    message = str(caught.value)
    assert "harness: Input should be 'context' or 'client'" in message
    assert "pyproject.toml" in message
    assert "timeout: Input should be greater than 0 (from -D mcpbdd.timeout=-1)" in message


def test_an_unknown_setting_lists_the_known_ones(tmp_path: Path) -> None:
    write_pyproject(tmp_path, 'sever = "typo:mcp"')
    with pytest.raises(ConfigError, match="sever: unknown setting; known settings: server, harness"):
        load_settings({}, start=tmp_path)


def test_capabilities_accept_a_comma_list_and_refuse_unknown_names(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "")
    assert load_settings({"mcpbdd.capabilities": "roots, sampling"}, start=tmp_path).capabilities == (
        "roots",
        "sampling",
    )
    with pytest.raises(ConfigError, match="unknown capabilities"):
        load_settings({"mcpbdd.capabilities": "telepathy"}, start=tmp_path)


@pytest.mark.parametrize(
    ("text", "code"),
    [("-32602", -32602), ("InvalidParams", -32602), ("invalid params", -32602), ("METHOD_NOT_FOUND", -32601)],
)
def test_error_codes_are_numbers_or_names(text: str, code: int) -> None:
    assert parse_code(text) == code


def test_an_unknown_error_name_lists_the_names() -> None:
    with pytest.raises(ValueError, match=r"InvalidParams \(-32602\)"):
        parse_code("InvalidParam")
    assert code_name(-32603) == "-32603 (InternalError)"
    assert code_name(-1) == "-1"


def test_outcome_words_are_forgiving_about_separators_and_strict_about_words() -> None:
    assert Channel.parse("tool error") is Channel.TOOL_ERROR
    assert Channel.parse("protocol_error") is Channel.PROTOCOL_ERROR
    with pytest.raises(ValueError, match="use one of ok, tool-error"):
        Channel.parse("error")


def test_server_targets_are_parsed_and_loaded_with_clear_errors() -> None:
    assert ServerTarget.parse("stdio: python -m server").kind == "stdio"
    assert ServerTarget.parse("http://127.0.0.1:8000/mcp").kind == "http"
    assert load_inprocess(ServerTarget.parse("mcpbdd.examples.notes:mcp")).name == "notes"
    with pytest.raises(TargetError, match=r"is not 'package.module:attr'"):
        ServerTarget.parse("notes")
    with pytest.raises(TargetError, match="cannot import 'no_such_module'"):
        load_inprocess(ServerTarget.parse("no_such_module:mcp"))
    with pytest.raises(TargetError, match="has no 'nope'"):
        load_inprocess(ServerTarget.parse("mcpbdd.examples.notes:nope"))
