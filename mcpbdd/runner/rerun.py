"""`mcpbdd run --rerun-failures N`: run the failed and broken scenarios again, and call flaky what then passes.

A scenario that fails, then passes when run again, did not pass: it is *flaky*, and every file says
so, never silently green. After the run's processes end, each pass's failed and broken scenarios
are run again (one behave process per pass, `file:line` locations), up to N times, until they pass;
a rerun writes its Allure results beside the first run's (the same history id: Allure shows them as
retries), its Cucumber Messages into the pass's stream, its JUnit nowhere (the first run's file
keeps the test case). Then (`mark_flaky`):

- the console names each one: `mcpbdd: FLAKY features/x.feature:12 name [client harness]: failed, then
  passed on rerun 1 of 2`, and the run exits 1 (a flaky scenario fails the run);
- Allure: each of its results has `statusDetails.flaky` (Allure's flaky marker) and a message saying so;
- JUnit: its test case keeps its `<failure>` (or `<error>`), the message starting `FLAKY: passed on rerun
  1 of 2;` (junit-10.xsd has no flaky element; the run did not pass);
- Cucumber Messages and JSON: its first run's failed step's message starts the same way, and the rerun's
  test case follows it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO
from xml.etree import ElementTree

from mcpbdd.reporting.verdicts import Verdict, read_verdicts
from mcpbdd.runner.behave_argv import ReportFiles
from mcpbdd.runner.formatters import MESSAGES, VERDICTS
from mcpbdd.runner.workers import Worker, run_workers

__all__ = ["FLAKY_WORD", "Flaky", "Rerun", "mark_flaky"]

FLAKY_WORD = "FLAKY: "


@dataclass(frozen=True)
class Flaky:
    """A scenario that failed (or broke), then passed on a rerun."""

    first: Verdict
    attempt: int
    attempts: int

    @property
    def words(self) -> str:
        return f"passed on rerun {self.attempt} of {self.attempts}"

    def line(self) -> str:
        column = f" ({self.first.column})" if self.first.column else ""
        return (
            f"mcpbdd: FLAKY {self.first.feature}:{self.first.line} {self.first.shown}{column}: "
            f"{self.first.verdict}, then {self.words}"
        )


@dataclass
class Rerun:
    """The reruns of one `mcpbdd run`: where they write, and how each behave process is made."""

    scratch: Path
    results: Path
    options: Sequence[str]
    """The run's behave options (without paths)."""
    make_args: Callable[[ReportFiles, str | None, list[str]], list[str]]
    """behave's arguments for a pass (`mcpbdd.runner.run.Run.rerun_args`)."""
    message_parts: list[Path]
    """The run's Cucumber Messages parts (None: not written): a rerun's stream is added to its pass's."""
    messages: bool = False
    redact: Callable[[str], str] = str
    """The run's redaction of the configured secrets: a rerun's output reaches the console through it."""

    def run(self, verdicts: Sequence[Verdict], attempts: int, out: TextIO) -> list[Flaky]:
        """Rerun the failed and broken `verdicts` up to `attempts` times; the ones that passed on a rerun."""
        failing = [v for v in verdicts if v.verdict in ("failed", "broken")]
        flaky: list[Flaky] = []
        for attempt in range(1, attempts + 1):
            if not failing:
                break
            workers = [
                (column, *self._worker(attempt, attempts, column, mine)) for column, mine in _by_column(failing).items()
            ]
            print(f"\nmcpbdd: rerun {attempt} of {attempts}: {len(failing)} failed or broken scenario(s)", file=out)
            run_workers(
                [[worker] for _column, worker, _path in workers],
                on_output=lambda worker, text: None,
                on_done=lambda worker: print(self.redact("".join(worker.output)), end="", file=out),
                on_tick=lambda: None,
            )
            passed = {
                (v.column, v.key)
                for column, _worker, path in workers
                for v in read_verdicts(path, column)
                if v.verdict == "passed"
            }
            flaky += [Flaky(v, attempt, attempts) for v in failing if (v.column, v.key) in passed]
            failing = [v for v in failing if (v.column, v.key) not in passed]
        return flaky

    def _worker(self, attempt: int, attempts: int, column: str, mine: Sequence[Verdict]) -> tuple[Worker, Path]:
        harness = column or None
        name = f"{900 + attempt}-{harness}"
        verdicts = self.scratch / f"verdicts-rerun-{name}.jsonl"
        formats = [(VERDICTS, verdicts)]
        if self.messages:
            self.message_parts.append(self.scratch / f"messages-{name}.ndjson")  # merged into the pass's stream
            formats.append((MESSAGES, self.message_parts[-1]))
        files = ReportFiles(self.results, events=self.scratch / f"events-rerun-{name}", formats=formats)
        locations = list(dict.fromkeys(f"{v.feature}:{v.line}" for v in mine))
        args = self.make_args(files, harness, [*self.options, *locations])
        label = f"rerun {attempt} of {attempts} · {harness or 'configured'} harness · {len(mine)} scenario(s)"
        return Worker([*args, "-D", "mcpbdd.coverage_file="], {}, label, files.events or self.scratch), verdicts


