"""`mcpbdd conformance TARGET`: the pack on both eras against the example server (in process, stdio, HTTP),
a broken variant failing, the expected-failures file, `--only`/`--skip` and the usage errors.

Each run is the real command in a subprocess (it starts behave processes of its own), in a scratch
folder with no project file, as a team with only a server would run it.

No two tests read one run: each run differs from every other in its target, its checks (`--only`/`--skip`), its
expected-failures file or its caller (the pyproject section, `--user`, `--token`), and the tests that run the same
server twice (the broken one, the members-only one, the protected one, the example over HTTP) compare the two
options' outcomes. So each test starts its own runs; a run shared would drop the difference a test checks. A test's
runs are independent of each other, so they run side by side (`_side_by_side`), each in a folder of its own; the
example server's three targets too, started together by the first of their tests (`example_runs`). A run takes the
checks its assertions need (`--only`); the whole pack runs on the example in process and over HTTP, and on each
reference server over stdio (test_conformance_reference.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
import warm_python
from expected_reports import assert_expected_everywhere

from mcpbdd.conformance import PACK

PYTHON = sys.executable
TESTS = Path(__file__).parents[1]
NOTES_STDIO = f"stdio: {PYTHON} -m mcpbdd.examples.notes"
NOTES_HTTP = f"http: {PYTHON} -m mcpbdd.examples.notes --http 127.0.0.1:{{port}}"


def _conformance(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return warm_python.run(
        [PYTHON, "-m", "mcpbdd.cli.main", "conformance", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _side_by_side(*runs: tuple[Path, tuple[str, ...]]) -> list[subprocess.CompletedProcess[str]]:
    """Each (folder, arguments) run of the command at once (each mostly waits on its servers), in their order."""
    with ThreadPoolExecutor(max_workers=len(runs)) as pool:
        return list(pool.map(lambda run: _conformance(run[0], *run[1]), runs))


def _folder(tmp_path: Path, name: str, **files: str) -> Path:
    """A folder of its own for one run (its reports), with `files` written in it (name: text)."""
    folder = tmp_path / name
    folder.mkdir()
    for file, text in files.items():
        (folder / file.replace("_", ".")).write_text(text, encoding="utf-8")
    return folder


def _summary(folder: Path) -> str:
    return (folder / "reports" / "conformance.md").read_text(encoding="utf-8")


AS_THE_CALLER = (
    "unknown-tool,invalid-arguments,tampered-request-state,structured-results,error-channels,form-payloads,"
    "error-texts-leak-nothing,unknown-resource"
)
"""The checks that call the server's tools or read its resources, which the example refuses to anonymous callers:
where a caller that did not reach it would show. The other checks list and negotiate; on the example over stdio
they meet the server the in-process run serves over stdio (`mcpbdd.record.stdio_server`), and pass there."""
EXAMPLE_TARGETS = {
    "inprocess": ("mcpbdd.examples.notes:mcp",),
    "stdio": (NOTES_STDIO, "--only", AS_THE_CALLER),
    "http": (NOTES_HTTP,),
}


@pytest.fixture(scope="module")
def example_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, Future[tuple[Path, subprocess.CompletedProcess[str]]]]]:
    """The example server's run on each target, all three started at once, each in a folder of its own."""

    def run(target: tuple[str, ...]) -> tuple[Path, subprocess.CompletedProcess[str]]:
        folder = tmp_path_factory.mktemp("example")
        (folder / "pyproject.toml").write_text(
            '[tool.mcpbdd]\nenv = { NOTES_USER = "{user}", NOTES_TENANT = "{tenant}" }\n'
            '[tool.mcpbdd.conformance]\nuser = "alice"\ntenant = "acme"\n',
            encoding="utf-8",
        )
        return folder, _conformance(folder, *target)

    with ThreadPoolExecutor(max_workers=len(EXAMPLE_TARGETS)) as pool:
        yield {name: pool.submit(run, target) for name, target in EXAMPLE_TARGETS.items()}


@pytest.mark.parametrize("target", list(EXAMPLE_TARGETS))
def test_the_example_server_passes_on_both_eras_as_the_named_caller(
    target: str, example_runs: dict[str, Future[tuple[Path, subprocess.CompletedProcess[str]]]]
) -> None:
    """The example refuses an anonymous caller ("Sign in first"): named in [tool.mcpbdd.conformance], the caller
    reaches it in process (served over stdio for the pack), over stdio (through the env templates; the checks that
    call it as the caller, `AS_THE_CALLER`) and over HTTP (its bearer token), and every check that applies passes;
    none reads "refused the caller"."""
    tmp_path, done = example_runs[target].result()
    assert done.returncode == 0, done.stdout + done.stderr
    # Every file it wrote is named, so none is a surprise in the working folder.
    assert "also wrote Allure results in reports/allure-results, JUnit in reports/junit" in done.stdout
    summary = _summary(tmp_path)
    assert "Called as alice of tenant acme with no scopes." in summary
    assert "| check | spec | 2026-07-28 | 2025-11-25 |" in summary
    assert "| unknown-resource | [resources](" in summary and "failed" not in summary
    assert "refused the caller" not in summary and "| error-channels | [tools](" in summary
    for era in ("client.auto", "client.legacy"):
        assert (tmp_path / "reports" / "junit" / era / "TESTS-conformance.xml").is_file()
    assert list((tmp_path / "reports" / "allure-results").glob("*-result.json"))
    assert (tmp_path / "reports" / "conformance.client.auto.ndjson").is_file()


