"""Tool-surface snapshots: what a server offers its clients, kept in the repository and compared on every run.

The surface is each tool's listing as a client receives it (name, title, description,
input and output schemas, annotations), in a JSON file with sorted keys so a change reads
as a small diff in review. `Then the server's tools match the snapshot "PATH"` compares the
server's listing with the file and fails naming every difference, each classed breaking or
not (`mcpbdd.checks.surface_diff`).

Writing the file is always a decision: `mcpbdd run --update-snapshots` (or
`-D mcpbdd.update_snapshots=true`) writes or rewrites it; a missing file is written on a
developer's machine (the first run records it) but fails in CI (`CI` set), so a snapshot
is never made up where nobody reviews it.

From Python: `match_snapshot(tools, "features/snapshots/tools.json", update=False)`.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mcp_types import Tool

from mcpbdd.checks.json_files import load_json_file
from mcpbdd.checks.surface_diff import Difference, diff_surfaces, render_differences
from mcpbdd.checks.surface_pins import Unapproved, approve, pins_of, token_deltas, unapproved
from mcpbdd.surface_lint.visible import reveal

__all__ = [
    "SURFACE_FORMAT",
    "SnapshotMismatch",
    "SnapshotVerdict",
    "approve_changes",
    "in_ci",
    "load_surface",
    "match_snapshot",
    "surface_of",
    "write_surface",
]

SURFACE_FORMAT = "mcpbdd tool surface 1"
"""The file's `format` entry: a file of another format is refused rather than misread."""


class SnapshotMismatch(AssertionError):
    """The server's tools differ from the snapshot (or the snapshot is missing in CI)."""

    def __init__(self, message: str, differences: list[Difference] | None = None) -> None:
        super().__init__(message)
        self.differences = differences or []


@dataclass(frozen=True)
class SnapshotVerdict:
    """What `match_snapshot` did: `matched`, `written` (a new file) or `updated` (with the differences it recorded)."""

    action: Literal["matched", "written", "updated"]
    path: Path
    differences: tuple[Difference, ...] = ()


def in_ci() -> bool:
    """Whether this run is a CI job: `CI` set to anything but empty, 0, false or no (what CI services set)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def surface_of(tools: Iterable[Tool]) -> dict[str, Any]:
    """The surface of a tool listing, as the snapshot file holds it."""
    listed: dict[str, Any] = {}
    for tool in tools:
        body = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        listed[body.pop("name")] = body
    ordered = dict(sorted(listed.items()))
    return {"format": SURFACE_FORMAT, "tools": ordered, "pins": pins_of(ordered)}


def load_surface(path: Path | str) -> dict[str, Any]:
    """Read a surface file; a file that is not one raises ValueError naming the file and why."""
    not_one = f"not a tool surface (expected a JSON object with format {SURFACE_FORMAT!r} and tools)"
    data = load_json_file(path, SURFACE_FORMAT, not_one)
    if not isinstance(data.get("tools"), dict):
        raise ValueError(f"{Path(path)}: {not_one}")
    return data


def write_surface(path: Path | str, surface: dict[str, Any]) -> Path:
    """Write atomically (parallel jobs may write the same snapshot): sorted keys, two-space indent, final newline."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(surface, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(scratch, path)
    return path


def match_snapshot(
    tools: Iterable[Tool], path: Path | str, *, update: bool = False, ci: bool | None = None
) -> SnapshotVerdict:
    """Compare `tools` with the snapshot at `path`; raise SnapshotMismatch listing every difference.

    `update` writes the current surface instead of failing. Without it, a missing snapshot is
    recorded, except in CI (`ci`, default: `in_ci()`), where it fails.
    """
    path = Path(path)
    current = surface_of(tools)
    ci = in_ci() if ci is None else ci
    if not path.exists():
        if ci and not update:
            raise SnapshotMismatch(
                f"the tool snapshot {path} does not exist, and in CI (CI is set) it is never written: "
                "record it on your machine with `mcpbdd run --update-snapshots`, review it and commit it"
            )
        write_surface(path, current)
        return SnapshotVerdict("written", path)
    try:
        recorded = load_surface(path)
    except ValueError as exc:
        if not update:
            raise SnapshotMismatch(f"{exc}; rewrite it with `mcpbdd run --update-snapshots`") from None
        write_surface(path, current)
        return SnapshotVerdict("updated", path)
    differences = diff_surfaces(recorded, current)
    pending = unapproved(recorded, current)
    if not differences and not pending:
        return SnapshotVerdict("matched", path)
    if update:
        write_surface(path, _accepting(recorded, current, pending))
        if pending:
            raise SnapshotMismatch(_unapproved_message(path, recorded, current, pending), differences)
        return SnapshotVerdict("updated", path, tuple(differences))
    text = render_differences(differences) if differences else "no difference in the listings"
    deltas = token_deltas(recorded, current, sorted({d.tool for d in differences}))
    rug = f"\n{_unapproved_message(path, recorded, current, pending)}" if pending else ""
    raise SnapshotMismatch(
        f"The server's tools differ from the snapshot {path}: {text}\n{deltas}{rug}\n"
        "If the change is intended, update the snapshot (`mcpbdd run --update-snapshots`) and commit it; "
        "a breaking change also needs a new major version or a migration path for clients.",
        differences,
    )


def approve_changes(
    tools: Iterable[Tool], path: Path | str, *, by: str, why: str, names: list[str] | None = None
) -> tuple[list[Unapproved], str]:
    """Approve the changes to the pinned parts of `names` (default: every tool waiting) in the snapshot at `path`:
    their current listings and pins are written with who, when and why. Returns what was approved and the token
    deltas; ValueError when the file cannot be read or there is nothing to approve (naming what waits)."""
    path = Path(path)
    recorded, current = load_surface(path), surface_of(tools)
    approved = approve(recorded, current, by=by, why=why, names=names)
    if not approved:
        raise ValueError(f"no tool in {path} waits for an approval: the pinned descriptions and schemas match")
    deltas = token_deltas(load_surface(path), recorded, [change.tool for change in approved])
    write_surface(path, recorded)
    return approved, deltas


def _accepting(recorded: dict[str, Any], current: dict[str, Any], pending: list[Unapproved]) -> dict[str, Any]:
    """The surface `--update-snapshots` writes: the current one, except each tool whose pinned parts changed
    without an approval, which keeps its recorded listing and pin (only an approval accepts it)."""
    kept = {change.tool for change in pending}
    tools = {name: recorded["tools"][name] if name in kept else listing for name, listing in current["tools"].items()}
    recorded_pins = recorded.get("pins") or {}
    pins = {name: recorded_pins.get(name) or pins_of({name: tools[name]})[name] for name in tools}
    return {**current, "tools": tools, "pins": pins}


def _unapproved_message(
    path: Path, recorded: dict[str, Any], current: dict[str, Any], pending: list[Unapproved]
) -> str:
    names = [change.tool for change in pending]
    lines = [f"{len(pending)} tool(s) changed what a model reads since they were pinned in {path}, with no approval:"]
    lines += [reveal(line, 2000) for change in pending for line in str(change).splitlines()]
    lines.append(token_deltas(recorded, current, names))
    lines.append(
        f"Review the change, then record who approves it and why: `mcpbdd surface approve {path} --by NAME "
        f"--why REASON` (or `--tool {names[0]}` for one); --update-snapshots does not accept it."
    )
    return "\n".join(lines)
