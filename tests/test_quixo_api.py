"""The Python face of Quixo: construction, notation, and clear errors for bad input."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

from boardlab.games import parse_game
from boardlab.games.base import (
    GameError,
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
)
from boardlab.games.base import (
    State as GameState,
)
from boardlab.games.quixo import (
    Move,
    Push,
    Quixo,
    State,
    all_moves,
    move_from_index,
    move_index,
    new_game,
)
from boardlab.games.quixo import kernel as qk

# --- construction and basic facts ---------------------------------------------------------


@pytest.mark.parametrize(("size", "moves"), [(3, 20), (4, 32), (5, 44)])
def test_initial_position(size: int, moves: int) -> None:
    state = new_game(size)
    assert state == State.initial(size)
    assert isinstance(state, GameState)
    assert (state.to_move, state.ply, state.blanks) == (0, 0, size * size)
    assert not state.is_over and state.winner is None and not state.is_draw
    assert len(state.legal_moves()) == moves
    assert state.board() == [[-1] * size for _ in range(size)]
    assert state.to_text() == f"{'.' * size * size} X 0"


def test_moves_follow_the_course_convention() -> None:
    # x is the column, y the row from the top; Push names the end where the cube re-enters
    state = State.initial().play(Move(4, 0, Push.LEFT))
    assert str(Move(4, 0, Push.LEFT)) == "e1a1"
    assert state.board()[0] == [0, -1, -1, -1, -1]
    assert state.cells()[:5] == "X...."
    assert state.to_move == 1
    assert [int(p) for p in (Push.TOP, Push.BOTTOM, Push.LEFT, Push.RIGHT)] == [0, 1, 2, 3]


def test_push_slides_the_line() -> None:
    state = State.from_text("XO.O./...../...../...../..... X 4")
    after = state.play("a1e1")  # X takes its own a1, the row slides left, X re-enters at e1
    assert after.cells()[:5] == "O.O.X"
    after = state.play("a1a5")  # column a slides up
    assert [row[0] for row in after.board()] == [-1, -1, -1, -1, 0]


def test_move_index_round_trip() -> None:
    for size in (3, 4, 5):
        for index, move in enumerate(all_moves(size)):
            assert move_index(move) == index
            assert move_from_index(index, size) == move
        assert [tuple(m) for m in qk.move_list(size)] == [(m.x, m.y, int(m.push)) for m in all_moves(size)]


def test_play_accepts_notation_and_moves_alike() -> None:
    state = State.initial(4)
    assert state.play("a1d1") == state.play(Move.parse("a1d1", 4)) == state.play(Move(0, 0, Push.RIGHT, 4))
    assert state.parse_move("A1D1") == Move(0, 0, Push.RIGHT, 4)


# --- illegal moves ------------------------------------------------------------------------


def test_taking_an_opponent_cube_is_illegal() -> None:
    state = State.initial().play("a1e1")  # X now owns e1; O is to move
    with pytest.raises(IllegalMoveError, match="e1"):
        state.play("e1a1")
    with pytest.raises(IllegalMoveError, match="opponent"):
        state.play(Move(4, 0, Push.BOTTOM))
    with pytest.raises(IllegalMoveError):
        state.parse_move("e1e5")
    assert not state.is_legal(Move(4, 0, Push.LEFT))
    assert state.is_legal(Move(3, 0, Push.LEFT))


def test_moves_that_are_no_quixo_move_are_illegal() -> None:
    state = State.initial()
    with pytest.raises(IllegalMoveError, match="5x5"):
        state.play(Move(2, 2, Push.TOP))  # the centre is not on the border
    with pytest.raises(IllegalMoveError, match="5x5"):
        state.play(Move(0, 0, Push.TOP))  # a corner pushed back where it came from
    with pytest.raises(IllegalMoveError, match="4x4"):
        state.play(Move(0, 0, Push.RIGHT, 4))  # a move for another board size


# --- move notation ------------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4, 5])
def test_every_move_reads_back_from_its_notation(size: int) -> None:
    moves = all_moves(size)
    assert [Move.parse(str(move), size) for move in moves] == moves
    # a corner cube goes in at 2 ends, another border cube at 3
    assert len({str(move) for move in moves}) == len(moves) == 4 * 2 + 4 * (size - 2) * 3


@pytest.mark.parametrize(
    ("text", "size", "complaint"),
    [
        ("", 5, "expected source and insertion cells"),
        ("a1", 5, "expected source and insertion cells"),
        ("a1e1e", 5, "expected source and insertion cells"),
        ("f1a1", 5, "columns a-e"),
        ("a0a5", 5, "rows 1-5"),
        ("a6a1", 5, "rows 1-5"),
        ("d1a1", 3, "columns a-c"),
        ("a4a1", 3, "rows 1-3"),
        ("a1a5", 4, "rows 1-4"),
        ("a1-e1", 5, "expected source and insertion cells"),
        ("1ae1", 5, "expected source and insertion cells"),
        ("c3c1", 5, "c3 is not on the border"),
        ("b2b4", 4, "b2 is not on the border"),
        ("a1b2", 5, "taken at a1 can only be pushed in at a5 or e1 (an end of its row or column)"),
        ("a1a1", 5, "taken at a1 can only be pushed in at a5 or e1"),
        ("c1c1", 5, "taken at c1 can only be pushed in at c5, a1 or e1"),
        ("b1b3", 5, "taken at b1 can only be pushed in at b5, a1 or e1"),
        ("b1b2", 3, "taken at b1 can only be pushed in at b3, a1 or c1"),
        ("e3e2", 5, "taken at e3 can only be pushed in at e1, e5 or a3"),
        ("a\u00b2e1", 5, "rows 1-5"),
        ("a\u0663e3", 5, "rows 1-5"),
    ],
)
def test_malformed_move_notation(text: str, size: int, complaint: str) -> None:
    with pytest.raises(MoveParseError) as error:
        Move.parse(text, size)
    assert complaint in str(error.value)
    assert repr(text) in str(error.value)


def test_parse_move_on_a_state_reports_notation_errors_first() -> None:
    with pytest.raises(MoveParseError):
        State.initial().parse_move("z9z9")
    with pytest.raises(MoveParseError):
        State.initial().play("nonsense")


# --- position text ------------------------------------------------------------------------


def test_position_text_accepts_slashes_case_and_missing_fields() -> None:
    plain = State.from_text("X...O" + "." * 20)
    assert plain == State.from_text("x...o/...../...../...../.....")
    assert (plain.to_move, plain.ply) == (0, 2)  # X to move at the first ply that fits: 2
    assert State.from_text("X...O/...../...../...../..... o 7").to_move == 1
    assert State.from_text("X...O/...../...../...../..... o 7").ply == 7
    assert State.from_text("X...O/...../...../...../..... o 999999999").ply == 999_999_999


@pytest.mark.parametrize(
    ("text", "side_and_ply"),
    [
        (".........", (0, 0)),
        ("......... X", (0, 0)),
        ("X........ O", (1, 1)),
        ("X...O.... X", (0, 2)),
        ("X...O.... O", (1, 3)),
        ("XX.OO.... X", (0, 4)),  # two cubes each: X has moved twice
        ("XXX.O.... O", (1, 5)),  # three X cubes: X has moved three times
        ("X.OOO.... O", (1, 7)),  # three O cubes: O has moved three times and is to move again
        ("XOXOXOXO. X", (0, 8)),
    ],
)
def test_a_missing_ply_is_the_first_that_fits_the_side_and_the_cubes(
    text: str, side_and_ply: tuple[int, int]
) -> None:
    state = State.from_text(text)
    assert (state.to_move, state.ply) == side_and_ply
    assert State.from_text(state.to_text()) == state


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        # X moves at even plies, O at odd ones; the advice keeps the side, then the ply
        ("X.O.O.X.. O 4", "O to move at ply 4: X moves at even plies and O at odd ones; write O 5 or X 4"),
        ("X.OX.OOO. X 9", "X to move at ply 9: X moves at even plies and O at odd ones; write X 8 or O 9"),
        ("......... O 0", "O to move at ply 0: X moves at even plies and O at odd ones; write X 0"),
        ("......... X 1", "X to move at ply 1: X moves at even plies and O at odd ones; write X 0"),
        (
            "x...o/...../...../...../..... o 2",
            "O to move at ply 2: X moves at even plies and O at odd ones; write O 3 or X 2",
        ),
        # a move turns at most one blank cube, and a side's first move turns one
        ("X........ X 0", "X has 1 cube at ply 0, after 0 moves of its own"),
        ("XXXXXXXXX O 1", "X has 9 cubes at ply 1, after 1 move of its own"),
        ("XXXXXXXXX O 1", "; no game reaches a board of 9 X and 0 O cubes"),
        ("X...O/...../...../...../..... O 1", "O has 1 cube at ply 1, after 0 moves of its own"),
        ("X...O/...../...../...../..... O 1", "; write O 3 or X 2"),
        ("XXX.OO.O. O 5", "O has 3 cubes at ply 5, after 2 moves of its own"),
        (
            "X........ X 2",
            "O has no cube at ply 2, after 1 move of its own: each side's first move turns a blank cube",
        ),
        ("......... X 2", "X has no cube at ply 2, after 1 move of its own"),
        ("......... X 2", "; write X 0"),  # the empty board is at ply 0 and no later
        ("X........ O 5", "; write O 1"),  # a lone X cube with O to move: ply 1 and no later
        ("................ O 1", "X has no cube at ply 1"),
        # without a ply: the side alone must fit the cubes
        ("......... O", "O cannot be to move with 0 X and 0 O cubes at any ply"),
        ("......... O", "; write X 0"),
        ("X........", "X cannot be to move with 1 X and 0 O cubes at any ply"),
        ("X........", "; write O 1"),
        ("OOO......", "X cannot be to move with 0 X and 3 O cubes at any ply"),
        ("OOO......", "; no game reaches a board of 0 X and 3 O cubes"),
        ("XX....... O", "; no game reaches a board of 2 X and 0 O cubes"),
    ],
)
def test_a_side_and_ply_that_no_game_reaches_are_refused(text: str, complaint: str) -> None:
    with pytest.raises(PositionParseError) as error:
        State.from_text(text)
    assert complaint in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("rules", ["official", "course"])
@pytest.mark.parametrize("size", [3, 4, 5])
def test_every_size_and_rulebook_reads_the_side_and_ply_alike(size: int, rules: str) -> None:
    game = parse_game(f"quixo:size={size},rules={rules}")
    one_each = "X" + "O" + "." * (size * size - 2)
    assert game.parse_position(f"{one_each} X 2").ply == 2
    assert game.parse_position(one_each).ply == 2
    assert game.parse_position(f"{one_each} O").ply == 3
    for wrong in (f"{one_each} O 2", f"{one_each} X 3", f"{one_each} X 0", "." * (size * size) + " O"):
        with pytest.raises(PositionParseError):
            game.parse_position(wrong)
    with pytest.raises(PositionParseError, match="write O 3 or X 2"):
        State.from_text(f"{one_each} O 2", rules=rules)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("", "expected 'CELLS [X|O] [PLY]'"),
        ("X...O.... X 2 extra", "expected 'CELLS [X|O] [PLY]'"),
        ("XO", "cells must be 9, 16 or 25"),
        ("." * 36, "cells must be 9, 16 or 25"),
        ("........Z", "cells must be 9, 16 or 25"),
        ("......... Z", "side to move must be X or O"),
        ("......... X -1", "ply must be a non-negative integer"),
        ("......... X 1.5", "ply must be a non-negative integer"),
        ("......... X \u00b2", "ply must be a non-negative integer"),
        ("......... X \u0663", "ply must be a non-negative integer"),
        ("......... X 1234567890", "ply must be a non-negative integer"),  # ten digits or more
    ],
)
def test_malformed_position_text(text: str, complaint: str) -> None:
    with pytest.raises(PositionParseError) as error:
        State.from_text(text)
    assert complaint in str(error.value)


def test_malformed_boards_and_masks() -> None:
    with pytest.raises(PositionParseError, match="square"):
        State.from_board([[-1, -1], [-1, -1]])
    with pytest.raises(PositionParseError, match="square"):
        State.from_board([[-1] * 3, [-1] * 3, [-1] * 2])
    with pytest.raises(PositionParseError, match=r"cell \(1, 0\) holds 2"):
        State.from_board([[-1, 2, -1], [-1] * 3, [-1] * 3])
    with pytest.raises(PositionParseError, match="overlap"):
        State.from_masks(0b11, 0b10, size=3)
    with pytest.raises(PositionParseError, match="outside"):
        State.from_masks(1 << 9, 0, size=3)
    with pytest.raises(PositionParseError, match="side to move"):
        State.from_masks(0, 0, to_move=2, size=3)


@pytest.mark.parametrize(
    ("masks", "to_move", "ply", "words"),
    [
        ((1.5, 0), 0, 0, "cube masks must be integers"),
        ((1, True), 0, 0, "cube masks must be integers"),
        ((1, 2), True, 0, "side to move"),
        ((1, 2), 0, 1.5, "ply"),
        ((1, 2), 0, -1, "ply"),
        ((1, 2), 0, "3", "ply"),
    ],
)
def test_positions_from_masks_take_integers_only(
    masks: tuple[object, object], to_move: object, ply: object, words: str
) -> None:
    with pytest.raises(PositionParseError, match=words):
        State.from_masks(*masks, to_move, ply, size=3)  # type: ignore[arg-type]
    assert State.from_masks(np.int64(1), np.int64(2), np.int64(1), np.int64(3), size=3).ply == 3


@pytest.mark.parametrize("junk", [None, 5, 1.5, b"a1e1", ["a1e1"]])
def test_values_that_are_not_texts_are_parse_errors(junk: object) -> None:
    with pytest.raises(MoveParseError, match="cannot read move"):
        Move.parse(junk)  # type: ignore[arg-type]
    with pytest.raises(MoveParseError, match="cannot read move"):
        State.initial().parse_move(junk)  # type: ignore[arg-type]
    with pytest.raises(PositionParseError, match="cannot read position"):
        State.from_text(junk)  # type: ignore[arg-type]
    with pytest.raises(PositionParseError, match="cannot read position"):
        State.initial().game.parse_position(junk)  # type: ignore[arg-type]


@pytest.mark.parametrize("junk", [None, 5, 1.5])
def test_a_board_that_is_not_rows_is_a_parse_error(junk: object) -> None:
    with pytest.raises(PositionParseError, match="rows"):
        State.from_board(junk)  # type: ignore[arg-type]


# --- finished games -----------------------------------------------------------------------


def test_no_moves_after_a_win() -> None:
    won = State.from_text("XXXX./...../...../...../OOOO. X 8").play("e3e1")
    assert won.winner == 0
    assert won.is_over and won.legal_moves() == [] and won.legal_indices() == []
    for attempt in ("a5e5", Move(0, 4, Push.RIGHT)):
        with pytest.raises(GameOverError, match="over"):
            won.play(attempt)
    with pytest.raises(GameOverError):
        won.play_index(0)
    assert not won.is_legal(Move(0, 4, Push.RIGHT))


def test_no_moves_after_the_ply_cap() -> None:
    state = State.initial(3, ply_cap=2).play("a1c1").play("a3c3")
    assert state.is_draw and state.winner is None
    with pytest.raises(GameOverError):
        state.play("a2c2")


# --- bad sizes and arguments --------------------------------------------------------------


@pytest.mark.parametrize("size", [-1, 0, 1, 2, 6, 7, 8])
def test_bad_sizes(size: int) -> None:
    with pytest.raises(ValueError, match="size"):
        State.initial(size)
    with pytest.raises(ValueError, match="size"):
        new_game(size)
    with pytest.raises(ValueError, match="size"):
        all_moves(size)
    with pytest.raises(ValueError, match="size"):
        Move.parse("a1c1", size)
    with pytest.raises(ValueError):
        State.from_masks(0, 0, size=size)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="ply_cap"):
        State.initial(5, ply_cap=0)
    with pytest.raises(ValueError, match="symmetry"):
        State.initial().transform(8)
    with pytest.raises(ValueError, match="symmetry"):
        State.initial().transform(-1)
    for sym in (8, -1, 1.5, "1", None, True):
        with pytest.raises(ValueError, match="symmetry"):
            Move(0, 0, Push.RIGHT).transform(sym)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: Quixo(size=7), "size=7 is not accepted"),
        (lambda: Quixo(rules="x"), "rules=x is not accepted"),
        (lambda: Quixo(ply_cap=0), "at least 1"),
        (lambda: Quixo(size="5"), "whole number"),
        (lambda: State.from_masks(1, 2, rules="bogus"), "rules=bogus"),
        (lambda: State.initial(4, rules="bogus"), "rules=bogus"),
    ],
)
def test_a_game_built_directly_with_bad_options_raises_a_game_option_error(
    build: Callable[[], object], words: str
) -> None:
    with pytest.raises(GameOptionError, match=words):
        build()


def test_every_error_is_a_game_error() -> None:
    for error in (IllegalMoveError, MoveParseError, PositionParseError, GameOverError):
        assert issubclass(error, GameError)
        assert issubclass(error, ValueError)


@pytest.mark.parametrize("spec", ["quixo", "quixo:size=3", "connect4", "tictactoe"])
@pytest.mark.parametrize(
    ("sym", "shown"), [(9, "9"), (-1, "-1"), (np.int64(9), "9"), (1.5, "1.5"), (True, "True"), ("1", "'1'")]
)
def test_a_bad_symmetry_is_shown_as_given(spec: str, sym: object, shown: str) -> None:
    """A number reads as a number, not as a quoted string; a string stays quoted."""
    state = parse_game(spec).initial()
    count = state.kernel.num_symmetries
    with pytest.raises(
        ValueError, match=rf"^symmetry must be an integer in 0\.\.{count - 1}, got {re.escape(shown)}$"
    ):
        state.transform(sym)  # type: ignore[arg-type]


def test_a_game_with_no_symmetry_but_the_identity_says_so() -> None:
    with pytest.raises(
        ValueError, match=r"^symmetry must be 0 \(the game's only symmetry is the identity\), got 1$"
    ):
        parse_game("nim").initial().transform(1)


def test_a_bad_action_is_shown_as_given() -> None:
    state = parse_game("tictactoe").initial()
    with pytest.raises(IllegalMoveError, match=r"^action 9 is not in 0\.\.8$"):
        state.play_index(9)
    with pytest.raises(IllegalMoveError, match=r"^action '4' is not in 0\.\.8$"):
        state.play_index("4")  # type: ignore[arg-type]


@pytest.mark.parametrize("spec", ["quixo:rules=Course", "QUIXO:rules=COURSE"])
def test_the_rulebook_is_read_in_any_case(spec: str) -> None:
    assert parse_game(spec).spec == "quixo:rules=course"
