"""Tool-surface snapshots: every kind of difference classed and named, and when a snapshot may be written.

The tests of this concern that start processes are in tests/spawning/test_surface.py.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp_types import Tool

from mcpbdd.checks.surface import SURFACE_FORMAT, SnapshotMismatch, match_snapshot, surface_of
from mcpbdd.checks.surface_diff import diff_surfaces

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
    tool: dict[str, Any] = tools["export_notes"]
    return tool


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


def test_a_mismatch_fails_naming_each_difference_and_update_records_an_added_tool(tmp_path: Path) -> None:
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
    archive = Tool(name="archive", input_schema={})
    # update records an added tool; a changed one needs an approval (tests/test_surface_pins.py)
    verdict = match_snapshot([*TOOLS, archive], path, update=True, ci=True)
    assert verdict.action == "updated" and len(verdict.differences) == 1
    assert match_snapshot([*TOOLS, archive], path, ci=True).action == "matched"


def test_a_file_that_is_not_a_snapshot_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text('{"tools": []}')
    with pytest.raises(SnapshotMismatch, match="not a tool surface"):
        match_snapshot(TOOLS, path, ci=False)