def _by_column(verdicts: Sequence[Verdict]) -> dict[str, list[Verdict]]:
    found: dict[str, list[Verdict]] = {}
    for verdict in verdicts:
        found.setdefault(verdict.column, []).append(verdict)
    return found


def mark_flaky(
    flaky: Sequence[Flaky], *, junit: Path | None = None, results: Path | None = None, streams: Sequence[Path] = ()
) -> None:
    """Say `FLAKY` in the files given of each flaky scenario (see the module's doc): the Cucumber Messages parts
    before they are merged, the JUnit files once completed (`mcpbdd.reporting.junit` names the test cases)."""
    if not flaky:
        return
    by_name = {f.first.shown: f for f in flaky}
    for path in sorted(results.glob("*-result.json")) if results is not None else []:
        result = json.loads(path.read_text(encoding="utf-8"))
        found = by_name.get(str(result.get("name", "")))
        if found is None:
            continue
        details = result.setdefault("statusDetails", {})
        details["flaky"] = True
        details["message"] = f"{FLAKY_WORD}{found.words}" + (
            f"; {details['message']}" if details.get("message") else ""
        )
        path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    for path in sorted(junit.rglob("*.xml")) if junit is not None and junit.is_dir() else []:
        tree = ElementTree.parse(path)
        changed = False
        for case in tree.iter("testcase"):
            found = by_name.get(case.get("name", ""))
            problem = case.find("failure") if case.find("failure") is not None else case.find("error")
            if found is not None and problem is not None:
                problem.set("message", f"{FLAKY_WORD}{found.words}; {problem.get('message', '')}")
                changed = True
        if changed:
            tree.write(path, encoding="utf-8", xml_declaration=True)
    for stream in streams:
        _mark_stream(stream, by_name)


def _mark_stream(stream: Path, by_name: dict[str, Flaky]) -> None:
    if not stream.is_file():
        return
    envelopes = [json.loads(line) for line in stream.read_text(encoding="utf-8").splitlines() if line.strip()]
    names = {e["pickle"]["id"]: e["pickle"]["name"] for e in envelopes if "pickle" in e}
    cases = {e["testCase"]["id"]: names.get(e["testCase"]["pickleId"], "") for e in envelopes if "testCase" in e}
    started = {
        e["testCaseStarted"]["id"]: cases.get(e["testCaseStarted"]["testCaseId"], "")
        for e in envelopes
        if "testCaseStarted" in e
    }
    for item in envelopes:
        finished = item.get("testStepFinished")
        found = by_name.get(started.get(finished["testCaseStartedId"], "")) if finished else None
        if found is not None and finished is not None and finished["testStepResult"].get("status") == "FAILED":
            result = finished["testStepResult"]
            result["message"] = f"{FLAKY_WORD}{found.words}; {result.get('message', '')}"
    stream.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in envelopes), encoding="utf-8")
