"""The shared vocabulary (`mcpbdd.model.kinds`) and text helpers (`mcpbdd._text`): one definition, every edge agrees.

The tests of this concern that start processes are in tests/spawning/test_kinds.py.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from mcpbdd import storage
from mcpbdd._text import MISSING, clip
from mcpbdd.behave import harness_from_tags
from mcpbdd.cli.options import parse_harnesses as _harnesses
from mcpbdd.model import matching
from mcpbdd.model.config import ConfigError, Settings, load_settings
from mcpbdd.model.kinds import (
    CAPABILITIES,
    Capability,
    ClientMode,
    HarnessKind,
    check_capabilities,
    client_mode,
    harness_kind,
    harness_label,
    harness_tag,
    harness_tags,
    parse_harness_tag,
)
from mcpbdd.runner.behave_argv import PINNED_TO_OTHERS


def test_the_enums_are_the_plain_strings_settings_and_tags_use() -> None:
    assert list(HarnessKind) == ["context", "client"]
    assert list(ClientMode) == ["auto", "legacy"]
    assert CAPABILITIES == ("elicitation", "sampling", "roots")
    assert f"{HarnessKind.CLIENT} ({ClientMode.LEGACY})" == "client (legacy)"


def test_unknown_values_name_what_is_accepted() -> None:
    assert harness_kind("client") is HarnessKind.CLIENT
    with pytest.raises(ValueError, match=r"unknown harness 'wire': use one of context, client"):
        harness_kind("wire")
    with pytest.raises(ValueError, match=r"unknown client mode 'modern': use one of auto, legacy"):
        client_mode("modern")


def test_one_capability_check_orders_and_deduplicates() -> None:
    assert check_capabilities(["roots", "sampling", "roots"]) == (Capability.ROOTS, Capability.SAMPLING)
    assert check_capabilities([]) == ()
    with pytest.raises(ValueError, match=r"unknown capabilities \['telepathy'\]: use any of elicitation, sampling"):
        check_capabilities(["roots", "telepathy"])


@pytest.mark.parametrize(
    ("tag", "pinned"),
    [
        ("harness.context", (HarnessKind.CONTEXT, None)),
        ("harness.client", (HarnessKind.CLIENT, None)),
        ("harness.client.auto", (HarnessKind.CLIENT, ClientMode.AUTO)),
        ("harness.client.legacy", (HarnessKind.CLIENT, ClientMode.LEGACY)),
        ("era.modern", None),
    ],
)
def test_harness_tags_round_trip(tag: str, pinned: tuple[HarnessKind, ClientMode | None] | None) -> None:
    assert parse_harness_tag(tag) == pinned
    if pinned is not None:
        assert harness_tag(*pinned) == tag


@pytest.mark.parametrize("tag", ["harness.wire", "harness.context.legacy", "harness.client.modern", "harness."])
def test_a_misspelt_harness_tag_fails(tag: str) -> None:
    with pytest.raises(ValueError, match=r"use @harness.context, @harness.client or @harness.client.legacy"):
        parse_harness_tag(tag)


def test_only_the_client_harness_has_modes() -> None:
    with pytest.raises(ValueError, match="only the client harness has modes"):
        harness_tag("context", "legacy")
    assert harness_tags("context") == ("harness.context",)
    assert harness_tags("client") == ("harness.client", "harness.client.auto", "harness.client.legacy")


def test_the_hooks_read_tags_over_the_settings() -> None:
    settings = Settings(harness=HarnessKind.CONTEXT, client_mode=ClientMode.LEGACY)
    assert harness_from_tags([], settings) == ("context", "legacy")
    assert harness_from_tags(["wip", "harness.client"], settings) == ("client", "legacy")
    assert harness_from_tags(["harness.client.auto"], settings) == ("client", "auto")


def test_labels_say_legacy_only_on_the_client_harness() -> None:
    assert harness_label("context", "legacy") == "context"
    assert harness_label("client", "auto") == "client"
    assert harness_label("client", "legacy") == "client, legacy"
    assert harness_label("client", "legacy", noun="harness") == "client harness, legacy"


def test_the_command_line_pins_from_the_same_tags() -> None:
    assert PINNED_TO_OTHERS[HarnessKind.CONTEXT] == (
        "not @harness.client and not @harness.client.auto and not @harness.client.legacy"
    )
    assert PINNED_TO_OTHERS[HarnessKind.CLIENT] == "not @harness.context"
    assert _harnesses("both") == ["context", "client"]
    assert _harnesses("client, context, client") == ["client", "context"]


def test_settings_hold_the_enums_and_check_capabilities_once(tmp_path: Path) -> None:
    settings = load_settings({"mcpbdd.harness": "client", "mcpbdd.capabilities": "roots"}, start=tmp_path)
    assert settings.harness is HarnessKind.CLIENT
    assert settings.capabilities == (Capability.ROOTS,)
    with pytest.raises(ConfigError, match=r"unknown capabilities \['telepathy'\]"):
        load_settings({"mcpbdd.capabilities": "telepathy"}, start=tmp_path)


def test_clip_cuts_with_one_ellipsis() -> None:
    assert clip("short") == "short"
    assert clip("a  b\n c") == "a b c"
    assert clip("a  b\n c", flat=False) == "a  b\n c"
    assert clip("x" * 10, 5) == "xxxx…"
    assert len(clip("word " * 100, 40)) == 40


def test_one_missing_sentinel_for_matching_and_storage() -> None:
    assert matching.MISSING is storage.MISSING is MISSING
    assert not MISSING
    assert repr(MISSING) == "MISSING"
    assert type(MISSING)() is MISSING
    assert pickle.loads(pickle.dumps(MISSING)) is MISSING
