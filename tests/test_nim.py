"""Nim: rules, options, texts, the closed-form solution and the optimal and perfect agents."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from rich.text import Text

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.agents.perfect import OptimalAgent, PerfectAgent
from boardlab.games import parse_game
from boardlab.games.base import (
    LOSS,
    ONGOING,
    WIN,
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
)
from boardlab.games.nim import Nim, State, Take
from boardlab.games.nim.theory import mover_wins, winning_moves
from boardlab.games.small_solver import Solution, solve


def all_positions(game: Nim) -> list[State]:
    """Every position with piles no larger than the starting ones."""
    return [game.from_piles(p) for p in itertools.product(*(range(s + 1) for s in game.piles))]


# --- options -----------------------------------------------------------------------------------


def test_default_options() -> None:
    game = parse_game("nim")
    assert game == Nim() and game.piles == (1, 3, 5, 7) and game.k == 0 and game.misere
    assert game.spec == "nim"
    assert game.title == "Nim 1-3-5-7 (misère)"
    assert game.evaluations == ("nimsum",)


def test_spec_round_trip() -> None:
    game = parse_game("nim:piles=3-4-5,k=3,misere=false")
    assert (game.piles, game.k, game.misere) == ((3, 4, 5), 3, False)
    assert game.spec == "nim:piles=3-4-5,k=3,misere=false"
    assert parse_game(game.spec) == game
    assert Nim(piles=[2, 0, 1]).piles == (2, 0, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spec",
    [
        "nim:piles=",
        "nim:piles=0",
        "nim:piles=0-0-0",
        "nim:piles=1-x",
        "nim:piles=1--2",
        "nim:piles=-1",
        "nim:piles=1001",
        "nim:piles=" + "-".join(["1000"] * 13),
        "nim:piles=" + "-".join(["1"] * 127),
        "nim:k=-1",
        "nim:k=1001",
        "nim:misere=maybe",
        "nim:size=3",
    ],
)
def test_bad_options(spec: str) -> None:
    with pytest.raises(GameOptionError):
        parse_game(spec)


def test_bad_options_built_directly() -> None:
    with pytest.raises(GameOptionError):
        Nim(piles=(True, 2))
    with pytest.raises(GameOptionError):
        Nim(piles=())
    with pytest.raises(GameOptionError):
        Nim(piles=(2000,))
    assert len(Nim(piles=(1000,) * 12).piles) == 12
    assert len(Nim(piles=(1,) * 126).piles) == 126


# --- rules -------------------------------------------------------------------------------------


@pytest.mark.parametrize("misere", [False, True])
def test_end_of_game(misere: bool) -> None:
    game = Nim(piles=(2, 1), misere=misere)
    state = game.initial().play("1:2").play("2:1")
    assert state.piles == [0, 0] and state.to_move == 0
    assert state.status == (WIN if misere else LOSS)
    # X took two, O took the last object
    assert state.winner == (0 if misere else 1)
    assert state.outcome is not None
    assert state.outcome.detail == (
        "left the last object to the opponent" if misere else "took the last object"
    )
    assert state.legal_moves() == []
    with pytest.raises(GameOverError):
        state.play("1:1")


@pytest.mark.parametrize("k", [0, 1, 2, 3, 9])
def test_legal_moves_respect_k(k: int) -> None:
    game = Nim(piles=(1, 4, 6), k=k)
    for state in all_positions(game):
        expected = [(i, t) for i, p in enumerate(state.piles) for t in range(1, (min(p, k) if k else p) + 1)]
        assert [(m.pile, m.count) for m in state.legal_moves()] == expected
        assert (state.status == ONGOING) == bool(expected)
        for move in state.legal_moves():
            after = state.play(move)
            assert after.piles[move.pile] == state.piles[move.pile] - move.count
            assert after.to_move == 1 - state.to_move and after.ply == state.ply + 1


def test_action_space() -> None:
    game = Nim(piles=(1, 3, 5, 7), k=3)
    assert game.max_take == 3 and game.kernel.num_actions == 12
    assert str(game.move_of(5)) == "2:3"
    assert game.parse_action("2:3") == 5
    assert Nim(piles=(1, 3), k=9).kernel.num_actions == 6  # k above the largest pile: no limit
    for action in range(game.kernel.num_actions):
        assert game.action_of(game.move_of(action)) == action
        assert game.parse_action(str(game.move_of(action))) == action


@pytest.mark.parametrize("text", ["", "2", "2-3", "0:1", "2:0", "a:1", "2:b", ":3", "2:", "1:2:3", "-1:2"])
def test_bad_move_text(text: str) -> None:
    with pytest.raises(MoveParseError):
        Nim().parse_action(text)


def test_illegal_moves() -> None:
    game = Nim(piles=(1, 3, 5, 7), k=3)
    state = game.initial()
    with pytest.raises(IllegalMoveError, match="1 to 3"):
        state.play("4:4")  # more than k
    with pytest.raises(IllegalMoveError, match=r"piles 1\.\.4"):
        state.play("5:1")
    with pytest.raises(IllegalMoveError, match="holds 1 object"):
        state.play("1:2")
    with pytest.raises(IllegalMoveError):
        state.play(Take(0, 0))
    with pytest.raises(IllegalMoveError):
        game.action_of((0, 1))
    with pytest.raises(IllegalMoveError):
        state.play_index(12)


# --- texts and views ------------------------------------------------------------------------


def test_text_round_trip() -> None:
    game = Nim(piles=(2, 0, 3), k=2, misere=False)
    for state in all_positions(game):
        for side, ply in ((0, 0), (1, 7)):
            placed = game.from_piles(state.piles, side, ply)
            assert game.parse_position(placed.to_text()) == placed
    assert game.parse_position("1-0-2").to_text() == "1-0-2 X 0"
    assert game.parse_position("1-0-2 o 3").to_move == 1


@pytest.mark.parametrize(
    "text",
    ["", "1-2", "1-2-3-4", "1-2-4", "1-x-2", "1--2", "1-2-3 Z", "1-2-3 X -1", "1-2-3 X a", "1-2-3 X 1 2"],
)
def test_bad_position_text(text: str) -> None:
    with pytest.raises(PositionParseError):
        Nim(piles=(2, 0, 3)).parse_position(text)


@pytest.mark.parametrize(
    ("piles", "to_move", "ply", "words"),
    [
        ([1.5, 3, 5, 7], 0, 0, "whole numbers"),
        ([True, 3, 5, 7], 0, 0, "whole numbers"),
        ("1357", 0, 0, "4 piles"),
        ([1, 3, 5, 8], 0, 0, "0 to 7"),
        ([1, 3, 5, 7], True, 0, "side to move"),
        ([1, 3, 5, 7], 2, 0, "side to move"),
        ([1, 3, 5, 7], 0, 1.5, "ply"),
        ([1, 3, 5, 7], 0, -1, "ply"),
    ],
)
def test_bad_positions_from_piles(piles: object, to_move: object, ply: object, words: str) -> None:
    with pytest.raises(PositionParseError, match=words):
        Nim().from_piles(piles, to_move, ply)  # type: ignore[arg-type]


def test_positions_from_numpy_piles() -> None:
    state = Nim().from_piles(list(np.array([1, 2, 3, 4])), np.int64(1), np.int64(3))
    assert (state.piles, state.to_move, state.ply) == ([1, 2, 3, 4], 1, 3)


def test_views() -> None:
    game = Nim(piles=(1, 3, 5, 7))
    state = game.initial().play("3:2")
    assert state.observation().shape == (1, 4, 7)
    assert state.observation()[0].tolist() == [[float(j < p) for j in range(7)] for p in (1, 3, 3, 7)]
    view = state.to_json()
    assert view["piles"] == [1, 3, 3, 7] and view["start"] == [1, 3, 5, 7] and view["misere"]
    assert state.to_text() == "1-3-3-7 O 1"
    assert str(state).splitlines()[2] == "  3 |||  (3)"
    assert str(game.initial().play("1:1")).splitlines()[0] == "  1 -  (0)"
    rendered = state.render(last_move=Take(2, 2))
    assert isinstance(rendered, Text) and "|||xx" in rendered.plain
    assert "PILE:COUNT" in game.notation_help


def test_large_piles_are_drawn_to_scale_within_a_terminal_line() -> None:
    state = Nim(piles=(3, 200, 45)).initial().play("2:150")
    rows = state.render(last_move=Take(1, 150)).plain.splitlines()
    # 200 objects at most in a row (50 left, 150 taken): a mark for 4, the counts exact
    assert rows == [
        "(a mark stands for up to 4 objects)",
        "  1 |  (3)",
        "  2 " + "|" * 13 + "x" * 38 + "  (50)",
        "  3 " + "|" * 12 + "  (45)",
    ]
    assert max(len(r) for r in str(Nim(piles=(1000,) * 3).initial()).splitlines()) < 80


def test_the_empty_board_is_drawn() -> None:
    state = Nim(piles=(1, 2)).from_piles([0, 0], to_move=0, ply=3)
    assert str(state).splitlines() == ["  1 -  (0)", "  2 -  (0)"]
    assert state.render().plain == str(state)
    assert state.render(last_move=Take(1, 2)).plain.splitlines()[1] == "  2 xx  (0)"


def test_kernel_properties() -> None:
    game = Nim(piles=(2, 3, 1), k=2)
    kernel = game.kernel
    assert kernel.num_symmetries == 1
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    for state in all_positions(game):
        a, b = np.int64(state.a), np.int64(state.b)
        assert kernel.symmetry(kernel.ctx, a, b, 0) == (a, b)
        n = kernel.gen_moves(kernel.ctx, a, b, buf)
        assert kernel.status(kernel.ctx, a, b) != ONGOING or n > 0


def test_two_words() -> None:
    game = Nim(piles=(7,) * 42, k=2)  # 3-bit fields, 21 per word
    state = game.initial()
    for move in ("42:2", "21:1", "22:2", "1:1"):
        state = state.play(move)
    assert state.piles == [6] + [7] * 19 + [6, 5] + [7] * 19 + [5]
    assert game.parse_position(state.to_text()) == state


# --- the closed form and the agents ---------------------------------------------------------

CASES = [(k, misere) for misere in (False, True) for k in (0, 1, 2, 3, 5)]


@pytest.fixture(scope="module")
def solutions() -> dict[tuple[int, bool], tuple[Nim, Solution]]:
    out = {}
    for k, misere in CASES:
        game = Nim(piles=(7, 7, 7, 7), k=k, misere=misere)
        out[k, misere] = game, solve(game.initial())
    return out


@pytest.mark.parametrize(("k", "misere"), CASES)
def test_closed_form_matches_exhaustive_search(
    k: int, misere: bool, solutions: dict[tuple[int, bool], tuple[Nim, Solution]]
) -> None:
    game, solution = solutions[k, misere]
    kernel = game.kernel
    for piles in itertools.combinations_with_replacement(range(8), 4):
        state = game.from_piles(piles)
        won = solution.value(state) == WIN
        assert mover_wins(piles, k, misere) == won, piles
        assert kernel.evaluate(kernel.ctx, np.int64(state.a), np.int64(state.b), 0) == (1.0 if won else -1.0)
        exact = {a for a, (value, _) in solution.move_values(state).items() if value == WIN}
        assert {game.action_of(Take(i, t)) for i, t in winning_moves(piles, k, misere)} == exact


@pytest.mark.parametrize(("k", "misere"), CASES)
def test_optimal_agent_wins_every_won_position(
    k: int, misere: bool, solutions: dict[tuple[int, bool], tuple[Nim, Solution]]
) -> None:
    game, solution = solutions[k, misere]
    agent = OptimalAgent(seed=k)
    for piles in itertools.combinations_with_replacement(range(8), 4):
        state = game.from_piles(piles)
        if state.is_over:
            continue
        move = agent.choose(state)
        assert state.is_legal(move)
        after_value = solution.value(state.play(move))
        assert (after_value == LOSS) == (solution.value(state) == WIN), piles


def test_the_literal_misere_rule_fails_with_k() -> None:
    # misère with k = 2: a single pile of 3 is won (take 2, leave 1), though "every pile is
    # 0 or 1" is false and 3 mod 3 = 0; the test must read the reduced piles
    assert mover_wins([3], k=2, misere=True)
    assert solve(Nim(piles=(3,), k=2).initial()).value(Nim(piles=(3,), k=2).initial()) == WIN


def test_the_rule_defaults_to_the_games_default_misere_without_a_move_limit() -> None:
    # the defaults are Nim()'s: misère, no limit; taking the last object loses
    assert not mover_wins([1])
    assert winning_moves([1]) == []
    assert winning_moves([5]) == [(0, 4)]
    assert mover_wins([1]) == mover_wins([1], k=0, misere=True) != mover_wins([1], k=0, misere=False)


def test_agents_games() -> None:
    assert OptimalAgent.supports(Nim())
    assert not OptimalAgent.supports(parse_game("tictactoe"))
    for other in ("tictactoe", "quixo:size=3"):  # games with exact play, but no closed form
        with pytest.raises(AgentSpecError, match=f"^agent optimal plays only nim, not {other[:5]}"):
            make_agent("optimal", game=other)
    huge = Nim(piles=(1000, 1000, 1000))
    assert OptimalAgent.supports(huge)
    assert not PerfectAgent.supports(huge)
    with pytest.raises(AgentSpecError, match="optimal"):
        PerfectAgent.check_game(PerfectAgent.Settings(), huge)
    with pytest.raises(AgentSpecError):
        PerfectAgent.check_game(PerfectAgent.Settings(limit=100), Nim(piles=(7, 7, 7)))
    state = huge.initial()
    assert str(OptimalAgent(seed=1).choose(state)) in {f"{i}:1000" for i in (1, 2, 3)}


def perfect_walk(state: State, side: int, agent: PerfectAgent, solution: Solution) -> None:
    """Every line of the opponent against the agent: a won start stays won to the end."""
    if state.is_over:
        assert state.winner == side
        return
    if state.to_move == side:
        move = agent.choose(state)
        assert solution.result(state.play(move)) == (LOSS, solution.depth(state) - 1)
        perfect_walk(state.play(move), side, agent, solution)
    else:
        for action in state.legal_indices():
            perfect_walk(state.play_index(action), side, agent, solution)


@pytest.mark.parametrize("spec", ["nim:piles=1-3-4,misere=false", "nim:piles=2-3-4,k=2"])
def test_perfect_agent_wins_fastest(spec: str) -> None:
    game = parse_game(spec)
    start = game.initial()
    solution = solve(start)
    assert solution.value(start) == WIN
    perfect_walk(start, 0, PerfectAgent(seed=5), solution)
