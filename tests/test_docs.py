"""The documentation stays true: the site builds in strict mode, and the README names every group of the vocabulary.

The site (mkdocs.yml, docs/) is built by `make docs` on every `make test`; here a copy of it is built
once as it is (it passes, and its generated vocabulary page holds every phrase) and once with a
broken link and a broken anchor, which the strict build must refuse. The README keeps a compact
vocabulary table: a row for every group `mcpbdd steps` lists, and no step that is not one.

The tests of this concern that start processes are in tests/spawning/test_docs.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcpbdd.phrases import vocabulary


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


ROOT = Path(__file__).resolve().parents[1]


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

    The README keeps the groups and a phrase or two of each (a quickstart fits in 12 kB);
    the whole table is the site's generated vocabulary page, checked against the phrases above.
    """
    spans = {span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", section) if _KEYWORD.match(span)}
    rows = set(re.findall(r"^\| ([^|`]+?) \|", section, re.M)) - {"Group", "---"}
    missing = [group for group in vocabulary.vocabulary() if group not in rows]
    stale = sorted(span for span in spans - _phrases() if not _is_a_step(span))
    return missing, stale


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


def test_the_upstream_steps_are_listed_in_their_own_group() -> None:
    from mcpbdd.phrases import vocabulary

    entries = vocabulary.vocabulary()["Upstream services"]
    phrases = [entry.phrase for entry in entries]
    assert 'the upstream "{base}" answers {method} "{path}" with status {code} and:' in phrases
    assert 'the upstream "{base}" received no request' in phrases
    assert all(entry.example.startswith(("Given the upstream", "Then the upstream")) for entry in entries)


def test_the_short_checks_are_listed() -> None:
    from mcpbdd.phrases import vocabulary

    listed = {(p.keyword, p.phrase) for phrases in vocabulary.vocabulary().values() for p in phrases}
    for phrase in [
        ("Then", "the error is retryable"),
        ("Then", "the error is not retryable"),
        ("Then", 'the call fails with the tool error "{reason}"'),
        ("Then", 'the result\'s "{path}" is {value}'),
        ("Then", "the server asks nothing"),
        ("Then", 'the storage of tenant "{tenant}" holds "{key}" containing:'),
        ("Then", 'the storage of tenant "{tenant}" is empty'),
        ("Then", 'the storage of tenant "{tenant}" is unchanged except under "{prefix}"'),
        ("Given", "{amount} {unit} have passed"),
    ]:
        assert phrase in listed, phrase
