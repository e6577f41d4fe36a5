"""A view against a stored screenshot: a PNG in the project, compared pixel by pixel with a tolerance.

The comparison runs in the browser that took the screenshot (both PNGs decoded onto canvases),
so it needs no image library. A pixel differs when any channel differs by more than
`CHANNEL_TOLERANCE` (anti-aliasing moves a few levels between runs); the view matches when
at most `tolerance` of its pixels differ (1% by default) and both have the same size.

Writing the file is always a decision: `mcpbdd run --update-screenshots` (or
`-D mcpbdd.update_screenshots=true`) writes or rewrites it; a missing file is written on a
developer's machine when asked to, and fails otherwise, saying how to record it.

A screenshot's name comes from a feature file, so it is data, never a path anywhere: `stored_path`
keeps it a `.png` inside the project (the folder the run works in), refusing an absolute path, a
`..` part and a link that leads out, as a broken step, before anything is read or written.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpbdd.model.errors import Broken

if TYPE_CHECKING:
    from playwright.async_api import Page

CHANNEL_TOLERANCE = 16
DEFAULT_TOLERANCE = 0.01

_COMPARE = r"""
async ([a, b, channel]) => {
  const load = (src) => new Promise((ok, no) => { const i = new Image(); i.onload = () => ok(i);
                                                   i.onerror = () => no(new Error("not a PNG")); i.src = src; });
  const [x, y] = [await load(a), await load(b)];
  const pixels = (img) => { const c = document.createElement("canvas"); c.width = img.width; c.height = img.height;
                            const g = c.getContext("2d"); g.drawImage(img, 0, 0);
                            return g.getImageData(0, 0, img.width, img.height).data; };
  if (x.width !== y.width || x.height !== y.height)
    return {size: [x.width, x.height], stored: [y.width, y.height], differing: -1};
  const [p, q] = [pixels(x), pixels(y)];
  let differing = 0;
  for (let i = 0; i < p.length; i += 4) {
    if (Math.abs(p[i] - q[i]) > channel || Math.abs(p[i+1] - q[i+1]) > channel ||
        Math.abs(p[i+2] - q[i+2]) > channel || Math.abs(p[i+3] - q[i+3]) > channel) differing++;
  }
  return {size: [x.width, x.height], stored: [y.width, y.height], differing};
}
"""


class ScreenshotMismatch(AssertionError):
    """The view does not look like its stored screenshot (or there is none to compare with)."""


@dataclass(frozen=True)
class Comparison:
    size: tuple[int, int]
    stored: tuple[int, int]
    differing: int

    @property
    def share(self) -> float:
        pixels = self.size[0] * self.size[1]
        return self.differing / pixels if pixels else 0.0


def stored_path(name: str, project: Path) -> Path:
    """Where the screenshot `name` (relative to `project`, e.g. `features/screenshots/card.png`) is kept; `Broken`
    naming the rule when it would lead outside `project` (absolute, `..`, a link pointing out) or is not a PNG."""
    given = Path(name)
    rule = "a screenshot is a .png named relative to the project, inside it (e.g. features/screenshots/card.png)"
    if given.is_absolute() or given.anchor:
        raise Broken(f"the screenshot {name!r} is an absolute path: {rule}")
    if ".." in given.parts:
        raise Broken(f"the screenshot {name!r} climbs out with '..': {rule}")
    if given.suffix.lower() != ".png" or not given.name:
        raise Broken(f"the screenshot {name!r} is not a .png file name: {rule}")
    root = project.resolve()
    resolved = (root / given).resolve()
    if not resolved.is_relative_to(root):
        raise Broken(f"the screenshot {name!r} leads out of the project through a link, to {resolved}: {rule}")
    return root / given


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


async def compare(page: Page, shot: bytes, stored: bytes) -> Comparison:
    """How far `shot` is from `stored` (both PNG), measured in `page`."""
    found: dict[str, Any] = await page.evaluate(_COMPARE, [_data_url(shot), _data_url(stored), CHANNEL_TOLERANCE])
    width, height = found["size"]
    stored_width, stored_height = found["stored"]
    return Comparison((int(width), int(height)), (int(stored_width), int(stored_height)), int(found["differing"]))


def verdict(path: Path, comparison: Comparison, tolerance: float = DEFAULT_TOLERANCE) -> None:
    """Nothing when `comparison` is within `tolerance`; else a `ScreenshotMismatch` saying how it differs."""
    rewrite = "if the change is intended, rewrite it with `mcpbdd run --update-screenshots` and commit it"
    if comparison.differing < 0:
        raise ScreenshotMismatch(
            f"the app is {comparison.size[0]}x{comparison.size[1]} px, the screenshot {path} is "
            f"{comparison.stored[0]}x{comparison.stored[1]} px; {rewrite}"
        )
    if comparison.share > tolerance:
        raise ScreenshotMismatch(
            f"the app differs from the screenshot {path} in {comparison.differing:,} pixels "
            f"({comparison.share:.1%}, more than the {tolerance:.1%} allowed); {rewrite}"
        )


def missing(path: Path) -> ScreenshotMismatch:
    return ScreenshotMismatch(
        f"no screenshot {path} to compare the app with: record it with `mcpbdd run --update-screenshots`, "
        "look at it and commit it"
    )


__all__ = [
    "CHANNEL_TOLERANCE",
    "DEFAULT_TOLERANCE",
    "Comparison",
    "ScreenshotMismatch",
    "compare",
    "missing",
    "stored_path",
    "verdict",
]
