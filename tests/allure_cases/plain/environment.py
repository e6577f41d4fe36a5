"""Hooks that fail on purpose, for the formatter's hook-failure cases."""

from typing import Any


def before_feature(context: Any, feature: Any) -> None:
    if "fail_before_feature" in feature.tags:
        raise RuntimeError("the feature's set-up exploded (on purpose)")


def before_scenario(context: Any, scenario: Any) -> None:
    if "fail_before_scenario" in scenario.effective_tags:
        raise RuntimeError("the scenario's set-up exploded (on purpose)")
