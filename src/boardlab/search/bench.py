"""Speed measurements of a game's engine and of the searches over it (used by `boardlab bench`
and benchmarks/).

Every figure is measured after a warm-up call, so compile time is excluded. Works for any
registered game: playouts and perft run over the game's kernel
(:mod:`boardlab.games.perft`), alpha-beta with one of its evaluations, MCTS with random
rollouts.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from boardlab.games import Game, State, parse_game
from boardlab.games.perft import perft, random_playouts
from boardlab.search.alphabeta import SearchRunner
from boardlab.search.mcts import mcts_search

PLAYOUT_PLIES = 200
MIDGAME_PLIES = (8, 20)
POSITION_ATTEMPTS = 10_000


@dataclass
class Figure:
    """One measured figure."""

    name: str
    value: float
    unit: str
    detail: str = ""


def midgame_positions(game: Game | str = "quixo", count: int = 20, seed: int = 5) -> list[State]:
    """A fixed set of mid-game positions: 8 to 20 random plies from the start, kept when the
    game goes on (in a game too short for that, the last position before its end)."""
    game = parse_game(game)
    rng = random.Random(seed)
    positions: list[State] = []
    attempts = 0
    while len(positions) < count:
        attempts += 1
        state, before = game.initial(), game.initial()
        target = rng.randint(*MIDGAME_PLIES)
        while state.ply < target and not state.is_over:
            before, state = state, state.play_index(rng.choice(state.legal_indices()))
        if not state.is_over:
            positions.append(state)
        elif attempts > POSITION_ATTEMPTS and not before.is_over:
            positions.append(before)
    return positions


def playout_speed(game: Game | str = "quixo", games: int = 20_000) -> Figure:
    """Random playouts from the start: moves per second on one core."""
    game = parse_game(game)
    a, b = game.initial_words()
    random_playouts(game.kernel, a, b, 10, PLAYOUT_PLIES, 0)
    start = time.perf_counter()
    moves = random_playouts(game.kernel, a, b, games, PLAYOUT_PLIES, 1)
    seconds = time.perf_counter() - start
    return Figure(
        "random playouts", moves / seconds, "moves/s", f"{games} games, {moves / games:.1f} plies each"
    )


def perft_speed(game: Game | str = "quixo", depth: int = 5) -> Figure:
    """Time of perft from the start (the game's own way of counting games that end early)."""
    game = parse_game(game)
    a, b = game.initial_words()
    perft(game.kernel, a, b, 2, game.perft_ended_leaves)
    start = time.perf_counter()
    leaves = perft(game.kernel, a, b, depth, game.perft_ended_leaves)
    seconds = time.perf_counter() - start
    return Figure(f"perft({depth})", seconds, "s", f"{leaves:,} leaves")


def alphabeta_speed(depth: int, positions: list[State], eval_name: str = "") -> list[Figure]:
    """Average time per move and nodes per second of a fixed-depth search (fresh tables)."""
    runner = SearchRunner(positions[0].kernel, eval_name)
    jitter = np.zeros(runner.kernel.num_actions)
    runner.search(*positions[0].words, 2, jitter)
    nodes = 0
    seconds = 0.0
    for state in positions:
        runner.reset()
        start = time.perf_counter()
        _, _, count, _ = runner.search(*state.words, depth, jitter)
        seconds += time.perf_counter() - start
        nodes += count
    detail = f"{len(positions)} mid-game positions, eval {eval_name or positions[0].game.evaluations[0]}"
    return [
        Figure(f"alpha-beta depth {depth}", seconds / len(positions), "s/move", detail),
        Figure(
            f"alpha-beta depth {depth} speed",
            nodes / max(seconds, 1e-9),
            "nodes/s",
            f"{nodes // len(positions):,} nodes/move",
        ),
    ]


def mcts_speed(iterations: int, positions: list[State]) -> Figure:
    """MCTS simulations per second with random rollouts."""
    rng = np.random.default_rng(0)
    kernel = positions[0].kernel
    mcts_search(kernel, *positions[0].words, 100, 0.0, 1.4, PLAYOUT_PLIES, rng)
    start = time.perf_counter()
    for state in positions:
        mcts_search(kernel, *state.words, iterations, 0.0, 1.4, PLAYOUT_PLIES, rng)
    seconds = time.perf_counter() - start
    return Figure(
        "MCTS", iterations * len(positions) / seconds, "simulations/s", f"{iterations} iterations/move"
    )


def engine_figures(game: Game | str = "quixo", quick: bool = False, eval_name: str = "") -> list[Figure]:
    """All engine figures of a game; ``quick`` uses smaller workloads; ``eval_name`` is
    alpha-beta's evaluation (default: the game's first)."""
    game = parse_game(game)
    positions = midgame_positions(game, 8 if quick else 20)
    figures = [playout_speed(game, 2_000 if quick else 20_000), perft_speed(game, 4 if quick else 5)]
    for depth in (5,) if quick else (5, 6, 7):
        figures += alphabeta_speed(depth, positions, eval_name)
    figures.append(mcts_speed(2_000 if quick else 10_000, positions[:4] if quick else positions))
    return figures
