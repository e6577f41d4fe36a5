"""Tests for mcpbdd.model.matching: the JSON matcher behind every JSON assertion."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpbdd.model.matching import (
    MARKERS,
    MISSING,
    Mismatch,
    assert_contains,
    assert_matches,
    contains,
    escape,
    matches,
    render,
)

BOTH = pytest.mark.parametrize("match", [contains, matches], ids=["contains", "matches"])

UUID = "123e4567-e89b-12d3-a456-426614174000"


def lines(mismatches: list[Mismatch]) -> list[str]:
    return render(mismatches, limit=1000).splitlines()


# --------------------------------------------------------------------------- markers


MARKER_CASES: list[tuple[str, list[Any], list[Any]]] = [
    ("#string", ["", "x", "#not a marker"], [1, None, True, [], {}]),
    ("#number", [0, -3, 1.5, 10**20], [True, False, "1", None, [1]]),
    ("#boolean", [True, False], [0, 1, "true", None]),
    ("#array", [[], [1, "a"]], [{}, "[]", None]),
    ("#object", [{}, {"a": 1}], [[], "{}", None]),
    ("#null", [None], [0, "", False, "null", []]),
    ("#notnull", [0, "", False, [], {}], [None]),
    ("#present", [None, 0, "", {}, []], []),
    ("#ignore", [None, 0, "x", {"a": 1}], []),
    (
        "#uuid",
        [UUID, UUID.upper(), "00000000-0000-0000-0000-000000000000", "01890a5d-ac96-774b-bcce-b302099a8057"],
        [
            "",
            "123e4567e89b12d3a456426614174000",
            "{123e4567-e89b-12d3-a456-426614174000}",
            "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
            "123e4567-e89b-12d3-a456-42661417400",
            "123e4567-e89b-12d3-a456-42661417400g",
            UUID + "\n",
            1,
        ],
    ),
    (
        "#iso-datetime",
        [
            "2024-05-01T12:30:00Z",
            "2024-05-01T12:30:00z",
            "2024-05-01T12:30:00.123456+02:00",
            "2024-05-01T12:30:00-05:30",
            "2024-05-01t12:30:00+00:00",
            "20240501T123000+0000",
        ],
        [
            "2024-05-01T12:30:00",  # no time zone
            "2024-05-01",  # a date only
            "2024-05-01+02:00",  # a date only; fromisoformat would silently drop the offset
            "2024-05-01x12:30:00Z",  # fromisoformat takes any separator; ISO 8601 wants T
            "2024-05-01 12:30:00Z",
            "2024-13-01T12:30:00Z",
            "2024-05-01T25:30:00Z",
            "yesterday",
            "Z",
            "",
            1714566600,
            None,
        ],
    ),
    ("#regex [a-z]+-\\d{3}", ["ab-123", "z-000"], ["AB-123", "ab-1234", "xab-123x", "ab-12", 123, None]),
    ("#regex ", [""], ["x"]),
]


@BOTH
@pytest.mark.parametrize(("marker", "good"), [(marker, value) for marker, goods, _ in MARKER_CASES for value in goods])
def test_marker_accepts(match: Any, marker: str, good: Any) -> None:
    assert match(marker, good) == []
    assert match({"v": marker}, {"v": good}) == []
    assert match([marker], [good]) == []


@BOTH
@pytest.mark.parametrize(("marker", "bad"), [(marker, value) for marker, _, bads in MARKER_CASES for value in bads])
def test_marker_rejects(match: Any, marker: str, bad: Any) -> None:
    assert match({"v": marker}, {"v": bad}) == [
        Mismatch("$.v", marker, bad, f"expected {marker}, got {json.dumps(bad, separators=(',', ':'))}")
    ]


def test_every_marker_has_cases() -> None:
    covered = {marker.split(" ")[0] for marker, _, _ in MARKER_CASES} | {"#notpresent"}
    assert covered == {marker.split(" ")[0] for marker in MARKERS}


@BOTH
def test_regex_is_a_full_match_and_may_contain_spaces(match: Any) -> None:
    assert match("#regex a b", "a b") == []
    assert match("#regex a", "ab") != []
    assert match("#regex b", "ab") != []
    assert match("#regex (?i)hello", "HeLLo") == []


@BOTH
def test_notpresent_passes_when_key_is_absent(match: Any) -> None:
    assert match({"id": 1, "secret": "#notpresent"}, {"id": 1}) == []


@BOTH
def test_notpresent_fails_when_key_is_present_even_with_null(match: Any) -> None:
    assert match({"secret": "#notpresent"}, {"secret": None}) == [
        Mismatch("$.secret", "#notpresent", None, "expected #notpresent, got null")
    ]
    assert lines(match({"secret": "#notpresent"}, {"secret": "hunter2"})) == [
        '$.secret: expected #notpresent, got "hunter2"'
    ]


def test_notpresent_as_an_array_item_or_root_fails_for_any_value() -> None:
    assert lines(matches(["#notpresent"], [1])) == ["$[0]: expected #notpresent, got 1"]
    assert lines(contains("#notpresent", {})) == ["$: expected #notpresent, got {}"]


@BOTH
def test_ignore_accepts_an_absent_key(match: Any) -> None:
    assert match({"a": 1, "b": "#ignore"}, {"a": 1}) == []


@BOTH
@pytest.mark.parametrize("marker", ["#present", "#notnull", "#null", "#string", "#uuid", "#regex .*"])
def test_markers_other_than_ignore_and_notpresent_require_the_key(match: Any, marker: str) -> None:
    assert match({"a": marker}, {}) == [Mismatch("$.a", marker, MISSING, "missing")]
    assert lines(match({"a": marker}, {})) == [f"$.a: missing (expected {marker})"]


def test_present_accepts_null_but_notnull_does_not() -> None:
    assert contains({"a": "#present"}, {"a": None}) == []
    assert lines(contains({"a": "#notnull"}, {"a": None})) == ["$.a: expected #notnull, got null"]


# --------------------------------------------------------------------------- unknown markers and escaping


@BOTH
@pytest.mark.parametrize("typo", ["#strin", "#", "#String", "#string ", "#regex", "#regexp x", "#uuid4"])
def test_unknown_marker_raises_naming_it_and_listing_the_markers(match: Any, typo: str) -> None:
    with pytest.raises(ValueError) as error:
        match({"a": [typo]}, {"a": ["whatever"]})
    message = str(error.value)
    assert repr(typo) in message
    assert "$.a[0]" in message
    for marker in MARKERS:
        assert marker in message
    assert "##" in message


@BOTH
def test_unknown_marker_is_reported_even_where_comparison_would_not_reach(match: Any) -> None:
    """The whole expected document is checked up front, so a typo never hides behind another failure."""
    with pytest.raises(ValueError, match="#nul"):
        match({"a": {"b": "#nul"}}, {"a": 5})
    with pytest.raises(ValueError, match="#nul"):
        match({"a": "#ignore", "b": ["#nul"]}, {})


@BOTH
def test_invalid_regex_raises(match: Any) -> None:
    with pytest.raises(ValueError, match=r"Invalid pattern in '#regex \(unclosed' at \$\.a"):
        match({"a": "#regex (unclosed"}, {"a": "x"})


@BOTH
def test_double_hash_is_a_literal_hash_string(match: Any) -> None:
    assert match({"tag": "##string"}, {"tag": "#string"}) == []
    assert match("##", "#") == []
    assert match("###x", "##x") == []
    assert match({"tag": "##string"}, {"tag": "hello"}) == [
        Mismatch("$.tag", "##string", "hello", 'expected "#string", got "hello"')
    ]
    assert lines(match({"tag": "##string"}, {"tag": "##string"})) == ['$.tag: expected "#string", got "##string"']
    assert lines(match({"tag": "##x"}, {})) == ['$.tag: missing (expected "#x")']


def test_strings_in_actual_and_keys_are_never_markers() -> None:
    assert matches("x", "#string") != []
    assert matches({"#string": 1}, {"#string": 1}) == []
    assert lines(matches({"#string": 1}, {"x": 1})) == [
        '$["#string"]: missing (expected 1)',
        "$.x: unexpected key (value 1)",
    ]


def test_escape() -> None:
    assert escape({"#k": ["#a", "##b", "c", 1, None, {"d": "#e"}]}) == {
        "#k": ["##a", "###b", "c", 1, None, {"d": "##e"}]
    }
    assert escape(("#x",)) == ["##x"]


# --------------------------------------------------------------------------- subset versus exact


def test_contains_ignores_extra_keys_at_every_depth() -> None:
    actual = {"id": 1, "note": {"title": "a", "body": "b", "tags": [{"name": "x", "color": "red"}]}, "total": 1}
    assert contains({"note": {"tags": [{"name": "x"}]}}, actual) == []
    assert contains({}, actual) == []


def test_matches_reports_extra_keys_at_every_depth() -> None:
    actual = {"id": 1, "note": {"title": "a", "tags": [{"name": "x", "color": "red"}]}}
    expected = {"note": {"title": "a", "tags": [{"name": "x"}]}}
    assert matches(expected, actual) == [
        Mismatch("$.note.tags[0].color", MISSING, "red", "unexpected key"),
        Mismatch("$.id", MISSING, 1, "unexpected key"),
    ]
    assert lines(matches(expected, actual)) == [
        '$.note.tags[0].color: unexpected key (value "red")',
        "$.id: unexpected key (value 1)",
    ]


@BOTH
def test_missing_keys_are_reported_with_nested_paths(match: Any) -> None:
    expected = {"notes": [{"id": "#uuid", "title": "Groceries"}]}
    actual = {"notes": [{"title": "Grocery"}]}
    assert match(expected, actual) == [
        Mismatch("$.notes[0].id", "#uuid", MISSING, "missing"),
        Mismatch("$.notes[0].title", "Groceries", "Grocery", 'expected "Groceries", got "Grocery"'),
    ]
    assert lines(match(expected, actual)) == [
        "$.notes[0].id: missing (expected #uuid)",
        '$.notes[0].title: expected "Groceries", got "Grocery"',
    ]


@BOTH
def test_keys_that_are_not_identifiers_are_bracketed(match: Any) -> None:
    expected = {"a b": {"x-y": [{"1st": 1, "ok_2": 2, "é": 3, "": 4, 'q"': 5}]}}
    actual = {"a b": {"x-y": [{"1st": 0, "ok_2": 0, "é": 0, "": 0, 'q"': 0}]}}
    assert [m.path for m in match(expected, actual)] == [
        '$["a b"]["x-y"][0]["1st"]',
        '$["a b"]["x-y"][0].ok_2',
        '$["a b"]["x-y"][0]["é"]',
        '$["a b"]["x-y"][0][""]',
        '$["a b"]["x-y"][0]["q\\""]',
    ]


@BOTH
@pytest.mark.parametrize(
    ("expected", "actual", "reason"),
    [
        ({"a": 1}, [1], "expected an object, got an array"),
        ({"a": 1}, None, "expected an object, got null"),
        ({}, "x", "expected an object, got a string"),
        ([1], {"0": 1}, "expected an array, got an object"),
        ([], 0, "expected an array, got a number"),
        ([], True, "expected an array, got a boolean"),
        ("x", {"a": 1}, 'expected "x", got {"a":1}'),
        (1, "1", 'expected 1, got "1"'),
        (None, 0, "expected null, got 0"),
        (0, None, "expected 0, got null"),
        ("", None, 'expected "", got null'),
    ],
)
def test_type_differences(match: Any, expected: Any, actual: Any, reason: str) -> None:
    assert match({"v": expected}, {"v": actual}) == [Mismatch("$.v", expected, actual, reason)]


# --------------------------------------------------------------------------- numbers and booleans


@BOTH
@pytest.mark.parametrize(("expected", "actual"), [(1, 1.0), (1.0, 1), (0, -0.0), (-2, -2.0), (10**15, 1e15)])
def test_ints_and_floats_compare_by_value(match: Any, expected: Any, actual: Any) -> None:
    assert match({"n": expected}, {"n": actual}) == []


@BOTH
def test_number_comparison_is_exact(match: Any) -> None:
    assert match(1, 1.0000001) != []
    assert match(2**53 + 1, float(2**53)) != []


@BOTH
@pytest.mark.parametrize(("expected", "actual"), [(True, 1), (1, True), (False, 0), (0, False), (1.0, True)])
def test_booleans_are_not_numbers(match: Any, expected: Any, actual: Any) -> None:
    assert match({"b": expected}, {"b": actual}) == [
        Mismatch("$.b", expected, actual, f"expected {json.dumps(expected)}, got {json.dumps(actual)}")
    ]


@BOTH
def test_booleans_equal_booleans(match: Any) -> None:
    assert match([True, False], [True, False]) == []
    assert lines(match([True], [False])) == ["$[0]: expected true, got false"]


# --------------------------------------------------------------------------- arrays


@BOTH
def test_arrays_match_positionally(match: Any) -> None:
    assert match([1, 2, 3], [1, 2, 3]) == []
    assert lines(match([1, 2, 3], [1, 3, 2])) == ["$[1]: expected 2, got 3", "$[2]: expected 3, got 2"]


@BOTH
def test_arrays_must_have_the_same_length(match: Any) -> None:
    assert match({"a": [1, {"x": 2}]}, {"a": [1]}) == [Mismatch("$.a[1]", {"x": 2}, MISSING, "missing item")]
    assert lines(match({"a": [1, {"x": 2}]}, {"a": [1]})) == ['$.a[1]: missing item (expected {"x":2})']
    assert match({"a": [1]}, {"a": [1, "two", 3]}) == [
        Mismatch("$.a[1]", MISSING, "two", "unexpected item"),
        Mismatch("$.a[2]", MISSING, 3, "unexpected item"),
    ]
    assert lines(match({"a": [1]}, {"a": [1, "two"]})) == ['$.a[1]: unexpected item (value "two")']
    assert lines(match([], [None])) == ["$[0]: unexpected item (value null)"]


def test_contains_matches_array_elements_as_subsets_but_matches_does_not() -> None:
    expected = {"notes": [{"title": "a"}, {"title": "b"}]}
    actual = {"notes": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}
    assert contains(expected, actual) == []
    assert lines(matches(expected, actual)) == [
        "$.notes[0].id: unexpected key (value 1)",
        "$.notes[1].id: unexpected key (value 2)",
    ]


@BOTH
def test_ignore_skips_array_positions_but_not_the_length(match: Any) -> None:
    assert match(["#ignore", {"title": "b"}], [{"anything": True}, {"title": "b"}]) == []
    assert lines(match(["#ignore", "#ignore"], [1])) == ["$[1]: missing item (expected #ignore)"]


@BOTH
def test_markers_inside_nested_arrays(match: Any) -> None:
    expected = {"rows": [["#number", "#string"], ["#number", "#regex \\d+"]]}
    assert match(expected, {"rows": [[1, "a"], [2.5, "42"]]}) == []
    assert lines(match(expected, {"rows": [[1, "a"], ["2", "x"]]})) == [
        '$.rows[1][0]: expected #number, got "2"',
        '$.rows[1][1]: expected #regex \\d+, got "x"',
    ]


def test_tuples_count_as_arrays() -> None:
    assert matches([1, [2]], (1, (2,))) == []
    assert matches({"a": "#array"}, {"a": ()}) == []


def test_a_realistic_tool_result() -> None:
    actual = {
        "note": {
            "id": UUID,
            "title": "Groceries",
            "created_at": "2024-05-01T12:30:00.123+00:00",
            "tags": ["home", "#weekly"],
            "archived": False,
            "body": None,
        },
        "count": 1,
    }
    expected = {
        "note": {
            "id": "#uuid",
            "title": "Groceries",
            "created_at": "#iso-datetime",
            "tags": ["#string", "##weekly"],
            "archived": "#boolean",
            "body": "#null",
            "deleted_at": "#notpresent",
        },
        "count": 1.0,
    }
    assert contains(expected, actual) == []
    assert matches(expected, actual) == []
    assert contains({"note": {"title": "Groceries"}}, actual) == []
    assert lines(matches({"note": {"title": "Groceries"}, "count": 1}, actual)) == [
        '$.note.id: unexpected key (value "123e4567-e89b-12d3-a456-426614174000")',
        '$.note.created_at: unexpected key (value "2024-05-01T12:30:00.123+00:00")',
        '$.note.tags: unexpected key (value ["home","#weekly"])',
        "$.note.archived: unexpected key (value false)",
        "$.note.body: unexpected key (value null)",
    ]


# --------------------------------------------------------------------------- render and assertions


def test_render_empty_is_empty() -> None:
    assert render([]) == ""


def test_render_truncates_long_values() -> None:
    long_text = "x" * 500
    (line,) = lines(matches({"a": "short"}, {"a": long_text}))
    assert line.startswith('$.a: expected "short", got "xxx')
    assert line.endswith("…")
    assert len(line) < len('$.a: expected "short", got ') + 125
    (line,) = lines(matches({}, {"big": list(range(1000))}))
    assert line.startswith("$.big: unexpected key (value [0,1,2,")
    assert line.endswith("…)")
    assert len(line) < len("$.big: unexpected key (value )") + 125


def test_render_keeps_values_of_exactly_the_limit() -> None:
    value = "y" * 118  # 120 characters once quoted
    (line,) = lines(matches({}, {"k": value}))
    assert line == f'$.k: unexpected key (value "{value}")'


def test_render_limit() -> None:
    found = matches({}, {f"k{i}": i for i in range(25)})
    text = render(found)
    assert text.splitlines()[:2] == ["$.k0: unexpected key (value 0)", "$.k1: unexpected key (value 1)"]
    assert len(text.splitlines()) == 21
    assert text.splitlines()[-1] == "… and 5 more"
    assert render(found, limit=3).splitlines() == [
        "$.k0: unexpected key (value 0)",
        "$.k1: unexpected key (value 1)",
        "$.k2: unexpected key (value 2)",
        "… and 22 more",
    ]
    assert render(found, limit=25).splitlines()[-1] == "$.k24: unexpected key (value 24)"
    assert render(found, limit=0) == "… and 25 more"


def test_render_uses_the_reason_for_hand_made_mismatches() -> None:
    assert render([Mismatch("$.x", 1, 2, "custom words")]) == "$.x: custom words"


def test_render_non_ascii_and_non_json_values() -> None:
    assert lines(matches({"a": "é"}, {"a": "è"})) == ['$.a: expected "é", got "è"']
    assert lines(matches({"a": 1}, {"a": {1, 2}})) == ['$.a: expected 1, got "{1, 2}"']


def test_assert_contains_passes_silently() -> None:
    assert_contains({"a": 1}, {"a": 1, "b": 2})
    assert_matches({"a": "#number", "b": "#ignore"}, {"a": 1})


def test_assert_contains_message() -> None:
    actual = {"notes": [{"title": "Grocery"}], "extra": 3}
    with pytest.raises(AssertionError) as error:
        assert_contains({"notes": [{"id": "#uuid", "title": "Groceries"}]}, actual)
    assert str(error.value) == (
        "The structured result does not contain what was expected:\n"
        "$.notes[0].id: missing (expected #uuid)\n"
        '$.notes[0].title: expected "Groceries", got "Grocery"\n'
        "\n"
        "The actual structured result:\n" + json.dumps(actual, indent=2)
    )


def test_assert_matches_message_and_what() -> None:
    with pytest.raises(AssertionError) as error:
        assert_matches({"a": 1}, {"a": 1, "extra": 3}, what="resource contents")
    message = str(error.value)
    assert message.startswith(
        "The resource contents does not match what was expected:\n$.extra: unexpected key (value 3)"
    )
    assert '"extra": 3' in message


def test_assertion_truncates_the_actual_value() -> None:
    actual = {"items": [f"item number {i}" for i in range(1000)]}
    with pytest.raises(AssertionError) as error:
        assert_contains({"missing": 1}, actual)
    message = str(error.value)
    shown = message.split("The actual structured result:\n", 1)[1]
    assert len(shown) <= 2000
    assert shown.endswith("…")
    assert shown.startswith('{\n  "items": [\n    "item number 0",')


def test_assertion_error_limits_mismatch_lines() -> None:
    with pytest.raises(AssertionError, match="… and 10 more"):
        assert_matches({}, {f"k{i}": i for i in range(30)})


def test_unknown_marker_in_assertion_raises_value_error() -> None:
    with pytest.raises(ValueError, match="#strin"):
        assert_contains({"a": "#strin"}, {"a": "x"})


def test_mismatch_is_frozen() -> None:
    mismatch = Mismatch("$", 1, 2, "r")
    with pytest.raises(AttributeError):
        mismatch.path = "$.x"  # type: ignore[misc]
    assert repr(MISSING) == "MISSING"


# --------------------------------------------------------------------------- properties

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
plain_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text().filter(lambda text: not text.startswith("#"))
)


def json_values(scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
        max_leaves=30,
    )


@given(json_values(plain_scalars))
def test_every_value_matches_itself(value: Any) -> None:
    assert contains(value, value) == []
    assert matches(value, value) == []


@given(json_values(json_scalars))
def test_every_escaped_value_matches_the_original(value: Any) -> None:
    assert contains(escape(value), value) == []
    assert matches(escape(value), value) == []


@given(json_values(plain_scalars))
def test_every_value_survives_a_json_round_trip(value: Any) -> None:
    assert matches(value, json.loads(json.dumps(value))) == []


@given(
    st.dictionaries(st.text(max_size=8), json_values(plain_scalars), max_size=5),
    st.text(max_size=8),
    json_values(json_scalars),
)
def test_an_extra_key_breaks_matches_but_not_contains(expected: dict[str, Any], key: str, extra: Any) -> None:
    actual = {**expected, key: extra} if key not in expected else expected
    assert contains(expected, actual) == []
    assert len(matches(expected, actual)) == (0 if key in expected else 1)


@given(json_values(plain_scalars), json_values(plain_scalars))
def test_matches_implies_contains(expected: Any, actual: Any) -> None:
    if matches(expected, actual) == []:
        assert contains(expected, actual) == []
