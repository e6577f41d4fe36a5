"""The documentation stays true: the site builds in strict mode, and the README names every group of the vocabulary.

The site (mkdocs.yml, docs/) is built by `make docs` on every `make test` (that it builds is its
verdict); here the project's mkdocs.yml is built once on a small site of its own (the home page, the limits page and
the generated vocabulary page: a third of a whole build's CPU), with a broken link and a broken anchor added, which
the strict build must refuse with exactly those two warnings. mkdocs writes every page before it counts
the warnings, so the same build shows the generated vocabulary page holding every phrase. The README keeps a compact
vocabulary table: a row for every group `mcpbdd steps` lists, and no step that is not one.

These tests start processes; the in-process tests of this concern are in tests/test_docs.py.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML
from test_docs import _phrases  # shared with the in-process half

ROOT = Path(__file__).resolve().parents[2]
MKDOCS = Path(sys.executable).with_name("mkdocs")
_QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}  # the banners, as in the Makefile


def _small_site(tmp_path: Path) -> Path:
    """The project's mkdocs.yml (its theme, Markdown extensions and strict validation) on a site of three pages: a
    home page, the limits page and the generated vocabulary page, with only the plugins they need (the API reference,
    the conformance and lint pages are most of a whole build's time, and `make docs` builds them strictly anyway)."""
    copy = tmp_path / "project"
    (copy / "docs" / "reference").mkdir(parents=True)
    (copy / "docs" / "gen").mkdir()
    config = YAML(typ="safe").load((ROOT / "mkdocs.yml").read_text())
    config["nav"] = [{"Home": "index.md"}, {"Reference": ["reference/vocabulary.md", "reference/limits.md"]}]
    config["plugins"] = ["search", {"gen-files": {"scripts": ["docs/gen/vocabulary.py"]}}]
    YAML(typ="safe").dump(config, copy / "mkdocs.yml")
    (copy / "docs" / "index.md").write_text("# mcpbdd\n")
    shutil.copy(ROOT / "docs" / "reference" / "limits.md", copy / "docs" / "reference")
    shutil.copy(ROOT / "docs" / "gen" / "vocabulary.py", copy / "docs" / "gen")
    (copy / "mcpbdd").symlink_to(ROOT / "mcpbdd")
    return copy


def _build(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MKDOCS), "build", "--strict"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **_QUIET},
    )


def test_the_site_builds_strictly_and_a_broken_link_or_anchor_fails_it(tmp_path: Path) -> None:
    project = _small_site(tmp_path)
    index = project / "docs" / "index.md"
    index.write_text(
        index.read_text()
        + "\nSee [a page that is not there](reference/no-such-page.md)"
        + " and [a section](reference/limits.md#no-such-section).\n"
    )
    broken = _build(project)
    output = broken.stdout + broken.stderr
    assert broken.returncode == 1, output
    assert "'reference/no-such-page.md', but the target is not found among documentation files" in output
    assert "'reference/limits.md#no-such-section', but the doc 'reference/limits.md' does not contain an anchor" in (
        output
    )
    assert "Aborted with 2 warnings in strict mode!" in output  # the two above, and nothing else warned
    page = html.unescape((project / "site" / "reference" / "vocabulary" / "index.html").read_text())
    missing = [p for p in _phrases() if p not in page]
    assert missing == [], f"the generated vocabulary page lacks {missing}"


# The README's vocabulary table -------------------------------------------------------------------------------
