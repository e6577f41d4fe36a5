"""The official suite's scenarios run side by side and are read back in their order (`mcpbdd.runner.official`).

The suite here is a stand-in for the suite's command line (`server --url URL --scenario S -o OUT`, writing
`OUT/<run>/checks.json` as the suite does): a real subprocess per scenario. Its "URL" is a log file where each
process notes its start, and each waits until every scenario has started (20 s at most): one after the other, no
process sees the others start, so the test sees the overlap without timing anything. The later scenarios end
first, and the verdicts still come back in the scenarios' order.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcpbdd.runner.official import _run_scenarios

SUITE = """
import json, pathlib, sys, time
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))  # server --url LOG#N --scenario s<i> -o OUT
log, everyone = args["--url"].split("#")
log, scenario, out = pathlib.Path(log), args["--scenario"], pathlib.Path(args["-o"])
with log.open("a") as notes:
    notes.write(f"start {scenario}\\n")
deadline = time.monotonic() + 20
while time.monotonic() < deadline and log.read_text().count("start") < int(everyone):
    time.sleep(0.05)
seen = log.read_text().count("start")
if scenario == "s-broken":
    print("the stand-in suite broke", file=sys.stderr)
    sys.exit(3)
time.sleep(0.1 * (int(everyone) - int(scenario[1:])))  # the later scenarios end first
(out / "run").mkdir(parents=True)
check = {"id": f"{scenario}-check", "status": "SUCCESS", "seen": seen}
(out / "run" / "checks.json").write_text(json.dumps([check]))
"""
SCENARIOS = ("s0", "s1", "s2", "s3")


def _suite(tmp_path: Path) -> tuple[list[str], Path]:
    """The stand-in suite's command and its log (empty)."""
    script = tmp_path / "suite.py"
    script.write_text(SUITE, encoding="utf-8")
    log = tmp_path / "log.txt"
    log.write_text("", encoding="utf-8")
    return [sys.executable, str(script)], log


def test_the_scenarios_run_side_by_side_and_come_back_in_their_order(tmp_path: Path) -> None:
    command, log = _suite(tmp_path)
    result = _run_scenarios(command, f"{log}#{len(SCENARIOS)}", SCENARIOS, 60.0)
    assert result.skipped is None
    assert [check["scenario"] for check in result.checks] == list(SCENARIOS)
    assert [check["id"] for check in result.checks] == [f"{name}-check" for name in SCENARIOS]
    # each process saw every scenario started before it ended: they overlapped (one after the other, s0 sees 1)
    assert [check["seen"] for check in result.checks] == [len(SCENARIOS)] * len(SCENARIOS)


def test_the_first_scenario_that_wrote_no_checks_is_named_and_ends_the_list(tmp_path: Path) -> None:
    """As one after the other gave it: the checks before it kept, it named, none after it (though they ran)."""
    command, log = _suite(tmp_path)
    scenarios = ("s0", "s-broken", "s2")
    result = _run_scenarios(command, f"{log}#{len(scenarios)}", scenarios, 60.0)
    assert result.skipped is not None
    assert result.skipped.startswith("the suite's scenario s-broken ended with exit code 3 and wrote no checks")
    assert "the stand-in suite broke" in result.skipped
    assert [check["scenario"] for check in result.checks] == ["s0"]
