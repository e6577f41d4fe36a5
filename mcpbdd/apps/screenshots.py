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
`..` part, a backslash (a separator elsewhere), a control character, a part too long for a file
system and a link that leads out, as a broken step, before anything is read or written.
`read_stored` and `write_stored` check again when they open the file, one folder at a time and
following no link (a link made between the check and the write is refused, not followed), and a
write replaces the file rather than writing into it (a hard link's other name is left alone).
"""

from __future__ import annotations

import base64
import contextlib
import os
import secrets
import stat
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
    rule = "a screenshot is a .png named relative to the project, inside it (e.g. features/screenshots/card.png)"
    if "\\" in name:
        raise Broken(f"the screenshot {name!r} has a backslash (a folder separator elsewhere): use '/': {rule}")
    if any(ord(character) < 32 or ord(character) == 127 for character in name):
        raise Broken(f"the screenshot {name!r} has a control character: {rule}")
    given = Path(name)
    if given.is_absolute() or given.anchor:
        raise Broken(f"the screenshot {name!r} is an absolute path: {rule}")
    if ".." in given.parts:
        raise Broken(f"the screenshot {name!r} climbs out with '..': {rule}")
    if given.suffix.lower() != ".png" or not given.name:
        raise Broken(f"the screenshot {name!r} is not a .png file name: {rule}")
    if any(len(os.fsencode(part)) > _LONGEST_PART for part in given.parts):
        raise Broken(f"the screenshot {name[:80]!r}... has a part longer than {_LONGEST_PART} bytes: {rule}")
    root = project.resolve()
    resolved = (root / given).resolve()
    if not resolved.is_relative_to(root):
        raise Broken(f"the screenshot {name!r} leads out of the project through a link, to {resolved}: {rule}")
    return root / given


_LONGEST_PART = 255
"""The longest file or folder name (in bytes) the common file systems take."""


def _inside(name: str, project: Path) -> tuple[Path, tuple[str, ...]]:
    """The project's real folder and the parts of `name`'s real path under it (links inside resolved)."""
    stored_path(name, project)
    root = project.resolve()
    return root, (root / name).resolve().relative_to(root).parts


def _folder(root: Path, folders: tuple[str, ...], name: str, *, create: bool) -> int | None:
    """A descriptor of `root`/`folders`, opened one folder at a time following no link (None: absent, not created).

    A folder turned into a link after `stored_path` looked is refused here rather than followed."""
    descriptor = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for folder in folders:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(folder, dir_fd=descriptor)
            try:
                inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=descriptor)
            except FileNotFoundError:
                if create:
                    raise
                os.close(descriptor)
                return None
            except (NotADirectoryError, OSError) as error:
                raise Broken(
                    f"the screenshot {name!r}: {folder!r} is no longer a folder of the project (a link or a file "
                    f"appeared there while the step ran): {error.strerror}"
                ) from None
            os.close(descriptor)
            descriptor = inner
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_stored(name: str, project: Path) -> bytes | None:
    """The stored screenshot `name` (None when there is none), read without following a link out of `project`
    and only from a regular file (a folder, a pipe or a device named like a PNG is `Broken`)."""
    root, parts = _inside(name, project)
    folder = _folder(root, parts[:-1], name, create=False)
    if folder is None:
        return None
    try:
        try:
            file = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise Broken(f"the screenshot {name!r} cannot be opened: {error.strerror}") from None
        if not stat.S_ISREG(os.fstat(file).st_mode):
            os.close(file)
            raise Broken(f"the screenshot {name!r} is not a file (a folder, a pipe or a device)")
        with os.fdopen(file, "rb") as opened:
            return opened.read()
    finally:
        os.close(folder)


def write_stored(name: str, project: Path, png: bytes) -> None:
    """Write `png` as the screenshot `name`, creating its folders, inside `project` only (no link followed), by
    replacing the file whole: a reader never sees half of it, and a hard link's other name keeps its content."""
    root, parts = _inside(name, project)
    folder = _folder(root, parts[:-1], name, create=True)
    assert folder is not None
    partial = f".mcpbdd-{secrets.token_hex(8)}.partial"  # short: beside a name of up to 255 bytes
    try:
        file = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder)
        try:
            with os.fdopen(file, "wb") as opened:
                opened.write(png)
            os.replace(partial, parts[-1], src_dir_fd=folder, dst_dir_fd=folder)
        except OSError as error:
            os.unlink(partial, dir_fd=folder)
            raise Broken(f"the screenshot {name!r} cannot be written: {error.strerror}") from None
    finally:
        os.close(folder)


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
    "read_stored",
    "stored_path",
    "verdict",
    "write_stored",
]
