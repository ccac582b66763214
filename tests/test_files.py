"""The one atomic-write helper: the old file survives a failed write, nothing is left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardlab.files import atomic_write, atomic_write_text


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
