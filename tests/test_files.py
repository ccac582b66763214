"""The one atomic-write helper: the old file survives a failed write, nothing is left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardlab.core import files
from boardlab.core.files import (
    agg_figure,
    atomic_savefig,
    atomic_write,
    atomic_write_text,
    make_folders,
    output_problem,
    path_problem,
    remove_stale_temporaries,
    removed_if_refused,
    tables_root,
)


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    atomic_write_text(target, "old")

    def half_then_fail(handle) -> None:  # type: ignore[no-untyped-def]
        handle.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, half_then_fail)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]


def test_writes_create_folders_and_replace_whole_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "model.bin"
    atomic_write(target, lambda handle: handle.write(b"x" * 1000))
    atomic_write_text(target, "short")
    assert target.read_text() == "short"
    assert sorted(p.name for p in target.parent.iterdir()) == ["model.bin"]


def test_a_killed_writers_temporary_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "model.npz"
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    dead = int(finished.stdout)  # a process that has ended
    stale = tmp_path / f".model.npz.{dead}.abc123.tmp"
    live = tmp_path / f".model.npz.{os.getpid()}.def456.tmp"  # a concurrent writer's
    other = tmp_path / f".other.npz.{dead}.abc123.tmp"
    not_temporary = tmp_path / f".model.npz.{dead}.notes"  # a name like it, not a temporary
    for path in (stale, live, other, not_temporary):
        path.write_bytes(b"half")
    atomic_write_text(target, "whole")
    kept = [target.name, live.name, other.name, not_temporary.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
    assert remove_stale_temporaries(tmp_path / "other.npz") == [other]


def test_a_refused_block_removes_the_empty_folders_it_created(tmp_path: Path) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    with pytest.raises(KeyError), removed_if_refused(lambda error: isinstance(error, KeyError)):
        assert output_problem(tmp_path / "a" / "b" / "store.sqlite", folder=False) is None
        assert output_problem(existing, folder=True) is None
        make_folders(tmp_path / "full" / "inner")
        (tmp_path / "full" / "kept.txt").write_text("")
        raise KeyError("refused")
    # the new empty folders are gone; one holding a file, and one that existed, stay
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing", "full"]
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["kept.txt"]
    with pytest.raises(ValueError), removed_if_refused(lambda error: isinstance(error, KeyError)):
        make_folders(tmp_path / "other")
        raise ValueError("not a refusal")
    with removed_if_refused():
        make_folders(tmp_path / "done")
    assert (tmp_path / "other").is_dir() and (tmp_path / "done").is_dir()


def test_an_enclosing_refused_block_removes_the_folders_of_the_blocks_inside_it(tmp_path: Path) -> None:
    with pytest.raises(KeyError), removed_if_refused():
        with removed_if_refused():  # ends well: its folders are the enclosing block's to remove
            make_folders(tmp_path / "inner" / "deeper")
        with pytest.raises(ValueError), removed_if_refused(lambda error: isinstance(error, KeyError)):
            make_folders(tmp_path / "kept" / "deeper")  # its refusal is not this one's
            raise ValueError("not a refusal")
        assert (tmp_path / "inner" / "deeper").is_dir()
        raise KeyError("refused")
    assert list(tmp_path.iterdir()) == []


def test_written_files_get_the_umask_s_permissions_or_keep_the_replaced_file_s(tmp_path: Path) -> None:
    """A model, summary or plot is readable as any file the user creates (not 0600, mkstemp's)."""
    old = os.umask(0o022)
    try:
        fresh = atomic_write_text(tmp_path / "summary.json", "{}")
        assert fresh.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        assert atomic_write_text(tmp_path / "other.json", "{}").stat().st_mode & 0o777 == 0o600
        fresh.chmod(0o640)
        assert (
            atomic_write_text(fresh, "{ }").stat().st_mode & 0o777 == 0o640
        )  # a replaced file keeps its own
    finally:
        os.umask(old)


def test_tables_go_where_the_environment_says_else_to_the_user_s_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("BOARDLAB_TABLES", "~/tables")
    assert tables_root() == tmp_path / "tables"
    monkeypatch.delenv("BOARDLAB_TABLES")
    assert tables_root() == tmp_path / ".cache" / "boardlab" / "tables"


def test_paths_that_cannot_be_written_are_refused_with_the_reason(tmp_path: Path) -> None:
    afile, folder = tmp_path / "afile", tmp_path / "folder"
    afile.write_text("")
    folder.mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    refused = {
        "": "an empty path (or '.') is not accepted",
        ".": "an empty path (or '.') is not accepted",
        str(tmp_path / "a\x00b"): "a path cannot contain a NUL character",
        str(tmp_path / ("d/" * 2000)): "bytes long; the file system takes at most 4000",
        str(tmp_path / ("n" * 300)): "a name in the path is longer than",
        str(afile / "below"): f"{afile} is a file, not a folder",
        str(tmp_path / "dangling" / "below"): "dangling is a file, not a folder",
        str(folder): "it is a folder; expected a file",
    }
    for path, reason in refused.items():
        problem = path_problem(path, folder=False)
        assert problem is not None and reason in problem, (path, problem)
    assert path_problem(afile, folder=True) == "it is a file; expected a folder"
    assert path_problem(folder, folder=True) is None
    assert path_problem(afile, folder=False) is None
    assert path_problem(tmp_path / "new" / "out.json", folder=False) is None


def test_a_path_is_refused_where_this_user_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(files.os, "access", lambda path, mode: bool(asked.append(str(path))))
    assert path_problem(tmp_path / "new" / "out.json", folder=False) == f"cannot write in {tmp_path}"
    assert asked == [str(tmp_path)]


def test_figures_are_saved_in_the_format_asked(tmp_path: Path) -> None:
    figure = agg_figure(2, 2)
    figure.add_subplot().plot([0, 1], [1, 0])
    assert atomic_savefig(figure, tmp_path / "plot.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in atomic_savefig(figure, tmp_path / "plot.svg", format="svg").read_bytes()
