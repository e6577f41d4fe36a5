"""Interrupts, with real processes and real signals: a signal stops the run, is reported, and closes what was open.

Each test runs behave or `mcpbdd run` in a subprocess with a private TMPDIR (to count the temporary folders
left behind) and a marker in the environment that every process it starts inherits (to count the processes
left behind). Tests wait on conditions (a file a server writes, a line in a log) with generous deadlines,
never on a fixed sleep, so a loaded machine makes them slower, not flaky.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from behave_process import behave_argv
from conftest import TESTS
from processes import MARKER_ENV, processes_marked, stdio_server_settings, wait_until

pytestmark = pytest.mark.usefixtures("own_fork_servers")  # its fork servers' own lifetimes

ROOT = TESTS.parent
STEPS = "from mcpbdd.steps import *  # noqa: F403\n"
HOOKS = "from mcpbdd.behave import *  # noqa: F403\n"
TEMPORARY = ("mcpbdd-stdio-*", "mcpbdd-run-*", "mcpbdd-fork-*")


class Run:
    """A behave or `mcpbdd run` process in a project of its own, with its marker, TMPDIR and output file."""

    def __init__(self, tmp_path: Path, features: dict[str, str], *, env: dict[str, str] | None = None) -> None:
        self.root = tmp_path
        self.marker = uuid.uuid4().hex
        self.tmp = tmp_path / "tmp"
        self.tmp.mkdir()
        folder = tmp_path / "features"
        (folder / "steps").mkdir(parents=True)
        (folder / "steps" / "steps.py").write_text(STEPS)
        (folder / "environment.py").write_text(HOOKS)
        for name, text in features.items():
            (folder / name).write_text(text)
        self.env = {
            **os.environ,
            "PYTHONPATH": f"{ROOT}{os.pathsep}{TESTS}",
            "TMPDIR": str(self.tmp),
            MARKER_ENV: self.marker,
            **(env or {}),
        }
        self.env.pop("CI", None)
        self.output = tmp_path / "output.txt"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, *command: str) -> subprocess.Popen[bytes]:
        """Start the process in a session of its own: `signal(..., group=True)` is then a Ctrl-C at its terminal."""
        with open(self.output, "wb") as out:
            self.process = subprocess.Popen(
                list(command),
                cwd=self.root,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self.process

    def behave(self, *options: str) -> subprocess.Popen[bytes]:
        return self.start(*behave_argv("features", "--format", "plain", "--no-capture", *options))

    def mcpbdd(self, *options: str) -> subprocess.Popen[bytes]:
        reports = ["--results", str(self.root / "results"), "--junit", str(self.root / "junit")]
        return self.start(sys.executable, "-m", "mcpbdd.cli.main", "run", *reports, "-f", "plain", "features", *options)

    def signal(self, number: int, *, group: bool = False) -> float:
        """Signal the process, or its whole process group as a terminal does on Ctrl-C; return when."""
        assert self.process is not None
        if group:
            os.killpg(self.process.pid, number)
        else:
            self.process.send_signal(number)
        return time.monotonic()

    def wait(self, timeout: float = 120) -> int:
        assert self.process is not None
        return self.process.wait(timeout=timeout)

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    def leftovers(self) -> list[str]:
        """The temporary folders of mcpbdd still in this run's TMPDIR."""
        return sorted(path.name for pattern in TEMPORARY for path in self.tmp.glob(pattern))

    def wait_for(self, condition: Callable[[], object], timeout: float, what: str) -> None:
        """Wait for `condition`; on timeout, fail with the end of the run's output."""
        try:
            wait_until(condition, timeout, what)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the run's output ends:\n{self.text()[-3000:]}") from None

    def no_process_left(self, timeout: float = 15) -> None:
        self.wait_for(lambda: not processes_marked(self.marker), timeout, "no process left")


# SIGINT while a scenario's resources are being closed ------------------------------------------------------

