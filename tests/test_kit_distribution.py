"""The kit is its own distribution (mcpbdd-kit, kit/mcpbdd_kit), and its old names inside mcpbdd are the same objects.

`mcpbdd.kit.X` and `mcpbdd.storage.X` must be the modules `mcpbdd_kit.X` and `mcpbdd_kit.storage.X` themselves, not
copies: a copy has its own classes (isinstance fails across the names), its own module state and its own
attributes (a monkeypatch through one name misses the other). The test that the alias is what prevents a copy
takes it away and gets one. The stubs type checkers read for the old names follow the kit's modules; the loggers
keep the names production logging configurations know; the two distributions carry one version.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import pickle
import sys
from pathlib import Path

import pytest

import mcpbdd._aliases
import mcpbdd._sdk
import mcpbdd._text
import mcpbdd._version
import mcpbdd_kit
import mcpbdd_kit._sdk
import mcpbdd_kit._text
import mcpbdd_kit._version

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "kit" / "mcpbdd_kit"
OLD_NAMES = {"mcpbdd_kit": "mcpbdd.kit", "mcpbdd_kit.storage": "mcpbdd.storage"}
"""Each package of the kit's distribution and its name inside mcpbdd."""


def kit_modules(root: Path = KIT) -> list[str]:
    """Every public module of the kit's distribution under `root`, by its own dotted name."""
    names = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return names


def old_name(module: str) -> str:
    """`module`'s name inside mcpbdd: under the longest kit package that holds it (storage before the kit)."""
    package = max((p for p in OLD_NAMES if module == p or module.startswith(p + ".")), key=len)
    return OLD_NAMES[package] + module[len(package) :]


STUB = "from {module} import *\n"


def stub_drift(kit: Path, stubs: Path) -> list[str]:
    """What is wrong with the stubs under `stubs` (mcpbdd/) for the kit's modules under `kit`: each missing, each
    saying something else, each left over for a module that is gone."""
    wanted = {}
    for module in kit_modules(kit):
        parts = old_name(module).split(".")[1:]  # below mcpbdd/
        packaged = module in OLD_NAMES  # the kit's packages are the ones with an old name of their own
        stub = stubs.joinpath(*parts, "__init__.pyi") if packaged else stubs.joinpath(*parts[:-1], f"{parts[-1]}.pyi")
        wanted[stub] = module
    drift = []
    for path, module in sorted(wanted.items()):
        if not path.is_file():
            drift.append(f"missing: {path.relative_to(stubs.parent)} for {module}")
        elif STUB.format(module=module) not in path.read_text(encoding="utf-8").splitlines(keepends=True):
            drift.append(f"{path.relative_to(stubs.parent)} does not re-export {module}")
    for folder in {p.parent for p in wanted}:
        for path in sorted(folder.glob("*.pyi")):
            if path not in wanted:
                drift.append(f"left over: {path.relative_to(stubs.parent)}")
    return drift


@pytest.mark.parametrize("module", kit_modules())
def test_the_old_name_is_the_kit_module_itself(module: str) -> None:
    found = importlib.import_module(old_name(module))
    assert found is importlib.import_module(module)
    assert found.__spec__ is not None
    assert found.__name__ == found.__spec__.name == module  # known by both names, still its own module


def test_a_module_reloaded_through_its_old_name_runs_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The alias's loader runs nothing: a reload that reached it would silently be a no-op."""
    import mcpbdd.kit.visible_tools
    import mcpbdd_kit.visible_tools

    monkeypatch.setattr(mcpbdd.kit.visible_tools, "__all__", ["patched"])
    assert importlib.reload(mcpbdd.kit.visible_tools) is mcpbdd_kit.visible_tools
    assert mcpbdd_kit.visible_tools.__all__ != ["patched"]  # the module's code ran again


def test_a_class_and_a_patch_are_one_through_either_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcpbdd.kit.consent
    import mcpbdd.storage
    import mcpbdd_kit.consent
    import mcpbdd_kit.storage

    assert isinstance(mcpbdd_kit.consent.ConsentGate("delete the note"), mcpbdd.kit.consent.ConsentGate)
    assert isinstance(mcpbdd.storage.StorageService(), mcpbdd_kit.storage.StorageService)
    monkeypatch.setattr("mcpbdd.kit.consent.RECORD_PREFIX", "patched/")
    assert mcpbdd_kit.consent.RECORD_PREFIX == "patched/"
    assert sys.modules["mcpbdd.kit"] is mcpbdd_kit


