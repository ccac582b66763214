"""Model files of the learned agents: the shipped ones, the file an agent plays, the cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boardlab.agents import AgentSpecError
from boardlab.agents.models import ModelCache, model_file, shipped_model_file
from boardlab.models.errors import ModelFileError


def test_a_shipped_model_is_found_by_its_name_and_a_missing_one_is_none() -> None:
    path = shipped_model_file("tictactoe-qlearning.npz")
    assert path is not None and path.is_file() and path.name == "tictactoe-qlearning.npz"
    assert shipped_model_file("no-such-model.npz") is None
    assert shipped_model_file("") is None  # the package's folder is no model file


def test_the_given_file_wins_over_the_shipped_one_and_a_home_path_is_expanded(tmp_path: Path) -> None:
    shipped = tmp_path / "shipped.json"
    assert (
        model_file("es", str(tmp_path / "mine.json"), shipped, "cmd", "model.json") == tmp_path / "mine.json"
    )
    assert model_file("es", "", shipped, "cmd", "model.json") == shipped
    assert model_file("es", "~/mine.json", None, "cmd", "model.json") == Path.home() / "mine.json"


@pytest.mark.parametrize(
    ("what", "message"),
    [
        (
            "",
            "es: no model is shipped in this installation; train one with `boardlab train es --out DIR` "
            "and pass model=DIR/model.json",
        ),
        (
            "quixo",
            "es: no model is shipped for quixo; train one with `boardlab train es --out DIR` "
            "and pass model=DIR/model.json",
        ),
    ],
)
def test_no_model_given_nor_shipped_says_how_to_train_one(what: str, message: str) -> None:
    with pytest.raises(AgentSpecError) as refused:
        model_file("es", "", None, "boardlab train es", "model.json", what=what)
    assert str(refused.value) == message


def test_the_cache_reads_a_file_once_per_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []

    def load(path: Path) -> str:
        reads.append(path.read_text())
        return reads[-1]

    cache: ModelCache[str] = ModelCache(load)
    path = tmp_path / "model.json"
    path.write_text("one")
    assert cache.get(path) == "one"
    monkeypatch.chdir(tmp_path)
    assert cache.get(Path("model.json")) == "one"  # the same file by another path
    assert reads == ["one"]
    path.write_text("three")  # a new size
    assert cache.get(path) == "three"
    path.write_text("four!")  # the same size, a later modification time
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert cache.get(path) == "four!"
    cache.clear()
    assert cache.get(path) == "four!"
    assert reads == ["one", "three", "four!", "four!"]


def test_the_cache_refuses_a_missing_file_in_one_line(tmp_path: Path) -> None:
    cache: ModelCache[str] = ModelCache(lambda path: path.read_text())
    with pytest.raises(ModelFileError, match=r"^model file .*none\.json does not exist$"):
        cache.get(tmp_path / "none.json")
