"""What `mcpbdd run` writes once its behave processes have ended: coverage, timings, JUnit, the parity matrix.

Each behave process writes its own coverage file, merged into the run's (`merge_run_coverage`), and records
one verdict line per scenario (`mcpbdd.reporting.verdicts`) in the run's scratch folder; this module reads
them all and writes

- the timing file (`--timings`, default `reports/timings.json`): always;
- the JUnit files completed: every scenario a test case, what each did (harness, era, tools, tenants),
  when JUnit is written (`mcpbdd.reporting.junit`);
- the Cucumber Messages stream (`--messages FILE`), the processes' streams merged into one
  per pass: a run of one pass writes FILE, a run of several one stream per pass beside it
  (`cucumber-messages.client.legacy.ndjson`: see `pass_streams`), since Cucumber's tools show
  one run of each scenario per stream; and the Cucumber JSON report converted from them all
  (`--cucumber-json FILE`: its scenarios' names carry the harness);
- the parity matrix (`reports/parity.json`, `reports/parity.md`, and one Allure result that
  carries the Markdown) when the run was `--harness all`.

All of it is written before `mcpbdd run` hands its outputs to the redaction point
(`redact_tree`), so a secret in a failure message is redacted from these files too.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcpbdd.reporting.cucumber_json import write_cucumber_json
from mcpbdd.reporting.junit import complete_junit
from mcpbdd.reporting.messages import merge_streams, read_envelopes
from mcpbdd.reporting.parity import Column, ParityMatrix, build_matrix, write_matrix
from mcpbdd.reporting.verdicts import Verdict, read_verdicts
from mcpbdd.runner.passes import pass_named
from mcpbdd.runner.timings import record_timings

__all__ = ["Finished", "RunOutputs", "finish_run", "merge_run_coverage", "pass_streams"]

_PART = re.compile(r"^messages-\d+-(?P<name>.+)\.ndjson$")
"""A behave process's stream in the run's scratch folder: `messages-{job}-{pass}.ndjson` (`mcpbdd.runner.run`)."""


def pass_streams(parts: Sequence[Path], stream: Path) -> dict[Path, tuple[str | None, list[Path]]]:
    """Where each pass's merged stream goes, with its pass and the processes' streams it merges.

    One pass (or the configured harness): `stream` itself. Several: one stream per pass beside it,
    `stream`'s name with the pass before the suffix. Cucumber's tools key a scenario's run by its
    Gherkin node, so two passes in one stream would show as one scenario with one verdict.
    """
    by_pass: dict[str | None, list[Path]] = {}
    for part in parts:
        found = _PART.match(part.name)
        name = found.group("name") if found and found.group("name") != "None" else None
        by_pass.setdefault(name, []).append(part)
    if len(by_pass) <= 1:
        ((name, mine),) = by_pass.items() if by_pass else ((None, []),)
        return {stream: (name, mine)}
    return {stream.with_name(f"{stream.stem}.{name}{stream.suffix}"): (name, mine) for name, mine in by_pass.items()}


@dataclass(frozen=True)
class RunOutputs:
    """What the run's behave processes left and where the derived outputs go (None: not written)."""

    verdict_files: Sequence[tuple[Path, str | None]]
    """Each process's verdict file and its pass name (None: the configured harness)."""
    timings: Path | None = None
    """The timing file read to balance the run (`--timings`)."""
    timings_output: Path | None = None
    """Where the updated timings go (a shard writes its own file), when not `timings` itself."""
    junit: Path | None = None
    """The JUnit folder whose files are completed from the verdicts (`mcpbdd.reporting.junit`)."""
    parity: Path | None = None
    """The parity matrix's folder (`--harness all`), with `columns` its passes."""
    columns: Sequence[str] = ()
    results: Path | None = None
    """The Allure results folder: the matrix adds a result there."""
    stdio_command: str | None = None
    """The stdio column's command (`parity_stdio`), which titles it."""
    message_parts: Sequence[Path] = ()
    """Each process's Cucumber Messages stream, merged into `messages` per pass (and converted to `cucumber_json`)."""
    messages: Path | None = None
    cucumber_json: Path | None = None
    scratch: Path | None = None
    """The run's scratch folder: the merged stream goes there when only `cucumber_json` is asked for."""
    lost: int = 0
    """How many planned scenarios never reported (`mcpbdd.runner.lost`): the stream's run did not succeed."""


