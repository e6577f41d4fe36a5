"""Storage diffs: what "the storage is unchanged" reports when it is not."""

from __future__ import annotations

import pytest

from mcpbdd.storage import StorageDiff, diff, same_json


def test_diff_finds_added_removed_and_changed_keys() -> None:
    before = {"notes/n-1": {"title": "A"}, "notes/n-2": {"title": "B"}, "same": [1, 2]}
    after = {"notes/n-2": {"title": "B2"}, "notes/n-3": {"title": "C"}, "same": [1, 2]}
    result = diff(before, after)
    assert result.added == {"notes/n-3": {"title": "C"}}
    assert result.removed == {"notes/n-1": {"title": "A"}}
    assert result.changed == {"notes/n-2": ({"title": "B"}, {"title": "B2"})}
    assert bool(result) is True


def test_equal_snapshots_make_an_empty_diff() -> None:
    state = {"a": {"x": [1, {"y": None}]}, "b": "text"}
    result = diff(state, {"a": {"x": [1, {"y": None}]}, "b": "text"})
    assert not result
    assert result == StorageDiff()
    assert result.render() == "(no changes)"


@pytest.mark.parametrize(
    ("old", "new"),
    [(1, True), (0, False), (1, 1.0), ({"n": 1}, {"n": True}), ([1], [1.0]), ("1", 1), (None, {})],
)
def test_json_types_matter_even_where_python_equality_does_not(old: object, new: object) -> None:
    assert not same_json(old, new)
    assert diff({"k": old}, {"k": new}).changed == {"k": (old, new)}


def test_render_is_sorted_and_readable() -> None:
    before = {"notes/n-1": {"title": "A"}, "notes/n-2": {"title": "B"}}
    after = {"notes/n-2": {"title": "B2"}, "notes/n-3": {"title": "C", "tags": ["x"]}, "audit/1": "caf\u00e9"}
    assert diff(before, after).render() == "\n".join(
        [
            '+ audit/1 = "caf\u00e9"',
            '- notes/n-1 (was {"title": "A"})',
            '~ notes/n-2: {"title": "B"} -> {"title": "B2"}',
            '+ notes/n-3 = {"tags": ["x"], "title": "C"}',
        ]
    )


def test_render_cuts_huge_values() -> None:
    line = diff({}, {"blob": "x" * 5000}).render()
    assert line.startswith('+ blob = "xxx') and line.endswith("…")
    assert len(line) < 400


def test_dict_order_alone_is_no_change() -> None:
    before = {f"k{i}": {"a": i, "b": [i, {"c": True}]} for i in range(50)}
    after = {f"k{i}": {"b": [i, {"c": True}], "a": i} for i in range(50)}
    assert not diff(before, after)


def test_one_type_change_among_many_equal_values_is_found() -> None:
    before = {f"k{i:03d}": {"n": i, "flag": True, "ratio": 0.5} for i in range(500)}
    after = {key: dict(value) for key, value in before.items()}
    after["k250"]["flag"] = 1
    after["k499"]["ratio"] = 0.5  # same value and type: not a change
    result = diff(before, after)
    assert list(result.changed) == ["k250"]
    assert result.changed["k250"][1] == {"n": 250, "flag": 1, "ratio": 0.5}
