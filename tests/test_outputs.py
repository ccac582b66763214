"""Outputs checked before work, write failures that lose nothing, costs known before work, and
output in any encoding (issue 35).

A read-only place is simulated by refusing the files created in it (root writes through
permission bits, so a chmod alone would not do here); a full disk by an OSError from the
atomic writer's final rename.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reliability import count
from typer.testing import CliRunner

from boardlab.arena import store as store_module
from boardlab.arena.store import Store
from boardlab.core import files, machine
from boardlab.core.console import ASCII_FALLBACK, ascii_look_alike
from boardlab.core.files import TEMPORARY_SUFFIX, output_problem
from boardlab.games import ExactPlayError, exact_play, parse_game
from boardlab.games.nim.exact import NimRule, NimSolverPlay
from boardlab.games.nim.exact import moves as nim_moves
from boardlab.ui.cli import app

ROOT = Path(__file__).resolve().parents[1]
BOARDLAB = [sys.executable, "-c", "from boardlab.ui.cli import main; main()"]


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("Error:")]


def _files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder (and everything under it) where no file can be created, as on a read-only mount."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    real_mkstemp, real_mkdir = tempfile.mkstemp, Path.mkdir

    def refused(place: Any) -> bool:
        return place is not None and Path(place).resolve().is_relative_to(folder.resolve())

    def mkstemp(*args: Any, dir: Any = None, **options: Any) -> Any:
        if refused(dir):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_mkstemp(*args, dir=dir, **options)

    def mkdir(self: Path, *args: Any, **options: Any) -> None:
        if refused(self) and not self.exists():
            raise OSError(errno.EROFS, "Read-only file system")
        real_mkdir(self, *args, **options)

    monkeypatch.setattr(files.tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(files.os, "access", lambda *a, **k: True)  # as root sees it
    yield folder


# --- outputs proven writable before any work --------------------------------------------------


def test_output_problem_creates_the_folder_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    assert output_problem(target, folder=True) is None
    assert target.is_dir() and _files_in(target) == []
    assert output_problem(tmp_path / "c" / "store.sqlite", folder=False) is None
    assert _files_in(tmp_path / "c") == []


def test_output_problem_refuses_a_place_where_no_file_can_be_written(read_only: Path) -> None:
    problem = output_problem(read_only / "out", folder=True)
    assert problem is not None and "Read-only file system" in problem
    assert output_problem(read_only, folder=True) is not None


MATCH = ["match", "random", "greedy", "--game", "tictactoe", "--games", "1"]


@pytest.mark.parametrize(
    "command",
    [
        ["train", "ga", "--game", "nim:piles=1-2", "--epochs", "1", "--out", "{ro}/run"],
        ["train", "ga", "--game", "nim:piles=1-2", "--epochs", "1", "--out", "{ro}"],
        ["oracle", "random", "--game", "tictactoe", "--games", "1", "--out", "{ro}/oracle"],
        [*MATCH, "--db", "{tmp}/a.sqlite", "--out", "{ro}/m"],
        [*MATCH, "--db", "{ro}/a.sqlite", "--out", "{tmp}/m"],
        ["solve", "--size", "3", "--dir", "{ro}/tables"],
        ["blackbox", "--strategy", "one-plus-lambda", "--instance", "1", "--out", "{ro}/bb"],
    ],
)
def test_a_command_writing_into_a_read_only_place_stops_before_any_work(
    read_only: Path, tmp_path: Path, command: list[str]
) -> None:
    args = [a.format(ro=read_only, tmp=tmp_path / "elsewhere") for a in command]
    result = _invoke(*args)
    count("inputs tried")
    assert result.exit_code == 2, result.output
    (line,) = _error_lines(result.output)
    assert "Read-only file system" in line or "cannot write" in line, line
    assert "unexpected" not in result.output and "Traceback" not in result.output
    assert not any(work in result.output for work in ("Judging ", "Solving "))  # no work begun
    assert _files_in(read_only) == []
    assert not (tmp_path / "elsewhere").exists() or not list((tmp_path / "elsewhere").rglob("*.sqlite"))


# --- a write that fails later: the last checkpoint kept, the run resumable ----------------------

GA = ["train", "ga", "--game", "nim:piles=1-2-3", "--epochs", "4", "--eval-every", "1"]
GA += ["--eval-games", "4", "--final-games", "4", "--seed", "3"]


def _without_timings(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ("train_seconds", "model_bytes")}


def _full_disk_after(monkeypatch: pytest.MonkeyPatch, writes: int, name: str | None = None) -> None:
    """The atomic writer's renames succeed ``writes`` times, then the disk is full (with
    ``name``: only writes of files so named fail)."""
    real_replace, done = os.replace, [0]

    def replace(source: Any, target: Any) -> None:
        if name is None or Path(target).name == name:
            done[0] += 1
            if done[0] > writes:
                raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(files.os, "replace", replace)


@pytest.mark.parametrize("writes", [0, 2, 5])
def test_a_full_disk_keeps_the_last_checkpoint_and_the_resumed_run_ends_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes: int
) -> None:
    straight = tmp_path / "straight"
    assert _invoke(*GA, "--out", str(straight)).exit_code == 0
    cut = tmp_path / "cut"
    with monkeypatch.context() as patch:
        _full_disk_after(patch, writes)
        result = _invoke(*GA, "--out", str(cut))
    count("write failures survived")
    assert result.exit_code == 1, result.output
    (line,) = _error_lines(result.output)
    assert "No space left on device" in line and "unexpected" not in result.output
    assert not [p for p in cut.iterdir() if p.name.endswith(TEMPORARY_SUFFIX)], "a temporary left behind"
    if writes == 0:
        assert "nothing of this run was saved" in line and not (cut / "model.json").exists()
        return
    assert "--resume" in line
    kept = json.loads((cut / "model.json").read_text())  # the last checkpoint written, whole
    assert 0 <= kept["epoch"] < 4 and f"{kept['epoch']:,} epochs is kept" in line
    resumed = _invoke(*GA, "--out", str(cut), "--resume")
    assert resumed.exit_code == 0, resumed.output
    for name in ("model.json", "summary.json"):
        a, b = (json.loads((folder / name).read_text()) for folder in (straight, cut))
        assert _without_timings(a) == _without_timings(b), name


def test_a_full_disk_at_the_summary_says_where_the_model_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    with monkeypatch.context() as patch:
        _full_disk_after(patch, 0, name="summary.json")  # every checkpoint written, not the summary
        result = _invoke(*GA, "--out", str(out))
    assert result.exit_code == 1, result.output
    (line,) = _error_lines(result.output)
    assert "No space left on device" in line and "model is saved" in line
    assert json.loads((out / "model.json").read_text())["epoch"] == 4
    assert not (out / "summary.json").exists()


# --- the cost of a judge known before work ------------------------------------------------------


def test_a_nim_game_too_large_for_a_full_solve_is_refused_at_once_by_oracle_as_by_match(
    tmp_path: Path,
) -> None:
    game = "nim:piles=40-40-40-40"  # 2.8 million positions: more than the small solver takes
    for args in (
        ["oracle", "perfect", "--game", game, "--games", "1", "--out", str(tmp_path / "o")],
        [
            "match",
            "perfect",
            "random",
            "--game",
            game,
            "--games",
            "1",
            "--db",
            str(tmp_path / "m.sqlite"),
            "--out",
            str(tmp_path / "m"),
        ],
    ):
        result = _invoke(*args)
        assert result.exit_code == 2, result.output
        (line,) = _error_lines(result.output)
        assert "2,825,761 positions" in line
    assert not (tmp_path / "o").exists() and not (tmp_path / "m.sqlite").exists()
    assert isinstance(exact_play(parse_game(game)), NimRule)  # the judge: the rule, no solve


def test_a_nim_game_of_few_positions_but_many_moves_is_judged_by_the_rule_not_solved() -> None:
    # 90,601 positions (under the limit) but 27 million moves: minutes of solving
    game = parse_game("nim:piles=300-300")
    with pytest.raises(ExactPlayError, match="27,180,300 moves"):
        NimSolverPlay.check_size(game, 2_000_000)
    assert isinstance(exact_play(game), NimRule)
    assert isinstance(exact_play(parse_game("nim:piles=300-300,k=3")), NimSolverPlay)


@pytest.mark.parametrize("spec", ["nim:piles=1-2", "nim:piles=3-4-5", "nim:piles=4-0-6,k=2", "nim:piles=7"])
def test_the_moves_a_nim_solve_looks_at_are_counted_exactly(spec: str) -> None:
    game = parse_game(spec)
    every = itertools.product(*(range(p + 1) for p in game.piles))
    naive = sum(sum(min(q, game.k or max(game.piles)) for q in piles) for piles in every)
    assert nim_moves(game) == naive


def test_a_nim_solve_needing_more_memory_than_the_machine_has_is_refused_before_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(machine, "available_memory", lambda: 10_000)
    with pytest.raises(ExactPlayError, match=r"needs .* of memory"):
        NimSolverPlay.check_size(parse_game("nim:piles=3-4-5"), 2_000_000)
    assert isinstance(exact_play(parse_game("nim:piles=3-4-5")), NimRule)


# --- output in any encoding -------------------------------------------------------------------


@given(st.text(max_size=40))
def test_any_text_is_written_to_an_ascii_stream(text: str) -> None:
    count("inputs tried")
    encoded = text.encode("ascii", errors=ASCII_FALLBACK)
    assert encoded.isascii()
    assert all(ascii_look_alike(c) == c for c in text if c.isascii())


def test_look_alikes_read_like_the_characters() -> None:
    assert "".join(map(ascii_look_alike, "misère ┏━┓┃└┘ λ ×…")) == "misere +-+|++ lamda x..."


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["games"], ""),
        (["play", "--game", "nim"], "quit\n"),
        (
            ["train", "ga", "--epochs", "2", "--eval-games", "4", "--final-games", "4", "--out", "{tmp}/ga"],
            "",
        ),
    ],
)
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_commands_print_on_a_terminal_that_cannot_encode_their_characters(
    tmp_path: Path, args: list[str], stdin: str, encoding: str
) -> None:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "COLUMNS": "100"}
    result = subprocess.run(
        [*BOARDLAB, *(a.format(tmp=tmp_path) for a in args)],
        input=stdin.encode(),
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    count("inputs tried")
    assert result.returncode == 0, result.stderr.decode(encoding, "replace")
    assert b"Error" not in result.stderr and b"UnicodeEncodeError" not in result.stdout + result.stderr
    if encoding == "ascii":
        assert (result.stdout + result.stderr).isascii()


# --- a full disk under the arena store -------------------------------------------------------------


def _store_room(monkeypatch: pytest.MonkeyPatch, pages: int) -> None:
    """Stores opened from now on may grow by ``pages`` pages only: SQLite then refuses a write as
    on a full disk ("database or disk is full")."""
    real_connect = store_module._connect

    def connect(path: str, read_only: bool = False) -> sqlite3.Connection:
        conn = real_connect(path, read_only)
        if read_only:
            return conn
        store_module._check_or_create(conn, path)
        (used,) = conn.execute("PRAGMA page_count").fetchone()
        conn.execute(f"PRAGMA max_page_count = {used + pages}")
        return conn

    monkeypatch.setattr(store_module, "_connect", connect)


def test_a_full_disk_under_the_store_keeps_the_games_stored_and_the_match_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "a.db"
    match = ["match", "random", "greedy", "--game", "tictactoe", "-n", "300", "-j", "1", "--db", str(db)]
    with monkeypatch.context() as patch:
        _store_room(patch, 2)
        result = _invoke(*match)
    count("write failures survived")
    assert result.exit_code == 1, result.output
    (line,) = _error_lines(result.output)
    assert "disk is full" in line and "resumes" in line and "unexpected" not in result.output
    with Store(db) as store:
        (tournament,) = store.tournaments()
        kept = store.stored_indices(tournament["id"])
    assert 0 < len(kept) < 300
    resumed = _invoke(*match)
    assert resumed.exit_code == 0, resumed.output
    with Store(db) as store:
        games = store.games(tournament["id"])
    assert sorted(g.index for g in games) == list(range(300))  # nothing lost, nothing doubled


def _tables(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_full_disk_during_a_solve_keeps_the_finished_tables_and_the_solve_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    straight, cut = tmp_path / "straight", tmp_path / "cut"
    assert _invoke("solve", "quixo", "--size", "3", "--dir", str(straight)).exit_code == 0
    with monkeypatch.context() as patch:
        _full_disk_after(patch, 3)
        result = _invoke("solve", "quixo", "--size", "3", "--dir", str(cut))
    count("write failures survived")
    assert result.exit_code == 1, result.output
    (line,) = _error_lines(result.output)
    assert "No space left on device" in line and "kept" in line and "resumes" in line
    assert not [p for p in cut.iterdir() if p.name.endswith(TEMPORARY_SUFFIX)], "a temporary left behind"
    assert 0 < len(_tables(cut)) < len(_tables(straight))
    assert _invoke("solve", "quixo", "--size", "3", "--dir", str(cut)).exit_code == 0
    assert _tables(cut) == _tables(straight)


def test_a_full_disk_during_blackbox_keeps_its_checkpoint_and_the_run_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "bb"
    run = ["blackbox", "--instance", "1", "--strategy", "linkage", "--max-calls", "3000", "--out", str(out)]
    with monkeypatch.context() as patch:
        _full_disk_after(patch, 1)
        result = _invoke(*run)
    count("write failures survived")
    assert result.exit_code == 1, result.output
    (line,) = _error_lines(result.output)
    assert "No space left on device" in line and "--resume" in line and "unexpected" not in result.output
    assert not [p for p in out.iterdir() if p.name.endswith(TEMPORARY_SUFFIX)], "a temporary left behind"
    resumed = _invoke(*run, "--resume")
    assert resumed.exit_code == 0, resumed.output