SLOW_TO_CLOSE = """Feature: slow to close
  Scenario: the first, interrupted while it closes
    When the client calls "ping"
    Then the call succeeds

  Scenario: the second, which must not run
    When the client calls "ping"
    Then the call succeeds
"""


def _interrupt_while_closing(tmp_path: Path, tool: str) -> tuple[Run, int]:
    """Run the two scenarios on the server whose lifespan is slow to close; SIGINT once the first one is closing."""
    closing = tmp_path / "closing"
    closing.mkdir()
    run = Run(tmp_path, {"close.feature": SLOW_TO_CLOSE}, env={"MCPBDD_TEST_CLOSING_DIR": str(closing)})
    settings = ["-D", "mcpbdd.server=servers:slow_to_close", "-D", "mcpbdd.harness=context"]
    run.behave(*settings) if tool == "behave" else run.mcpbdd(*settings)
    log = closing / "log"
    run.wait_for(lambda: log.exists() and "closing" in log.read_text(), 120, "the first scenario to close")
    run.signal(signal.SIGINT)
    if tool == "mcpbdd":
        # mcpbdd passes the signal on to its worker from its handler, then says so: only then has the worker
        # got it. Writing `go` sooner lets a busy machine finish the close before the signal arrives.
        run.wait_for(lambda: "SIGINT: stopping the run" in run.text(), 60, "mcpbdd to pass the signal on")
    # The lifespan waits for `go`: the signal has reached the process (it is pending there) before it is written.
    (closing / "go").touch()
    code = run.wait()
    assert log.read_text().split() == ["opened", "closing", "closed"], run.text()  # closed, and no second scenario
    return run, code


def test_sigint_while_a_scenario_closes_stops_behave_and_still_closes_it(tmp_path: Path) -> None:
    run, code = _interrupt_while_closing(tmp_path, "behave")
    assert code != 0, run.text()
    assert "interrupted (SIGINT) while closing the scenario 'the first, interrupted while it closes" in run.text(), (
        run.text()
    )
    assert "ABORTED: By user." in run.text()


def test_sigint_while_a_scenario_closes_makes_mcpbdd_run_exit_130(tmp_path: Path) -> None:
    run, code = _interrupt_while_closing(tmp_path, "mcpbdd")
    assert code == 130, run.text()
    assert "interrupted (SIGINT) while closing the scenario" in run.text()
    assert re.search(r"mcpbdd: interrupted \(SIGINT\): 0 passed, 0 failed, 1 broken", run.text()), run.text()
    assert run.leftovers() == []


def test_a_worker_that_does_not_finish_closing_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    closing = tmp_path / "closing"
    closing.mkdir()
    env = {"MCPBDD_TEST_CLOSING_DIR": str(closing), "MCPBDD_STOP_GRACE": "3"}
    run = Run(tmp_path, {"close.feature": SLOW_TO_CLOSE}, env=env)
    run.mcpbdd("-D", "mcpbdd.server=servers:slow_to_close", "-D", "mcpbdd.harness=context")
    log = closing / "log"
    run.wait_for(lambda: log.exists() and "closing" in log.read_text(), 120, "the first scenario to close")
    signalled = run.signal(signal.SIGINT)  # no `go`: the lifespan would take a minute to close
    assert run.wait() == 130, run.text()
    assert time.monotonic() - signalled < 30, run.text()
    assert "mcpbdd: 1 behave process(es) still running 3 s later: killed" in run.text()
    assert "mcpbdd: interrupted (SIGINT): " in run.text()
    assert log.read_text().split() == ["opened", "closing"]
    assert run.leftovers() == []


# SIGTERM and a server that ignores it ------------------------------------------------------------------

BLOCKED = """Feature: blocked
  Scenario: asking who I am first
    When the client calls "whoami"
    Then the call succeeds

  Scenario: a server that blocks its loop
    When the client calls "block_the_loop"
"""


