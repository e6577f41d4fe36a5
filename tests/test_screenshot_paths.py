"""A screenshot's name comes from a feature file: it stays a .png inside the project, whatever it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbdd.apps.screenshots import stored_path
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
