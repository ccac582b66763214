"""A game spec, a ``--size`` option and a position that disagree are refused by every command
that takes them: one ``Error:`` line, exit 2, and no work done."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from reliability import count
from typer.testing import CliRunner

from boardlab.ui.cli import app
from boardlab.ui.game_args import game_spec, played, position_of, sizes_given

SIZES = (3, 4, 5)
START = {3: "........./", 4: "................", 5: "........................."}
"""An empty board of each side, as position text."""


def _refused(args: list[str], phrase: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, (args, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), (args, result.stderr)
    assert phrase in lines[0], (args, lines[0])
    assert "Traceback" not in result.output and not result.stdout.strip(), result.stdout
    count("inputs tried")


def _other_sizes() -> st.SearchStrategy[tuple[int, int]]:
    return st.tuples(st.sampled_from(SIZES), st.sampled_from(SIZES)).filter(lambda p: p[0] != p[1])


@settings(max_examples=12, deadline=None)
@given(_other_sizes())
def test_perft_refuses_a_position_of_another_size(sizes: tuple[int, int]) -> None:
    board, said = sizes
    position = START[board].rstrip("/") + " X"
    _refused(
        ["perft", "--depth", "1", "--size", str(said), "--position", position], "position cannot be used"
    )
    spec = f"quixo:size={said}"
    _refused(["perft", "--depth", "1", "--game", spec, "--position", position], "position cannot be used")


@settings(max_examples=12, deadline=None)
@given(_other_sizes())
def test_size_and_spec_that_disagree_are_refused_everywhere(sizes: tuple[int, int]) -> None:
    spec, said = sizes
    game = f"quixo:size={spec}"
    _refused(["perft", "--depth", "1", "--game", game, "--size", str(said)], "contradicts")
    _refused(["oracle", "random", "--game", game, "--size", str(said)], f"contradicts --game {game} ")


def test_solve_refuses_a_size_the_spec_contradicts(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    # solve takes the game as an argument: the message names it so, not as a --game option
    named = "--size 4 contradicts the game quixo:size=3 (size=3); give one of them"
    _refused(["solve", "quixo:size=3", "--size", "4", "--dir", str(folder)], named)
    _refused(["solve", "quixo:size=3,rules=course", "-n", "5", "--dir", str(folder)], "contradicts")
    _refused(["solve", "connect4", "--size", "4"], "are for Quixo")
    assert not folder.exists()  # refused before any table was written


def test_solve_takes_its_size_from_the_spec(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["solve", "quixo:size=3", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Solving 3x3 Quixo" in result.output
    same = CliRunner().invoke(app, ["solve", "quixo:size=3", "--size", "3", "--dir", str(tmp_path)])
    assert same.exit_code == 0 and "3x3" in same.output, same.output


def test_analyze_refuses_a_position_the_spec_contradicts() -> None:
    _refused(["analyze", "X.O.O.X.. O 5", "--game", "quixo:size=4"], "a 3x3 position cannot be used")


def test_perft_reads_the_size_from_the_position_when_none_is_given() -> None:
    result = CliRunner().invoke(app, ["perft", "--depth", "1", "--position", "X.O.O.X.. O 5"])
    assert result.exit_code == 0, result.output
    assert "3x3" in result.output
    agreed = ["perft", "--depth", "1", "--size", "3", "--position", "X.O.O.X.. O 5"]
    assert CliRunner().invoke(app, agreed).exit_code == 0


def test_bench_refuses_a_bad_game_before_measuring() -> None:
    _refused(["bench", "--game", "quixo:size=9"], "size=9")


@pytest.mark.parametrize("command", ["solve", "analyze", "oracle"])
def test_the_tables_folder_has_one_name_and_one_meaning(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"], terminal_width=300)
    text = " ".join(result.output.split())
    assert "--tables" in text and "--dir" in text
    assert "quixoN" in text, text  # the folder of one board's tables, as solve writes it


def _error(call: Callable[[], object], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a call that must be refused with exit status 2."""
    with pytest.raises(typer.Exit) as exit_info:
        call()
    assert exit_info.value.exit_code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    return lines[0]


