"""The launcher: what mcpbdd starts in place of a Python `http:` server command under the fork server.

A server started over HTTP is a process mcpbdd signals and waits for (`HttpProcess`), so under the fork
server something must stand for it: this. (Over stdio mcpbdd needs no process in between and talks to
the fork server directly: `fork_client.py`, which sends the same request, `encode_request`.)

`python -I -S fork_launcher.py SOCKET ARGV...`. It hands its own stdin, stdout and stderr (the pipes
the SDK made) and its argv, environment and working directory to the fork server over a Unix socket,
lets go of the pipes (so the SDK sees end-of-file when the server, their only other holder, exits),
and waits for the server's exit status, which it then reproduces: the same exit code, or death by the
same signal. A SIGTERM to the launcher (the SDK stopping its process group, or `HttpProcess` stopping
its process) is passed on (`term` over the socket: the fork server sends SIGTERM to the server's
process group and SIGKILL after its grace period), and the launcher still waits, so whoever stops it
sees it gone only when the server is, as with a plain start. A launcher killed outright closes the
socket, and the fork server then stops the server the same way.

It runs once per scenario and caller, so it imports only built-in C modules (`_socket`, `_signal`):
`socket`, `json` and `struct` pull in `enum` and `re`, which cost more than the rest of its work.
The request is `length (4 bytes, big-endian)` then NUL-separated fields: cwd, argc, argv..., NAME=value...
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # CPython's C half of `signal`: typeshed has no stub for it
import _socket
import os
import sys

__all__ = ["encode_request", "main"]


def encode_request(argv: list[str], environ: dict[str, str], cwd: str) -> bytes:
    """The request's bytes (names and values as the OS holds them: `os.fsencode`)."""
    fields = [cwd, str(len(argv)), *argv, *(f"{name}={value}" for name, value in environ.items())]
    payload = b"\0".join(os.fsencode(field) for field in fields)
    return len(payload).to_bytes(4, "big") + payload


def main(argv: list[str]) -> int:
    path, command = argv[1], argv[2:]
    request = encode_request(command, dict(os.environ), os.getcwd())
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    pipes = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))
    try:
        conn.connect(path)
        conn.sendmsg([request[:4]], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pipes)])
        conn.sendall(request[4:])
    except OSError as exc:
        os.write(2, f"mcpbdd: the fork server at {path} did not take the server ({exc})\n".encode())
        return 70
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    _signal.signal(_signal.SIGTERM, lambda _signum, _frame: _send(conn, b"term\n"))
    buffer = b""
    while True:
        chunk = conn.recv(256)
        if not chunk:
            os.write(2, b"mcpbdd: the fork server stopped before the server exited\n")
            return 70
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            what, _, number = line.decode().partition(" ")
            if what == "exit":
                return int(number)
            if what == "signal":
                _signal.signal(int(number), _signal.SIG_DFL)
                os.kill(os.getpid(), int(number))
                return 128 + int(number)


def _send(conn: _socket.socket, message: bytes) -> None:
    """Tell the fork server something (in a signal handler: a fork server already gone is not an error here)."""
    try:  # noqa: SIM105 - `contextlib` is not imported here (see the module docstring)
        conn.sendall(message)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv))
