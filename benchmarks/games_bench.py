"""Connect Four and Tic-Tac-Toe engine speed, with OpenSpiel's C++ core as the peer.

    .venv/bin/pip install open_spiel        # the peer; not a boardlab dependency
    .venv/bin/python benchmarks/games_bench.py [--quick]

One process, so one core; compile time is excluded (every figure follows a warm-up call).
Printed sections:
- Connect Four 7x6 random playouts: boardlab's kernel, and OpenSpiel's C++ random rollouts
  (``RandomRolloutEvaluator`` from the start position) in the same run;
- Connect Four MCTS with one random rollout per iteration: boardlab's ``mcts_search`` and
  OpenSpiel's C++ ``MCTSBot`` from the start position, simulations per second and the ratio;
- alpha-beta nodes per second on Connect Four and Tic-Tac-Toe;
- plain minimax against alpha-beta on 4x4 Connect Four: nodes to each depth, and alpha-beta
  solving it to the end.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from boardlab.games import parse_game
from boardlab.games.connect4 import kernel as c4k
from boardlab.search.alphabeta import SearchRunner
from boardlab.search.mcts import mcts_search
from boardlab.search.minimax import compiled_minimax


def boardlab_playouts(games: int) -> tuple[float, float]:
    """(moves/s, games/s) of uniformly random Connect Four games from the empty board."""
    ctx = parse_game("connect4").kernel.ctx
    c4k.random_games(ctx, 10, 0)
    start = time.perf_counter()
    moves = c4k.random_games(ctx, games, 1)
    seconds = time.perf_counter() - start
    return moves / seconds, games / seconds


def openspiel_playouts(games: int) -> float | None:
    """Games/s of OpenSpiel's C++ random rollouts from the start (None without open_spiel).

    An MCTSBot allowed a single simulation evaluates the start position with ``games``
    random rollouts of its RandomRolloutEvaluator, all in C++.
    """
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()

    def rollouts(count: int) -> float:
        evaluator = pyspiel.RandomRolloutEvaluator(count, 1)
        bot = pyspiel.MCTSBot(game, evaluator, 1.4, 1, 1000, False, 1, False)
        start = time.perf_counter()
        bot.step(state)
        return time.perf_counter() - start

    rollouts(10)
    return games / rollouts(games)


def boardlab_mcts(simulations: int, repeats: int) -> float:
    """Simulations/s of boardlab's UCT (one random rollout per iteration) from the start."""
    state = parse_game("connect4").initial()
    rng = np.random.default_rng(0)
    mcts_search(state.kernel, *state.words, 100, 0.0, 1.4, 100, rng)
    start = time.perf_counter()
    for _ in range(repeats):
        mcts_search(state.kernel, *state.words, simulations, 0.0, 1.4, 100, rng)
    return simulations * repeats / (time.perf_counter() - start)


