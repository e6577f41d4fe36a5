"""How a server process is started: plain, or forked from a warm Python parent (the `spawn` setting).

Starting a Python MCP server costs about a second, nearly all of it the interpreter importing `mcp`.
With `spawn = "auto"` (the default: fork for Python commands, a warm spare for others, `spare.py`) or
`"fork"`, mcpbdd
keeps one warm parent per run and per worker (`forkserver.py`) that has imported the server's dependencies
once; each scenario's process is a fork of it running the server's own entry point with the scenario's
environment. Over stdio mcpbdd talks to the fork directly (`fork_client.py`: pipes it makes, handed to
the fork, no process in between); an `http:` command, which mcpbdd must start as a process it can signal
and wait for, starts a tiny launcher (`fork_launcher.py`) that passes its pipes to the fork and reports
its exit code, so stopping, exit codes and stderr work as they do for a plain start.

A command is forked when it is a Python interpreter running a module or a script (`{python} -m pkg.mod`,
`/path/venv/bin/python path/to/server.py`): this one, or another (a server's own virtual environment), whose
fork server then runs under that interpreter, so its forks see its `sys.path`, site-packages and `pyvenv.cfg`
(`_interpreter` says how one is recognised without starting it). Anything else starts plainly. A fork
server that cannot be used (its preloading started a thread, its Python is too old, or it did not start)
falls back to plain starts, saying so once.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar

from mcpbdd.harness.processes import shared_forks
from mcpbdd.harness.processes.shared_forks import SharedForkServer

__all__ = [
    "SPAWN_MODES",
    "Fork",
    "ForkServerHandle",
    "ForkServerRegistry",
    "SpawnMode",
    "announce",
    "describe",
    "fork_server",
    "fork_server_pids",
    "one_off",
    "prepare",
    "resolve",
    "start_fork_server",
    "stop_all",
]

SpawnMode = Literal["auto", "fork", "spare", "plain"]
SPAWN_MODES: tuple[SpawnMode, ...] = ("auto", "fork", "spare", "plain")

_HERE = Path(__file__).resolve().parent
_FORKSERVER = _HERE / "forkserver.py"
_LAUNCHER = _HERE / "fork_launcher.py"
READY_TIMEOUT = 120.0
"""Seconds the fork server may take to import the server's dependencies (a loaded CI machine is slow)."""


@dataclass(frozen=True)
class _Entry:
    """What a Python command runs: its interpreter, a module (`-m`) or a script path, the interpreter's
    `sys.path[0]` for it, and the command as written (each fork's `sys.orig_argv`, its `sys.argv` from it)."""

    python: str
    kind: Literal["module", "path"]
    target: str
    path0: str
    command: tuple[str, ...]


_PYTHON_NAME = re.compile(r"python(3(\.[0-9]+)?)?")
"""The names a CPython interpreter is installed under (`python`, `python3`, `python3.12`). A build variant with an
ABI suffix (free-threaded `python3.13t`, debug `python3.11d`), `python2` and other implementations (`pypy3`) start
plainly: the fork server is not tried under them."""


def _interpreter(program: str, cwd: str | None, env: Mapping[str, str] | None) -> str | None:
    """The path of the Python interpreter `program` names, or None when it is not one (it then starts plainly).

    Found as the start would find it: a path with a slash from the command's working directory, a bare name
    on the command's `PATH`. Recognised without starting it: this interpreter by path, or an executable named
    like one (`_PYTHON_NAME`) that is a binary, not a script, and whose link (if it is one) leads to a binary
    named like one too: a wrapper named `python` (a pyenv shim script, a script that sets variables first, a
    link to a version manager's binary such as mise) may change the environment or the command before Python
    starts, which a fork would skip. The interpreter is the link's path, not its target: a venv's `bin/python`
    is a link to its base interpreter, and the link's own path is what finds the venv (`pyvenv.cfg`), so it is
    a separate interpreter.
    """
    base = cwd or os.getcwd()
    if os.sep in program:
        found: str | None = os.path.join(base, program)
    else:
        path = (env if env is not None else os.environ).get("PATH", os.defpath)
        # A relative entry (`venv/bin`, or an empty one: `.`) is searched from the command's directory, as its
        # start searches it after changing to that directory.
        entries = [os.path.join(base, entry or os.curdir) for entry in path.split(os.pathsep)]
        found = shutil.which(program, path=os.pathsep.join(entries))
    if found is None:
        return None
    found = os.path.abspath(found)
    if found == os.path.abspath(sys.executable):
        return found
    if not os.access(found, os.X_OK) or not all(
        _PYTHON_NAME.fullmatch(os.path.basename(name)) for name in (found, os.path.realpath(found))
    ):  # a link named `python3` to a binary named otherwise is a shim (mise), which sets variables first
        return None
    try:
        with open(found, "rb") as binary:
            if binary.read(2) == b"#!":
                return None
    except OSError:  # a folder, or unreadable: not something to fork
        return None
    return found


