"""The exact-play protocol: an exact play answers the positions of its own game variant only."""

from __future__ import annotations

import pytest

from boardlab.games import GameError, UncoveredPosition, exact_play, new_game, parse_game
from boardlab.games.exact import SmallSolverPlay
from boardlab.games.small_solver import Solution, solve

# (the exact play's game, a position of another game or variant); no provider here solves long
FOREIGN = [
    ("tictactoe", "connect4"),
    ("tictactoe", "nim"),
    ("nim", "nim:piles=3-4-5"),  # the full solve of Nim 1-3-5-7
    ("nim:piles=200-300-400", "nim"),  # the nim-sum rule
    ("nim", "nim:misere=false"),
    ("connect4", "tictactoe"),
    ("connect4", "connect4:width=6"),
]


@pytest.mark.parametrize(("game", "other"), FOREIGN)
def test_another_games_position_is_not_covered_and_every_answer_says_why(game: str, other: str) -> None:
    exact = exact_play(game)
    state = new_game(other)
    assert not exact.covers(state)
    assert other in str(exact.uncovered(state))
    why = f"a {other} position is outside the exact play of {game}"
    for answer in (exact.position_value, exact.move_values, exact.best_actions):
        with pytest.raises(UncoveredPosition, match=why):
            answer(state)
    with pytest.raises(UncoveredPosition):
        exact.check_covered(state)


def test_a_variant_with_the_same_rules_is_covered() -> None:
    exact = exact_play("tictactoe")
    state = parse_game("tictactoe").initial().play("b2")
    assert exact.covers(state) and exact.position_value(state).name == "draw"


def test_a_position_the_small_solver_cannot_reach_is_an_uncovered_position() -> None:
    """A query past the first solve that outgrows the solve's limit is a GameError, not a bare ValueError."""
    game = parse_game("tictactoe")
    exact = SmallSolverPlay(game, Solution(game.kernel, limit=10))
    with pytest.raises(UncoveredPosition, match="more than 10 positions") as caught:
        exact.move_values(game.initial())
    assert isinstance(caught.value, GameError)
    with pytest.raises(GameError, match="more than 10 positions"):
        solve(game.initial(), limit=10)


def test_a_quixo_game_ended_by_its_ply_cap_is_a_draw_not_the_tables_value() -> None:
    state = new_game("quixo:size=3,ply_cap=2")
    for _ in range(2):
        state = state.play_index(state.legal_indices()[0])
    assert state.outcome is not None and state.outcome.winner is None
    value = exact_play(state.game).position_value(state)
    assert (value.name, value.depth) == ("draw", 0)
