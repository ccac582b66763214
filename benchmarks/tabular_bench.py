"""Tabular reinforcement learning on Tic-Tac-Toe: episodes and seconds to perfect play, and speed.

    .venv/bin/python benchmarks/tabular_bench.py [--seeds 5] [--episodes 30000] [--step 250]

One process, so one core; compile time is excluded (every figure follows a warm-up run).
For each method (Q-learning, Monte Carlo value learning) with its default hyper-parameters and
each seed 0..N-1, training runs in steps of ``--step`` episodes up to ``--episodes``; after
every step the greedy policy is checked exhaustively against the solved game
(:func:`boardlab.train.tabular.perfect_play_report`: every position reachable with the
learner on either side playing any of its greedy moves and the opponent playing anything).
Printed per run: the first episode count at which play is perfect, the count from which it
stays perfect at every later check up to the end, the training seconds to each (checks not
counted), and whether the final table is perfect. Then the training speed: episodes per second
over ``--speed-episodes`` episodes in one call, for each method.
"""

from __future__ import annotations

import argparse
import os
import statistics

from rich.console import Console
from rich.table import Table

from boardlab.games import parse_game
from boardlab.games.small_solver import Solution
from boardlab.train.tabular import Trainer, perfect_play_report

METHODS = ("qlearning", "mcrl")


def run(game, solution, method: str, seed: int, episodes: int, step: int) -> dict:
    """One training run checked after every step."""
    trainer = Trainer.start(game, method, seed=seed)
    seconds = 0.0
    first = stable = None
    first_s = stable_s = None
    while trainer.episodes < episodes:
        seconds += trainer.train(min(step, episodes - trainer.episodes))
        perfect = perfect_play_report(trainer.policy(), solution, limit=1).perfect
        if perfect:
            if first is None:
                first, first_s = trainer.episodes, seconds
            if stable is None:
                stable, stable_s = trainer.episodes, seconds
        else:
            stable = stable_s = None
    final = perfect_play_report(trainer.policy(), solution)
    return {
        "first": first,
        "first_s": first_s,
        "stable": stable,
        "stable_s": stable_s,
        "final_perfect": final.perfect,
        "positions": final.positions,
        "entries": len(trainer.model.table),
        "seconds": seconds,
    }


def speed(game, method: str, episodes: int) -> float:
    """Episodes per second of one long call (after a warm-up run that compiles)."""
    Trainer.start(game, method, seed=1).train(100)
    trainer = Trainer.start(game, method, seed=2)
    seconds = trainer.train(episodes)
    return episodes / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=30_000)
    parser.add_argument("--step", type=int, default=250)
    parser.add_argument("--speed-episodes", type=int, default=1_000_000)
    args = parser.parse_args()
    console = Console(width=130)
    console.print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")

    game = parse_game("tictactoe")
    solution = Solution(game.kernel)
    for method in METHODS:
        Trainer.start(game, method, seed=0).train(10)  # compile outside the timings
    table = Table(title=f"Tic-Tac-Toe: episodes to perfect play (checked every {args.step} episodes)")
    for column in (
        "method",
        "seed",
        "first perfect",
        "s",
        "perfect from",
        "s",
        "final",
        "positions",
        "entries",
    ):
        table.add_column(column, justify="right")
    summary = {}
    for method in METHODS:
        rows = [run(game, solution, method, seed, args.episodes, args.step) for seed in range(args.seeds)]
        summary[method] = rows
        for seed, r in enumerate(rows):
            table.add_row(
                method,
                str(seed),
                "-" if r["first"] is None else f"{r['first']:,}",
                "-" if r["first_s"] is None else f"{r['first_s']:.3f}",
                "-" if r["stable"] is None else f"{r['stable']:,}",
                "-" if r["stable_s"] is None else f"{r['stable_s']:.3f}",
                "perfect" if r["final_perfect"] else "MISTAKES",
                f"{r['positions']:,}",
                f"{r['entries']:,}",
            )
    console.print(table)
    for method, rows in summary.items():
        stable = [r["stable"] for r in rows if r["stable"] is not None]
        if stable:
            console.print(
                f"{method}: perfect from {statistics.median(stable):,.0f} episodes (median), "
                f"{max(stable):,} at worst, "
                f"{sum(r['final_perfect'] for r in rows)}/{len(rows)} perfect at the end"
            )

    speeds = Table(title=f"Training speed ({args.speed_episodes:,} episodes in one call, one core)")
    speeds.add_column("method")
    speeds.add_column("episodes/s", justify="right")
    for method in METHODS:
        speeds.add_row(method, f"{speed(game, method, args.speed_episodes):,.0f}")
    console.print(speeds)
    console.print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
