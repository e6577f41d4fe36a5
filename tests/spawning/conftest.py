"""The passes behave makes over a feature, as one fixture; each feature meant to fail, run once per pass; and the
project's own specifications, run once for the whole session.

`make features` runs the specifications once per pass (tests/behave_passes.py). A test that runs behave takes
`behave_pass` and is run once per pass; one that means fewer passes names them:
`@pytest.mark.parametrize("behave_pass", ["context", "client"], indirect=True)`.

`project_run` is `mcpbdd run --harness both --jobs 2` over features/ (the context and client passes of `make features`,
in two behave workers: the specifications pass split as a user's `--jobs` run splits them, servers, ports and browsers
of two workers at once; that a split run gives exactly a serial run's results is tests/spawning/test_parallel.py's,
on a small project), once per session: every test that needs the specifications' results reads that one run
(tests/conftest.py keeps its readers on one pytest-xdist worker, so two workers do not run it twice).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from behave_passes import PASSES, PROJECT_RUN_TIMEOUT, BehavePass
from expected_failures import FailingRuns, FailingRunsOfPasses
from processes import mcpbdd_run

__all__: list[str] = []


@pytest.fixture(params=list(PASSES))
def behave_pass(request: pytest.FixtureRequest) -> BehavePass:
    """Each pass of `make features` (or those a test names with `indirect=True`)."""
    return PASSES[request.param]


@pytest.fixture(scope="session")
def failing_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FailingRunsOfPasses]:
    """behave over a feature meant to fail, once per feature, pass and options, however many tests read the run.

    A table-driven test has a row per scenario and pass; the scenarios of one feature come from one behave run
    (about as long as all its rows' checks together would take one scenario at a time). A module that reads many runs
    begins them all at once (`FailingRunsOfPasses.start`), a few side by side.
    """
    runs = FailingRuns(lambda stem: Path(tmp_path_factory.mktemp(stem)))
    yield FailingRunsOfPasses(runs)
    runs.close()


@dataclass(frozen=True)
class ProjectRun:
    """`mcpbdd run --harness both --jobs 2` over the project's own specifications: its process and where it wrote."""

    process: subprocess.CompletedProcess[str]
    results: Path
    """The Allure results (one per scenario and pass)."""
    junit: Path
    """The JUnit XML, a folder per pass (context, client)."""


@pytest.fixture(scope="session")
def project_run(tmp_path_factory: pytest.TempPathFactory) -> ProjectRun:
    """The specifications on both harnesses, in two workers, once per session (see the module's docstring)."""
    folder = tmp_path_factory.mktemp("project-run")
    results, junit = folder / "allure-results", folder / "junit"
    process = mcpbdd_run(
        *("--harness", "both", "--jobs", "2", "--results", str(results), "--junit", str(junit), "-f", "progress"),
        *("--timings", str(folder / "timings.json"), "--coverage", str(folder / "coverage.json")),
        timeout=PROJECT_RUN_TIMEOUT,
    )
    return ProjectRun(process, results, junit)
