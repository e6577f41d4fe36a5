"""Tool-surface snapshots: every kind of difference classed and named, and when a snapshot may be written."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp_types import Tool

from mcpbdd.checks.surface import SURFACE_FORMAT, SnapshotMismatch, match_snapshot, surface_of
from mcpbdd.checks.surface_diff import diff_surfaces

ROOT = Path(__file__).resolve().parent.parent

EXPORT: dict[str, Any] = {
    "description": "Export the notes.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "format": {"type": "string", "enum": ["markdown", "json"]},
            "limit": {"type": "number", "minimum": 1},
            "tag": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["format"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"document": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["document", "count"],
    },
    "annotations": {"readOnlyHint": True},
}
BASE: dict[str, Any] = {"format": SURFACE_FORMAT, "tools": {"export_notes": EXPORT, "get_note": {"inputSchema": {}}}}


def changed(edit: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    new = copy.deepcopy(BASE)
    edit(new["tools"])
    return new


def export(tools: dict[str, Any]) -> dict[str, Any]:
    return tools["export_notes"]


CASES: list[tuple[str, Callable[[dict[str, Any]], object], bool, str, str]] = [
    # (kind, the change, breaking, path, message fragment)
    ("tool removed", lambda t: t.pop("get_note"), True, "$", "the tool was removed"),
    (
        "required argument added",
        lambda t: (
            export(t)["inputSchema"]["properties"].update(since={"type": "string"}),
            export(t)["inputSchema"]["required"].append("since"),
        ),
        True,
        "$.inputSchema.properties.since",
        "the required argument 'since' was added",
    ),
    (
        "type narrowed",
        lambda t: export(t)["inputSchema"]["properties"]["limit"].update(type="integer"),
        True,
        "$.inputSchema.properties.limit.type",
        "the type was narrowed from number to integer",
    ),
    (
        "enum value dropped",
        lambda t: export(t)["inputSchema"]["properties"]["format"].update(enum=["markdown"]),
        True,
        "$.inputSchema.properties.format.enum",
        'the value "json" was dropped (a client sending it is now refused)',
    ),
    (
        "output field removed",
        lambda t: export(t)["outputSchema"]["properties"].pop("count"),
        True,
        "$.outputSchema.properties.count",
        "the output field 'count' was removed",
    ),
    (
        "output field may be absent",
        lambda t: export(t)["outputSchema"]["required"].remove("count"),
        True,
        "$.outputSchema.properties.count",
        "the output field 'count' may now be absent",
    ),
    (
        "argument now required",
        lambda t: export(t)["inputSchema"]["required"].append("tag"),
        True,
        "$.inputSchema.properties.tag",
        "the argument 'tag' is now required",
    ),
    (
        "bound tightened",
        lambda t: export(t)["inputSchema"]["properties"]["limit"].update(minimum=5),
        True,
        "$.inputSchema.properties.limit.minimum",
        "minimum changed from 1 to 5 (tighter)",
    ),
    (
        "no longer read-only",
        lambda t: export(t)["annotations"].update(readOnlyHint=False),
        True,
        "$.annotations.readOnlyHint",
        "changed from true to false",
    ),
    ("tool added", lambda t: t.update(archive={"inputSchema": {}}), False, "$", "the tool was added"),
    (
        "optional argument added",
        lambda t: export(t)["inputSchema"]["properties"].update(since={"type": "string"}),
        False,
        "$.inputSchema.properties.since",
        "the optional argument 'since' was added",
    ),
    (
        "description changed",
        lambda t: export(t).update(description="Export every note."),
        False,
        "$.description",
        'the description changed from "Export the notes." to "Export every note."',
    ),
    (
        "type widened",
        lambda t: export(t)["inputSchema"]["properties"]["limit"].update(type=["number", "string"]),
        False,
        "$.inputSchema.properties.limit.type",
        "the type was widened from number to number | string",
    ),
    (
        "enum value added",
        lambda t: export(t)["inputSchema"]["properties"]["format"]["enum"].append("html"),
        False,
        "$.inputSchema.properties.format.enum",
        'the value "html" was added',
    ),
    (
        "output field added",
        lambda t: export(t)["outputSchema"]["properties"].update(size={"type": "integer"}),
        False,
        "$.outputSchema.properties.size",
        "the optional output field 'size' was added",
    ),
]


@pytest.mark.parametrize(("kind", "edit", "breaking", "path", "message"), CASES, ids=[c[0] for c in CASES])
def test_each_kind_of_difference_is_classed_and_named(
    kind: str, edit: Callable[[dict[str, Any]], object], breaking: bool, path: str, message: str
) -> None:
    differences = diff_surfaces(BASE, changed(edit))
    assert len(differences) == 1, differences
    difference = differences[0]
    tool = "get_note" if kind == "tool removed" else "archive" if kind == "tool added" else "export_notes"
    assert (difference.tool, difference.path, difference.breaking) == (tool, path, breaking)
    assert message in difference.message
    assert str(difference).startswith("BREAKING: " if breaking else "not breaking: ")


def test_an_output_type_widened_breaks_and_narrowed_does_not() -> None:
    wider = changed(lambda t: export(t)["outputSchema"]["properties"]["count"].update(type="number"))
    assert [(d.path, d.breaking) for d in diff_surfaces(BASE, wider)] == [
        ("$.outputSchema.properties.count.type", True)
    ]
    assert [d.breaking for d in diff_surfaces(wider, BASE)] == [False]


def test_a_change_behind_a_reference_is_named_where_a_client_sees_it() -> None:
    def with_defs(values: list[str]) -> dict[str, Any]:
        schema = {
            "$defs": {"Format": {"type": "string", "enum": values}},
            "type": "object",
            "properties": {"format": {"$ref": "#/$defs/Format"}},
        }
        return {"format": SURFACE_FORMAT, "tools": {"export_notes": {"inputSchema": schema}}}

    [difference] = diff_surfaces(with_defs(["markdown", "json"]), with_defs(["markdown"]))
    assert (difference.path, difference.breaking) == ("$.inputSchema.properties.format.enum", True)


def test_an_unknown_keyword_change_counts_as_breaking_and_says_so() -> None:
    new = changed(lambda t: export(t)["inputSchema"]["properties"]["format"].update(contentEncoding="base64"))
    [difference] = diff_surfaces(BASE, new)
    assert difference.breaking and "cannot tell whether this breaks a client" in difference.message


# the snapshot file ----------------------------------------------------------------------------------------

TOOLS = [Tool(name="get_note", input_schema={"type": "object", "properties": {"note_id": {"type": "string"}}})]


def test_a_missing_snapshot_is_recorded_locally_but_refused_in_ci(tmp_path: Path) -> None:
    path = tmp_path / "snapshots" / "tools.json"
    with pytest.raises(SnapshotMismatch, match=r"does not exist, and in CI \(CI is set\) it is never written"):
        match_snapshot(TOOLS, path, ci=True)
    assert not path.exists()
    assert match_snapshot(TOOLS, path, ci=True, update=True).action == "written"  # asked for explicitly
    path.unlink()
    assert match_snapshot(TOOLS, path, ci=False).action == "written"
    assert json.loads(path.read_text()) == surface_of(TOOLS)
    assert match_snapshot(TOOLS, path, ci=True).action == "matched"


def test_a_mismatch_fails_naming_each_difference_and_update_rewrites(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    match_snapshot(TOOLS, path, ci=False)
    narrowed = [Tool(name="get_note", input_schema={"type": "object", "properties": {"note_id": {"type": "integer"}}})]
    with pytest.raises(SnapshotMismatch) as failure:
        match_snapshot([*narrowed, Tool(name="archive", input_schema={})], path, ci=False)
    message = str(failure.value)
    assert f"The server's tools differ from the snapshot {path}: 1 breaking, 1 not breaking:" in message
    assert (
        "BREAKING: get_note $.inputSchema.properties.note_id.type: the type changed from string to integer" in message
    )
    assert "not breaking: archive $: the tool was added" in message
    verdict = match_snapshot(narrowed, path, update=True, ci=True)
    assert verdict.action == "updated" and len(verdict.differences) == 1
    assert match_snapshot(narrowed, path, ci=True).action == "matched"


def test_a_file_that_is_not_a_snapshot_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text('{"tools": []}')
    with pytest.raises(SnapshotMismatch, match="not a tool surface"):
        match_snapshot(TOOLS, path, ci=False)


# the command and a project's run --------------------------------------------------------------------------


def _mcpbdd(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(cwd), **env}
    return subprocess.run(
        [sys.executable, "-m", "mcpbdd.cli.main", *args], cwd=cwd, env=environment, capture_output=True, text=True
    )


def test_dump_writes_what_the_committed_snapshot_holds_and_diff_exits_by_breakage(tmp_path: Path) -> None:
    dumped = tmp_path / "now.json"
    assert _mcpbdd("surface", "dump", "-o", str(dumped)).returncode == 0
    committed = ROOT / "features" / "snapshots" / "notes-tools.json"
    assert json.loads(dumped.read_text()) == json.loads(committed.read_text())
    same = _mcpbdd("surface", "diff", str(committed), str(dumped))
    assert (same.returncode, same.stdout.strip().endswith("no difference")) == (0, True), same.stdout
    grown, shrunk = tmp_path / "grown.json", tmp_path / "shrunk.json"
    grown.write_text(json.dumps(changed(lambda t: t.update(archive={"inputSchema": {}}))))
    shrunk.write_text(json.dumps(changed(lambda t: t.pop("get_note"))))
    base = tmp_path / "base.json"
    base.write_text(json.dumps(BASE))
    added = _mcpbdd("surface", "diff", str(base), str(grown))
    assert added.returncode == 0 and "0 breaking, 1 not breaking" in added.stdout
    removed = _mcpbdd("surface", "diff", str(base), str(shrunk))
    assert removed.returncode == 1 and "BREAKING: get_note $: the tool was removed" in removed.stdout
    unreadable = _mcpbdd("surface", "diff", str(base), str(tmp_path / "missing.json"))
    assert unreadable.returncode == 2 and "missing.json" in unreadable.stderr


SERVER = """
from typing import Literal
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("exports")

