"""The launcher: what the SDK's `stdio_client` starts in place of a Python server under the fork server.

`python -I -S fork_launcher.py SOCKET ARGV...` (standard library only, no site: it starts in
milliseconds). It hands its own stdin, stdout and stderr (the pipes the SDK made) and its argv,
environment and working directory to the fork server over a Unix socket, lets go of the pipes (so the
SDK sees end-of-file when the server, their only other holder, exits), and waits for the server's exit
status, which it then reproduces: the same exit code, or death by the same signal. Stopping the
launcher (the SDK signals its process group) closes the socket, and the fork server then stops the
server the same way.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

__all__ = ["main"]


def main(argv: list[str]) -> int:
    path, command = argv[1], argv[2:]
    request = json.dumps({"argv": command, "env": dict(os.environ), "cwd": os.getcwd()})
    payload = request.encode("utf-8", "surrogatepass")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        socket.send_fds(conn, [struct.pack("!I", len(payload))], [0, 1, 2])
        conn.sendall(payload)
    except OSError as exc:
        print(f"mcpbdd: the fork server at {path} did not take the server ({exc})", file=sys.stderr)
        return 70
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    buffer = b""
    while True:
        chunk = conn.recv(256)
        if not chunk:
            print("mcpbdd: the fork server stopped before the server exited", file=sys.stderr)
            return 70
        buffer += chunk
        for line in buffer.split(b"\n")[:-1]:
            what, _, number = line.decode().partition(" ")
            if what == "exit":
                return int(number)
            if what == "signal":
                signal.signal(int(number), signal.SIG_DFL)
                os.kill(os.getpid(), int(number))
                return 128 + int(number)
        buffer = buffer.rsplit(b"\n", 1)[-1]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