def openspiel_mcts(simulations: int, repeats: int) -> float | None:
    """Simulations/s of OpenSpiel's C++ MCTSBot (one random rollout per simulation)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()

    def bot(sims: int, seed: int) -> object:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        return pyspiel.MCTSBot(game, evaluator, 1.4, sims, 1000, False, seed, False)

    bot(100, 0).step(state)
    start = time.perf_counter()
    for r in range(repeats):
        bot(simulations, r + 1).step(state)
    return simulations * repeats / (time.perf_counter() - start)


def alphabeta_speed(spec: str, depth: int, positions: int, seed: int = 3) -> tuple[float, int]:
    """(nodes/s, nodes per search) of fixed-depth alpha-beta from random mid-game positions."""
    game = parse_game(spec)
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < positions:
        state = game.initial()
        for _ in range(int(rng.integers(2, 8))):
            if state.is_over:
                break
            state = state.play_index(int(rng.choice(state.legal_indices())))
        if not state.is_over:
            states.append(state)
    runner = SearchRunner(game.kernel, "")
    jitter = np.zeros(game.kernel.num_actions)
    runner.search(*states[0].words, 2, jitter)
    nodes, seconds = 0, 0.0
    for state in states:
        runner.reset()
        start = time.perf_counter()
        nodes += runner.search(*state.words, depth, jitter)[2]
        seconds += time.perf_counter() - start
    return nodes / seconds, nodes // len(states)


def minimax_against_alphabeta(max_depth: int) -> list[tuple[int, int, int, float, float]]:
    """On 4x4 Connect Four from the empty board: (depth, minimax nodes, alpha-beta nodes, times)."""
    game = parse_game("connect4:width=4,height=4")
    kernel = game.kernel
    negamax = compiled_minimax(kernel)
    rows = []
    for depth in range(1, max_depth + 1):
        start = time.perf_counter()
        _, _, minimax_nodes = negamax(kernel.ctx, np.int64(0), np.int64(0), depth, 0)
        minimax_seconds = time.perf_counter() - start
        runner = SearchRunner(kernel, "")
        start = time.perf_counter()
        ab_nodes = runner.search(0, 0, depth, np.zeros(kernel.num_actions))[2]
        rows.append((depth, int(minimax_nodes), ab_nodes, minimax_seconds, time.perf_counter() - start))
    return rows


def solve_small_board() -> tuple[float, int, float]:
    """Alpha-beta to the end of 4x4 Connect Four: (score, nodes, seconds)."""
    kernel = parse_game("connect4:width=4,height=4").kernel
    runner = SearchRunner(kernel, "", tt_log2=20)
    start = time.perf_counter()
    _, score, nodes, _ = runner.search(0, 0, 16, np.zeros(kernel.num_actions))
    return score, nodes, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller workloads")
    quick = parser.parse_args().quick
    console = Console()

    games = 20_000 if quick else 200_000
    moves_s, games_s = boardlab_playouts(games)
    peer_games = openspiel_playouts(games // 4)
    table = Table(title="Connect Four 7x6 random playouts (one core)")
    for column in ("engine", "moves/s", "games/s", "boardlab / peer"):
        table.add_column(column, justify="right")
    table.add_row("boardlab", f"{moves_s:,.0f}", f"{games_s:,.0f}", "")
    if peer_games is not None:
        table.add_row("OpenSpiel C++", "", f"{peer_games:,.0f}", f"{games_s / peer_games:.2f}x")
    console.print(table)

    sims, repeats = (5_000, 3) if quick else (20_000, 10)
    ours = boardlab_mcts(sims, repeats)
    peer = openspiel_mcts(sims, repeats)
    table = Table(title=f"Connect Four MCTS from the start, {sims:,} simulations x {repeats} (one core)")
    for column in ("engine", "simulations/s", "boardlab / peer"):
        table.add_column(column, justify="right")
    table.add_row("boardlab mcts", f"{ours:,.0f}", "")
    if peer is not None:
        table.add_row("OpenSpiel C++ MCTSBot", f"{peer:,.0f}", f"{ours / peer:.2f}x")
    console.print(table)

    table = Table(title="Alpha-beta speed (default evaluation, fresh tables per position)")
    for column in ("game", "depth", "nodes/s", "nodes/search"):
        table.add_column(column, justify="right")
    for spec, depth in (("connect4", 8 if quick else 10), ("tictactoe", 9)):
        speed, per = alphabeta_speed(spec, depth, 5 if quick else 20)
        table.add_row(spec, str(depth), f"{speed:,.0f}", f"{per:,}")
    console.print(table)

    table = Table(title="Plain minimax against alpha-beta, 4x4 Connect Four from the empty board")
    for column in ("depth", "minimax nodes", "alpha-beta nodes", "minimax s", "alpha-beta s"):
        table.add_column(column, justify="right")
    for depth, mm, ab, mm_s, ab_s in minimax_against_alphabeta(8 if quick else 11):
        table.add_row(str(depth), f"{mm:,}", f"{ab:,}", f"{mm_s:.3f}", f"{ab_s:.3f}")
    console.print(table)
    score, nodes, seconds = solve_small_board()
    console.print(
        f"alpha-beta to the end of 4x4 Connect Four: score {score:,.0f}, {nodes:,} nodes, {seconds:.2f} s"
    )


if __name__ == "__main__":
    main()