@mcp.tool()
def export_notes(format: Literal[{formats}]) -> str:
    \"\"\"Export the notes.\"\"\"
    return format
"""


def _project(root: Path, formats: str) -> None:
    (root / "features" / "steps").mkdir(parents=True, exist_ok=True)
    (root / "features" / "steps" / "mcpbdd_steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (root / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (root / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "exports:mcp"\n')
    (root / "exports.py").write_text(textwrap.dedent(SERVER).format(formats=formats))
    step = 'Then the server\'s tools match the snapshot "snapshots/tools.json"'
    (root / "features" / "surface.feature").write_text(f"Feature: surface\n  Scenario: the tools\n    {step}\n")


def test_a_project_run_refuses_to_record_in_ci_writes_on_request_and_names_a_breaking_change(tmp_path: Path) -> None:
    _project(tmp_path, '"markdown", "json"')
    snapshot = tmp_path / "snapshots" / "tools.json"
    refused = _mcpbdd("run", "--no-junit", "-f", "plain", cwd=tmp_path, CI="true")
    assert refused.returncode == 1 and "it is never written" in refused.stdout, refused.stdout + refused.stderr
    assert not snapshot.exists()
    written = _mcpbdd("run", "--no-junit", "--update-snapshots", cwd=tmp_path, CI="true")
    assert written.returncode == 0 and snapshot.exists(), written.stdout
    _project(tmp_path, '"markdown"')  # the server drops a format
    broken = _mcpbdd("run", "--no-junit", "-f", "plain", cwd=tmp_path, CI="true")
    assert broken.returncode == 1
    assert (
        'BREAKING: export_notes $.inputSchema.properties.format.enum: the value "json" was dropped' in broken.stdout
    ), broken.stdout
