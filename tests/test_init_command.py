"""`mcpbdd init`'s scaffold, in process: what a server names itself and its tools stays data in the feature it writes.

The command end to end (a project whose first run passes) is in tests/spawning/test_cli.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gherkin.parser import Parser

from mcpbdd.cli.init_command import scaffold

SERVER = """
from mcp.server.mcpserver import MCPServer

mcp = MCPServer(name="evil\\n  Scenario: injected\\x1b[2J")


@mcp.tool(name="a|b\\\\c")
def piped() -> str:
    return "x"


@mcp.tool()
def plain() -> str:
    return "y"
"""


def test_a_servers_name_and_tool_names_cannot_add_to_the_feature(tmp_path: Path) -> None:
    (tmp_path / "init_hostile_server.py").write_text(SERVER, encoding="utf-8")
    done = scaffold(tmp_path, "init_hostile_server:mcp")
    assert sorted(done.tools) == ["a|b\\c", "plain"]
    (feature,) = (tmp_path / "features").glob("*.feature")
    text = feature.read_text(encoding="utf-8")
    assert "\x1b" not in text
    document: Any = Parser().parse(text)["feature"]  # gherkin's TypedDicts: read as the JSON it is
    assert document["name"] == "The evil Scenario: injected[2J MCP server"  # one line: no scenario of its own
    (scenario,) = [child["scenario"] for child in document["children"]]
    assert scenario["name"] == "The server offers its tools"
    (_, then) = scenario["steps"]
    cells = [row["cells"][0]["value"] for row in then["dataTable"]["rows"]]
    assert sorted(cells) == ["a|b\\c", "name", "plain"]  # read back as the server names them
