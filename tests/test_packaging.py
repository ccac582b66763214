"""The package as a user installs it: what the wheel ships (read from pyproject.toml, without
building one), its metadata, and the run-time lookups of shipped files."""

from __future__ import annotations

import ast
import fnmatch
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"


@pytest.fixture(scope="module")
def project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _tracked_package_files() -> list[Path]:
    """The files of src/boardlab under version control (local caches and builds left out)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout")
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "src/boardlab"], capture_output=True, text=True, check=True
    )
    return [ROOT / line for line in listed.stdout.splitlines()]


def _owner(path: Path) -> tuple[str, str]:
    """The package that holds ``path`` (its deepest folder with an ``__init__.py``) and the path
    relative to that package's folder, as setuptools' package data reads them."""
    folder = path.parent
    while not (folder / "__init__.py").is_file():
        folder = folder.parent
    package = ".".join(folder.relative_to(SOURCE).parts)
    return package, path.relative_to(folder).as_posix()


def _shipped(path: Path, package_data: dict[str, list[str]]) -> bool:
    package, relative = _owner(path)
    return any(fnmatch.fnmatchcase(relative, pattern) for pattern in package_data.get(package, []))


def test_every_file_of_the_package_is_in_the_wheel(project: dict[str, Any]) -> None:
    package_data = project["tool"]["setuptools"]["package-data"]
    data = [p for p in _tracked_package_files() if p.suffix != ".py"]
    assert data, "no data files found"
    missing = [str(p.relative_to(ROOT)) for p in data if not _shipped(p, package_data)]
    assert not missing, f"not matched by [tool.setuptools.package-data]: {missing}"
    # nothing but Python beside __init__.py-less data folders: no package hides in a data folder
    for path in _tracked_package_files():
        if path.suffix == ".py":
            assert (path.parent / "__init__.py").is_file(), f"{path} is in no package"


def test_the_wheel_says_the_package_is_typed_and_carries_its_licence(project: dict[str, Any]) -> None:
    assert (SOURCE / "boardlab" / "py.typed").is_file()
    assert _shipped(SOURCE / "boardlab" / "py.typed", project["tool"]["setuptools"]["package-data"])
    meta = project["project"]
    assert "Typing :: Typed" in meta["classifiers"]
    for name in meta["license-files"]:
        assert (ROOT / name).is_file()
    assert meta["license"] in (ROOT / meta["license-files"][0]).read_text()


def test_every_requirement_has_a_lower_bound(project: dict[str, Any]) -> None:
    """A bare requirement lets pip pick anything, and a bare torch a multi-GB CUDA build."""
    meta = project["project"]
    requirements = list(meta["dependencies"])
    for extra in meta["optional-dependencies"].values():
        requirements += extra
    for requirement in requirements:
        assert re.search(r">=|==|~=", requirement), f"{requirement!r} has no lower bound"


def _top_level_names(path: Path) -> set[str]:
    """The names a module defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def test_entry_points_name_modules_and_classes_that_exist(project: dict[str, Any]) -> None:
    """The registries and the command read these from the installed metadata (a typo here
    breaks only an installed package, not the tests, which register what they use at run time)."""
    meta = project["project"]
    groups = meta["entry-points"]
    targets = [
        *groups["boardlab.games"].values(),
        *groups["boardlab.agents"].values(),
        meta["scripts"]["boardlab"],
    ]
    for target in targets:
        module, _, attribute = target.partition(":")
        folder = SOURCE / Path(*module.split("."))
        path = folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")
        assert path.is_file(), target
        assert attribute in _top_level_names(path), target


def test_the_top_level_names_load_when_first_used() -> None:
    code = (
        "import sys, boardlab\n"
        "assert 'boardlab.games' not in sys.modules and 'numba' not in sys.modules\n"
        "state = boardlab.new_game('tictactoe')\n"
        "agent = boardlab.make_agent('greedy', seed=1, game=state.game)\n"
        "decision = agent.act(state, boardlab.Limit(time=1))\n"
        "assert isinstance(decision, boardlab.Decision) and boardlab.parse_game('nim').name == 'nim'\n"
        "session = boardlab.Session(state, (agent, agent))\n"
        "assert session.run().reason is not None and set(dir(boardlab)) >= {'new_game', 'Session'}\n"
        "try:\n"
        "    boardlab.nothing\n"
        "except AttributeError as err:\n"
        "    assert 'nothing' in str(err)\n"
        "else:\n"
        "    raise AssertionError('an unknown name is an AttributeError')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
