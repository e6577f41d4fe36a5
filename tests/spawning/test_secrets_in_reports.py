"""A secret in every place a run writes, in every encoding: none of it in any file under `reports/`.

A project (tests/secret_cases, copied into a temporary folder) whose server leaks two
configured secrets as plain text, inside structured content and JSON text, URL-encoded in
a link and in upstream requests (path, query, bearer token), in base64 and a Basic
credential, on its stdout and, over stdio, on its stderr; the scenarios fail, so failure
messages and the scenario names (which hold a secret too) reach every format.

The same project is run three ways, each `mcpbdd run`/`behave` in a subprocess:

- with redaction off (`-D mcpbdd.secrets=`, into `baseline/`): every encoding below is
  found in some file, so the checks that follow look for something that was really there;
- with the secrets configured (into `reports/`, with Allure, JUnit, behave's JSON format
  and the HTML report, and the coverage file outside it, in `out/`): no encoding of either
  secret in any file, nor in the console;
- with plain `behave --junit` and mcpbdd's hooks: its JUnit XML is redacted too.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import warm_python
from secret_encodings import encodings

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "secret_cases"
SECRETS = ('hunt"er2 p@ss/é', "p@ss w0rd")
MASK = "«redacted»"
OUTSIDE = "out/coverage.json"
"""Where the redacted run writes its coverage: outside `reports/`, which a run redacts as a whole."""


KINDS = (
    "plain",
    "JSON",
    "JSON, ASCII only",
    "JSON in JSON",
    "JSON, ASCII only, in JSON",
    "URL, quote",
    "URL, quote_plus",
    "URL, httpx path",
    "XML attribute",
    "XML of JSON",
    "base64",
    "base64, no padding",
    "base64url, no padding",
    "Basic credential",
    "bearer token",
)
"""The encodings the leaky server's paths produce (the baseline run must show each); every encoding of
`secret_encodings`, these and the rest, is looked for in the redacted run."""


@dataclass
class Run:
    folder: Path
    output: str
    returncode: int

    def files(self, under: str) -> list[Path]:
        return sorted(p for p in (self.folder / under).rglob("*") if p.is_file())


def _leaks(texts: dict[str, str]) -> Iterator[tuple[str, str, str]]:
    """(where, secret, kind) for each encoding of each secret found in the texts."""
    for where, text in texts.items():
        for secret in SECRETS:
            for kind, form in encodings(secret).items():
                if form in text:
                    yield where, secret, kind


def _texts(files: list[Path]) -> dict[str, str]:
    return {str(p): p.read_bytes().decode("utf-8", errors="replace") for p in files}


def _mcpbdd(folder: Path, *args: str) -> Run:
    command = [sys.executable, "-m", "mcpbdd.cli.main", *args]
    done = warm_python.run(command, cwd=folder, capture_output=True, text=True, timeout=300)
    return Run(folder, done.stdout + done.stderr, done.returncode)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("secrets") / "project"
    shutil.copytree(CASES, folder)
    secrets = ", ".join(json.dumps(s, ensure_ascii=False) for s in SECRETS)
    (folder / "pyproject.toml").write_text(
        f'[tool.mcpbdd]\nserver = "leaky_server:mcp"\nharness = "context"\nsecrets = [{secrets}]\n\n'
        '[tool.behave]\npaths = ["features"]\n',
        encoding="utf-8",
    )
    return folder


@pytest.fixture(scope="module")
def baseline(project: Path) -> Run:
    """Redaction off: the same run, into `baseline/`."""
    return _mcpbdd(
        project,
        *("run", "-D", "mcpbdd.secrets=", "--results", "baseline/allure-results", "--junit", "baseline/junit"),
        *("--coverage", "baseline/coverage.json"),
        *("-f", "json", "-o", "baseline/behave.json", "-f", "pretty"),
    )


@pytest.fixture(scope="module")
def redacted(project: Path) -> Run:
    """The secrets configured: Allure results, JUnit, behave's JSON format, the console, into `reports/`."""
    return _mcpbdd(project, "run", "-f", "json", "-o", "reports/behave.json", "-f", "pretty", "--coverage", OUTSIDE)


def test_every_encoding_reaches_a_report_when_redaction_is_off(baseline: Run) -> None:
    assert baseline.returncode == 1, baseline.output
    leaks = list(_leaks(_texts(baseline.files("baseline"))))
    produced = {kind for _where, _secret, kind in leaks}
    assert sorted(set(KINDS) - produced) == [], "the leaky server must produce every encoding the test looks for"
    formats = {where.split("/baseline/")[1].split("/")[0] for where, _secret, _kind in leaks}
    assert formats == {"allure-results", "junit", "behave.json", "coverage.json"}
    assert SECRETS[0] in baseline.output, "and the console shows it"


def _attachments(folder: Path, result: dict[str, Any]) -> dict[str, str]:
    """Every attachment of a result and of its steps: name -> text."""
    found = list(result.get("attachments", []))
    for step in result.get("steps", []):
        found += step.get("attachments", [])
    return {a["name"]: (folder / a["source"]).read_text(encoding="utf-8") for a in found}


