"""The exact-play protocol: an exact play answers the positions of its own game variant only."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from boardlab.games import ExactPlayError, GameError, UncoveredPosition, exact_play, new_game, parse_game
from boardlab.games.base import DRAW, LOSS, WIN
from boardlab.games.exact import (
    MoveValue,
    SmallSolverPlay,
    Value,
    best_of,
    cut_by_cap,
    final_value,
    under_cap,
    value_of_moves,
    value_under_cap,
)
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


def test_another_games_finished_position_is_not_valued() -> None:
    """A finished game has a value of its own, but another game's exact play still refuses it."""
    state = new_game("tictactoe")
    for cell in (0, 3, 1, 4, 2):  # X completes the top row
        state = state.play_index(cell)
    assert state.is_over
    for game in ("connect4", "nim", "nim:piles=200-300-400"):  # the last: the nim-sum rule
        exact = exact_play(game)
        for answer in (exact.position_value, exact.move_values, exact.best_actions):
            with pytest.raises(UncoveredPosition, match="a tictactoe position is outside"):
                answer(state)


@pytest.mark.parametrize("thing", [SimpleNamespace(game="tictactoe"), "X..O.....", None])
def test_what_is_not_a_position_is_not_covered(thing: object) -> None:
    exact = exact_play("tictactoe")
    assert not exact.covers(thing)
    assert "answers its positions, not a" in str(exact.uncovered(thing))
    with pytest.raises(UncoveredPosition):
        exact.position_value(thing)


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


def test_the_small_solver_refuses_a_game_over_its_limit_before_solving(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The positions are counted compiled first: a game too large never starts the solve,
    which would fill its table for a minute before saying so."""

    def no_solve(self: Solution, state: Any) -> Any:
        raise AssertionError("the solve started")

    monkeypatch.setattr(Solution, "result", no_solve)
    game = parse_game("tictactoe")
    with pytest.raises(ExactPlayError) as refused:
        SmallSolverPlay.open(game, limit=5477)
    assert str(refused.value) == (
        "no exact play for tictactoe: tictactoe has more than 5,477 positions from its start; "
        "too many for the small solver"
    )
    monkeypatch.undo()
    assert len(SmallSolverPlay.open(game, limit=5478).solution) == 5478  # type: ignore[attr-defined]


def test_a_quixo_game_ended_by_its_ply_cap_is_a_draw_not_the_tables_value() -> None:
    state = new_game("quixo:size=3,ply_cap=2")
    for _ in range(2):
        state = state.play_index(state.legal_indices()[0])
    assert state.outcome is not None and state.outcome.winner is None
    value = exact_play(state.game).position_value(state)
    assert (value.name, value.depth) == ("draw", 0)


def _capped_value(state: Any, seen: dict[str, int]) -> int:
    """Plain minimax under the game's own ply cap (a reference for value_under_cap)."""
    key = state.to_text()
    if key not in seen:
        outcome = state.outcome
        if outcome is not None:
            seen[key] = DRAW if outcome.winner is None else WIN if outcome.winner == state.to_move else LOSS
        else:
            seen[key] = max(-_capped_value(state.play_index(a), seen) for a in state.legal_indices())
    return seen[key]


def _decided_quixo3_positions(wins: int, losses: int) -> list[str]:
    """3x3 Quixo positions won or lost within 3 plies, from seeded random play."""
    game = parse_game("quixo:size=3")
    judge = exact_play(game)
    rng = random.Random(3)
    found: dict[int, list[str]] = {WIN: [], LOSS: []}
    while len(found[WIN]) < wins or len(found[LOSS]) < losses:
        state = game.initial()
        for _ in range(rng.randrange(4, 12)):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        if state.is_over:
            continue
        value = judge.position_value(state)
        if value.value != DRAW and value.depth is not None and value.depth <= 3:
            found[value.value].append(state.to_text())
    return found[WIN][:wins] + found[LOSS][:losses]


def test_values_under_a_ply_cap_match_a_capped_minimax() -> None:
    judge = exact_play("quixo:size=3")
    for text in _decided_quixo3_positions(wins=3, losses=2):
        free = parse_game("quixo:size=3").parse_position(text)
        value = judge.position_value(free)
        assert value.depth is not None
        for left in range(max(value.depth - 1, 1), value.depth + 2):  # the cap just before, on, after
            state = parse_game(f"quixo:size=3,ply_cap={free.ply + left}").parse_position(text)
            seen: dict[str, int] = {}
            moves = [-_capped_value(state.play_index(a), seen) for a in state.legal_indices()]
            assert value_under_cap(state, value) == max(moves), (text, left)
            assert cut_by_cap(value.value, value.depth, left) == (max(moves) == DRAW)
            assert [m.value for m in under_cap(judge.move_values(free), left)] == moves, (text, left)


def test_cut_by_cap_leaves_draws_unknown_depths_and_no_cap_alone() -> None:
    assert not cut_by_cap(WIN, 9, None) and not cut_by_cap(WIN, None, 1) and not cut_by_cap(DRAW, 9, 1)
    assert cut_by_cap(LOSS, 9, 8) and not cut_by_cap(LOSS, 8, 8)
    scored = MoveValue(0, WIN, 30, score=5)
    assert under_cap([scored, MoveValue(1, WIN, 30)], 10) == [scored, MoveValue(1, DRAW)]


def test_moves_rank_fastest_win_then_draw_then_slowest_loss() -> None:
    order = [(WIN, 1), (WIN, 5), (DRAW, 2), (DRAW, 8), (LOSS, 9), (LOSS, 2)]
    ranks = [MoveValue(i, v, d).rank for i, (v, d) in enumerate(order)]
    assert ranks[2] == ranks[3]  # every draw is as good as another
    assert ranks[0] > ranks[1] > ranks[2] and ranks[3] > ranks[4] > ranks[5]
    values = [MoveValue(i, v, d) for i, (v, d) in enumerate(order)]
    assert best_of(values) == [0] and best_of(values[2:]) == [2, 3] and best_of(values[4:]) == [4]
    assert value_of_moves(values[1:]) == Value(WIN, 5)
    # the game's own score ranks where there is one, whatever the depth says
    scored = [MoveValue(0, WIN, 9, score=3), MoveValue(1, WIN, 1, score=2), MoveValue(2, WIN, 7, score=3)]
    assert best_of(scored) == [0, 2] and value_of_moves(scored).score == 3
    assert best_of([]) == []


def test_a_finished_position_is_valued_for_the_side_to_move() -> None:
    game = parse_game("tictactoe")
    state = game.initial()
    for cell in (0, 3, 1, 4, 2):  # X completes the top row; O is to move and has lost
        state = state.play_index(cell)
    assert state.outcome is not None and state.outcome.winner == 0 and state.to_move == 1
    assert final_value(state) == Value(LOSS, 0)
    assert final_value(game.initial()) is None


def test_the_small_solver_and_the_exact_play_pick_the_same_best_moves() -> None:
    game = parse_game("tictactoe")
    judge = exact_play(game)
    solution = solve(game.initial())
    rng = random.Random(5)
    for _ in range(30):
        state = game.initial()
        for _ in range(rng.randrange(0, 7)):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        assert judge.best_actions(state) == solution.best_actions(state)
        # the value and the plies to the end, the same as the best of its moves
        value = judge.position_value(state)
        assert value == Value(solution.value(state), solution.depth(state))
        if not state.is_over:
            assert value == value_of_moves(judge.move_values(state))