@dataclass
class Finished:
    verdicts: list[Verdict]
    matrix: ParityMatrix | None = None


def finish_run(outputs: RunOutputs) -> Finished:
    """Read every behave process's verdicts (file, pass name) and write the run's derived outputs."""
    verdicts = [v for path, column in outputs.verdict_files for v in read_verdicts(path, column or "")]
    done = Finished(verdicts)
    if outputs.messages is not None or outputs.cucumber_json is not None:
        stream = outputs.messages or (outputs.scratch or Path(".")) / "cucumber-messages.ndjson"
        streams = pass_streams(outputs.message_parts, stream)
        for stale in [stream, *stream.parent.glob(f"{stream.stem}.*{stream.suffix}")]:
            if stale not in streams:  # an earlier run's, of other passes: `mcpbdd report --messages` reads these
                stale.unlink(missing_ok=True)
        for path, (name, parts) in streams.items():
            mine = [verdict for verdict in verdicts if name is None or verdict.column == name]
            merge_streams(parts, path, success=not outputs.lost and all(v.status != "failed" for v in mine))
        if outputs.cucumber_json is not None:
            write_cucumber_json((e for path in streams for e in read_envelopes(path)), outputs.cucumber_json)
    if outputs.timings is not None and verdicts:
        record_timings(outputs.timings, verdicts, output=outputs.timings_output)
    if outputs.junit is not None and outputs.junit.is_dir():
        complete_junit(outputs.junit, verdicts)
    if outputs.parity is not None and outputs.columns:
        titled = [Column(name, pass_named(name, outputs.stdio_command).title) for name in outputs.columns]
        done.matrix = build_matrix(titled, verdicts)
        write_matrix(done.matrix, outputs.parity)
        if outputs.results is not None and outputs.results.is_dir():
            _allure_result(done.matrix, outputs.results)
    return done


def _allure_result(matrix: ParityMatrix, results: Path) -> None:
    """The matrix in the Allure report: one test, `Parity matrix`, broken when a difference is unexplained."""
    attachment = f"{uuid.uuid4()}-attachment.md"
    (results / attachment).write_text(matrix.markdown(), encoding="utf-8")
    unexplained = matrix.count("unexplained")
    now = int(time.time() * 1000)
    result = {
        "uuid": str(uuid.uuid4()),
        "historyId": "mcpbdd-parity-matrix",
        "name": "Parity matrix",
        "fullName": "mcpbdd: parity matrix",
        "status": "broken" if unexplained else "passed",
        "statusDetails": {
            "message": f"{unexplained} scenario(s) differ between harnesses with no tag saying why"
            if unexplained
            else f"{len(matrix.rows)} scenarios: every difference is documented"
        },
        "start": now,
        "stop": now,
        "labels": [{"name": "suite", "value": "mcpbdd parity"}, {"name": "feature", "value": "Parity matrix"}],
        "attachments": [{"name": "parity matrix", "source": attachment, "type": "text/markdown"}],
    }
    (results / f"{result['uuid']}-result.json").write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


def merge_run_coverage(parts: list[Path], destination: Path, *, keep: bool, results: Path | None) -> Path | None:
    """After `mcpbdd run`: merge each behave process's file into `destination` (and the file there with `keep`).

    The Allure results get the totals as environment entries, so the report shows them.
    """
    from mcpbdd.checks.coverage import load_coverage, merge, write_coverage
    from mcpbdd.reporting.coverage_environment import write_environment

    documents = []
    for path in [*([destination] if keep and destination.is_file() else []), *parts]:
        try:
            documents.append(load_coverage(path))
        except (OSError, ValueError):
            continue  # a process that crashed wrote nothing: the others still count
    if not documents:
        return None
    document = merge(documents)
    write_coverage(destination, document)
    if results is not None and results.is_dir():
        write_environment(results, document)
    return destination
