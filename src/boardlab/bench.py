"""Speed measurements of the Quixo engine and searches (used by `boardlab bench` and benchmarks/).

Every figure is measured after a warm-up call, so compile time is excluded.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from boardlab.agents.mcts import mcts_search
from boardlab.games import quixo_kernel as qk
from boardlab.games.quixo import State
from boardlab.search.alphabeta import SearchRunner


@dataclass
class Figure:
    """One measured figure."""

    name: str
    value: float
    unit: str
    detail: str = ""


def midgame_positions(count: int = 20, seed: int = 5, size: int = 5) -> list[State]:
    """A fixed set of mid-game positions: 8 to 20 random plies from the empty board."""
    rng = random.Random(seed)
    positions: list[State] = []
    while len(positions) < count:
        state = State.initial(size)
        target = rng.randint(8, 20)
        while state.ply < target and not state.is_over:
            state = state.play_index(rng.choice(state.legal_indices()))
        if not state.is_over:
            positions.append(state)
    return positions


def playout_speed(games: int = 20_000, size: int = 5) -> Figure:
    """Random playouts from the empty board: moves per second on one core."""
    ctx = qk.kernel(size).ctx
    qk.random_games(ctx, 10, 200, 0)
    start = time.perf_counter()
    moves = qk.random_games(ctx, games, 200, 1)
    seconds = time.perf_counter() - start
    return Figure(
        "random playouts", moves / seconds, "moves/s", f"{games} games, {moves / games:.1f} plies each"
    )


def perft_speed(depth: int = 5, size: int = 5) -> Figure:
    """Time of perft from the empty board."""
    ctx = qk.kernel(size).ctx
    qk.perft(ctx, np.int64(0), np.int64(0), 2)
    start = time.perf_counter()
    leaves = qk.perft(ctx, np.int64(0), np.int64(0), depth)
    seconds = time.perf_counter() - start
    return Figure(f"perft({depth})", seconds, "s", f"{leaves:,} leaves")


def alphabeta_speed(depth: int, positions: list[State], eval_name: str = "lines3") -> list[Figure]:
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
    detail = f"{len(positions)} mid-game positions, eval {eval_name}"
    return [
        Figure(f"alpha-beta depth {depth}", seconds / len(positions), "s/move", detail),
        Figure(
            f"alpha-beta depth {depth} speed",
            nodes / seconds,
            "nodes/s",
            f"{nodes // len(positions):,} nodes/move",
        ),
    ]


def mcts_speed(iterations: int, positions: list[State]) -> Figure:
    """MCTS simulations per second with random rollouts."""
    rng = np.random.default_rng(0)
    kernel = positions[0].kernel
    mcts_search(kernel, *positions[0].words, 100, 0.0, 1.4, 200, rng)
    start = time.perf_counter()
    for state in positions:
        mcts_search(kernel, *state.words, iterations, 0.0, 1.4, 200, rng)
    seconds = time.perf_counter() - start
    return Figure(
        "MCTS", iterations * len(positions) / seconds, "simulations/s", f"{iterations} iterations/move"
    )


def engine_figures(quick: bool = False) -> list[Figure]:
    """All engine figures; ``quick`` uses smaller workloads."""
    positions = midgame_positions(8 if quick else 20)
    figures = [playout_speed(2_000 if quick else 20_000), perft_speed(4 if quick else 5)]
    for depth in (5,) if quick else (5, 6, 7):
        figures += alphabeta_speed(depth, positions)
    figures.append(mcts_speed(2_000 if quick else 10_000, positions[:4] if quick else positions))
    return figures
