"""Generic perft and playouts over every game's kernel, against published counts and a plain
Python walk of the game tree."""

from __future__ import annotations

import random

import numpy as np
import pytest

from boardlab.games import GAMES, parse_game
from boardlab.games.perft import perft, random_playouts
from boardlab.games.quixo import kernel as qk

# move sequences of exactly n plies from the empty board (DESIGN.md, the usual tables)
CONNECT4 = [7, 49, 343, 2_401, 16_807, 117_649, 823_536, 5_673_234]
TICTACTOE = [9, 72, 504, 3_024, 15_120, 54_720, 148_176, 200_448, 127_872]
QUIXO5 = [44, 1_836, 76_596]


def naive_perft(state, depth: int, ended: bool) -> int:
    """The same count from the State API, one position at a time."""
    if state.is_over:
        return 1 if ended or depth == 0 else 0
    if depth == 0:
        return 1
    return sum(naive_perft(state.play_index(a), depth - 1, ended) for a in state.legal_indices())


def test_connect_four_counts() -> None:
    game = parse_game("connect4")
    assert [perft(game.kernel, *game.initial_words(), d, ended=False) for d in range(1, 9)] == CONNECT4


def test_tictactoe_counts_and_facts() -> None:
    game = parse_game("tictactoe")
    words = game.initial_words()
    assert [perft(game.kernel, *words, d, ended=False) for d in range(1, 10)] == TICTACTOE
    assert perft(game.kernel, *words, 9, ended=True) == 255_168  # every complete game, once
    seen, frontier = {words}, [game.initial()]
    while frontier:
        state = frontier.pop()
        for action in state.legal_indices():
            child = state.play_index(action)
            if child.words not in seen:
                seen.add(child.words)
                frontier.append(child)
    assert len(seen) == 5_478  # the legal positions


def test_quixo_counts_and_its_own_perft() -> None:
    game = parse_game("quixo")
    assert [perft(game.kernel, 0, 0, d) for d in range(1, 4)] == QUIXO5
    small = parse_game("quixo:size=3")
    for depth in range(1, 6):
        expected = int(qk.perft(small.kernel.ctx, np.int64(0), np.int64(0), depth))
        assert perft(small.kernel, 0, 0, depth) == expected


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("ended", [True, False])
def test_every_game_agrees_with_a_plain_walk(name: str, ended: bool) -> None:
    game = parse_game("quixo:size=3" if name == "quixo" else name)
    rng = random.Random(f"{name}-{ended}")
    for _ in range(4):
        state = game.initial()
        for _ in range(rng.randrange(6)):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        for depth in range(4):
            assert perft(game.kernel, *state.words, depth, ended) == naive_perft(state, depth, ended)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_playouts_are_seeded_and_stop_at_the_end(name: str) -> None:
    game = parse_game(name)
    words = game.initial_words()
    moves = random_playouts(game.kernel, *words, 50, 30, 7)
    assert moves == random_playouts(game.kernel, *words, 50, 30, 7)
    assert 50 <= moves <= 50 * 30
    assert random_playouts(game.kernel, *words, 50, 1, 7) == 50


def test_negative_depth_is_refused() -> None:
    game = parse_game("tictactoe")
    with pytest.raises(ValueError, match="depth"):
        perft(game.kernel, *game.initial_words(), -1)


@pytest.mark.parametrize("ended", [True, False])
def test_the_ply_cap_ends_games_as_the_plain_walk_sees_it(ended: bool) -> None:
    # the compiled kernels do not see the ply cap; perft is told how far away it is
    for cap in (1, 2, 3):
        game = parse_game(f"quixo:size=3,ply_cap={cap}")
        rng = random.Random(cap)
        for start_plies in (0, 1, cap):
            state = game.initial()
            for _ in range(start_plies):
                if state.is_over:
                    break
                state = state.play_index(rng.choice(state.legal_indices()))
            left = cap - state.ply
            for depth in range(5):
                expected = naive_perft(state, depth, ended)
                assert perft(game.kernel, *state.words, depth, ended, plies_left=left) == expected


@pytest.mark.parametrize("ended", [True, False])
def test_a_finished_position_is_one_leaf_at_depth_zero_and_deeper_only_if_ended_games_count(
    ended: bool,
) -> None:
    game = parse_game("tictactoe")
    won = game.parse_position("XXX/OO./... O 5")
    assert won.is_over
    assert perft(game.kernel, *won.words, 0, ended) == 1
    assert perft(game.kernel, *won.words, 2, ended) == (1 if ended else 0)


def test_a_position_past_its_ply_cap_is_one_finished_game() -> None:
    game = parse_game("quixo:size=3")
    start = game.initial_words()
    assert perft(game.kernel, *start, 2, True, plies_left=-1) == 1
    assert perft(game.kernel, *start, 2, False, plies_left=-1) == 0
