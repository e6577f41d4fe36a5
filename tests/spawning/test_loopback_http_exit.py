"""The loopback HTTP servers end with the process that started them, whoever forgot to stop them.

A process that started the run's fake authorization server (stopped at exit) and an upstream loopback
server it never stopped, with a request held open, exits at once and quietly: no thread keeps it alive,
no traceback or "Exception ignored" on stderr, and the ports refuse connections afterwards.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from behave_process import ROOT

from mcpbdd._loopback_http import STOP_GRACE

PROGRAM = """
import json, threading, time
import httpx
from mcpbdd.authorization.server import fake_authorization_server
from mcpbdd.upstream import LoopbackServer, Upstream

fake = fake_authorization_server()
assert httpx.get(fake.jwks_url).status_code == 200
upstream = Upstream()
upstream.time_out("https://api.example", "GET", "/slow")
loopback = LoopbackServer(upstream, hold=600).start()  # never stopped by this program
url = loopback.url_for("https://api.example")

def call():
    try:
        httpx.get(url + "/slow", timeout=600)
    except httpx.HTTPError:
        pass

threading.Thread(target=call, daemon=True).start()
while not upstream.requests:
    time.sleep(0.01)
print(json.dumps([fake.issuer, url, loopback.other_url]), flush=True)
"""


def refused(url: str) -> bool:
    host, port = url.removeprefix("http://").split(":")
    with socket.socket() as probe:
        probe.settimeout(1)
        try:
            probe.connect((host, int(port)))
        except ConnectionRefusedError:
            return True
        return False


def test_a_process_exits_at_once_and_quietly_with_its_loopback_servers_running() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        urls = json.loads(process.stdout.readline() or "null")  # printed last: the program ends now
        ending = time.monotonic()
        returncode = process.wait(timeout=60)
        took = time.monotonic() - ending
        stderr = process.stderr.read()
    finally:
        process.kill()
        process.wait()
    assert returncode == 0 and stderr == "", stderr
    # A hold that the stop did not end would keep the exit waiting for the stop's grace (5 s).
    assert took < STOP_GRACE - 2, f"the process took {took:.1f} s to exit after its last line"
    assert urls and all(refused(url) for url in urls), urls
