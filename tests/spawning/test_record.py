"""Record a real client's session, turn it into a feature, verify builds against it.

Real processes end to end: a real `mcp.Client` drives `mcpbdd record` over stdio (as a client's
configuration would), the recorder starts the real server; the written feature runs under behave
on the client harness; `mcpbdd verify` replays against the same server and a changed build.

These tests start processes; the in-process tests of this concern are in tests/test_record.py. The scripted
client sessions and the `mcpbdd feature` and `verify` commands run here, in the test's process (`mcpbdd_here`,
through the command's public `main`): each would otherwise cost a Python start-up of its own (~1.4 s of CPU) for
nothing these tests check; the recorder, the servers and behave are processes as a user's would be.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
import warm_python
from processes import free_port

from mcpbdd.record.cassette import LEGACY, MODERN, read

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
NOTES = [sys.executable, "-m", "mcpbdd.examples.notes"]
CHANGED_NOTES = [sys.executable, str(TESTS / "changed_notes.py")]
NOTES_ENV = {"NOTES_TENANT": "acme", "NOTES_USER": "alice"}


def _env() -> dict[str, str]:
    return {**os.environ, **NOTES_ENV, "PYTHONPATH": f"{ROOT}{os.pathsep}{TESTS}"}


def record_session(name: str, cassette: Path, server: list[str], *secrets: str) -> None:
    """The scripted client session `name` (tests/recorded_sessions.py) with `server`, through `mcpbdd record`."""
    from recorded_sessions import SESSIONS

    from mcpbdd.record import through_recorder

    anyio.run(SESSIONS[name], through_recorder(cassette, server, secrets=secrets, env=_env()))


def mcpbdd_here(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`mcpbdd ARGS` run by its public `main` in this process, in `cwd` with `_env()` (and `env`), its output and exit
    status as a finished process's. One at a time: it redirects `sys.stdout` and `sys.stderr` while it runs."""
    from mcpbdd.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        for name, value in {**NOTES_ENV, "PYTHONPATH": _env()["PYTHONPATH"], **(env or {})}.items():
            patch.setenv(name, value)
        patch.chdir(cwd)
        code = main(list(args))
    return subprocess.CompletedProcess(["mcpbdd", *args], code, out.getvalue(), err.getvalue())


