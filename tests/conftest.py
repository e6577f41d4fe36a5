"""Shared fixtures: the anyio backend, the harnesses under test, and the test-only servers; the fast tier's guard."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))  # makes `servers` (the test-only MCP servers) importable

import no_processes  # noqa: E402 (tests/ just made importable)

HARNESS_KINDS = ("context", "client-auto", "client-legacy")


def pytest_configure(config: pytest.Config) -> None:
    """Make this process a child subreaper: no process a test starts can leave its tree, so the process
    counts (`processes.py`) find forks whose parent has gone too. Guard the fast tier (`no_processes.py`)."""
    from subreaper import become_subreaper  # the standard library only: see subreaper.py

    become_subreaper()
    no_processes.install()


PROJECT_RUN = "project_run"
"""The session fixture (tests/spawning/conftest.py) that runs the project's specifications once."""

PROJECT_RUN_MODULES = frozenset(
    {"tests/spawning/test_specifications.py", "tests/spawning/test_behave_runs.py", "tests/spawning/test_timings.py"}
)
"""The modules whose tests read `project_run`: one pytest-xdist worker runs all of them (see `_Scheduling`)."""


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """How pytest-xdist (`make pytest`: `-n 4 --dist loadfile`, then this scheduler) shares the tests out: a module to
    a worker (its module-scoped fixtures, often a real run several tests read, set up once, not once per worker), and
    every module that reads the session's project run to the one worker that runs it (a session fixture is per
    worker).

    pytest-xdist's own grouping (`--dist loadgroup`, `xdist_group` marks) does nothing under pytest 9 (it renames
    `Node._nodeid`, which pytest 9 no longer reads), so the grouping is this scheduler's."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class _Scheduling(LoadFileScheduling):  # type: ignore[misc]  # pytest-xdist ships no types: Any
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return PROJECT_RUN if module in PROJECT_RUN_MODULES else module

    return _Scheduling(config, log)


LONGEST_FIRST = (
    "tests/spawning/test_specifications_2025.py",
    "tests/spawning/test_cli.py",
    "tests/spawning/test_conformance_official.py",
    "tests/spawning/test_conformance_cli.py",
    "tests/spawning/test_conformance_reference.py",
    "tests/spawning/test_failing_steps.py",
    "tests/spawning/test_behave_apps.py",
    "tests/spawning/test_allure_formatter.py",
    "tests/spawning/test_behave_authorization.py",
    "tests/spawning/test_record.py",
    "tests/spawning/test_coverage.py",
    "tests/spawning/test_ci_workflow.py",
    "tests/spawning/test_remote.py",
    "tests/spawning/test_cancellation.py",
    "tests/spawning/test_bridge.py",
    "tests/spawning/test_parallel.py",
)
"""The modules that take longest (BENCHMARKS.md, the ten slowest), longest first: they start right after the project
run's readers, so the workers end together on the many short modules after them (a long module handed out last
would keep one worker busy while the other has nothing left). First of all, on the other worker than the project
run: the 2025-11-25 pass over features/."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The readers of the session's project run go first, then the modules of `LONGEST_FIRST` in its order, then the
    rest as collected (`make pytest` keeps this order, `--no-loadscope-reorder`); the readers get that run's
    timeout, and each is in a module the scheduler knows."""
    from behave_passes import PROJECT_RUN_TIMEOUT

    readers = [item for item in items if PROJECT_RUN in getattr(item, "fixturenames", ())]
    for item in readers:
        module = item.nodeid.split("::", 1)[0]
        assert module in PROJECT_RUN_MODULES, f"{module} reads {PROJECT_RUN}: add it to PROJECT_RUN_MODULES"
        item.add_marker(pytest.mark.timeout(PROJECT_RUN_TIMEOUT))
    rank = {module: index for index, module in enumerate(LONGEST_FIRST)}
    reading = {item.nodeid.split("::", 1)[0] for item in readers}
    items.sort(
        key=lambda item: (
            item.nodeid.split("::", 1)[0] not in reading,
            rank.get(item.nodeid.split("::", 1)[0], len(rank)),
        )
    )


@pytest.fixture(scope="session", autouse=True)
def _base_temporary_folder_made_first(tmp_path_factory: pytest.TempPathFactory) -> None:
    """This process's base temporary folder, made once before any test. Module fixtures start their runs in threads,
    each taking a folder with `tmp_path_factory.mktemp`; on a worker whose first module that is, two threads could make
    the base folder at once (pytest does not lock it) and one failed with FileExistsError (seen on four workers)."""
    tmp_path_factory.getbasetemp()


# Every phase of every test goes through the fast tier's guard: outside tests/spawning/, no process may start.
@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from no_processes.guarded_phase(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from no_processes.guarded_phase(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    return (yield from no_processes.guarded_phase(item))


@pytest.fixture(autouse=True)
def _no_minted_secrets_between_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no minted secret registered (a token one test minted is not another's secret)."""
    from mcpbdd.model import minted

    for name, fresh in (("_values", []), ("_known", set()), ("_read", {})):
        monkeypatch.setattr(minted, name, fresh)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_harness(kind: str, server: Any, **options: Any) -> Any:
    """A harness of the given kind (context, client-auto, client-legacy) for `server`."""
    from mcpbdd.harness import ClientHarness, ContextHarness

    if kind == "context":
        return ContextHarness(server, **options)
    return ClientHarness(server, mode=kind.split("-")[1], **options)


@pytest.fixture(params=HARNESS_KINDS)
async def notes_harness(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """Each harness, entered on the bundled notes server."""
    from mcpbdd.examples.notes import mcp

    async with make_harness(request.param, mcp, timeout=5.0) as harness:
        yield harness


@pytest.fixture
def run_loop() -> Iterator[Any]:
    """The run's one event loop, as behave's hooks make it (`mcpbdd.scenario.runtime.RunLoop`), closed after."""
    from mcpbdd.scenario.runtime import RunLoop

    loop = RunLoop()
    yield loop
    loop.close()


@pytest.fixture
def make_world(run_loop: Any) -> Iterator[Callable[..., Any]]:
    """Builds Worlds from settings (`make_world(server=..., harness=...)`), each closed after the test.

    A test may close a World itself to assert on what closing reported (closing twice is harmless).
    """
    from mcpbdd.model.config import Settings
    from mcpbdd.scenario.world import World

    worlds: list[Any] = []

    def make(**settings: Any) -> Any:
        world = World(Settings(**settings), run_loop.owner())
        worlds.append(world)
        return world

    yield make
    for world in reversed(worlds):
        world.close()
