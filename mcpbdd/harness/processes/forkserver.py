"""The fork server: one warm Python parent that forks a fresh server process per scenario.

Run as a script under the server command's own interpreter (`/path/venv/bin/python forkserver.py
CONFIG_JSON`: mcpbdd's, or another venv's or version's), never imported by the parent it serves, and
importing nothing but the standard library itself (and `fork_child.py`, `fork_pages.py`,
`fork_fitness.py` and `parent_death.py` beside it, which import only that): whatever it imports, every
scenario's process inherits, so it must not drag in mcpbdd (or read the run's environment into module
state). These scripts are written for the oldest Python the SDK supports; an interpreter that cannot run
them (too old, or without what they call) says why before `ready` (`fork_fitness.py`).

What it does, and why:

- Once, at start: imports the server module's dependencies (the modules its source imports,
  found with `ast`, minus the server module's own package or directory, whose code may read
  the environment at import time) and the SDK's run-time modules, then freezes the garbage
  collector's view so children share those pages. A starter that knows more of what its command
  imports names it (`preload` in the configuration, `spawn.start_fork_server`): mcpbdd's tests fork
  their behave and `mcpbdd` runs so, with behave and mcpbdd's hooks loaded up front
  (`tests/warm_python.py`). It never starts a thread or an event loop: a fork copies only the
  calling thread, so a thread started by a dependency at import would be missing (holding its
  locks) in every child. If one did, it says `fallback` and exits,
  and mcpbdd starts the server the plain way.
- Per scenario: a requester (mcpbdd's stdio transport, `fork_client.py`, or for a started HTTP server
  the launcher `fork_launcher.py`) connects over a Unix socket and passes the server's stdin, stdout
  and stderr with `SCM_RIGHTS`, plus the argv, environment and working directory. The request goes to
  the *standby*: a fork made ahead (after the previous request, so forking is not on the scenario's
  path) that has already called `setsid` (its own process group, as a plain start gets) and dropped the
  fork server's sockets, and waits, named `mcpbdd-standby`, for its request. It owns those pipes
  directly (no proxying), sets `os.environ`, cwd, `sys.argv`, `sys.path[0]`, and runs the server's
  entry point with `runpy` as `__main__`, exactly as `python -m pkg.mod` / `python path.py` would. The
  server's module is imported only then, so it sees the scenario's environment. While it waits, a
  standby copies the pages the first forks wrote (`fork_pages.py`), so the server's run does not.
- Exit: the child's status goes back to the requester (`exit N` or `signal N`), and whatever is left of its
  process group (a helper it started) gets SIGKILL. A requester that says
  `term` (a launcher that got SIGTERM, or the transport whose server did not end when its stdin closed)
  keeps waiting; a requester that hangs up (killed, or done) leaves nobody to tell. Either way the
  child's process group gets SIGTERM, then SIGKILL after a grace period (at once if the requester hangs
  up after its `term`: its stopper has escalated).
- Lifetime: the fork server watches a pipe only the run holds (EOF when the run ends, however it
  ends) and stops on SIGTERM/SIGINT; either way it stops every child's process group and exits.
  Children ask the kernel for SIGKILL if the fork server dies (`parent_death.py`: with the fork server
  gone nobody would escalate, so a server that ignores SIGTERM would run on); a standby also ends when
  the socket its request would come down closes.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import importlib.machinery
import importlib.util
import json
import os
import runpy
import select
import selectors
import signal
import socket
import struct
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any


def _sibling(name: str) -> types.ModuleType:
    """A module next to this file, loaded from its path: this runs as a script, and adds nothing to `sys.path`
    (the server's imports must find what its own interpreter would, not mcpbdd's modules)."""
    spec = importlib.util.spec_from_file_location(f"_mcpbdd_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pages = _sibling("fork_pages")
interpreter = _sibling("fork_child")
parent_death = _sibling("parent_death")
fitness = _sibling("fork_fitness")

__all__ = [
    "GRACE_SECONDS",
    "RUNTIME_MODULES",
    "STANDBY_NAME",
    "absolute_imports",
    "dependencies_of",
    "main",
]

GRACE_SECONDS = 2.0
"""How long a child may take to exit after SIGTERM before SIGKILL (the SDK's own grace period)."""

RUNTIME_MODULES = (
    "asyncio",
    "anyio",
    "anyio._backends._asyncio",
    "anyio.streams.text",
    "mcp",
    "mcp.server.stdio",
    "mcp.server.mcpserver",
    "mcp.server.lowlevel.server",
    "pydantic",
    "httpx",
    "rich.logging",
    "mcp.server.streamable_http_manager",
    "uvicorn",
    "uvicorn.server",
    "uvicorn.lifespan.on",
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.websockets.auto",
)
"""Modules a Python MCP server loads when it runs, imported if installed: anyio loads its backend lazily, and
a server over Streamable HTTP runs uvicorn (an SDK dependency), which loads its protocols when it starts."""

_HEADER = struct.Struct("!I")
_KILLED = float("inf")
"""A child's `kill_at` once it has been sent SIGKILL: nothing more to send (and no deadline to wait for)."""
STANDBY_NAME = b"mcpbdd-standby"
"""What a fork waiting for its request is called (`ps`, `/proc/PID/comm`) until it becomes a server."""


def _source_file(kind: str, target: str) -> Path | None:
    """The server's source file, found without importing (importing a package runs its `__init__`)."""
    if kind == "path":
        return Path(target)
    parts = target.split(".")
    search: list[str] | None = None
    spec = None
    for depth, part in enumerate(parts):
        spec = importlib.machinery.PathFinder.find_spec(part, search)
        if spec is None:
            return None
        if depth < len(parts) - 1:
            search = list(spec.submodule_search_locations or [])
    if spec is None or spec.origin is None:
        return None
    origin = Path(spec.origin)
    if spec.submodule_search_locations is not None:  # `-m pkg` runs pkg/__main__.py
        origin = origin.parent / "__main__.py"
    return origin if origin.suffix == ".py" else None


def dependencies_of(kind: str, target: str) -> list[str]:
    """The absolute imports in the server's source that are not its own package's or directory's modules.

    Imports inside functions count too (a lazy `import uvicorn` in `main()` is still paid per scenario);
    relative imports and the server's siblings are left to the child, where they see its environment.
    """
    source = _source_file(kind, target)
    if source is None or not source.is_file():
        return []
    try:
        tree = ast.parse(source.read_bytes(), filename=str(source))
    except (SyntaxError, ValueError):
        return []
    own_package = target.split(".")[0] if kind == "module" else None
    own_dir = source.parent
    names: list[str] = []
    for name in absolute_imports(tree):
        top = name.split(".")[0]
        if top == own_package or top == "__future__":
            continue
        if (own_dir / f"{top}.py").exists() or (own_dir / top / "__init__.py").exists():
            continue
        names.append(name)
    return list(dict.fromkeys(names))


def absolute_imports(tree: ast.AST) -> list[str]:
    """The modules a parsed source imports absolutely (`import a.b`, `from a.b import c`), anywhere in it,
    in order; relative imports are left out (they name the importer's own package)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def _preload(names: list[str]) -> list[str]:
    """Import what can be imported (a failing import is the child's to report, with its own environment)."""
    loaded = []
    for name in names:
        try:
            __import__(name)
        except BaseException:
            continue
        loaded.append(name)
    return loaded


def _decode_request(payload: bytes) -> dict[str, Any]:
    """A request (see `fork_launcher.encode_request`): cwd, argc, argv..., NAME=value..."""
    fields = [os.fsdecode(field) for field in payload.split(b"\0")]
    cwd, count = fields[0], int(fields[1])
    argv = fields[2 : 2 + count]
    env = dict(item.partition("=")[::2] for item in fields[2 + count :] if item)
    return {"cwd": cwd, "argv": argv, "env": env}


class _Child:
    """One forked server process and the requester's connection it reports to (none while it stands by)."""

    def __init__(self, pid: int, conn: socket.socket | None, pidfd: int) -> None:
        self.pid = pid
        self.conn = conn
        self.pidfd = pidfd
        self.kill_at: float | None = None


class _Standby:
    """The next server process, forked ahead, and the socket its request goes down."""

    def __init__(self, child: _Child, sock: socket.socket) -> None:
        self.child = child
        self.sock = sock


def _has_ended(pidfd: int) -> bool:
    """Whether the process behind `pidfd` has ended (its pidfd is readable), without waiting."""
    return bool(select.select([pidfd], [], [], 0)[0])


def _receive_request(conn: socket.socket) -> tuple[list[int], bytes]:
    """A request as `fork_launcher.encode_request` frames it, with the three pipes passed alongside."""
    fds: list[int] = []
    try:
        header, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
        if len(header) != _HEADER.size or len(fds) != 3:
            raise OSError("no request")
        (size,) = _HEADER.unpack(header)
        payload = bytearray()
        while len(payload) < size:
            chunk = conn.recv(size - len(payload))
            if not chunk:
                raise OSError("the requester hung up")
            payload += chunk
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return fds, bytes(payload)


def _send_request(conn: socket.socket, fds: list[int], payload: bytes) -> None:
    """Pass a request on (to the standby that will run it), framed as it came."""
    socket.send_fds(conn, [_HEADER.pack(len(payload))], fds)
    conn.sendall(payload)


class ForkServer:
    """The accept/fork/reap loop; single-threaded, no event loop (see the module docstring)."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.kind: str = config["kind"]
        self.target: str = config["target"]
        self.path0: str = config["path0"]
        self.lifeline: int = config["lifeline"]
        self.learned = os.path.join(os.path.dirname(config["socket"]), "written-pages")
        self.forked = 0
        self.pid = os.getpid()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(config["socket"])
        self.listener.listen(64)
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, _Child] = {}
        self.standby: _Standby | None = None
        self.stopping = False

    # the loop -----------------------------------------------------------------------------------

    def serve(self) -> None:
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.lifeline, selectors.EVENT_READ, "lifeline")
        self.standby = self._fork_standby()
        while not self.stopping:
            now = time.monotonic()
            # A child already sent SIGKILL waits at infinity: only its exit is left to see (`select` takes no inf).
            deadlines = [child.kill_at for child in self.children.values() if child.kill_at not in (None, _KILLED)]
            timeout = max(0.0, min(deadlines) - now) if deadlines else None
            for key, _events in self.selector.select(timeout):
                what = key.data
                if what == "accept":
                    self._accept()
                elif what == "lifeline":
                    self.stopping = True
                elif isinstance(what, tuple):
                    role, pid = what
                    child = self.children.get(pid)
                    if child is None:
                        continue
                    if role == "exit":
                        self._reap(child)
                    else:
                        self._from_requester(child)
            self._escalate()

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        try:
            conn.settimeout(10.0)
            fds, payload = _receive_request(conn)
        except (OSError, ValueError):
            conn.close()
            return
        try:
            standby = self._hand_over(fds, payload)
        finally:
            for fd in fds:
                os.close(fd)
        if standby is None:
            conn.close()
            return
        conn.settimeout(None)
        child = standby.child
        child.conn = conn
        with contextlib.suppress(OSError):  # a requester gone already is seen in the loop: its child is stopped
            conn.sendall(f"pid {child.pid}\n".encode())
        self.selector.register(conn, selectors.EVENT_READ, ("requester", child.pid))
        self.standby = self._fork_standby()  # the next request's fork, made while this one's server starts

    def _hand_over(self, fds: list[int], payload: bytes) -> _Standby | None:
        """Give the request to the standby; one that has died (killed from outside) is replaced, once."""
        for _attempt in range(2):
            standby, self.standby = self.standby, None
            if standby is None or _has_ended(standby.child.pidfd):
                if standby is not None:
                    standby.sock.close()  # the dead one is reaped in the loop, as any child
                standby = self._fork_standby()
            try:
                _send_request(standby.sock, fds, payload)
            except OSError:
                continue
            finally:
                standby.sock.close()
            return standby
        return None

    def _fork_standby(self) -> _Standby:
        """Fork the next server process now; it waits (`_stand_by`) for its request, with its set-up done."""
        ours, theirs = socket.socketpair()
        self.forked += 1
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns here
            ours.close()
            self._stand_by(theirs)
        theirs.close()
        pidfd = os.pidfd_open(pid)
        child = _Child(pid, None, pidfd)
        self.children[pid] = child
        self.selector.register(pidfd, selectors.EVENT_READ, ("exit", pid))
        return _Standby(child, ours)

    def _reap(self, child: _Child) -> None:
        # What the server left in its group (a helper it started) ends with it, as `groups.py` does for a plain
        # start. Before the reaping: until then the exited server holds its group's id, so no other can have it.
        _signal_group(child.pid, signal.SIGKILL)
        _, status = os.waitpid(child.pid, 0)
        if self.standby is not None and self.standby.child is child:  # it died waiting: fork another when asked
            self.standby.sock.close()
            self.standby = None
        self.selector.unregister(child.pidfd)
        os.close(child.pidfd)
        del self.children[child.pid]
        if child.conn is not None:
            code = os.waitstatus_to_exitcode(status)
            message = f"signal {-code}\n" if code < 0 else f"exit {code}\n"
            with contextlib.suppress(OSError):
                child.conn.sendall(message.encode())
            self.selector.unregister(child.conn)
            child.conn.close()

    def _from_requester(self, child: _Child) -> None:
        """The requester said `term` (stop the server, and tell it the status when it ends), or its end closed
        before the server ended (it was killed: stop the server, process group and all, with no one to tell)."""
        assert child.conn is not None
        try:
            said = child.conn.recv(64)
        except OSError:
            said = b""
        if not said:
            self.selector.unregister(child.conn)
            child.conn.close()
            child.conn = None
            if child.kill_at is not None:  # killed after its `term`: whoever stopped it escalated, so do we
                child.kill_at = time.monotonic()
                self._escalate()
                return
        self._terminate(child)

    def _terminate(self, child: _Child) -> None:
        if child.kill_at is None:
            _signal_group(child.pid, signal.SIGTERM)
            child.kill_at = time.monotonic() + GRACE_SECONDS

    def _escalate(self) -> None:
        now = time.monotonic()
        for child in self.children.values():
            if child.kill_at is not None and now >= child.kill_at:
                _signal_group(child.pid, signal.SIGKILL)
                child.kill_at = _KILLED

    def stop_children(self) -> None:
        """SIGTERM every child's process group, wait out the grace period, SIGKILL what is left, reap all."""
        if self.standby is not None:
            self.standby.sock.close()  # it exits at once, having no request
            self.standby = None
        for child in self.children.values():
            self._terminate(child)
        deadline = time.monotonic() + GRACE_SECONDS
        while self.children:
            for child in list(self.children.values()):
                if _has_ended(child.pidfd):
                    _signal_group(child.pid, signal.SIGKILL)  # what it left in its group (see `_reap`)
                pid, _status = os.waitpid(child.pid, os.WNOHANG)
                if pid:
                    os.close(child.pidfd)
                    if child.conn is not None:
                        child.conn.close()
                    del self.children[child.pid]
            if self.children and time.monotonic() >= deadline:
                for child in self.children.values():
                    _signal_group(child.pid, signal.SIGKILL)
                deadline = float("inf")
            if self.children:
                time.sleep(0.01)

    # the child ----------------------------------------------------------------------------------

    def _stand_by(self, requests: socket.socket) -> None:
        """In the fork: do the set-up no request changes, wait for the request, then become the server.

        A fork server that stops closes `requests` (or dies: the death signal); either way, with no
        request taken, the standby just exits.
        """
        code = 1
        learner = False
        inherited: list[tuple[int, int]] = []
        try:
            os.setsid()
            if not parent_death.die_with_parent(signal.SIGKILL, self.pid):
                os._exit(0)  # the fork server died before the request took effect: nobody will ask
            for signum in (signal.SIGTERM, signal.SIGCHLD):
                signal.signal(signum, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            # Python objects, not raw fd numbers: a socket object closed later by the collector would close
            # whatever file the server had opened under the same number meanwhile.
            self.selector.close()
            self.listener.close()
            for child in self.children.values():
                os.close(child.pidfd)
                if child.conn is not None:
                    child.conn.close()
            if self.standby is not None:
                self.standby.sock.close()
            self.children.clear()
            os.close(self.lifeline)
            name = interpreter.process_name()
            interpreter.set_process_name(STANDBY_NAME)
            learner = self.forked <= pages.LEARNERS
            inherited = pages.writable_regions() if learner else []
            pages.prefault(pages.load(self.learned), until_readable=requests)
            try:
                fds, payload = _receive_request(requests)
            except (OSError, ValueError):
                os._exit(0)
            requests.close()
            interpreter.set_process_name(name)
            request = _decode_request(payload)
            for number, fd in enumerate(fds):
                os.dup2(fd, number)
                os.close(fd)
            env = request["env"]
            os.environ.clear()
            os.environ.update(env)
            time.tzset()  # what an interpreter's start does with `TZ` (the locale and `PYTHON*`: see `spawn._key`)
            os.chdir(request["cwd"])
            interpreter.fresh_stdio(unbuffered=bool(env.get("PYTHONUNBUFFERED")))
            code = self._run(request["argv"])
        except BaseException:
            code = interpreter.report(*sys.exc_info())
        finally:
            # Nested, so that nothing raised here unwinds into the copy of `main()` this fork inherited: its
            # `finally` would remove the live fork server's socket and pages file.
            try:
                code = interpreter.finish(code)
                if learner:
                    pages.save(self.learned, pages.written(inherited))
            finally:
                os._exit(code)

    def _run(self, argv: list[str]) -> int:
        """Run the entry point of the command `argv` (`python -m mod ...`, `python path.py ...`) as `__main__`;
        the exit code Python itself would give."""
        try:
            sys.orig_argv = list(argv)  # the interpreter's own command line, as a plain start's
            if self.kind == "module":
                if not _safe_path():
                    sys.path[0] = os.getcwd()
                sys.argv = ["-m", *argv[3:]]
                runpy.run_module(self.target, run_name="__main__", alter_sys=True)
            else:
                if not _safe_path():
                    sys.path[0] = self.path0
                sys.argv = argv[1:]
                interpreter.run_script(argv[1])
        except SystemExit as exc:
            status: int = interpreter.exit_code(exc.code)  # a sibling loaded from its path: mypy sees Any
            return status
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            interpreter.finish(0)
            os.kill(os.getpid(), signal.SIGINT)
            return 130
        except BaseException:
            status = interpreter.report(*sys.exc_info())
            return status
        return 0


def _safe_path() -> bool:
    """Whether the interpreter puts nothing first on `sys.path` for the script or `-m` (`PYTHONSAFEPATH`, `-P`,
    Python 3.11+): then `sys.path[0]` is the first `PYTHONPATH` or standard entry, which is not ours to replace."""
    return bool(getattr(sys.flags, "safe_path", False))


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):  # not (yet, or any more) its own group: signal it alone
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def _stop(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str]) -> int:
    """Start: set up `sys.path` as the server's interpreter would, preload, say `ready` (or `fallback`), serve."""
    why = fitness.too_old(tuple(sys.version_info[:2])) or fitness.cannot_fork()
    if why is not None:
        print(f"fallback {why}", flush=True)
        return 0
    config = json.loads(argv[1])
    if not _safe_path():
        sys.path[0] = config["path0"]
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    names = [*RUNTIME_MODULES, *config.get("preload", ()), *dependencies_of(config["kind"], config["target"])]
    loaded = _preload(names)
    threads = threading.active_count()
    out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # nothing a preloaded module prints lands in the run's pipe
    os.close(devnull)
    if threads > 1:
        started = sorted(thread.name for thread in threading.enumerate() if thread is not threading.main_thread())
        out.write(f"fallback importing the server's dependencies started threads ({', '.join(started)})\n")
        out.close()
        os._exit(0)  # not a normal exit: that would wait for the non-daemon threads a dependency started
    gc.collect()
    gc.freeze()  # children share the preloaded objects' pages instead of copying them at their first collection
    server = ForkServer(config)
    out.write(f"ready {len(loaded)}\n")
    out.close()
    try:
        server.serve()
    finally:
        server.stop_children()
        server.listener.close()
        with contextlib.suppress(OSError):
            os.unlink(server.learned)
        with contextlib.suppress(OSError):
            os.unlink(config["socket"])
            os.rmdir(os.path.dirname(config["socket"]))  # its folder too, when the run that made it was killed
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