def test_each_path_carried_a_secret_before_redaction(baseline: Run) -> None:
    """Names, doc strings, results, upstream requests, stderr, failure messages, captured stdout: each one leaked."""
    folder = baseline.folder / "baseline" / "allure-results"
    results = {r["name"]: r for r in (json.loads(p.read_text()) for p in folder.glob("*-result.json"))}
    secret, other = (encodings(s) for s in SECRETS)
    echo = next(r for name, r in results.items() if secret["plain"] in name)
    assert secret["plain"] in echo["statusDetails"]["message"]
    assert secret["JSON"] in _attachments(folder, echo)["doc string"]
    leak = next(r for name, r in results.items() if "structured content" in name)
    answer = next(t for name, t in _attachments(folder, leak).items() if name.startswith("tools/call leak"))
    assert secret["JSON in JSON"] in answer and secret["Basic credential"] in answer
    upstream = next(r for name, r in results.items() if "bearer token" in name)
    (sent,) = json.loads(next(t for n, t in _attachments(folder, upstream).items() if n.startswith("upstream")))
    assert sent["url"] == f"https://vault.example.com/keys/{other['URL, httpx path']}?key={other['URL, quote_plus']}"
    assert sent["headers"]["authorization"] == other["bearer token"]
    stdio = next(r for name, r in results.items() if "stdio" in name)
    assert secret["plain"] in _attachments(folder, stdio)["server stderr"]
    junit = next((baseline.folder / "baseline" / "junit").glob("*.xml")).read_text(encoding="utf-8")
    assert f"echo: {secret['plain']}" in junit, "the server's stdout, captured by behave"


def test_no_file_under_reports_holds_any_encoding_of_a_secret(redacted: Run) -> None:
    assert redacted.returncode == 1, redacted.output
    files = redacted.files("reports")
    results = [p for p in files if p.name.endswith("-result.json")]
    assert len(results) == 5 and {json.loads(p.read_text())["status"] for p in results} == {"failed"}
    assert {p.parent.name for p in files} >= {"allure-results", "junit", "reports"}
    assert list(_leaks(_texts(files))) == []
    assert sum(MASK in text for text in _texts(files).values()) > 10, "the secrets were there, and masked"


def test_the_coverage_file_outside_reports_holds_no_secret(redacted: Run) -> None:
    """Redaction does not depend on where a file is written: `--coverage out/coverage.json` is clean too."""
    coverage = redacted.folder / OUTSIDE
    assert coverage.is_file(), redacted.output
    assert list(_leaks(_texts([coverage]))) == []
    assert MASK in coverage.read_text(encoding="utf-8"), "the secrets were there, and masked"
    json.loads(coverage.read_text(encoding="utf-8"))


def test_the_console_shows_no_secret(redacted: Run) -> None:
    assert list(_leaks({"console": redacted.output})) == []
    assert "echoing «redacted» back" in redacted.output


def test_redacted_files_still_parse(redacted: Run) -> None:
    """Masking must leave every JSON and XML file readable; and there must be each kind to read, or this checks
    nothing (a run that wrote no report would pass it)."""
    parsed: dict[str, set[str]] = {".json": set(), ".xml": set()}
    results = 0
    for path in redacted.files("reports"):
        if path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".xml":
            ElementTree.parse(path)
        else:
            continue
        parsed[path.suffix].add(path.relative_to(redacted.folder / "reports").parts[0])
        results += path.name.endswith("-result.json")
    assert parsed[".json"] >= {"allure-results", "behave.json"} and parsed[".xml"] >= {"junit"}, parsed
    assert results == 5, f"{results} Allure results parsed, expected one per scenario (5)"


def test_plain_behave_junit_is_redacted_by_the_hooks(project: Path) -> None:
    """No `mcpbdd run`: behave's own JUnit reporter, with mcpbdd's hooks in environment.py."""
    command = [sys.executable, "-m", "behave", "--junit", "--junit-directory", "plain-junit", "-f", "null"]
    done = warm_python.run(command, cwd=project, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    (report,) = (project / "plain-junit").glob("TESTS-*.xml")
    text = report.read_text(encoding="utf-8")
    assert text.count(MASK) > 5 and 'tests="5"' in text
    assert list(_leaks({"junit": text})) == []


def _decoded_html(page: Path) -> dict[str, str]:
    """Allure's single-file page embeds each data file as base64 (`d("name", "...")`): each one, decoded."""
    html = page.read_text(encoding="utf-8")
    payloads = re.findall(r'd\("([^"]+)","([A-Za-z0-9+/=]*)"\)', html)
    decoded = {name: base64.b64decode(data).decode("utf-8", errors="replace") for name, data in payloads}
    return {"index.html": html, **decoded}


@pytest.mark.skipif(shutil.which("node") is None, reason="rendering the HTML report needs Node.js")
def test_the_html_report_decoded_holds_no_encoding_of_a_secret(redacted: Run, baseline: Run) -> None:
    html = {}
    for run, results in ((baseline, "baseline"), (redacted, "reports")):
        done = _mcpbdd(run.folder, "report", f"{results}/allure-results", "--output", f"{results}/html")
        if done.returncode != 0 and "could not install" in done.output:
            pytest.skip(f"Allure could not be installed from npm: {done.output[-300:]}")
        assert done.returncode == 0, done.output
        html[results] = _decoded_html(run.folder / results / "html" / "index.html")
    assert sum(name.startswith("data/test-results/") for name in html["reports"]) == 5
    assert list(_leaks(html["baseline"])), "decoded, the report of an unredacted run shows the secrets"
    assert list(_leaks(html["reports"])) == []
    assert any(MASK in text for text in html["reports"].values())


def test_nothing_is_masked_without_secrets(baseline: Run) -> None:
    assert not any(MASK in text for text in _texts(baseline.files("baseline")).values())