def test_a_broken_server_fails_naming_the_check_and_a_baseline_turns_it_expected(tmp_path: Path) -> None:
    target = "conformance_servers:wrong_not_found"
    only = ("--only", "unknown-resource,tool-names")
    stale = _folder(tmp_path, "stale", expected_yml="server:\n  - unknown-resource\n  - tool-names@2025-11-25\n")
    skip = _folder(tmp_path, "skip", expected_yml="- unknown-resource\n")
    plain, with_stale, skipped = _side_by_side(
        (_folder(tmp_path, "plain"), (target, *only)),
        (stale, (target, *only, "--expected-failures", str(stale / "expected.yml"))),
        # --skip takes tool-names out of the two checks --only chose (no more of the pack: the others would only
        # pass on this server, which the example's runs show of the whole pack)
        (skip, (target, *only, "--skip", "tool-names", "--expected-failures", str(skip / "expected.yml"))),
    )
    done = plain
    assert done.returncode == 1, done.stdout + done.stderr
    summary = _summary(tmp_path / "plain")
    assert "| unknown-resource | [resources](" in summary and "❌ failed" in summary
    assert "the error code is -32002, not -32602" in summary
    assert "| tool-names |" in summary and "| unknown-tool |" not in summary  # --only

    done = with_stale
    assert done.returncode == 1, done.stdout + done.stderr  # tool-names passes: its entry is stale
    assert "the expected failure tool-names@2025-11-25 now passes: remove it from the file" in done.stdout
    assert "⚠️ expected failure" in _summary(stale)

    done = skipped
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| tool-names |" not in _summary(skip) and "| unknown-resource |" in _summary(skip)  # --skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["mcpbdd.examples.notes:mcp", "--only", "no-such-check"], "unknown conformance check 'no-such-check'"),
        (["mcpbdd.examples.notes:mcp", "--expected-failures", "missing.yml"], "cannot read the expected-failures"),
        (["no_such_module_here:mcp"], "no_such_module_here"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = _conformance(tmp_path, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr


def _behave(folder: Path, feature: str, *defines: str) -> subprocess.CompletedProcess[str]:
    (folder / "steps").mkdir(exist_ok=True)
    (folder / "steps" / "mcpbdd_steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n", encoding="utf-8")
    (folder / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n", encoding="utf-8")
    (folder / "check.feature").write_text(feature, encoding="utf-8")
    command = [PYTHON, "-m", "behave", "--format", "plain", "--no-capture", str(folder)]
    for define in ("mcpbdd.server=mcpbdd.examples.notes:mcp", *defines):
        command += ["-D", define]
    env = {**os.environ, "COLUMNS": "400"}  # behave's log would wrap the skip reason at 80 columns
    return warm_python.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_the_steps_skip_on_the_context_harness_and_name_a_misspelt_check(tmp_path: Path) -> None:
    """The checks read the wire: on the context harness a scenario is skipped saying so, never passed."""
    feature = (
        "Feature: f\n"
        "  Scenario: all\n    Then the server passes the conformance checks\n"
        '  Scenario: one\n    Then the server passes the conformance check "unknown-tool"\n'
    )
    done = _behave(tmp_path, feature, "mcpbdd.harness=context")
    assert "2 skipped" in done.stdout, done.stdout + done.stderr
    assert "0 scenarios passed" in done.stdout
    said = " ".join((done.stdout + done.stderr).split())  # behave's log wraps the reason
    assert "SKIP Scenario all [context harness]:" in said and "not applicable: the conformance checks read" in said
    done = _behave(
        tmp_path,
        'Feature: f\n  Scenario: typo\n    Then the server passes the conformance check "unknown-tol"\n',
        "mcpbdd.harness=client",
    )
    assert done.returncode != 0
    assert "unknown conformance check 'unknown-tol': use one of unknown-tool" in done.stdout + done.stderr


def test_list_results_without_caching_hints_or_result_type_fail_those_checks(tmp_path: Path) -> None:
    """The SDK's server always stamps them, so the server here strips them on the way out (over HTTP)."""
    target = f"http: {PYTHON} {TESTS / 'stripped_hints_server.py'} {{port}}"
    done = _conformance(tmp_path, target, "--only", "caching-hints,result-type")
    assert done.returncode == 1, done.stdout + done.stderr
    summary = _summary(tmp_path)
    refused = (
        "tools/list: the SDK's client refused the server's answer (missing or invalid: cacheScope, resultType, ttlMs)"
    )
    for check in ("caching-hints", "result-type"):
        assert f"### {check} (2026-07-28): failed\n\n```\n{refused}" in summary
        assert f"| {check} | " in summary and "⚪ not applicable |" in summary  # 2025-11-25 has no such fields


def test_the_pack_ships_with_the_package() -> None:
    """The wheel takes every file of the package git does not ignore, so `mcpbdd conformance` works installed."""
    root = Path(__file__).parents[2]
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'\[tool\.hatch\.build\.targets\.wheel\][^\[]*packages = \["mcpbdd"\]', pyproject)
    features = [str(path.relative_to(root)) for path in PACK.glob("*.feature")]
    assert features
    ignored = warm_python.run(["git", "check-ignore", *features], cwd=root, capture_output=True, text=True)
    assert ignored.stdout == "", f"git ignores {ignored.stdout}: the wheel would leave them out"


def test_with_no_arguments_the_pyproject_section_says_what_to_run(tmp_path: Path) -> None:
    """CI runs `mcpbdd conformance` alone: the target, the checks and the expected failures come from the file."""
    section = (
        "[tool.mcpbdd.conformance]\n"
        'target = "conformance_servers:wrong_not_found"\n'
        'only = ["unknown-resource", "tool-names"]\n'
        'expected_failures = "known.yml"\n'
    )
    alone, missing, checks = (
        _folder(tmp_path, name, pyproject_toml=section, known_yml="- unknown-resource\n")
        for name in ("alone", "missing", "checks")
    )
    done, missing_file, other_checks = _side_by_side(
        (alone, ()),
        (missing, ("--only", "unknown-resource", "--expected-failures", str(missing / "none.yml"))),
        (checks, ("--only", "tool-names")),
    )
    tmp_path = alone
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 expected failure(s), as the expected-failures file says" in done.stdout
    # one verdict: the console's one count, and every report skips the expected failures naming the file
    assert "mcpbdd conformance: 2 passed, 0 failed, 2 expected to fail" in done.stdout, done.stdout
    assert [line for line in done.stdout.splitlines() if line.startswith("mcpbdd") and "failed" in line] == [
        "mcpbdd conformance: 2 passed, 0 failed, 2 expected to fail (each check on each era)"
    ]
    assert_expected_everywhere(tmp_path / "reports", "unknown-resource", "known.yml", tmp_path / "known.yml")
    summary = _summary(tmp_path)
    assert "## mcpbdd conformance: `conformance_servers:wrong_not_found`" in summary
    assert "| unknown-resource |" in summary and "| tool-names |" in summary and "| unknown-tool |" not in summary

    done = missing_file
    assert done.returncode == 2, done.stdout + done.stderr  # the command line's file wins (and is missing)
    assert "cannot read the expected-failures" in done.stderr
    done = other_checks
    assert done.returncode == 0, done.stdout + done.stderr  # the command line's checks win
    assert "| unknown-resource |" not in _summary(checks)


def test_a_check_that_ends_or_stalls_the_server_is_one_verdict_not_a_cascade(tmp_path: Path) -> None:
    """In process, `die()` would end the behave job; over stdio one process per era would fail every later check.
    Served one process per check, the check that ended it fails naming the call, the one that stalled it names
    the hang, and the check after them meets a fresh server and passes, on both eras."""
    (tmp_path / "pyproject.toml").write_text("[tool.mcpbdd]\ntimeout = 2\n", encoding="utf-8")
    done = _conformance(tmp_path, "conformance_servers:unruly", "--only", "error-channels,form-payloads,tool-names")
    assert done.returncode == 1, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert "ended before this scenario reported" not in output
    summary = _summary(tmp_path)
    assert "| tool-names | [tools](" in summary and "| ✅ passed | ✅ passed |" in summary
    for era in ("2026-07-28", "2025-11-25"):
        died = f"### error-channels ({era}): failed\n\n```\nthe server stopped answering at tools/call die {{}}"
        assert died in summary
        # a sync tool that never returns: its event loop blocked (then no ping answers: the check stops there),
        # or the tool in a worker thread (the server answers pings: the call is judged a hang); a failure naming
        # the call either way
        hung = summary.split(f"### form-payloads ({era}): failed\n\n```\n", 1)[1].split("```", 1)[0]
        assert "hang" in hung and "tools/call stall {'note_id': 'a', 'label': ''}" in hung, hung
    assert summary.count("): failed") == 4


def test_a_server_that_cannot_start_is_one_verdict_and_exit_2(tmp_path: Path) -> None:
    target = f"stdio: {PYTHON} -c \"import sys; print('NOTES_DB is not set', file=sys.stderr); sys.exit(3)\""
    done = _conformance(tmp_path, target)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "mcpbdd conformance: cannot start stdio: " in done.stderr and "no check ran" in done.stderr
    assert "NOTES_DB is not set" in done.stderr
    assert "cannot start: no check ran." in _summary(tmp_path)
    assert not (tmp_path / "reports" / "junit").exists()


def test_the_caller_is_named_and_a_refusal_of_it_is_no_pass(tmp_path: Path) -> None:
    """Anonymous, the tool refuses the call before it reads the form's blank cursor: "refused the caller", said
    in the summary with who called; named in [tool.mcpbdd.conformance], the crash behind the refusal is found."""
    named = _folder(
        tmp_path,
        "named",
        pyproject_toml='[tool.mcpbdd.conformance]\nuser = "alice"\ntenant = "acme"\nscopes = ["notes:read"]\n',
    )
    run = ("conformance_servers:members_only", "--only", "form-payloads")
    done, as_alice = _side_by_side((_folder(tmp_path, "anonymous"), run), (named, run))
    assert done.returncode == 1, done.stdout + done.stderr  # nothing was judged: never green
    assert "no check judged the server: it refused an anonymous caller (no access token)" in done.stderr
    summary = _summary(tmp_path / "anonymous")
    assert "Called as an anonymous caller (no access token)." in summary
    assert "| form-payloads | [tools](" in summary and "| ⛔ refused the caller | ⛔ refused the caller |" in summary
    assert "Unauthorized: sign in first." in summary

    done = as_alice
    assert done.returncode == 1, done.stdout + done.stderr
    assert "called as alice of tenant acme with scopes notes:read" in done.stdout
    summary = _summary(named)
    assert "Called as alice of tenant acme with scopes notes:read." in summary
    assert "list_notes, the form's payload: crash" in summary


def test_over_http_the_token_given_is_the_callers_bearer_and_stays_out_of_the_reports(tmp_path: Path) -> None:
    """The example accepts mcpbdd's test tokens over HTTP: the token given reaches it (alice's passes; with a
    made-up one the example sees no caller and refuses, reported as refused the caller), and the token is
    written nowhere."""
    args = (NOTES_HTTP, "--only", "form-payloads", "--user", "alice", "--tenant", "acme")
    made_up = "not-a-token-d1e5a9c0"
    alice, stranger = _folder(tmp_path, "alice"), _folder(tmp_path, "stranger")
    done, with_made_up = _side_by_side(
        (alice, (*args, "--token", "mcpbdd:acme:alice")), (stranger, (*args, "--token", made_up))
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = _summary(alice)
    assert "Called as alice of tenant acme with no scopes and the bearer token given (redacted)." in summary
    assert "| form-payloads | [tools](" in summary and "| ✅ passed | ✅ passed |" in summary

    done = with_made_up
    assert done.returncode == 1, done.stdout + done.stderr
    summary = _summary(stranger)
    assert "| ⛔ refused the caller | ⛔ refused the caller |" in summary, done.stdout + done.stderr
    written = [p for p in (stranger / "reports").rglob("*") if p.is_file()]
    assert written and not [p for p in written if made_up in p.read_text(encoding="utf-8", errors="replace")]
    assert made_up not in done.stdout + done.stderr


def test_a_server_that_refuses_at_its_http_edge_started_and_refused_the_caller(tmp_path: Path) -> None:
    """Anonymous, every request meets a 401: the server started (no "cannot start", no exit 2), and each check is
    "refused the caller" naming the 401, not an error and not a pass; with its token the check passes."""
    target = f"http: {PYTHON} {TESTS / 'protected_server.py'} {{port}}"
    anonymous, named = _folder(tmp_path, "anonymous"), _folder(tmp_path, "named")
    done, with_token = _side_by_side(
        (anonymous, (target, "--only", "tool-names")),
        (named, (target, "--only", "tool-names", "--user", "ci", "--token", "letmein")),
    )
    assert done.returncode == 1, done.stdout + done.stderr  # started (not 2), but nothing was judged (not 0)
    summary = _summary(anonymous)
    assert "| tool-names | [tools](" in summary and "| ⛔ refused the caller | ⛔ refused the caller |" in summary
    assert "HTTP 401" in summary
    done = with_token
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| tool-names | [tools](" in _summary(named) and "| ✅ passed | ✅ passed |" in _summary(named)
