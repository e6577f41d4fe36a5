"""Which inputs generated calls send: about half drawn from the input schema, the rest adversarial.

Inputs from the schema come from hypothesis, seeded, so a run is reproducible: with
hypothesis-jsonschema when it can handle the schema and works with the installed
hypothesis, otherwise with mcpbdd's own strategy (`strategies.py`), and the notes say which.
Generation only borrows hypothesis's engine to draw values: no call is made inside it; the
calls are made afterwards, one by one, by the runner.
"""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

from jsonschema.exceptions import SchemaError

from mcpbdd._hypothesis import hypothesis_storage_outside_the_project, hypothesis_without_local_constants
from mcpbdd._text import clip
from mcpbdd.checks.generated.adversarial import DEEP, adversarial_inputs
from mcpbdd.checks.generated.strategies import schema_strategy
from mcpbdd.checks.schema import schema_problems, validator

__all__ = ["Generator", "generate_inputs", "plan_inputs"]

Generator = Literal["auto", "hypothesis-jsonschema", "builtin"]
"""Which schema generator: hypothesis-jsonschema with mcpbdd's own as fallback, only the one, or only the other."""

_FROM_SCHEMA = "generated from the input schema"


def plan_inputs(
    schema: Any, n: int, seed: int, generator: Generator = "auto", depth: int = DEEP
) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """The `n` inputs to send, each with its source, and notes on how they were made.

    About half are adversarial (round-robin over the kinds of adversarial value, so a small
    `n` still tries each kind; `depth` is how deep the nested ones go), the rest are
    generated from the schema; when the schema allows fewer distinct inputs than asked for,
    the list is filled up by repeating it.
    """
    adversarial = adversarial_inputs(schema, depth)
    wanted_generated = n - min(len(adversarial), (n + 1) // 2)
    generated, notes = generate_inputs(schema, wanted_generated, seed, generator)
    plan: list[tuple[str, dict[str, Any]]] = [(_FROM_SCHEMA, value) for value in generated]
    plan.extend(adversarial[: n - len(plan)])
    if not plan:
        plan = [(_FROM_SCHEMA, {})]
    repeated = 0
    while len(plan) < n:
        plan.append(plan[repeated % len(plan)])
        repeated += 1
    if repeated:
        notes.append(f"the schema allows few distinct inputs: {repeated} of the {n} calls repeat earlier inputs")
    return plan, notes


@hypothesis_storage_outside_the_project()  # building a strategy already writes hypothesis's unicode tables
def generate_inputs(schema: Any, count: int, seed: int, generator: Generator = "auto") -> tuple[list[Any], list[str]]:
    """Up to `count` distinct inputs drawn from `schema` by hypothesis (seeded), and notes on how.

    Duplicates are dropped, so a schema with few possible inputs yields fewer than `count`.
    Keys the schema does not name are not generated at the top level (the adversarial
    inputs add those): arbitrary extra keys with arbitrary JSON values made up most of
    the generation time and reach no tool code, since the SDK drops unknown arguments.
    """
    if count <= 0:
        return [], []
    notes: list[str] = []
    valid = _validity(schema, notes)
    closed = _closed(schema)
    if generator in ("auto", "hypothesis-jsonschema"):
        problem = _hypothesis_jsonschema_problem()
        if problem is None:
            try:
                from hypothesis_jsonschema import from_schema

                return _distinct(_collect(from_schema(closed), count, seed)), notes
            except Exception as exc:
                problem = f"cannot generate from this input schema ({_error(exc)})"
        if generator == "hypothesis-jsonschema":
            raise RuntimeError(f"hypothesis-jsonschema is not usable: {problem}")
        notes.append(f"inputs from mcpbdd's own schema strategy: hypothesis-jsonschema {problem}")
    strategy = schema_strategy(closed)
    if valid is not None:
        strategy = strategy.filter(valid)
    try:
        return _distinct(_collect(strategy, count, seed)), notes
    except Exception as exc:
        notes.append(f"no inputs could be generated from the input schema ({_error(exc)}); only adversarial ones")
        return [], notes


def _closed(schema: Any) -> Any:
    """The schema with `additionalProperties: false` at the top level when it says nothing about extra keys."""
    if isinstance(schema, Mapping) and schema.get("type") == "object" and "additionalProperties" not in schema:
        return {**schema, "additionalProperties": False}
    return schema


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {clip(str(exc), 200)}" if str(exc) else repr(exc)


def _validity(schema: Any, notes: list[str]) -> Callable[[Any], bool] | None:
    problems = schema_problems(schema)
    if problems:
        notes.append(
            "the input schema is not valid JSON Schema (" + "; ".join(str(p) for p in problems[:3]) + "): "
            "inputs were generated from what could be read of it"
        )
        return None
    try:
        return validator(schema).is_valid
    except SchemaError:
        return None


_HJ_PROBLEM: list[str | None] = []


def _hypothesis_jsonschema_problem() -> str | None:
    """Why hypothesis-jsonschema cannot be used here (None if it can): probed once per process on a tiny schema."""
    if not _HJ_PROBLEM:
        try:
            from hypothesis_jsonschema import from_schema

            probe: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
            _collect(from_schema(probe), 2, 0)
            _HJ_PROBLEM.append(None)
        except ImportError:
            _HJ_PROBLEM.append("is not installed (pip install hypothesis-jsonschema)")
        except Exception as exc:
            _HJ_PROBLEM.append(
                f"{_version('hypothesis-jsonschema')} does not work with hypothesis {_version('hypothesis')} "
                f"({type(exc).__name__}: {clip(str(exc), 100)}; 0.23.1 needs hypothesis < 6.170.10)"
            )
    return _HJ_PROBLEM[0]


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _collect(strategy: Any, count: int, seed: int) -> list[Any]:
    """Draw `count` examples with hypothesis's engine, seeded (generation only: nothing is tested here)."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as with_seed

    drawn: list[Any] = []

    @with_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        derandomize=False,
        print_blob=False,
    )
    @given(strategy)
    def draw(value: Any) -> None:
        drawn.append(value)

    with hypothesis_without_local_constants():  # the same seed, the same inputs, whatever else is loaded
        draw()
    return drawn


def _distinct(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    unique: list[Any] = []
    for value in values:
        key = json.dumps(value, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            unique.append(value)
    return unique
