"""Extract the specification's server-side MUST and SHOULD sentences, with anchors, into `requirements.json`.

    python -m mcpbdd.conformance.requirements_extract SPEC_REPO OFFICIAL_REPO > mcpbdd/conformance/requirements.json

SPEC_REPO is a clone of github.com/modelcontextprotocol/modelcontextprotocol (its `docs/specification/<era>/`
pages), OFFICIAL_REPO one of github.com/modelcontextprotocol/conformance (its server scenarios, which cite the
spec section each check checks). Run by a maintainer when either changes; the data file records both commits.
Nothing here runs at run time: `mcpbdd.conformance.requirements` reads the data file.

Who a sentence binds is read from its words before the keyword (the last of server, client, host, ...): what
binds a server (or "implementations", either party) is kept, what binds only a client, host, user or an
authorization server is not. A sentence that names nobody binds the page's party (a `server/` page's: the
server). A lead-in that ends in a colon ("Servers **MUST**:") gives its keyword and party to each list item after
it. Each sentence is cut to `MAX_TEXT` characters: the data file quotes, it does not copy, the specification.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["ERAS", "MAX_TEXT", "extract_page", "official_citations", "slug"]

ERAS = ("2025-11-25", "2026-07-28")
MAX_TEXT = 140
_KEYWORD = re.compile(r"\b(MUST NOT|MUST|SHALL NOT|SHALL|REQUIRED|SHOULD NOT|SHOULD|RECOMMENDED)\b")
_LEVEL = {"SHALL NOT": "MUST NOT", "SHALL": "MUST", "REQUIRED": "MUST", "RECOMMENDED": "SHOULD"}
_ACTOR = re.compile(
    r"\b(authorization servers?|resource servers?|mcp servers?|servers?|clients?|hosts?|applications?|users?|"
    r"implementations?|receivers?|senders?|both parties|either party)\b",
    re.IGNORECASE,
)
_SERVER = ("server", "mcp server", "resource server", "implementation", "receiver", "both parties", "either party")
_SKIPPED_PAGES = ("changelog", "schema", "index", "architecture/index", "deprecated")
_CLIENT_PAGES = ("basic/authorization/client-registration", "basic/authorization/authorization-server-discovery")
"""Pages whose every rule binds a client (or an authorization server), whatever a sentence's words say."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[])")


def slug(heading: str) -> str:
    """The anchor the docs site gives a heading (lowercase, punctuation dropped, spaces as hyphens)."""
    text = re.sub(r"[`*_\[\]()]", "", heading).strip().lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"\s+", "-", text)


def _clean(text: str) -> str:
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    text = text.replace("**", "").replace("&mdash;", "-")
    return re.sub(r"\s+", " ", text).strip()


def _party(sentence: str, keyword_at: int, page_party: str) -> str:
    found = [m.group(1).lower() for m in _ACTOR.finditer(sentence[:keyword_at])]
    if not found:
        return page_party
    last = found[-1].rstrip("s") if not found[-1].endswith("parties") else found[-1]
    return "server" if any(last == s or last == s.rstrip("s") for s in _SERVER) else last


def _blocks(text: str) -> list[tuple[str, str, bool]]:
    """(anchor, text, is_list_item) for each paragraph and list item, code blocks and front matter dropped."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    anchor = ""
    blocks: list[tuple[str, str, bool]] = []
    current: list[str] = []
    item = False

    def flush() -> None:
        if current:
            blocks.append((anchor, _clean(" ".join(current)), item))
            current.clear()

    for line in text.splitlines():
        stripped = line.strip()
        heading = re.match(r"#{1,6}\s+(.*)", stripped)
        if heading:
            flush()
            anchor = slug(heading.group(1))
            continue
        bullet = re.match(r"(?:[-*]|\d+\.)\s+(.*)", stripped)
        if not stripped:
            flush()
            item = False
        elif bullet:
            flush()
            item = True
            current.append(bullet.group(1))
        else:
            current.append(stripped)
    flush()
    return blocks


def extract_page(era: str, page: str, text: str) -> list[dict[str, Any]]:
    """The server-side requirements of one page, in order, each with its anchor, level and (cut) text."""
    page_party = "server" if page.startswith("server/") else "unnamed"
    found: list[dict[str, Any]] = []
    lead: tuple[str, str] | None = None  # a "Servers MUST:" lead-in's level and party, for the list after it
    counts: dict[str, int] = {}
    for anchor, block, is_item in _blocks(text):
        if not is_item:
            lead = None
        for sentence in _SENTENCE.split(block):
            match = _KEYWORD.search(sentence)
            level, party = None, None
            if match is not None:
                level = _LEVEL.get(match.group(1), match.group(1))
                party = _party(sentence, match.start(), page_party)
                if sentence.rstrip().endswith(":"):
                    lead = (level, party)
                    continue
            elif is_item and lead is not None:
                level, party = lead
            if level is None or party not in ("server", "unnamed"):
                continue
            counts[anchor] = counts.get(anchor, 0) + 1
            cut = sentence if len(sentence) <= MAX_TEXT else sentence[: MAX_TEXT - 1].rstrip() + "…"
            found.append(
                {
                    "id": f"{page}#{anchor}/{counts[anchor]}",
                    "level": level,
                    "party": party,
                    "text": cut,
                }
            )
    return found


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def official_citations(repo: Path) -> dict[str, list[str]]:
    """`page#anchor` (era-less) -> the official suite's server scenario files that cite it, from their spec links."""
    cited: dict[str, set[str]] = {}
    files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "src/scenarios/server").split() if f]
    for name in files:
        if not name.endswith(".ts") or name.endswith(".test.ts"):
            continue
        source = _git(repo, "show", f"HEAD:{name}")
        scenario = Path(name).stem
        for url in re.findall(r"modelcontextprotocol\.io/specification/[^/]+/([\w/-]+)(#[\w-]+)?", source):
            key = url[0].rstrip("/") + (url[1] or "")
            cited.setdefault(key, set()).add(scenario)
    return {key: sorted(value) for key, value in sorted(cited.items())}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    spec, official = Path(args[0]), Path(args[1])
    eras: dict[str, list[dict[str, Any]]] = {}
    for era in ERAS:
        root = f"docs/specification/{era}/"
        pages = [p for p in _git(spec, "ls-tree", "-r", "--name-only", "HEAD", root).split() if p.endswith(".mdx")]
        found: list[dict[str, Any]] = []
        for path in pages:
            page = path[len(root) : -len(".mdx")]
            if page in _SKIPPED_PAGES or page in _CLIENT_PAGES or page.startswith("client/"):
                continue
            found += extract_page(era, page, _git(spec, "show", f"HEAD:{path}"))
        eras[era] = found
    data = {
        "source": {
            "specification": "github.com/modelcontextprotocol/modelcontextprotocol@"
            + _git(spec, "rev-parse", "HEAD").strip(),
            "official": "github.com/modelcontextprotocol/conformance@" + _git(official, "rev-parse", "HEAD").strip(),
            "note": f"sentences cut to {MAX_TEXT} characters; the pages are the specification's own text",
        },
        "eras": eras,
        "official": official_citations(official),
    }
    lines = [json.dumps({k: v for k, v in data.items() if k != "eras"}, ensure_ascii=False)[:-1] + ', "eras": {']
    for number, (era, found) in enumerate(eras.items()):
        lines.append(f"{json.dumps(era)}: [")
        lines.append(",\n".join(json.dumps(item, ensure_ascii=False) for item in found))
        lines.append("]" + ("," if number < len(eras) - 1 else ""))
    lines.append("}}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