def _entry(argv: Sequence[str], cwd: str | None, env: Mapping[str, str] | None = None) -> _Entry | None:
    """The entry point of `argv` if it is a Python interpreter running a module or a script with no options."""
    if len(argv) < 2:
        return None
    python = _interpreter(argv[0], cwd, env)
    if python is None:
        return None
    base = Path(cwd or os.getcwd()).resolve()
    if argv[1] == "-m" and len(argv) >= 3:
        return _Entry(python, "module", argv[2], str(base), tuple(argv))
    if argv[1].endswith(".py") and not argv[1].startswith("-"):
        script = (base / argv[1]).resolve()
        if script.is_file():
            return _Entry(python, "path", str(script), str(script.parent), tuple(argv))
    return None


def one_off(mode: SpawnMode) -> SpawnMode:
    """How to start a server for one start only (`mcpbdd conformance`'s check that it starts at all, the server of a
    `mcpbdd record` session): from a fork server an owner shares (`shared_forks.py`), which is warm or will serve
    later starts, when `mode` would fork; else plainly, since a fork server of its own for a single start costs more
    than the start it saves."""
    return mode if mode in ("auto", "fork") and shared_forks.offered() is not None else "plain"


def resolve(
    mode: SpawnMode, argv: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None
) -> Literal["fork", "spare", "plain"]:
    """What `mode` means for this command: fork needs a Python command; `spare` (and `auto` for a command
    that is not Python) starts processes ahead for the next scenarios (`spare.py`, over stdio: a command
    started over HTTP starts plainly); `fork` with a command that is not Python starts plainly. `env` is
    the command's environment (its `PATH` finds a bare program name; this process's when None).
    """
    if mode == "plain":
        return "plain"
    if mode in ("auto", "fork") and _entry(argv, cwd, env) is not None:
        return "fork"
    if mode in ("auto", "spare"):
        return "spare"
    return "plain"


def describe(mode: SpawnMode) -> str:
    """The setting as the run's header and the report's environment show it."""
    meaning = {
        "auto": "auto (fork for Python commands, spare for others)",
        "fork": "fork (Python commands; plain otherwise)",
        "spare": "spare (stdio processes started ahead for the next scenarios)",
        "plain": "plain",
    }
    return meaning[mode]


_announced = False


def announce(mode: SpawnMode) -> None:
    """Say once per process (per worker) how server processes start, when the project chose it: a header line.

    The default (`auto`) is not announced: a line on every run saying nothing was chosen is noise;
    the report's environment names the setting either way. Written to the real stderr (`sys.__stderr__`):
    behave captures `sys.stderr` inside a step, where the first process starts, and a run's header is not
    a scenario's output.
    """
    global _announced
    if _announced or mode == "auto":
        return
    _announced = True
    print(f"mcpbdd: server processes start with spawn = {describe(mode)}", file=sys.__stderr__ or sys.stderr)


