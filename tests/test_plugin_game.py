"""A game added from outside boardlab: the Hexapawn package in examples/hexapawn.

It passes the conformance suite, its rules agree with a plain reference written from the
rulebook, its exact play agrees with a plain minimax (Black wins 3x3 Hexapawn, as Gardner
found), and once installed with pip its entry point makes it a game of every command: listed,
analysed, played by agents in worker processes, learned by Q-learning."""

from __future__ import annotations

import functools
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import pyspiel
import pytest
from example_packages import EXAMPLES, boardlab, install_example
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from boardlab.games import GAMES, exact_play, parse_game
from boardlab.games.base import GameOptionError, IllegalMoveError, MoveParseError, PositionParseError
from boardlab.games.conformance import check_game
from boardlab.interop.gymnasium import BoardlabEnv
from boardlab.interop.openspiel import register_games, spiel_game
from boardlab.interop.pettingzoo import env as pettingzoo_env
from boardlab.ui.web.hall import WebGame

sys.path.insert(0, str(EXAMPLES / "hexapawn"))

from boardlab_hexapawn import Hexapawn, Step


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    GAMES.register("hexapawn", Hexapawn)
    yield
    GAMES.unregister("hexapawn")


# --- a plain reference from the rulebook: the board as a tuple of rows of "W", "B", "." --------

Board = tuple[str, ...]


def start(n: int) -> Board:
    return ("B" * n, *["." * n] * (n - 2), "W" * n)


def reference_moves(board: Board, side: str) -> list[str]:
    """Every move of ``side`` ('W' goes up, 'B' down) in the example's notation."""
    n, forward, other = len(board), (-1 if side == "W" else 1), ("B" if side == "W" else "W")
    moves = []
    for y in range(n):
        for x in range(n):
            if board[y][x] != side or not 0 <= y + forward < n:
                continue
            for to_x in (x - 1, x, x + 1):
                if not 0 <= to_x < n:
                    continue
                target = board[y + forward][to_x]
                if (to_x == x and target == ".") or (to_x != x and target == other):
                    sign = "-" if to_x == x else "x"
                    moves.append(f"{'abcde'[x]}{y + 1}{sign}{'abcde'[to_x]}{y + forward + 1}")
    return sorted(moves)


def reference_play(board: Board, move: str) -> Board:
    x, y, to_x, to_y = "abcde".index(move[0]), int(move[1]) - 1, "abcde".index(move[3]), int(move[4]) - 1
    rows = [list(row) for row in board]
    rows[to_y][to_x], rows[y][x] = rows[y][x], "."
    return tuple("".join(row) for row in rows)


def reference_lost(board: Board, side: str) -> bool:
    """Whether ``side``, to move, has lost: a pawn of the opponent through, no pawn, no move."""
    other = "B" if side == "W" else "W"
    far = board[-1] if other == "B" else board[0]
    pawns = sum(row.count(side) for row in board)
    return other in far or pawns == 0 or not reference_moves(board, side)


@functools.cache
def reference_value(board: Board, side: str) -> tuple[int, int]:
    """(1 win or -1 loss for ``side`` to move, plies to the end): the winner ends fastest, the
    loser lasts longest."""
    if reference_lost(board, side):
        return -1, 0
    other = "B" if side == "W" else "W"
    results = [reference_value(reference_play(board, m), other) for m in reference_moves(board, side)]
    wins = [plies for value, plies in results if value == -1]
    if wins:
        return 1, min(wins) + 1
    return -1, max(plies for _, plies in results) + 1


def text_of(board: Board, side: str, ply: int) -> str:
    return f"{'/'.join(board)} {side} {ply}"


# --- the game ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4])
def test_hexapawn_passes_the_conformance_suite(size: int) -> None:
    check_game(Hexapawn(size=size))


