"""Endgame tables in play: the hybrid agent plays covered positions perfectly."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardlab.agents.base import make_agent
from boardlab.games import endgame_for, parse_game
from boardlab.games.quixo.exact import best_moves, move_values, tables_for
from boardlab.games.quixo.solver import solve


def random_positions(spec: str, count: int, seed: int) -> list:
    """Ongoing positions met in random games."""
    game = parse_game(spec)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.initial()
        while not state.is_over and len(out) < count:
            if rng.random() < 0.3:
                out.append(state)
            state = state.play_index(rng.choice(state.legal_indices()))
    return out


@pytest.mark.parametrize("spec", ["quixo:size=3", "quixo:size=3,rules=course"])
def test_hybrid_plays_the_tables_best_moves(spec: str) -> None:
    agent = make_agent("hybrid:time=0.05", seed=3)
    tables = tables_for(3, rulebook=parse_game(spec).rules)
    for state in random_positions(spec, 60, seed=1):
        move = agent.choose(state)
        assert agent.last_engine == "tables"
        best = {m.action for m in best_moves(state, tables)}
        assert state.game.action_of(move) in best


def test_hybrid_without_tables_searches() -> None:
    agent = make_agent("hybrid:time=0.05,tables=false", seed=3)
    state = random_positions("quixo:size=3", 1, seed=2)[0]
    agent.choose(state)
    assert agent.last_engine in ("alphabeta", "mcts")


def test_course_and_official_tables_disagree_where_the_rules_do() -> None:
    official, course = parse_game("quixo:size=3"), parse_game("quixo:size=3,rules=course")
    state = official.parse_position("X.OX.OOO. X")
    values = {m.action: m.value for m in move_values(state)}
    course_values = {m.action: m.value for m in move_values(course.parse_position("X.OX.OOO. X"))}
    assert max(values.values()) < 0 < max(course_values.values())


def test_no_endgame_without_tables(tmp_path: Path) -> None:
    assert endgame_for(parse_game("connect4")) is None
    assert endgame_for(parse_game("quixo:size=4"), directory=str(tmp_path)) is None


def test_endgame_from_tables_on_disk(tmp_path: Path) -> None:
    solve(3, tmp_path, min_cubes=6)  # only boards with at most three blanks
    endgame = endgame_for(parse_game("quixo:size=3"), directory=str(tmp_path))
    assert endgame is not None
    covered = uncovered = 0
    for state in random_positions("quixo:size=3", 80, seed=4):
        if endgame.covers(state):
            covered += 1
            assert endgame.best_actions(state)
        else:
            uncovered += 1
            assert (state.a | state.b).bit_count() < 6
    assert covered and uncovered