class ForkServerHandle:
    """A running fork server: its socket, and the pipe whose end-of-file stops it when this process ends."""

    def __init__(
        self,
        entry: _Entry,
        cwd: str | None,
        env: Mapping[str, str],
        preload: Sequence[str] = (),
        *,
        shared: tuple[str, int, int] | None = None,
    ) -> None:
        """Start the fork server for `entry` and wait until it is ready (or has said why not).

        `preload` names modules to import up front besides the SDK's run-time modules and the ones the entry
        point's source imports: for a caller that knows what its command imports (mcpbdd's own tests start
        `python -m behave` and `python -m mcpbdd.cli.main` this way). They must read nothing of the environment
        at import: every fork inherits them as the fork server imported them.

        `shared` is (folder, lifeline, stderr) for a fork server shared under an owner (`shared_forks.py`): its
        socket goes in that folder, it ends with that lifeline (a pidfd of the owner, not a pipe of this process's)
        and writes its stderr there; this handle then holds nothing that stops it.
        """
        self.entry = entry
        # A plain folder, not a `TemporaryDirectory`: its finalizer would delete the folder (and the socket)
        # in a forked worker that drops its copy of this handle. The owner removes it, or the fork server.
        self._folder = tempfile.mkdtemp(prefix="mcpbdd-fork-") if shared is None else shared[0]
        self.socket_path = str(Path(self._folder) / "fork.sock")
        if shared is None:
            lifeline_read, self._lifeline = os.pipe()
        else:
            lifeline_read, self._lifeline = os.dup(shared[1]), -1
        config = {
            "kind": entry.kind,
            "target": entry.target,
            "path0": entry.path0,
            "socket": self.socket_path,
            "lifeline": lifeline_read,
            "preload": list(preload),
        }
        try:
            self.process = subprocess.Popen(
                [entry.python, str(_FORKSERVER), json.dumps(config)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                cwd=cwd,
                env=dict(env),
                pass_fds=(lifeline_read,),
                stderr=None if shared is None else shared[2],
                start_new_session=True,  # a Ctrl-C at the terminal reaches the run, which then ends us
            )
        finally:
            os.close(lifeline_read)
        assert self.process.stdout is not None
        line = _read_line(self.process.stdout, READY_TIMEOUT)
        self.process.stdout.close()
        said, _, why = line.partition(" ")
        self.ready = said == "ready"
        if self.ready:
            self.why_not = ""
        elif said == "fallback" and why.strip():
            self.why_not = why.strip()
        elif line:  # not the fork server speaking: a program named like Python that is not one
            self.why_not = f"the fork server did not start under {entry.python}: it printed {line[:200]!r}"
        else:
            self.why_not = self._silent_end()
        if not self.ready:
            self.stop()

    def _silent_end(self) -> str:
        """Why a fork server that said nothing did not start: its interpreter failed (an old Python stops at
        the script's syntax, its error above), or it took longer than `READY_TIMEOUT`."""
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return f"the fork server under {self.entry.python} did not say it was ready in {READY_TIMEOUT:g} s"
        return f"the fork server did not start under {self.entry.python} (exit code {code})"

    @property
    def pid(self) -> int:
        return self.process.pid

    def running(self) -> bool:
        return self.process.poll() is None

    def launcher_for(self, argv: Sequence[str]) -> list[str]:
        """What to start instead of `argv`: a command running this fork server's entry point, with arguments
        of its own (one fork server serves its module or script whatever the arguments)."""
        return launcher_command(self.socket_path, argv)

    def let_go(self) -> None:
        """In a forked copy of the process that started it: close this copy of the lifeline, stop nothing."""
        if self._lifeline >= 0:
            with contextlib.suppress(OSError):
                os.close(self._lifeline)
            self._lifeline = -1

    def stop(self) -> None:
        """End the fork server (it stops its children first) and wait for it, briefly."""
        if self._lifeline >= 0:
            os.close(self._lifeline)
            self._lifeline = -1
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)


def launcher_command(socket_path: str, argv: Sequence[str]) -> list[str]:
    """The launcher asking the fork server at `socket_path` for a fork running `argv` (see `fork_launcher.py`)."""
    return [sys.executable, "-I", "-S", str(_LAUNCHER), socket_path, *argv]