def _stubborn_servers(tmp_path: Path, features: dict[str, str]) -> tuple[Run, Path, list[str]]:
    """A project whose stdio server ignores SIGTERM and blocks its loop in `block_the_loop`."""
    blocking = tmp_path / "blocking"
    blocking.mkdir()
    env = {"MCPBDD_TEST_BLOCKING_DIR": str(blocking), "MCPBDD_TEST_IGNORE_SIGTERM": "1"}
    run = Run(tmp_path, features, env=env)
    return run, blocking, stdio_server_settings()


def test_sigterm_to_behave_stops_a_server_that_ignores_sigterm(tmp_path: Path) -> None:
    run, blocking, settings = _stubborn_servers(tmp_path, {"blocked.feature": BLOCKED})
    run.behave(*settings)
    run.wait_for(lambda: list(blocking.iterdir()), 120, "the server to block its loop")
    signalled = run.signal(signal.SIGTERM)
    code = run.wait(timeout=60)
    took = time.monotonic() - signalled
    assert code == -signal.SIGTERM, run.text()  # behave still ends as killed by SIGTERM, once it has cleaned up
    run.no_process_left()
    assert run.leftovers() == []
    assert took < 30, f"behave took {took:.1f} s to stop"  # the server alone would have blocked for 120 s
    assert "1 scenario passed, 0 failed, 1 error" in run.text(), run.text()


# mcpbdd run --jobs 2 ------------------------------------------------------------------------------------


PARALLEL = {"one.feature": BLOCKED, "two.feature": BLOCKED.replace("Feature: blocked", "Feature: blocked too")}


@pytest.mark.parametrize(
    ("number", "group", "fork", "code"),
    [
        (signal.SIGINT, False, True, 130),
        (signal.SIGTERM, False, True, 143),
        (signal.SIGINT, True, True, 130),
        (signal.SIGTERM, False, False, 143),
    ],
    ids=["SIGINT", "SIGTERM", "Ctrl-C at the terminal", "SIGTERM, workers started with python -m behave"],
)
def test_a_parallel_run_passes_the_signal_to_its_workers(
    tmp_path: Path, number: int, group: bool, fork: bool, code: int
) -> None:
    """Each worker gets the signal once (a Ctrl-C reaches only `mcpbdd run`: the workers have groups of their own)."""
    run, blocking, settings = _stubborn_servers(tmp_path, PARALLEL)
    if not fork:
        run.env["MCPBDD_NO_FORK"] = "1"
    run.mcpbdd("--jobs", "2", *settings)
    run.wait_for(lambda: len(list(blocking.iterdir())) == 2, 180, "both servers to block their loops")
    signalled = run.signal(number, group=group)
    exit_code = run.wait(timeout=120)
    took = time.monotonic() - signalled
    assert exit_code == code, run.text()
    run.no_process_left()  # the workers, their servers and the servers' `sh` wrappers
    assert run.leftovers() == []
    name = signal.Signals(number).name
    assert re.search(
        rf"mcpbdd: interrupted \({name}\): 2 passed, 0 failed, 2 broken in [\d.]+ s \(2 jobs\)", run.text()
    ), run.text()
    assert took < 30, f"the run took {took:.1f} s to stop"


def test_workers_whose_run_is_killed_still_close_their_scenarios(tmp_path: Path) -> None:
    """SIGKILL to `mcpbdd run` (nothing passed on): Linux sends each forked worker SIGTERM, and they clean up."""
    if sys.platform != "linux":
        pytest.skip("the parent-death signal is Linux's")
    run, blocking, settings = _stubborn_servers(tmp_path, PARALLEL)
    run.mcpbdd("--jobs", "2", *settings)
    run.wait_for(lambda: len(list(blocking.iterdir())) == 2, 180, "both servers to block their loops")
    run.signal(signal.SIGKILL)
    assert run.wait(timeout=60) == -signal.SIGKILL
    run.no_process_left(timeout=60)  # the workers, their servers and the servers' `sh` wrappers
    assert [name for name in run.leftovers() if name.startswith("mcpbdd-stdio-")] == []