def test_without_the_alias_the_old_name_would_be_a_second_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the finder prevents: the path finder alone loads mcpbdd_kit's file again, as another module."""
    import mcpbdd_kit.consent

    real = mcpbdd_kit.consent
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if f is not mcpbdd._aliases._FINDER])
    monkeypatch.delitem(sys.modules, "mcpbdd.kit.consent")
    monkeypatch.setattr(mcpbdd_kit, "consent", real)  # the import below sets the copy on its parent: put it back
    copy = importlib.import_module("mcpbdd.kit.consent")
    assert copy is not real
    assert not isinstance(real.ConsentGate("delete the note"), copy.ConsentGate)


def test_a_module_the_kit_does_not_have_is_not_found_by_its_old_name() -> None:
    with pytest.raises(ModuleNotFoundError, match=r"No module named 'mcpbdd\.kit\.nothing'"):
        importlib.import_module("mcpbdd.kit.nothing")
    with pytest.raises(ModuleNotFoundError, match=r"No module named 'mcpbdd\.storage\.nothing'"):
        importlib.import_module("mcpbdd.storage.nothing")


@pytest.mark.parametrize(
    ("module", "logger"),
    [
        ("mcpbdd_kit.auth", "mcpbdd.kit.auth"),
        ("mcpbdd_kit.doubles", "mcpbdd.kit.doubles"),
        ("mcpbdd_kit.jwks", "mcpbdd.kit.jwks"),
        ("mcpbdd_kit.jwks_keys", "mcpbdd.kit.jwks"),
        ("mcpbdd_kit.protected", "mcpbdd.kit.protected"),
        ("mcpbdd_kit.upstream", "mcpbdd.kit.upstream"),
        ("mcpbdd_kit.visible_tools", "mcpbdd.kit.visible_tools"),
    ],
)
def test_the_loggers_keep_their_names(module: str, logger: str) -> None:
    assert importlib.import_module(module).logger is logging.getLogger(logger)


def test_the_stubs_follow_the_kits_modules() -> None:
    assert stub_drift(KIT, ROOT / "mcpbdd") == []


def test_a_kit_module_without_a_stub_is_drift(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(KIT, tmp_path / "kit" / "mcpbdd_kit", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("kit", "storage"):
        shutil.copytree(ROOT / "mcpbdd" / folder, tmp_path / "mcpbdd" / folder, ignore=shutil.ignore_patterns("*.py"))
    (tmp_path / "kit" / "mcpbdd_kit" / "newcomer.py").write_text('"""New."""\n', encoding="utf-8")
    (tmp_path / "mcpbdd" / "storage" / "keys.pyi").write_text("from mcpbdd_kit.storage.codec import *\n")
    (tmp_path / "mcpbdd" / "kit" / "gone.pyi").write_text("from mcpbdd_kit.gone import *\n")
    assert stub_drift(tmp_path / "kit" / "mcpbdd_kit", tmp_path / "mcpbdd") == [
        "missing: mcpbdd/kit/newcomer.pyi for mcpbdd_kit.newcomer",
        "mcpbdd/storage/keys.pyi does not re-export mcpbdd_kit.storage.keys",
        "left over: mcpbdd/kit/gone.pyi",
    ]


def test_one_sentinel_and_one_seam_error_for_both_distributions() -> None:
    assert mcpbdd._text.MISSING is mcpbdd_kit._text.MISSING
    assert pickle.loads(pickle.dumps(mcpbdd._text.MISSING)) is mcpbdd._text.MISSING
    assert mcpbdd._sdk.SdkSeamError is mcpbdd_kit._sdk.SdkSeamError
    assert mcpbdd._sdk.lowlevel_server is mcpbdd_kit._sdk.lowlevel_server


def test_the_two_distributions_carry_one_version() -> None:
    assert mcpbdd_kit._version.__version__ == mcpbdd._version.__version__
    assert importlib.metadata.version("mcpbdd-kit") == mcpbdd_kit._version.__version__