def test_size_stands_for_the_spec_option() -> None:
    assert game_spec("quixo", 4) == "quixo:size=4"
    assert game_spec("quixo:rules=course", 3) == "quixo:rules=course,size=3"
    assert game_spec("quixo:size= 4", 4) == "quixo:size=4"  # the same number, written loosely
    assert game_spec("connect4:width=8", None) == "connect4:width=8"


def test_a_default_size_fills_only_a_quixo_spec_without_one() -> None:
    assert game_spec("quixo", None, 4) == "quixo:size=4"
    assert game_spec("quixo:size=3", None, 4) == "quixo:size=3"
    assert game_spec("connect4", None, 4) == "connect4"
    assert position_of("quixo", None, "", 4).size == 4
    assert position_of("quixo", None, "").size == 5


def test_size_is_refused_for_another_game_and_a_bad_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--size is for Quixo" in _error(lambda: game_spec("connect4", 4), capsys)
    assert "must be written key=value" in _error(lambda: game_spec("quixo:,,", None), capsys)


def test_a_position_that_cannot_be_read_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert "cannot read position 'junk'" in _error(lambda: position_of("quixo", None, "junk"), capsys)


def test_a_spec_size_binds_the_position() -> None:
    assert sizes_given("quixo:size=3", None)
    assert sizes_given("quixo", 3)
    assert not sizes_given("quixo", None)


# --- --moves: moves played from the position ------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    game=st.sampled_from(["quixo", "quixo:size=3", "tictactoe", "connect4", "nim"]),
    seed=st.integers(0, 10**6),
)
def test_moves_lead_where_playing_them_one_by_one_does(game: str, seed: int) -> None:
    import random

    rng = random.Random(seed)
    state = position_of(game, None, "")
    expected, said = state, []
    for _ in range(rng.randrange(0, 12)):
        if expected.is_over:
            break
        move = str(rng.choice(expected.legal_moves()))
        said.append(move)
        expected = expected.play(move)
    separators = [" ", ",", " , ", "\t"]
    text = "".join(m + rng.choice(separators) for m in said)
    assert played(state, text).to_text() == expected.to_text()


def test_no_moves_leave_the_position_as_it_is() -> None:
    state = position_of("tictactoe", None, "X........ O 1")
    assert played(state, None) is state and played(state, "  ") is state


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["analyze", "--game", "tictactoe", "--moves", "a1 b2 zz"], "--moves: move 3: cannot read move 'zz'"),
        (["analyze", "--game", "tictactoe", "--moves", "a1 a1"], "--moves: move 2:"),
        (
            ["analyze", "--game", "tictactoe", "--moves", "a1 b1 a2 b2 a3 c3"],
            "--moves: move 6 (c3) comes after the end of the game (X wins",
        ),
        (["analyze", "--game", "tictactoe", "--moves", "a1 " * 40_000], "at most 100,000 are read"),
        (["play", "--game", "tictactoe", "--moves", "a1 b1 a2 b2 a3"], "the game is over in that position"),
        (["play", "--position", "X.O.O.X.Z O 5"], "cannot read position"),
        (["play", "--game", "nim", "--moves", "9:9"], "--moves: move 1:"),
    ],
)
def test_moves_that_cannot_be_played_are_refused(args: list[str], phrase: str) -> None:
    _refused(args, phrase)


def test_analyze_reads_the_position_after_the_moves() -> None:
    result = CliRunner().invoke(app, ["analyze", "--game", "tictactoe", "--moves", "a1,b2 c3"])
    assert result.exit_code == 0, result.output
    assert "O to move: draw" in result.output and "6 legal moves" in result.output