@settings(max_examples=60, deadline=None)
@given(size=st.sampled_from([3, 4, 5]), picks=st.lists(st.integers(0, 1000), max_size=40))
def test_moves_and_results_agree_with_the_rulebook_reference(size: int, picks: list[int]) -> None:
    state = parse_game(f"hexapawn:size={size}").initial()
    board, side = start(size), "W"
    for pick in picks:
        assert state.to_text() == text_of(board, side, state.ply)
        expected = [] if reference_lost(board, side) else reference_moves(board, side)
        assert sorted(str(m) for m in state.legal_moves()) == expected
        if not expected:
            assert state.outcome is not None and state.outcome.winner == 1 - state.to_move
            return
        move = expected[pick % len(expected)]
        state, board, side = state.play(move), reference_play(board, move), ("B" if side == "W" else "W")
    assert (state.outcome is None) == (not reference_lost(board, side))


@pytest.mark.parametrize("size", [3, 4])
def test_exact_play_agrees_with_a_plain_minimax(size: int) -> None:
    game = parse_game(f"hexapawn:size={size}")
    exact = exact_play(game)
    state = game.initial()
    value = exact.position_value(state)
    assert (value.value, value.depth) == reference_value(start(size), "W")
    for m in exact.move_values(state):
        move = str(game.move_of(m.action))
        after, plies = reference_value(reference_play(start(size), move), "B")
        assert (m.value, m.depth) == (-after, plies + 1)


def test_black_wins_gardners_three_by_three_game_in_six_plies() -> None:
    value = exact_play(parse_game("hexapawn")).position_value(parse_game("hexapawn").initial())
    assert (value.value, value.depth) == (-1, 6)


def test_bad_moves_and_positions_are_refused_with_the_games_errors() -> None:
    game = parse_game("hexapawn")
    state = game.initial()
    for text in ("a3", "a3-a", "f3-f2", "a3=a2", "", "a3-a2-a1", "b3xb2", "a3-b2"):
        with pytest.raises(MoveParseError):
            state.play(text)
    for text in ("a3-a1", "a3b2", "a1-a2"):  # too far, a take of nothing, Black's pawn
        with pytest.raises(IllegalMoveError):
            state.play(text)
    with pytest.raises(IllegalMoveError):
        game.action_of(Step(0, 2, 2, 1))
    refused = {
        "BBB/.../WW": "9 cells",
        "BBB/.../WWX": "9 cells",
        "BBB/W../WWW": "never gains",
        "BBB/.../WWW B 2": "odd plies",
        "W.B/.../B.W": "far row",
        "BBB/.../WWW W 1 x": "ROWS",
    }
    for text, words in refused.items():
        with pytest.raises(PositionParseError, match=words):
            game.parse_position(text)
    assert game.parse_position("BBB/.../WWW B").ply == 1
    through = game.parse_position(".../W../.B. W 2")  # Black's pawn is through: White has lost
    assert through.outcome is not None and through.outcome.winner == 1 and not through.legal_moves()


@pytest.mark.parametrize("size", [3, 4])
def test_the_bound_on_plies_is_the_longest_game(size: int) -> None:
    game = parse_game(f"hexapawn:size={size}")

    @functools.cache
    def longest(a: int, b: int, to_move: int) -> int:
        state = game.state(a, b, to_move, to_move)
        after = [state.play_index(action) for action in state.legal_indices()]
        return max((1 + longest(*s.words, s.to_move) for s in after), default=0)

    assert longest(*game.initial().words, 0) == game.max_plies == {3: 7, 4: 17}[size]


def test_the_ecosystem_bridges_take_the_game() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's and Gymnasium's notes on dict observations
        api_test(pettingzoo_env("hexapawn:size=4"), num_cycles=100, verbose_progress=False)
        check_env(BoardlabEnv(game="hexapawn", opponent="greedy"))
    GAMES.unregister("hexapawn")  # OpenSpiel told of boardlab's games before this one came
    register_games()
    GAMES.register("hexapawn", Hexapawn)
    spiel = spiel_game("hexapawn:size=4")
    assert spiel.max_game_length() == 17 and spiel.num_distinct_actions() == 96
    pyspiel.random_sim_test(spiel, num_sims=20, serialize=False, verbose=False)


