"""A token the fake authorization server minted is a secret: masked in every file, whoever echoes it.

No project can list such a token under `secrets` (it is made during the run, anew each time). The project here
(tests/secret_cases, copied into a temporary folder, configuring no secret at all) runs `minted/` over two
processes and every harness (the parity matrix too): `token_echo.feature`, a server over HTTP that echoes its
caller's bearer token in its result, in a log message and on its stderr, in a scenario that fails so that
every report carries all of it, and `token_cut.feature`, the same server echoing the token's signature alone
and the token with its dots escaped. One `mcpbdd run` writes Allure, JUnit, behave's JSON, Cucumber Messages
and Cucumber JSON (whose attachments are base64); no whole token may be in any of them, decoded or not, nor on
the console, and the masks show the token was there to hide.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import warm_python
from secret_encodings import jwts_in

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "secret_cases"
MASK = "«redacted»"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("minted") / "project"
    shutil.copytree(CASES, folder)
    (folder / "pyproject.toml").write_text('[tool.mcpbdd]\nharness = "client"\n', encoding="utf-8")
    reports = ["--messages", "reports/run.ndjson", "--cucumber-json", "reports/cucumber.json", "--no-coverage"]
    command = [sys.executable, "-m", "mcpbdd.cli.main", "run", *reports, "-f", "json", "-o", "reports/behave.json"]
    command += ["-f", "pretty", "--jobs", "2", "--harness", "all", "minted/"]  # processes minting, parity.md
    return folder, warm_python.run(command, cwd=folder, capture_output=True, text=True, timeout=300)


def test_no_report_file_holds_a_minted_token(run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, done = run
    assert done.returncode == 1, done.stdout + done.stderr  # the scenario fails on purpose
    files = {
        str(p.relative_to(folder)): p.read_bytes().decode("utf-8", "replace")
        for p in folder.rglob("reports/**/*")
        if p.is_file()
    }
    assert {"reports/run.client.auto.ndjson", "reports/cucumber.json", "reports/behave.json"} <= files.keys()
    assert {"reports/run.client.legacy.ndjson", "reports/parity.md"} <= files.keys()
    assert any(name.startswith("reports/junit/") for name in files)
    leaks = {name: found for name, text in files.items() if (found := jwts_in(text))}
    assert leaks == {}, f"a minted token in {sorted(leaks)}"
    assert jwts_in(done.stdout + done.stderr) == set(), "nor on the console"


def test_the_token_was_there_in_each_place_the_server_echoed_it(
    run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """The result, the log message and the stderr attachment each held the token, masked: the check above saw it."""
    folder, _done = run
    results = folder / "reports" / "allure-results"
    found = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    echoing = [r for r in found if "on stderr" in r["name"]]
    assert len(echoing) == 2, "one per era"
    for result in echoing:
        attachments = [a for step in result["steps"] for a in step.get("attachments", [])] + result.get(
            "attachments", []
        )
        masked = {a["name"] for a in attachments if MASK in (results / a["source"]).read_text(encoding="utf-8")}
        assert any("stderr" in name for name in masked), masked
        assert any(name.startswith("tools/call whoami") for name in masked), masked
    cucumber = json.loads((folder / "reports" / "cucumber.json").read_text(encoding="utf-8"))
    embedded = [
        base64.b64decode(embedding["data"]).decode("utf-8", "replace")
        for feature in cucumber
        for element in feature["elements"]
        for step in element["steps"]
        for embedding in step.get("embeddings", [])
    ]
    assert any(MASK in text for text in embedded), "Cucumber JSON's base64 attachment: masked before it was encoded"


def test_no_file_nor_the_console_shows_the_signature_of_a_token_cut_or_escaped(
    run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """The header and claims may show (who the caller is), never the signature (how to be them): the server noted
    each token it was sent, outside the reports, and no 24 characters of a signature are readable anywhere."""
    folder, done = run
    tokens = set((folder / "tokens-seen.txt").read_text(encoding="utf-8").split())
    signatures = {token.rsplit(".", 1)[-1] for token in tokens}
    assert len(signatures) == 4 and all(len(signature) > 300 for signature in signatures), "2 scenarios, 2 eras"
    texts = {"the console": done.stdout + done.stderr} | {
        str(p.relative_to(folder)): p.read_bytes().decode("utf-8", "replace")
        for p in folder.rglob("reports/**/*")
        if p.is_file()
    }
    shown = {
        name
        for name, text in texts.items()
        for signature in signatures
        if any(signature[i : i + 24] in text for i in range(len(signature) - 24))
    }
    assert shown == set(), f"a minted token's signature in {sorted(shown)}"
