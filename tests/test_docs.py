"""The documentation stays true: the site builds in strict mode, and the README names every group of the vocabulary.

The site (mkdocs.yml, docs/) is built by `make docs` on every `make test`; here a copy of it is built
once as it is (it passes, and its generated vocabulary page holds every phrase) and once with a
broken link and a broken anchor, which the strict build must refuse. The README keeps a compact
vocabulary table: a row for every group `mcpbdd steps` lists, and no step that is not one.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcpbdd.phrases import vocabulary

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = Path(sys.executable).with_name("mkdocs")
_QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}  # the banners, as in the Makefile


def _site_copy(tmp_path: Path) -> Path:
    """mkdocs.yml and docs/ copied; the code and BENCHMARKS.md (read by the build) linked as they are."""
    copy = tmp_path / "project"
    copy.mkdir()
    shutil.copy(ROOT / "mkdocs.yml", copy)
    shutil.copytree(ROOT / "docs", copy / "docs")
    for name in ("mcpbdd", "BENCHMARKS.md"):
        (copy / name).symlink_to(ROOT / name)
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
    project = _site_copy(tmp_path)
    built = _build(project)
    assert built.returncode == 0, built.stdout + built.stderr
    page = html.unescape((project / "site" / "reference" / "vocabulary" / "index.html").read_text())
    missing = [p for p in _phrases() if p not in page]
    assert missing == [], f"the generated vocabulary page lacks {missing}"

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
    assert "Aborted with 2 warnings in strict mode!" in output


def test_the_generated_pages_are_never_committed() -> None:
    """The vocabulary and API pages exist only in the built site, so they cannot go stale in the repository."""
    for page in ("docs/reference/vocabulary.md", "docs/reference/api.md"):
        assert not (ROOT / page).exists(), f"{page} is generated at build time (docs/gen/); do not commit it"


# The README's vocabulary table -------------------------------------------------------------------------------

_KEYWORD = re.compile(r"^(Given|When|Then) ")


def _phrases() -> set[str]:
    return {f"{p.keyword} {p.phrase}" for phrases in vocabulary.vocabulary().values() for p in phrases}


def _is_a_step(text: str) -> bool:
    """Whether some registered step matches `text` (an example such as `When 2 hours pass`)."""
    from behave.step_registry import registry

    keyword, _, rest = text.partition(" ")
    kinds = [keyword.lower(), "step"]
    return any(matcher.match(rest) for kind in kinds for matcher in registry.steps.get(kind, []))


def vocabulary_gaps(section: str) -> tuple[list[str], list[str]]:
    """(groups of `mcpbdd steps` the section has no row for, backquoted steps in it that are no phrase and match none).

    The README keeps the groups and a phrase or two of each (issue 29: a quickstart fits in 12 kB);
    the whole table is the site's generated vocabulary page, checked against the phrases above.
    """
    spans = {span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", section) if _KEYWORD.match(span)}
    rows = set(re.findall(r"^\| ([^|`]+?) \|", section, re.M)) - {"Group", "---"}
    missing = [group for group in vocabulary.vocabulary() if group not in rows]
    stale = sorted(span for span in spans - _phrases() if not _is_a_step(span))
    return missing, stale


def _readme_vocabulary() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## The vocabulary\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_the_readme_vocabulary_names_every_group_and_only_steps_that_exist() -> None:
    missing, stale = vocabulary_gaps(_readme_vocabulary())
    assert missing == [], f"README's vocabulary table has no row for these groups of `mcpbdd steps`: {missing}"
    assert stale == [], f"README's vocabulary table names steps that do not exist: {stale}"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("| Consent gates |", "| Consent |"), (["Consent gates"], [])),
        (
            ("`Then the call succeeds`", "`Then the call succeed`"),
            ([], ["Then the call succeed"]),
        ),
    ],
    ids=["a group left out", "a phrase misspelt"],
)
def test_the_vocabulary_check_sees_a_group_left_out_or_a_phrase_misspelt(
    change: tuple[str, str], expected: tuple[list[str], list[str]]
) -> None:
    section = _readme_vocabulary()
    old, new = change
    assert old in section
    assert vocabulary_gaps(section.replace(old, new, 1)) == expected


def test_an_example_of_a_phrase_is_not_stale() -> None:
    assert vocabulary_gaps('`When 2 hours pass`, `Given the tenant "acme"`')[1] == []


# The README's own links -----------------------------------------------------------------------------------------


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def link_problems(text: str) -> list[str]:
    """The relative links of a Markdown text whose file or heading does not exist."""
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"https?://", target):
            continue
        path, _, anchor = target.partition("#")
        if (path and not (ROOT / path).exists()) or (not path and anchor not in anchors):
            broken.append(target)
    return broken


def test_the_readme_links_point_at_files_and_headings_that_exist() -> None:
    assert link_problems((ROOT / "README.md").read_text()) == []


def test_the_link_check_sees_a_missing_file_or_heading() -> None:
    text = "## The vocabulary\n\n[ok](#the-vocabulary) [ok](docs/cassette.md) [x](docs/gone.md) [y](#gone)\n"
    assert link_problems(text) == ["docs/gone.md", "#gone"]