def run_feature(feature: Path) -> subprocess.CompletedProcess[str]:
    """The written feature, unmodified, under behave on the client harness (a project of its own)."""
    project = feature.parent
    (project / "steps").mkdir(exist_ok=True)
    (project / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (project / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    return warm_python.run(
        [sys.executable, "-m", "behave", str(project), "--format", "plain", "-D", "mcpbdd.harness=client"],
        cwd=project.parent,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def notes_cassette(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cassette = tmp_path_factory.mktemp("notes") / "notes.ndjson"
    record_session("notes", cassette, NOTES)
    return cassette


def test_the_notes_session_is_recorded_with_its_consent_round(notes_cassette: Path) -> None:
    cassette = read(notes_cassette)
    assert cassette.header.protocol_version == MODERN
    assert cassette.header.transport == "stdio"
    assert cassette.header.client["name"] == "mcp"
    assert "elicitation" in cassette.header.client["capabilities"]
    assert cassette.header.server["info"]["name"] == "notes"
    calls = cassette.calls()
    assert [(c.target, c.arguments.get("note_id")) for c in calls] == [
        ("create_note", None),
        ("get_note", "n-1"),
        ("delete_note", "n-1"),
        ("get_note", "n-1"),
    ]
    delete = calls[2]
    [round_] = delete.rounds
    assert round_["era"] == MODERN
    assert "confirm" in round_["asked"]["inputRequests"]
    retry = round_["retry"]["params"]
    assert retry["inputResponses"] == {"confirm": {"action": "accept", "content": {"confirm": True}}}
    assert retry["requestState"] == round_["asked"]["requestState"]  # the state the client echoed
    assert delete.response is not None and calls[3].response is not None
    assert delete.response["result"]["structuredContent"] == {"id": "n-1", "deleted": True}
    assert calls[3].response["result"]["isError"] is True
    assert all(c.latency_ms is not None and c.latency_ms >= 0 for c in calls)
    assert cassette.end is not None and cassette.end.exit_code == 0
    assert cassette.end.unparsed == 0


@dataclass(frozen=True)
class NotesReplays:
    """The notes cassette replayed as the tests below read it, every replay at once (each against its own server)."""

    feature: Path
    written: subprocess.CompletedProcess[str]
    """`mcpbdd feature` writing `feature`; `ran` is behave running it."""
    ran: subprocess.CompletedProcess[str] | None
    junit: Path
    same: subprocess.CompletedProcess[str]
    """`mcpbdd verify` against the same server, writing `junit`."""
    changed: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def notes_replays(notes_cassette: Path, tmp_path_factory: pytest.TempPathFactory) -> NotesReplays:
    folder = tmp_path_factory.mktemp("replays")
    feature, junit = folder / "features" / "notes.feature", folder / "verify.xml"

    written = mcpbdd_here("feature", str(notes_cassette), "--out", str(feature), "--", *NOTES)
    with ThreadPoolExecutor(max_workers=1) as pool:  # behave runs the feature while both verifications run here
        ran = pool.submit(run_feature, feature) if written.returncode == 0 else None
        same = mcpbdd_here("verify", str(notes_cassette), "--junit", str(junit), "--", *NOTES)
        changed = mcpbdd_here("verify", str(notes_cassette), "--", *CHANGED_NOTES)
        return NotesReplays(feature, written, None if ran is None else ran.result(), junit, same, changed)


def test_the_notes_session_becomes_a_feature_that_passes_unmodified(notes_replays: NotesReplays) -> None:
    written = notes_replays.written
    assert written.returncode == 0, written.stderr
    text = notes_replays.feature.read_text()
    assert '"created_at": "#iso-datetime"' in text  # it changed between the fresh replays
    assert 'And the result\'s "$.id" is remembered as "note_id"' in text
    assert 'When the client calls "delete_note" with {"note_id": "${note_id}"}' in text
    assert "When the user accepts with:" in text
    assert 'And the error reason is "note_not_found"' in text
    run = notes_replays.ran
    assert run is not None
    assert run.returncode == 0, text + run.stdout + run.stderr
    assert "1 scenario passed, 0 failed" in run.stdout


def test_verify_finds_no_drift_against_the_same_server(notes_replays: NotesReplays) -> None:
    run = notes_replays.same
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no drift in 6 exchange(s)" in run.stdout
    assert notes_replays.junit.read_text().count("<testcase") == 6


def test_verify_reports_drift_against_a_changed_build_channel_changes_first(notes_replays: NotesReplays) -> None:
    run = notes_replays.changed
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "mcpbdd verify: drift in 3 of 6 exchange(s)"
    assert lines[1].strip() == "#6 tools/call get_note"  # the channel change comes first, out of order
    assert lines[2].strip() == "channel: recorded tool-error, now protocol-error"
    assert lines[3].strip() == "#3 tools/list"  # listings compare by name: one tool's description changed
    assert lines[4].strip().startswith("$.tools.get_note.description: expected")
    assert lines[5].strip() == "#4 tools/call get_note"
    assert lines[6].strip().startswith('$.content[0].text: expected "{')  # the text block holds the title too
    assert lines[7].strip() == '$.structuredContent.title: expected "Plan", got "PLAN"'
    assert len(lines) == 8


def test_verify_cannot_run_without_a_server(notes_cassette: Path, tmp_path: Path) -> None:
    run = mcpbdd_here("verify", str(notes_cassette), "--", str(tmp_path / "no-such-server"))
    assert run.returncode == 2
    assert "could not run" in run.stderr
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"type": "exchange"}\n')
    assert mcpbdd_here("verify", str(bad)).returncode == 2


def test_configured_secrets_never_reach_the_cassette(tmp_path: Path) -> None:
    cassette = tmp_path / "secret.ndjson"
    record_session("notes", cassette, NOTES, "Ship on Friday")
    text = cassette.read_text()
    assert "Ship on Friday" not in text
    assert "Ship%20on%20Friday" not in text
    read(cassette)  # still a valid cassette


def _everything() -> list[str]:
    from reference_servers import SERVERS, command

    if shutil.which("node") is None:
        pytest.skip("node is needed to run the reference server")
    return command(SERVERS["server-everything"], "stdio")


def test_the_reference_server_session_round_trips(tmp_path: Path) -> None:
    """2025-11-25: the elicitation arrives mid-call and is recorded as a round of the call."""
    server = _everything()
    cassette = tmp_path / "everything.ndjson"
    record_session("everything", cassette, server)
    recorded = read(cassette)
    assert recorded.header.protocol_version == LEGACY
    elicit = recorded.calls()[-1]
    [round_] = elicit.rounds
    assert round_["era"] == LEGACY and round_["asked"]["method"] == "elicitation/create"
    assert round_["answer"]["result"]["content"] == {"name": "Ada", "check": True}
    feature = tmp_path / "features" / "everything.feature"
    assert mcpbdd_here("feature", str(cassette), "--out", str(feature), "--", *server).returncode == 0
    text = feature.read_text()
    for expected in (
        'And the client declares the capabilities "elicitation"',  # as recorded: so the server asks no roots
        'And the result mentions "Echo: hello"',
        '"temperature":',
        "Then the call fails with a tool error mentioning",
        "Then the server asks by elicitation",
    ):
        assert expected in text
    with ThreadPoolExecutor(max_workers=1) as pool:  # behave runs the feature while both verifications run here
        ran = pool.submit(run_feature, feature)
        verified = mcpbdd_here("verify", str(cassette), "--", *server)
        drift = mcpbdd_here("verify", str(cassette), "--", *NOTES)
        run = ran.result()
    assert run.returncode == 0, text + run.stdout + run.stderr
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert drift.returncode == 1  # another server altogether: every tool is unknown there


# the server is always the user's: a cassette never chooses what runs ------------------------------


def _planted(tmp_path: Path, notes_cassette: Path) -> tuple[Path, Path]:
    """The notes cassette with its header's command replaced by one that would leave a file behind."""
    marker = tmp_path / "pwned"
    lines = notes_cassette.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["server"]["command"] = ["sh", "-c", f"touch {marker} # \u001b[2J"]
    planted = tmp_path / "planted.ndjson"
    planted.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return planted, marker


@pytest.mark.parametrize("command", ["feature", "verify"])
def test_a_cassette_never_chooses_the_command_that_runs(notes_cassette: Path, tmp_path: Path, command: str) -> None:
    planted, marker = _planted(tmp_path, notes_cassette)
    run = mcpbdd_here(command, str(planted), cwd=tmp_path)  # no server named, no [tool.mcpbdd] here
    assert run.returncode == 2, run.stdout + run.stderr
    assert not marker.exists(), "the cassette's command ran"
    assert "name the server to replay against" in run.stderr
    assert f'["sh", "-c", "touch {marker} # \\u001b[2J"]' in run.stderr  # shown escaped, to copy; never run
    assert "\x1b" not in run.stderr


def test_the_configured_stdio_server_is_the_one_replayed(notes_cassette: Path, tmp_path: Path) -> None:
    planted, marker = _planted(tmp_path, notes_cassette)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcpbdd]\nserver = "stdio: {python} -m mcpbdd.examples.notes"\n', encoding="utf-8"
    )
    run = mcpbdd_here("verify", str(planted), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no drift in 6 exchange(s)" in run.stdout and not marker.exists()
    (tmp_path / "pyproject.toml").write_text('[tool.mcpbdd]\nserver = "mcpbdd.examples.notes:mcp"\n')
    refused = mcpbdd_here("verify", str(planted), cwd=tmp_path)
    assert refused.returncode == 2 and "is not a stdio: command or a URL" in refused.stderr


# verify judges by the recording, never by the build under test ------------------------------------

DRIFT_SERVER = [sys.executable, str(TESTS / "drift_server.py")]
DRIFT_SECRET = "s3cr3t-T0ken-42"


@pytest.fixture(scope="module")
def drift_cassettes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The stable build's session recorded twice: plainly, and with its secret redacted at record time."""
    from mcp import Client

    from mcpbdd.record import through_recorder

    folder = tmp_path_factory.mktemp("drift")
    env = {**_env(), "DRIFT_SECRET": DRIFT_SECRET}
    cassettes = {"plain": folder / "plain.ndjson", "redacted": folder / "redacted.ndjson"}

    async def session(out: Path, secrets: tuple[str, ...]) -> None:
        async with Client(through_recorder(out, [*DRIFT_SERVER, "stable"], secrets=secrets, env=env)) as client:
            await client.call_tool("status", {})

    anyio.run(session, cassettes["plain"], ())
    anyio.run(session, cassettes["redacted"], (DRIFT_SECRET,))
    assert DRIFT_SECRET not in cassettes["redacted"].read_text() and "«redacted»" in cassettes["redacted"].read_text()
    return cassettes


def _verify(cassette: Path, mode: str, *extra: str, cwd: Path = TESTS) -> subprocess.CompletedProcess[str]:
    return mcpbdd_here(
        "verify", str(cassette), *extra, "--", *DRIFT_SERVER, mode, cwd=cwd, env={"DRIFT_SECRET": DRIFT_SECRET}
    )


@dataclass(frozen=True)
class Verdict:
    run: subprocess.CompletedProcess[str]
    junit: Path | None
    """The JUnit report the run was asked to write, if any."""


@pytest.fixture(scope="module")
def drift_verdicts(drift_cassettes: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Verdict]:
    """Every `mcpbdd verify` the drift tests read, run at once (each test asserts on its own run)."""
    plain, redacted = drift_cassettes["plain"], drift_cassettes["redacted"]
    junit = tmp_path_factory.mktemp("junit") / "verify.xml"
    configured = tmp_path_factory.mktemp("configured")
    (configured / "pyproject.toml").write_text(f'[tool.mcpbdd]\nsecrets = ["{DRIFT_SECRET}"]\n', encoding="utf-8")
    runs = {  # one after another: each runs here (see mcpbdd_here)
        "stable": _verify(plain, "stable"),
        "random": _verify(plain, "random"),
        "string": _verify(plain, "string"),
        "mask only": _verify(redacted, "stable"),
        "with --secret": _verify(redacted, "stable", "--secret", DRIFT_SECRET),
        "leaky": _verify(plain, "leaky", "--secret", DRIFT_SECRET, "--junit", str(junit)),
        "configured": _verify(plain, "leaky", cwd=configured),  # the secret comes from pyproject.toml
    }
    return {name: Verdict(run, junit if name == "leaky" else None) for name, run in runs.items()}


def test_the_stable_build_verifies_without_drift(drift_verdicts: dict[str, Verdict]) -> None:
    run = drift_verdicts["stable"].run
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_value_that_became_random_is_drift(drift_verdicts: dict[str, Verdict]) -> None:
    run = drift_verdicts["random"].run
    assert run.returncode == 1, run.stdout + run.stderr
    assert '$.structuredContent.build: became volatile: recorded "b-1", now different each run' in run.stdout


def test_a_number_that_became_a_string_is_drift(drift_verdicts: dict[str, Verdict]) -> None:
    run = drift_verdicts["string"].run
    assert run.returncode == 1, run.stdout + run.stderr
    assert "$.structuredContent.version: became volatile: recorded 5 (a number), now a string" in run.stdout


@pytest.mark.parametrize("secret", ["mask only", "with --secret"])
def test_a_cassette_redacted_at_record_time_matches_its_own_server(
    drift_verdicts: dict[str, Verdict], secret: str
) -> None:
    run = drift_verdicts[secret].run
    assert run.returncode == 0, run.stdout + run.stderr


def test_verify_never_prints_a_secret_plain_or_base64(drift_verdicts: dict[str, Verdict]) -> None:
    import base64

    run, junit = drift_verdicts["leaky"].run, drift_verdicts["leaky"].junit
    assert run.returncode == 1, run.stdout + run.stderr
    assert junit is not None
    encoded = base64.b64encode(DRIFT_SECRET.encode()).decode()
    for where, text in (("console", run.stdout + run.stderr), ("junit", junit.read_text(encoding="utf-8"))):
        assert DRIFT_SECRET not in text and encoded not in text and encoded.rstrip("=") not in text, where
        assert "$.structuredContent.note" in text and "«redacted»" in text, where


PARENT_SERVER = """
import os
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("parent")


@mcp.tool()
def started() -> str:
    \"\"\"How this process started: forked from mcpbdd's warm parent, or plainly.\"\"\"
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as cmdline:
        return "forked" if b"forkserver.py" in cmdline.read() else "plainly"


if __name__ == "__main__":
    mcp.run("stdio")
"""


def test_verify_replays_a_python_server_from_a_warm_parent_unless_told_to_start_it_plainly(tmp_path: Path) -> None:
    """A server that says how it started. `mcpbdd record` starts it once: plainly, unless an owner shares fork servers
    (`spawn.one_off`). `verify` with `--spawn plain` replays it as recorded (no drift); by default from forks, which
    the drift then names (so the default is the fork, not a plain start); a project's `spawn` setting is the default
    when it has one."""
    from mcp import Client

    from mcpbdd.harness.processes import shared_forks
    from mcpbdd.record import through_recorder

    server = [sys.executable, str(tmp_path / "server.py")]
    (tmp_path / "server.py").write_text(PARENT_SERVER, encoding="utf-8")
    cassette = tmp_path / "session.ndjson"

    def record(out: Path, env: dict[str, str]) -> str:
        async def session() -> None:
            async with Client(through_recorder(out, server, env=env)) as client:
                await client.call_tool("started", {})

        anyio.run(session)
        return out.read_text(encoding="utf-8")

    alone = {name: value for name, value in _env().items() if name != shared_forks.ENV}
    assert '"plainly"' in record(cassette, alone)
    with shared_forks.share_fork_servers() as offered:
        assert '"forked"' in record(tmp_path / "shared.ndjson", {**alone, shared_forks.ENV: offered})
    plainly = mcpbdd_here("verify", str(cassette), "--spawn", "plain", "--", *server, cwd=tmp_path)
    assert plainly.returncode == 0, plainly.stdout + plainly.stderr
    forked = mcpbdd_here("verify", str(cassette), "--", *server, cwd=tmp_path)
    assert forked.returncode == 1, forked.stdout + forked.stderr
    assert '"plainly"' in forked.stdout and '"forked"' in forked.stdout, forked.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.mcpbdd]\nspawn = "plain"\n', encoding="utf-8")
    configured = mcpbdd_here("verify", str(cassette), "--", *server, cwd=tmp_path)
    assert configured.returncode == 0, "the project's spawn setting was not followed: " + configured.stdout


def test_verify_honours_the_configured_secrets(drift_verdicts: dict[str, Verdict]) -> None:
    run = drift_verdicts["configured"].run
    assert run.returncode == 1, run.stdout + run.stderr
    assert DRIFT_SECRET not in run.stdout and "«redacted»" in run.stdout


# a cassette that is not one, or holds nothing, is refused: never a traceback, never "no drift" -------


def _header() -> str:
    return json.dumps({"type": "header", "format": "mcpbdd-cassette", "version": 1, "server": {}, "startedAt": "x"})


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b'{"type": "header", "format": "mcpbdd-cassette", "version": "one"}\n', b":1: header line: 'version' must be"),
        (b'{"type": "header", "format": "mcpbdd-cassette", "version": 9}\n', b":1: not a mcpbdd-cassette version 1"),
        (_header().encode() + b'\n{"type": "exchange", "seq": "first", "request": {}}\n', b":2: exchange line: 'seq'"),
        (_header().encode() + b'\n{"type": "exchange", "seq": 1, "request": "x"}\n', b":2: exchange line: 'request'"),
        (
            b'{"type": "exchange", "seq": 1, "request": {"method": "ping"}}\n' + _header().encode(),
            b":1: no header line before",
        ),
        (
            _header().encode()
            + b'\n{"type": "exchange", "seq": 1, "request": {"method": "m", "params": {"arguments": []}}}',
            b":2: exchange line: request: params: 'arguments' must be an object",
        ),
        (_header().encode() + b"\n\xff\xfe\n", b":2: not UTF-8"),
        (_header().encode() + b"\n", b"holds no exchange"),
    ],
    ids=["version", "newer", "seq", "request", "order", "arguments", "not utf-8", "header only"],
)
def test_verify_refuses_a_malformed_or_empty_cassette_with_exit_2(tmp_path: Path, content: bytes, says: bytes) -> None:
    cassette = tmp_path / "bad.ndjson"
    cassette.write_bytes(content)
    run = mcpbdd_here("verify", str(cassette), "--", sys.executable, "-c", "pass", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert says.decode() in run.stderr and "Traceback" not in run.stderr
    assert str(cassette) in run.stderr


# over Streamable HTTP --------------------------------------------------------------------------


def _wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the process exited with {process.returncode}")
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


@pytest.fixture(scope="module")
def notes_http() -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen(
        [*NOTES, "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for_port(port, server)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_http_reverse_proxy_records_the_caller_but_never_the_token(notes_http: str, tmp_path: Path) -> None:
    cassette = tmp_path / "http.ndjson"
    port = free_port()
    listen = ["--listen", f"127.0.0.1:{port}", "--to", notes_http]
    recorder = subprocess.Popen(
        [sys.executable, "-m", "mcpbdd.cli.main", "record", "--out", str(cassette), *listen],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_port(port, recorder)
        from recorded_sessions import notes_over_http

        anyio.run(notes_over_http, f"http://127.0.0.1:{port}/mcp", "mcpbdd:acme:alice")
    finally:
        recorder.send_signal(signal.SIGINT)
        _, err = recorder.communicate(timeout=30)
    assert recorder.returncode == 0, err
    text = cassette.read_text()
    assert "mcpbdd:acme:alice" not in text
    recorded = read(cassette)
    assert recorded.header.transport == "http" and recorded.header.server["url"] == notes_http
    calls = recorded.calls()
    assert [c.target for c in calls] == ["create_note", "get_note", "delete_note"]
    assert {json.dumps(c.caller) for c in calls} == {json.dumps({"subject": "alice", "tenant": "acme"})}
    assert calls[2].rounds[0]["era"] == MODERN and "retry" in calls[2].rounds[0]
    assert calls[2].response is not None
    assert calls[2].response["result"]["structuredContent"] == {"id": "n-1", "deleted": True}
    verified = mcpbdd_here("verify", str(cassette), "--url", notes_http)  # the caller's test token, from the recording
    assert verified.returncode == 0, verified.stdout + verified.stderr
    feature = tmp_path / "features" / "http.feature"
    assert mcpbdd_here("feature", str(cassette), "--out", str(feature), "--url", notes_http).returncode == 0
    text = feature.read_text()
    assert 'Given the user "alice" of tenant "acme"' in text
    run = run_feature(feature)
    assert run.returncode == 0, text + run.stdout + run.stderr


def test_the_recorder_ends_with_the_server_and_keeps_its_exit_code_and_stderr(tmp_path: Path) -> None:
    cassette = tmp_path / "crash.ndjson"
    crash = "import sys; sys.stderr.write('boom: no database'); sys.exit(3)"
    proxy = warm_python.run(
        [sys.executable, "-m", "mcpbdd.cli.main", "record", "--out", str(cassette), "--", sys.executable, "-c", crash],
        stdin=subprocess.PIPE,  # the client keeps its end open: the server's exit alone ends the session
        capture_output=True,
        timeout=60,
    )
    assert proxy.returncode == 3
    assert b"boom: no database" in proxy.stderr  # passed through to the client's stderr
    ended = read(cassette).end
    assert ended is not None and ended.exit_code == 3 and "boom: no database" in ended.stderr
