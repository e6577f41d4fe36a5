"""The passes behave makes over a feature, as one fixture; and each feature meant to fail, run once per pass.

`make features` runs the specifications once per pass (tests/behave_passes.py). A test that runs behave takes
`behave_pass` and is run once per pass; one that means fewer passes names them:
`@pytest.mark.parametrize("behave_pass", ["context", "client"], indirect=True)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from behave_passes import PASSES, BehavePass
from expected_failures import FailingRun, run_failing

__all__: list[str] = []


@pytest.fixture(params=list(PASSES))
def behave_pass(request: pytest.FixtureRequest) -> BehavePass:
    """Each pass of `make features` (or those a test names with `indirect=True`)."""
    return PASSES[request.param]


@pytest.fixture(scope="session")
def failing_runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, BehavePass, Sequence[str]], FailingRun]:
    """behave over a feature meant to fail, once per feature, pass and options, however many tests read the run.

    A table-driven test has a row per scenario and pass; the scenarios of one feature come from one behave run
    (about as long as all its rows' checks together would take one scenario at a time).
    """
    runs: dict[tuple[str, BehavePass, tuple[str, ...]], FailingRun] = {}

    def run(feature: str, behave_pass: BehavePass, options: Sequence[str] = ()) -> FailingRun:
        key = (feature, behave_pass, tuple(options))
        if key not in runs:
            report = Path(tmp_path_factory.mktemp(f"{Path(feature).stem}-{behave_pass.name}")) / "report.json"
            runs[key] = run_failing(feature, [*behave_pass.options, *options], report)
        return runs[key]

    return run