def test_gymnasium_plays_it_through_boardlab_env_or_an_id_registered_for_it() -> None:
    """The four ids registered play boardlab's own games; make refuses another game there,
    naming the class that plays it, which an id of one's own can name too."""
    with pytest.raises(GameOptionError) as refused:
        gymnasium.make("boardlab/TicTacToe-v0", game="hexapawn")
    assert str(refused.value) == (
        "this environment plays tictactoe: game= picks one of its variants, not hexapawn; a game "
        "without an id of its own is played by boardlab.interop.gymnasium.BoardlabEnv(game='hexapawn'), "
        "or by an id registered with that entry point (docs/interop.md)"
    )
    gymnasium.register(
        id="hexapawn/Hexapawn-v0",
        entry_point="boardlab.interop.gymnasium:BoardlabEnv",
        kwargs={"game": "hexapawn:size=4"},
    )
    try:
        made = gymnasium.make("hexapawn/Hexapawn-v0", opponent="greedy")
        assert made.unwrapped.game == Hexapawn(size=4)  # type: ignore[attr-defined]
        _, info = made.reset(seed=0)
        assert info["action_mask"].sum() == 4  # each white pawn steps forward
    finally:
        del gymnasium.registry["hexapawn/Hexapawn-v0"]


def test_the_web_page_gets_its_grid_the_cells_of_each_move_and_the_last_moves_cells() -> None:
    start = parse_game("hexapawn").initial()
    web_game = WebGame("g", start, [], (None, None), 1.0, None, seed=0)  # type: ignore[arg-type]
    position = web_game.view["position"]
    assert position["grid"] == [[1, 1, 1], [-1, -1, -1], [0, 0, 0]]
    assert position["move_cells"] == {
        "a3-a2": [[0, 2], [0, 1]],
        "b3-b2": [[1, 2], [1, 1]],
        "c3-c2": [[2, 2], [2, 1]],
    }
    assert position["marks"] == {"lines": []}
    web_game.play("b3-b2")
    position = web_game.view["position"]
    assert position["grid"] == [[1, 1, 1], [-1, 0, -1], [0, -1, 0]]
    assert position["marks"] == {"lines": [], "from": [1, 2], "to": [1, 1]}
    assert position["move_cells"]["a1xb2"] == [[0, 0], [1, 1]]
    assert set(position["move_cells"]) == set(position["legal"])


# --- installed with pip: a game of every command ------------------------------------------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of boardlab's commands with the example installed with pip."""
    return install_example("hexapawn", tmp_path_factory.mktemp("hexapawn"))


def test_the_installed_game_is_listed_and_analysed(installed: dict[str, str]) -> None:
    listing = boardlab(installed, "games")
    assert "hexapawn" in listing and "Hexapawn 3x3" in listing
    analysis = boardlab(installed, "analyze", "--game", "hexapawn", "BBB/.../WWW")
    assert "W to move: loss in 6 plies" in analysis
    assert "b3-b2" in analysis


def test_agents_play_the_installed_game_in_a_worker_process(
    installed: dict[str, str], tmp_path: Path
) -> None:
    boardlab(
        installed,
        *("match", "alphabeta:depth=8", "random", "--game", "hexapawn", "-n", "4", "--opening-plies", "0"),
        *("-j", "1", "--db", str(tmp_path / "games.sqlite"), "--out", str(tmp_path)),
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    searcher = next(p for p in summary["players"] if p["spec"] == "alphabeta:depth=8")
    assert summary["games"] == 4
    assert searcher["as_second"] == {"wins": 2, "draws": 0, "losses": 0}  # Black wins with perfect play


def test_q_learning_learns_perfect_hexapawn(installed: dict[str, str], tmp_path: Path) -> None:
    run = ("train", "qlearning", "--game", "hexapawn", "--episodes", "5000", "--seed", "0")
    output = boardlab(installed, *run, "--final-games", "50", "--out", str(tmp_path / "run"))
    assert "Checked against the solved game: perfect play." in output
