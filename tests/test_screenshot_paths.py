"""A screenshot's name comes from a feature file: it stays a .png inside the project, whatever it says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcpbdd.apps import screenshots
from mcpbdd.apps.screenshots import read_stored, stored_path, write_stored
from mcpbdd.model.errors import Broken


def test_a_name_inside_the_project_is_kept_there(tmp_path: Path) -> None:
    name = "features/screenshots/card.png"
    assert stored_path(name, tmp_path) == tmp_path.resolve() / name


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("../x.png", "climbs out with '..'"),
        ("features/../../x.png", "climbs out with '..'"),
        ("/tmp/x.png", "is an absolute path"),
        ("features/screenshots/card.txt", "is not a .png file name"),
        ("features/screenshots", "is not a .png file name"),
    ],
)
def test_a_name_leading_out_or_not_a_png_is_broken(tmp_path: Path, name: str, said: str) -> None:
    with pytest.raises(Broken, match=said):
        stored_path(name, tmp_path)


def test_a_link_leading_out_of_the_project_is_refused(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "shots").symlink_to(outside, target_is_directory=True)
    (project / "card.png").symlink_to(outside / "card.png")
    for name in ("shots/card.png", "card.png"):
        with pytest.raises(Broken, match="leads out of the project through a link"):
            stored_path(name, project)
    (project / "inside").symlink_to(project / "shots-real", target_is_directory=True)
    assert stored_path("inside/card.png", project).name == "card.png", "a link inside the project is fine"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("..\\..\\x.png", "has a backslash"),
        ("features\\..\\..\\x.png", "has a backslash"),
        ("a\x00.png", "has a control character"),
        ("a\n/../x.png", "has a control character"),
        ("x" * 300 + ".png", "longer than 255 bytes"),
        ("x.png/../../y", "climbs out with '..'"),
        ("x.png/../../y.png", "climbs out with '..'"),
    ],
)
def test_every_spelling_of_a_way_out_is_broken_before_any_file_is_touched(tmp_path: Path, name: str, said: str) -> None:
    with pytest.raises(Broken, match=said):
        stored_path(name, tmp_path)
    with pytest.raises(Broken, match=said):
        write_stored(name, tmp_path, b"png")
    with pytest.raises(Broken, match=said):
        read_stored(name, tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["%2e%2e/%2e%2e/x.png", "\uff0e\uff0e/x.png", "\u2025/x.png", "a/./b.png"])
def test_look_alikes_of_dot_dot_are_plain_folder_names_inside_the_project(tmp_path: Path, name: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write_stored(name, project, b"png")
    assert read_stored(name, project) == b"png"
    assert [path.name for path in tmp_path.iterdir()] == ["project"], "nothing written beside the project"


def test_a_write_creates_its_folders_and_replaces_the_file_whole(tmp_path: Path) -> None:
    write_stored("features/screenshots/card.png", tmp_path, b"first")
    write_stored("features/screenshots/card.png", tmp_path, b"second")
    assert read_stored("features/screenshots/card.png", tmp_path) == b"second"
    assert sorted(path.name for path in (tmp_path / "features/screenshots").iterdir()) == ["card.png"]
    assert read_stored("features/screenshots/absent.png", tmp_path) is None
    assert read_stored("absent/absent.png", tmp_path) is None


def test_a_folder_a_pipe_or_a_link_named_like_a_png_is_broken_not_read(tmp_path: Path) -> None:
    (tmp_path / "folder.png").mkdir()
    os.mkfifo(tmp_path / "pipe.png")  # opening it for reading would wait for a writer forever
    for name in ("folder.png", "pipe.png"):
        with pytest.raises(Broken, match="is not a file"):
            read_stored(name, tmp_path)
    with pytest.raises(Broken, match="cannot be written"):
        write_stored("folder.png", tmp_path, b"png")
    assert [path.name for path in (tmp_path / "folder.png").iterdir()] == []


def test_a_hard_link_to_a_file_outside_keeps_its_content_when_the_screenshot_is_rewritten(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside.png"
    project.mkdir()
    outside.write_bytes(b"outside")
    os.link(outside, project / "card.png")
    write_stored("card.png", project, b"png")
    assert outside.read_bytes() == b"outside"
    assert (project / "card.png").read_bytes() == b"png"


def test_a_folder_swapped_for_a_link_between_the_check_and_the_write_is_refused(tmp_path: Path) -> None:
    """The step checks the name before it takes the screenshot and writes after: a folder of the project turned
    into a link leading out in between (the check passed on the real folder) is refused as the file opens."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "shots").mkdir()
    stored_path("shots/deeper/card.png", project)  # the step's check, before the screenshot is taken
    (project / "shots").rmdir()
    (project / "shots").symlink_to(outside, target_is_directory=True)
    with pytest.raises(Broken, match="leads out of the project through a link"):
        write_stored("shots/deeper/card.png", project, b"png")
    with pytest.raises(Broken, match="leads out of the project through a link"):
        read_stored("shots/deeper/card.png", project)
    assert list(outside.iterdir()) == []


def test_a_link_appearing_after_the_write_resolved_its_folders_is_not_followed(tmp_path: Path) -> None:
    """The narrowest window: the write resolved the name, then a folder became a link; each folder opens
    without following a link, so the write is refused rather than carried out."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "shots").mkdir()
    root, parts = screenshots._inside("shots/card.png", project)
    (project / "shots").rmdir()
    (project / "shots").symlink_to(outside, target_is_directory=True)
    with pytest.raises(Broken, match="no longer a folder of the project"):
        screenshots._folder(root, parts[:-1], "shots/card.png", create=True)
    assert list(outside.iterdir()) == []


def test_a_name_of_255_bytes_is_written_and_nothing_partial_is_left(tmp_path: Path) -> None:
    name = "x" * 251 + ".png"
    write_stored(name, tmp_path, b"png")
    assert [path.name for path in tmp_path.iterdir()] == [name]
