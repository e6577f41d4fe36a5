"""Generated calls: the verdicts (crash, leak, hang, refusal, mutation), shrinking, reproducibility, the inputs.

Each verdict is shown catching the weak server (tests/weak_server.py) with a readable report,
and the example notes server is shown surviving on every harness.

These tests start processes; the in-process tests of this concern are in tests/test_generated.py.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import servers
from conftest import HARNESS_KINDS, TESTS, make_harness

from mcpbdd.checks.generated import (
    DEEP,
    LEAK,
    LIMIT,
    CallRunner,
    Rules,
    check_generated_calls,
    default_seed,
    plan_inputs,
    server_paths,
)
from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Stdio, python_command
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.model.outcome import Channel

PATH_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


# transport limits: a deep input the transport cannot carry is not the tool's failure --------------


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def _zones_over_stdio(command: str | None = None) -> Any:
    return ClientHarness(
        Stdio(command or python_command("servers", "zones"), ProcessOptions(cwd=str(TESTS))), timeout=5.0
    )


@pytest.mark.anyio
async def test_generated_calls_over_stdio_stay_within_what_stdio_carries() -> None:
    """The SDK's stdio server drops a line nested beyond its JSON parser's limit: the call would hang."""
    async with _zones_over_stdio() as harness:
        report = await check_generated_calls(harness, "open_document", 30, timeout=3.0)
        assert report.ok, report.describe()
        labels = [source for source, _ in plan_inputs(PATH_SCHEMA, 30, default_seed("open_document"))[0]]
        assert f"adversarial: arrays nested {DEEP} deep in $.path" in labels
        assert f"adversarial: objects nested {DEEP} deep in $.path" in labels
        runner = CallRunner(harness, None, "open_document", 3.0, None, Rules("open_document", (), []))
        started = time.perf_counter()
        outcome, found = await runner.attempt({"path": _nested(250)})
        assert time.perf_counter() - started < 1.0  # not sent: it would only wait for the timeout
        assert outcome is None and set(found) == {LIMIT}
        assert "stdio" in found[LIMIT] and "not the tool's" in found[LIMIT]
        alive = await harness.call_tool(None, "open_document", {"path": "a"})
        assert alive.channel is Channel.TOOL_ERROR  # the server still answers


# leaks of the server's side that are not its own code ---------------------------------------------


@pytest.fixture(params=HARNESS_KINDS)
async def zones(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    async with make_harness(request.param, servers.zones, timeout=5.0) as harness:
        yield harness


@pytest.mark.anyio
async def test_a_stdio_server_in_another_environment_leaks_its_site_packages(tmp_path: Path) -> None:
    """The reference time server's case: its own venv's site-packages in an error, over stdio."""
    venv = tmp_path / "server-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site_packages = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout.strip()
    )
    ours = sysconfig.get_paths()["purelib"]
    (site_packages / "mcpbdd_test.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    async with _zones_over_stdio(shlex.join([str(venv / "bin" / "python"), "-m", "servers", "zones"])) as harness:
        paths = server_paths(harness)
        assert str(venv) in paths.installation
        report = await check_generated_calls(harness, "zone", 6)
    assert set(report.failures) == {LEAK}
    detail = report.failures[LEAK][0].detail
    assert detail.startswith("a path of the server's installation (") and "mcpbdd_test_zones" in detail


@pytest.mark.parametrize("generator", ["hypothesis-jsonschema", "builtin"])
def test_generated_inputs_leave_no_hypothesis_folder_in_the_project(tmp_path: Path, generator: str) -> None:
    """hypothesis caches its unicode tables under ./.hypothesis by default; mcpbdd's draws keep them in its cache."""
    project, cache = tmp_path / "project", tmp_path / "cache"
    project.mkdir()
    code = (
        "from mcpbdd.checks.generated.inputs import generate_inputs\n"
        "schema = {'type': 'object', 'properties': {'title': {'type': 'string'}}, 'required': ['title']}\n"
        f"inputs, _ = generate_inputs(schema, 20, 7, {generator!r})\n"
        "assert inputs\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env.update(MCPBDD_CACHE=str(cache), PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    run = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert not (project / ".hypothesis").exists(), sorted(p.name for p in project.iterdir())
    assert (cache / "hypothesis" / "unicode_data").is_dir()
