"""One home per check: a phrase's failure message is found where its steps module's name says.

`mcpbdd/steps/X.py` parses a phrase; its check and message live in `mcpbdd/checks/X.py`, or, where a concern's
checks are named otherwise, in the modules `ELSEWHERE` names below. `mcpbdd/model/` holds data: no check raises
from it but the few named in `MODEL_RAISES`, each with the reason it must stay below the checks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mcpbdd"

ELSEWHERE: dict[str, tuple[str, ...]] = {
    "consent": ("rounds",),  # a consent gate is a question: the rounds' checks
    "contracts": ("output_schema", "generated", "surface"),  # through the World (World.check_output_schema, ...)
    "discovery": ("described", "cache_hints", "completions"),  # one module per thing a server tells besides answers
    "surface": ("tool_surface",),
    "conformance": (),  # the bundled pack's checks are the conformance package's own (`mcpbdd.conformance`)
    "load": (),  # what must hold under load is the load package's own (`mcpbdd.load.checks`), beside its driver
}
"""Steps modules whose checks are not in `checks/<the same name>.py` -> where they are (modules or packages of
`mcpbdd/checks/`)."""

MODEL_RAISES: dict[str, str] = {
    "matching.py": "the JSON matcher (`mcpbdd.matching`), which the upstream doubles below the checks use too",
    "announcements.py": "`cannot_listen`: the harnesses refuse a listen no client would make, below the checks",
    "completions.py": "`Completing.template_variable` refuses a variable the template lacks as it is asked",
}
"""The model's modules that may still make a failure, and why each must stay below the checks."""


def then_modules(steps: Path) -> list[str]:
    """The steps modules that define a Then phrase (a check), by name."""
    return sorted(
        path.stem
        for path in steps.glob("*.py")
        if any(_is_then(decorator) for node in ast.walk(ast.parse(path.read_text())) for decorator in _decorators(node))
    )


def _decorators(node: ast.AST) -> list[ast.expr]:
    return list(node.decorator_list) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else []


def _is_then(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name) and decorator.func.id == "then"


def homeless(phrases: list[str], checks: set[str], elsewhere: dict[str, tuple[str, ...]]) -> list[str]:
    """Each steps module whose checks have no home, with what is missing."""
    problems = []
    for name in phrases:
        homes = elsewhere.get(name, (name,))
        missing = [home for home in homes if home not in checks]
        if missing:
            named = ", ".join(f"checks/{home}.py" for home in missing)
            problems.append(
                f"steps/{name}.py makes checks, but {named} {'does' if len(missing) == 1 else 'do'} not exist: put "
                f"its checks in checks/{name}.py (or name their home in ELSEWHERE)"
            )
    return problems


def failures_made(source: str) -> list[int]:
    """The lines of `source` that raise or build an AssertionError or a VacuousCheck: where a check's message is."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"AssertionError", "VacuousCheck"}
    )


def test_every_phrase_that_checks_has_its_home_in_checks() -> None:
    checks = {path.stem for path in (PACKAGE / "checks").glob("*.py")} | {
        path.parent.name for path in (PACKAGE / "checks").glob("*/__init__.py")
    }
    assert homeless(then_modules(PACKAGE / "steps"), checks, ELSEWHERE) == []


def test_a_steps_module_without_a_home_is_named() -> None:
    assert homeless(["outcomes", "lint"], {"outcomes"}, {}) == [
        "steps/lint.py makes checks, but checks/lint.py does not exist: put its checks in checks/lint.py (or name "
        "their home in ELSEWHERE)"
    ]
    assert homeless(["discovery"], {"described"}, ELSEWHERE)[0].startswith(
        "steps/discovery.py makes checks, but checks/cache_hints.py, checks/completions.py do not exist"
    )


@pytest.mark.parametrize("path", sorted((PACKAGE / "model").glob("*.py")), ids=lambda path: path.name)
def test_the_model_holds_data_not_checks(path: Path) -> None:
    lines = failures_made(path.read_text())
    if path.name in MODEL_RAISES:
        assert lines, f"model/{path.name} makes no failure any more: drop it from MODEL_RAISES"
        return
    assert lines == [], f"model/{path.name} makes a check's failure at lines {lines}: move the check to mcpbdd/checks/"


def test_a_check_left_in_the_model_is_found() -> None:
    source = "def logged(outcome):\n    if not outcome.log_messages:\n        raise AssertionError('no log message')\n"
    assert failures_made(source) == [3]
    assert failures_made("from mcpbdd.model.errors import VacuousCheck\nraise VacuousCheck('empty')\n") == [2]


EXPECT_NAMES = [
    "Broken",
    "VacuousCheck",
    "answer_sent_before",
    "asks_by",
    "asks_for_input",
    "asks_nothing",
    "channel_is",
    "does_not_mention",
    "does_not_succeed",
    "fails_with_a_protocol_error",
    "fails_with_protocol_error",
    "fails_with_tool_error",
    "fails_with_tool_error_reason",
    "input_required",
    "mentions",
    "nothing_mentions",
    "offers_resource_template",
    "offers_tools",
    "other_tenants_exist",
    "question_requires",
    "question_says",
    "reason_is",
    "retryable",
    "same_failure",
    "storage_baseline_taken",
    "storage_contains",
    "storage_empty",
    "storage_holds",
    "storage_known",
    "storage_lacks",
    "storage_unchanged",
    "structured_contains",
    "structured_matches",
    "succeeds",
    "suggests",
    "took_rounds",
    "upstream_body_names_something",
    "upstream_can_receive",
    "value_at",
]
"""What `mcpbdd.expect` offered when it was one module (model/expect.py): pytest users keep every name."""


def test_mcpbdd_expect_keeps_every_name_it_offered() -> None:
    import mcpbdd

    assert [name for name in EXPECT_NAMES if not hasattr(mcpbdd.expect, name)] == []
    assert set(EXPECT_NAMES) == set(mcpbdd.expect.__all__)


def test_mcpbdd_expect_defines_no_check_of_its_own() -> None:
    """It gathers the checks from their homes; a check written there would be a second place to look."""
    tree = ast.parse((PACKAGE / "checks" / "expect.py").read_text())
    defined = [node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    assert defined == [], f"checks/expect.py defines {defined}: put each in the checks module of its concern"
