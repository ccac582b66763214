"""The game contract, checked unchanged against every registered game.

A new game is done when it passes this suite: the Python face and the compiled kernel agree
move by move, finished positions have no moves, symmetries commute with play and map masks
and observations consistently, texts round-trip, equal positions hash equal, bad input
raises the game's error classes, and every generic agent plays it.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from boardlab.agents import list_agents, make_agent
from boardlab.games import (
    GAMES,
    ONGOING,
    GameError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
    available_games,
    parse_game,
)
from boardlab.games.base import Game, State, transform_actions, transform_observations

VARIANTS = {
    "quixo": ["quixo", "quixo:size=4", "quixo:rules=course", "quixo:size=3,ply_cap=40"],
    "connect4": ["connect4", "connect4:width=8,height=7", "connect4:width=4,height=4,connect=3"],
    "tictactoe": ["tictactoe"],
    "nim": ["nim", "nim:piles=2-3-4,k=2,misere=false", "nim:piles=5-5,misere=true,k=3"],
}
SPECS = [spec for name in available_games() for spec in VARIANTS.get(name, [name])]


def test_every_registered_game_is_checked_here() -> None:
    assert set(available_games()) == set(GAMES), "a registered game fails to import"
    assert set(VARIANTS) >= set(GAMES), "add the new game's variants to VARIANTS"


def random_line(game: Game, seed: int, plies: int = 400) -> list[State]:
    """The positions of one uniformly random game from the start."""
    rng = random.Random(seed)
    states = [game.initial()]
    while not states[-1].is_over and len(states) <= plies:
        states.append(states[-1].play_index(rng.choice(states[-1].legal_indices())))
    return states


def kernel_moves(state: State) -> list[int]:
    kernel = state.kernel
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    n = kernel.gen_moves(kernel.ctx, np.int64(state.a), np.int64(state.b), buf)
    return buf[:n].tolist()


@pytest.fixture(params=SPECS, scope="module")
def game(request: pytest.FixtureRequest) -> Game:
    return parse_game(request.param)


# --- play: Python face and kernel in lockstep --------------------------------------------


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_random_games_agree_with_the_kernel(game: Game, seed: int) -> None:
    kernel = game.kernel
    for before, after in zip(line := random_line(game, seed), line[1:], strict=False):
        status = kernel.status(kernel.ctx, np.int64(before.a), np.int64(before.b))
        assert status == ONGOING
        assert before.legal_indices() == kernel_moves(before)
        assert all(0 <= a < kernel.num_actions for a in before.legal_indices())
        assert after.ply == before.ply + 1 and after.to_move == 1 - before.to_move
    end = line[-1]
    assert end.is_over == (end.outcome is not None)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_finished_positions_have_no_moves_and_others_have_some(game: Game, seed: int) -> None:
    for state in random_line(game, seed):
        if state.is_over:
            assert state.legal_moves() == [] and not state.legal_mask().any()
            with pytest.raises(GameOverError):
                state.play_index(0)
        else:
            assert state.legal_moves() and state.legal_mask().sum() == len(state.legal_moves())
        if state.status == ONGOING:
            assert kernel_moves(state), "an ongoing position must have a legal move"


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_outcomes_name_a_winner_or_a_draw_and_why(game: Game, seed: int) -> None:
    end = random_line(game, seed)[-1]
    if end.is_over:
        outcome = end.outcome
        assert outcome is not None and outcome.winner in (None, 0, 1)
        assert end.winner == outcome.winner
        assert outcome.score_for(0) + outcome.score_for(1) == 1.0
        assert json.loads(json.dumps(outcome.to_json())) == outcome.to_json()


# --- symmetries ---------------------------------------------------------------------------


@given(seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 10**6))
@settings(max_examples=20)
def test_symmetries_commute_with_play_and_map_masks_and_observations(
    game: Game, seed: int, pick: int
) -> None:
    kernel = game.kernel
    line = random_line(game, seed)
    state = line[pick % len(line)]
    obs = state.observation()
    for sym in range(kernel.num_symmetries):
        image = state.transform(sym)
        assert image.to_move == state.to_move and image.status == state.status
        assert np.array_equal(transform_actions(kernel, state.legal_mask(), sym), image.legal_mask())
        assert np.array_equal(transform_observations(kernel, obs, sym), image.observation())
        assert image.canonical_key() == state.canonical_key()
        assert image.transform(int(kernel.sym_inverse[sym])) == state
        for action in state.legal_indices():
            mapped = int(kernel.action_maps[sym, action])
            assert image.play_index(mapped) == state.play_index(action).transform(sym)


def test_symmetry_tables_are_permutations(game: Game) -> None:
    kernel = game.kernel
    rows, cols = kernel.obs_shape[1:]
    assert kernel.action_maps.shape == (kernel.num_symmetries, kernel.num_actions)
    assert kernel.cell_maps.shape == (kernel.num_symmetries, rows * cols)
    for sym in range(kernel.num_symmetries):
        assert sorted(kernel.action_maps[sym]) == list(range(kernel.num_actions))
        assert sorted(kernel.cell_maps[sym]) == list(range(rows * cols))
    assert list(kernel.action_maps[0]) == list(range(kernel.num_actions)), "symmetry 0 is the identity"


# --- observations, hashing, text ----------------------------------------------------------


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_observations_have_the_declared_shape_from_the_movers_view(game: Game, seed: int) -> None:
    for state in random_line(game, seed)[:30]:
        obs = state.observation()
        assert obs.dtype == np.float32 and obs.shape == game.kernel.obs_shape
        assert np.isfinite(obs).all()
        # the mover's view: equal state words give equal planes, whoever moves
        flipped = game.state(state.a, state.b, 1 - state.to_move, state.ply)
        assert np.array_equal(flipped.observation(), obs)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_texts_round_trip_and_equal_positions_hash_equal(game: Game, seed: int) -> None:
    for state in random_line(game, seed):
        again = game.parse_position(state.to_text())
        assert again == state and again.status == state.status
        assert again.position_hash() == state.position_hash()
        assert hash(again) == hash(state)
        for move in state.legal_moves():
            assert state.parse_move(str(move)) == move
            assert state.move_index(move) == game.action_of(move)


def test_different_positions_hash_differently(game: Game) -> None:
    states = {s for seed in range(20) for s in random_line(game, seed)}
    by_words = {(s.a, s.b) for s in states}
    assert len({s.position_hash() for s in states}) == len(by_words)


def test_views_for_people(game: Game) -> None:
    for state in random_line(game, 3)[::5]:
        assert isinstance(state.render(), Text) and str(state).strip()
        view = state.to_json()
        assert json.loads(json.dumps(view)) == view
        assert view["game"] == game.spec and view["text"] == state.to_text()
    assert parse_game(game.spec) == game
    assert game.title and game.evaluations and game.notation_help


# --- bad input ----------------------------------------------------------------------------


@given(text=st.text(max_size=30))
@settings(max_examples=60)
def test_any_move_text_is_a_move_or_a_game_error(game: Game, text: str) -> None:
    state = game.initial()
    try:
        move = state.parse_move(text)
    except (MoveParseError, IllegalMoveError):
        return
    assert move in state.legal_moves()


@given(text=st.text(max_size=60))
@settings(max_examples=60)
def test_any_position_text_is_a_position_or_a_parse_error(game: Game, text: str) -> None:
    try:
        state = game.parse_position(text)
    except PositionParseError:
        return
    assert game.parse_position(state.to_text()) == state


def test_bad_moves_raise_the_games_error_classes(game: Game) -> None:
    state = game.initial()
    for junk in ("", "zz", "99999", "\x00"):
        with pytest.raises(MoveParseError):
            state.parse_move(junk)
    illegal = [a for a in range(game.kernel.num_actions) if a not in state.legal_indices()]
    for action in illegal[:3]:
        with pytest.raises(IllegalMoveError):
            state.play_index(action)
    with pytest.raises(GameError):
        state.play_index(game.kernel.num_actions + 5)
    end = next(line[-1] for seed in range(50) if (line := random_line(game, seed))[-1].is_over)
    with pytest.raises(GameOverError):
        end.play_index(0)


# --- every agent on every game -------------------------------------------------------------

QUICK_SETTINGS = {
    "minimax": "minimax:depth=2",
    "alphabeta": "alphabeta:depth=3",
    "mcts": "mcts:iters=200,rollouts=2",
    "hybrid": "hybrid:time=0.05,search=(alphabeta:depth=2)",
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_agent_plays_every_game_it_supports(name: str) -> None:
    game = parse_game(VARIANTS[name][-1])
    for cls in list_agents():
        if cls.name == "course" or not cls.supports(game):
            continue
        agent = make_agent(QUICK_SETTINGS.get(cls.name, cls.name), seed=1, game=game)
        agent.new_game()
        state = game.initial()
        for _ in range(6):
            if state.is_over:
                break
            move = agent.choose(state)
            assert move in state.legal_moves(), f"{cls.name} played an illegal move"
            state = state.play(move)