def _read_line(stream: object, timeout: float) -> str:
    """The fork server's first line (`ready ...` or `fallback <why>`), or '' if it says nothing in time."""
    result: list[bytes] = []
    reader = threading.Thread(target=lambda: result.append(stream.readline()), daemon=True)  # type: ignore[attr-defined]
    reader.start()
    reader.join(timeout)
    return result[0].decode(errors="replace").strip() if result else ""


class _Handle(Protocol):
    """What a registry needs of a fork server: its own (`ForkServerHandle`) or its owner's (`SharedForkServer`)."""

    @property
    def pid(self) -> int: ...

    def running(self) -> bool: ...

    def stop(self) -> None: ...

    def let_go(self) -> None: ...


H = TypeVar("H", bound=_Handle)


class ForkServerRegistry(Generic[H]):
    """One process's own fork servers by key (None: a key whose fork server could not be used), guarded by `lock`:
    listed while they run, stopped together at exit, and let go of in a forked copy of the process.

    The run keeps one (`fork_server`); a caller of `start_fork_server` that keeps several (mcpbdd's tests) keeps
    another, so that its fork servers are never taken for the run's (`fork_server_pids`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.handles: dict[tuple[object, ...], H | None] = {}
        atexit.register(self.stop_all)
        os.register_at_fork(after_in_child=self.forget_in_fork)

    def pids(self) -> list[int]:
        """The process ids of the fork servers in this registry that run now."""
        with self.lock:
            return [handle.pid for handle in self.handles.values() if handle is not None and handle.running()]

    def stop_all(self) -> None:
        """Stop every fork server in this registry (also run at exit; a killed process's pipe closes anyway)."""
        with self.lock:
            handles = [handle for handle in self.handles.values() if handle is not None]
            self.handles.clear()
        for handle in handles:
            handle.stop()

    def forget_in_fork(self) -> None:
        """In a process forked from one that runs fork servers (a `--jobs` worker): they are not this process's.

        It lets go of its copies of their lifelines (the fork servers end with the process that started them,
        not with the last fork of it) and starts its own when it needs one, so stopping its own never stops
        (or deletes the socket of) a fork server another process still uses.
        """
        self.lock = threading.Lock()  # the parent may have held it while forking
        for handle in self.handles.values():
            if handle is not None:
                handle.let_go()
        self.handles.clear()


_run_servers: ForkServerRegistry[ForkServerHandle | SharedForkServer] = ForkServerRegistry()


LOCALE_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG")
"""What sets an interpreter's locale at its start (and with it its UTF-8 mode and its file system encoding)."""


def read_at_start(name: str) -> bool:
    """Whether an interpreter reads variable `name` once, at its start, so that setting it in a fork is too late:
    the `PYTHON*` settings (`PYTHONHASHSEED` among them), the locale, and `HOME` (`site` puts the user site,
    `~/.local/lib/pythonX.Y/site-packages`, on `sys.path` at start). A fork server is started with the target's
    values of these (one fork server per set of values), so its forks start as a plain start would.
    (`TZ` is read at start too, but a fork can catch up: it calls `time.tzset()`.)"""
    return name.startswith("PYTHON") or name in LOCALE_VARIABLES or name == "HOME"


def _start_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The fork server's environment: this process's, with the target's variables read at start instead."""
    own = {name: value for name, value in os.environ.items() if not read_at_start(name)}
    return {**own, **{name: value for name, value in env.items() if read_at_start(name)}}


def _key(entry: _Entry, cwd: str | None, env: Mapping[str, str]) -> tuple[object, ...]:
    """One fork server per interpreter, entry point, directory and variables read at start (`read_at_start`)."""
    start_vars = tuple(sorted((name, value) for name, value in env.items() if read_at_start(name)))
    return (entry.python, entry.kind, entry.target, entry.path0, cwd, start_vars)


def prepare(mode: SpawnMode, argv: Sequence[str], *, cwd: str | None, env: Mapping[str, str]) -> list[str]:
    """The command to start for `argv` under `mode`: the launcher of a warm fork, or `argv` itself.

    For a process the SDK must start itself (a started HTTP server); the stdio connector talks to the
    fork server directly instead (`fork_server`, `fork_client.py`).
    """
    if mode == "plain":  # nothing to prepare, and nothing to announce: mcpbdd's own plain starts (the official
        return list(argv)  # suite's bridge) are not the project's choice; the run's header echoes the project's
    found = fork_server(mode, argv, cwd=cwd, env=env)
    return list(argv) if found is None else launcher_command(found.socket_path, found.args)


@dataclass(frozen=True)
class Fork:
    """Where to ask for a fork running a command: its fork server, and the command's own entry point and
    arguments (one fork server serves a module whatever its arguments, so the request carries the command)."""

    handle: ForkServerHandle | SharedForkServer
    entry: _Entry

    @property
    def socket_path(self) -> str:
        return self.handle.socket_path

    @property
    def args(self) -> tuple[str, ...]:
        """The command as written, interpreter first: what the fork server's request carries."""
        return self.entry.command


def fork_server(mode: SpawnMode, argv: Sequence[str], *, cwd: str | None, env: Mapping[str, str]) -> Fork | None:
    """Where to fork `argv` under `mode` from its warm fork server, or None when it starts plainly.

    The first call for a command starts its fork server (once per process, so once per worker);
    if it cannot be used, the reason is printed once and the command starts plainly from then on.
    """
    announce(mode)
    if resolve(mode, argv, cwd, env) != "fork":
        return None
    entry = _entry(argv, cwd, env)
    assert entry is not None
    key = _key(entry, cwd, env)
    with _run_servers.lock:
        gone = _run_servers.handles.get(key)
        if gone is not None and not gone.running():
            how = f" (exit code {gone.process.returncode})" if isinstance(gone, ForkServerHandle) else ""
            print(
                f"mcpbdd: the fork server for {shlex.join(argv)} ended{how}; starting a new one",
                file=sys.__stderr__ or sys.stderr,
            )
            gone.stop()
            del _run_servers.handles[key]
        if key not in _run_servers.handles:
            started = _start(entry, cwd, env, key)
            if isinstance(started, str):
                _run_servers.handles[key] = None
                print(
                    f"mcpbdd: starting {shlex.join(argv)} plainly in every scenario, not from the fork server: "
                    f"{started}",
                    file=sys.__stderr__ or sys.stderr,
                )
            else:
                _run_servers.handles[key] = started
        handle = _run_servers.handles[key]
    return None if handle is None else Fork(handle, entry)


def _start(
    entry: _Entry, cwd: str | None, env: Mapping[str, str], key: tuple[object, ...]
) -> ForkServerHandle | SharedForkServer | str:
    """A fork server for `key`: the owner's (`shared_forks.py`) when one offers them, else this process's own; or
    why it cannot be used."""
    folder = shared_forks.offered()
    if folder is None:
        own = ForkServerHandle(entry, cwd, _start_environment(env))
        return own if own.ready else own.why_not

    def start(server_folder: str, lifeline: int, stderr: int) -> tuple[int, str] | str:
        started = ForkServerHandle(entry, cwd, _start_environment(env), shared=(server_folder, lifeline, stderr))
        return (started.pid, started.socket_path) if started.ready else started.why_not

    return shared_forks.take_or_start(folder, key, cwd, start)


def start_fork_server(
    argv: Sequence[str], *, cwd: str | None, env: Mapping[str, str], preload: Sequence[str] = ()
) -> ForkServerHandle | None:
    """A fork server of the caller's own for the Python command `argv` (`python -m mod`, `python path.py`), with
    `preload` imported up front (see `ForkServerHandle`), or None when `argv` is not such a command. Not one of the
    run's (`fork_server_pids` does not list it): the caller stops it, or it ends with the caller's process."""
    entry = _entry(argv, cwd, env)
    if entry is None:
        return None
    return ForkServerHandle(entry, cwd, _start_environment(env), preload)


def fork_server_pids() -> list[int]:
    """The process ids of the fork servers this process runs now: the run's own, not a scenario's processes
    (a leak check counts every other process forked from them)."""
    return _run_servers.pids()


def stop_all() -> None:
    """Stop every fork server this process started for the run (also run at exit; a killed run's pipe closes
    anyway)."""
    _run_servers.stop_all()
