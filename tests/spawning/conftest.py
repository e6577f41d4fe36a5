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

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from behave_passes import PASSES, PROJECT_RUN_TIMEOUT, BehavePass
from expected_failures import FailingRuns, FailingRunsOfPasses
from processes import SHARED_FORK_SERVERS, mcpbdd_run

from mcpbdd.harness.processes import shared_forks

__all__: list[str] = []


@pytest.fixture(scope="session", autouse=True)
def shared_fork_servers() -> Iterator[None]:
    """One fork server per server command for every process this pytest worker starts (`shared_forks.py`).

    The tests start hundreds of `mcpbdd`, behave and conformance runs, many against the same server in the same
    folder; each would otherwise start its own fork server for it (~1.2 s of CPU: importing the SDK), and the suite is
    CPU-bound. A module that tests a fork server's own start, lifetime or stop takes `own_fork_servers` instead.
    """
    with shared_forks.share_fork_servers() as folder:
        os.environ[shared_forks.ENV] = folder
        SHARED_FORK_SERVERS.append(Path(folder))
        try:
            yield
        finally:
            os.environ.pop(shared_forks.ENV, None)
            SHARED_FORK_SERVERS.remove(Path(folder))


@pytest.fixture(autouse=True)
def retire_fork_servers_of_the_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """At a test's end, stop the shared fork servers of servers that ran in its temporary folder: no later test runs
    a server there, and a worker would otherwise hold one warm interpreter per test until the session ends."""
    # Taken before the test (a test without it gets none): so it is torn down after this fixture, not before.
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    offered = shared_forks.offered()
    if offered is not None and folder is not None:
        shared_forks.retire(offered, folder)


@pytest.fixture
def own_fork_servers() -> Iterator[None]:
    """Every process the test starts keeps fork servers of its own, started and stopped with it, as without an owner:
    for the tests of a fork server's start, death, lifetime and stop, and of the processes a run leaves behind (a
    module's `pytestmark = pytest.mark.usefixtures(...)`, or a test's mark)."""
    offered = os.environ.pop(shared_forks.ENV, None)
    try:
        yield
    finally:
        if offered is not None:
            os.environ[shared_forks.ENV] = offered


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
