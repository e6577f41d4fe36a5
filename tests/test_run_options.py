"""`mcpbdd run`'s command line and the runner's `RunOptions` say the same: every option arrives, with one default.

The runner reads only a `RunOptions` (`mcpbdd.runner.run_options`); the command line parses into one
(`mcpbdd.cli.options.options_of`). A default written in both places could drift: here they are compared.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from mcpbdd.cli.main import build_parser
from mcpbdd.cli.options import options_of
from mcpbdd.runner.run_options import DEFAULT_JUNIT, DEFAULT_RESULTS, DEFAULT_TIMINGS, REPORTS, RunOptions


def _parsed(*argv: str) -> tuple[RunOptions, list[str]]:
    args, passthrough = build_parser().parse_known_args(["run", *argv])
    return options_of(args), passthrough


def test_the_command_lines_defaults_are_the_runners() -> None:
    options, passthrough = _parsed()
    assert options == RunOptions() and passthrough == []
    assert (options.results, options.junit, options.timings, options.parity) == (
        DEFAULT_RESULTS,
        DEFAULT_JUNIT,
        DEFAULT_TIMINGS,
        REPORTS,
    )
    assert options != replace(RunOptions(), jobs=2)  # the comparison sees a drifted default


def test_every_option_reaches_the_runner_and_the_rest_goes_to_behave() -> None:
    options, passthrough = _parsed(
        "--harness", "context,client", "--jobs", "3", "--shard", "2/4", "--results", "r", "--junit", "j",
        "--no-junit", "--steps", "--keep-results", "--coverage", "c.json", "--no-coverage", "--update-snapshots",
        "--update-screenshots", "--require", "apps", "--timings", "t.json", "--messages", "m.ndjson",
        "--cucumber-json", "c.json", "--rerun-failures", "2", "--parity", "p", "-D", "x=y", "features",
    )  # fmt: skip
    assert passthrough == ["-D", "x=y", "features"]
    assert options == RunOptions(
        harness=["context", "client"],
        jobs=3,
        shard=(2, 4),
        results=Path("r"),
        junit=Path("j"),
        no_junit=True,
        steps=True,
        keep_results=True,
        coverage=Path("c.json"),
        no_coverage=True,
        update_snapshots=True,
        update_screenshots=True,
        require=["apps"],
        timings=Path("t.json"),
        messages=Path("m.ndjson"),
        cucumber_json=Path("c.json"),
        rerun_failures=2,
        parity=Path("p"),
    )
    unchanged = [f.name for f in fields(RunOptions) if getattr(options, f.name) == getattr(RunOptions(), f.name)]
    assert unchanged == []  # each field was given a value of its own above: none is left out of the parser
