"""The package's shape stays readable: one public front, a short top level, no module too long to hold in mind.

These are the layout's promises from docs/reference/layout.md: what `import mcpbdd` names, no loose module at the
top but the front, the hooks and private seams, no module past 600 lines, every public module saying what it
exports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mcpbdd"


def test_the_front_names_every_public_name_and_loads_each_one() -> None:
    import mcpbdd

    assert mcpbdd.__version__
    assert {"World", "Outcome", "Channel", "ContextHarness", "ClientHarness", "MockContext", "Principal"} <= set(
        mcpbdd.__all__
    )
    assert {"acting_as", "Doubles", "scenario_doubles", "expect", "answers", "Call"} <= set(mcpbdd.__all__)
    missing = [name for name in mcpbdd.__all__ if getattr(mcpbdd, name, None) is None]
    assert missing == []
    with pytest.raises(AttributeError, match="no attribute 'Wrold'"):
        _ = mcpbdd.Wrold  # type: ignore[attr-defined]


def test_the_top_level_holds_only_the_front_the_hooks_and_private_seams() -> None:
    loose = sorted(
        path.name
        for path in PACKAGE.glob("*.py")
        if path.name not in {"__init__.py", "behave.py"} and not path.name.startswith("_")
    )
    assert loose == [], f"loose modules at the top of mcpbdd/: {', '.join(loose)}; put each in the package of its layer"
