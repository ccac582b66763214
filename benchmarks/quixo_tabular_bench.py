"""Tabular learners on Quixo 3x3 and 4x4: move accuracy against the tablebase as training goes.

    .venv/bin/python benchmarks/quixo_tabular_bench.py [--sizes 3,4] [--methods qlearning,mcrl]
        [--shapings none,fullest] [--episodes 3=200000,4=1000000] [--points 6] [--games 10]
        [--out results/quixo-tabular]

For each board size, method (Q-learning, Monte Carlo value learning) and shaping (``none``, or
``fullest``: potential-based shaping with the lead of the fullest own line over the fullest
opponent line as potential, see :mod:`boardlab.train.tabular`), one self-play run with the
default hyper-parameters (seed 0) is trained up to its episode budget. At ``--points``
episode counts spaced geometrically (from 1,000) the greedy policy is saved and judged by the
oracle (:func:`boardlab.arena.oracle.measure`, the Quixo tables as judge): ``--games`` games
against each of random, greedy and alpha-beta at depth 2, the learner on both sides, short
random openings; printed are the share of its moves keeping the perfect-play value (all moves,
and each position once per game), the share of won positions it threw away, its wins / draws /
losses over those games, the table size and the training seconds so far (judging excluded).
The random and greedy agents are judged the same way as baselines. Writes
``quixo_tabular.json`` and the plot ``quixo_tabular_accuracy.png`` to ``--out``.

On 3x3 each final table is also checked on every position: the share of the open positions
(every board of X, O and blanks that is not finished, the side to move either colour) where
each of the greedy moves keeps the perfect-play value (``all positions``).

The 4x4 judge reads the retrograde tables from the user cache folder (build them with
``boardlab solve quixo --size 4``); 3x3 is solved in memory. One process, so one core.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from boardlab.agents.tabular import forget_models
from boardlab.arena.oracle import OracleReport, judge_for, measure
from boardlab.core.files import atomic_savefig, atomic_write_text
from boardlab.games import ExactPlay, parse_game
from boardlab.games.base import ONGOING
from boardlab.models.tabular import TabularPolicy
from boardlab.train.tabular import Trainer, params_for

OPPONENTS = ("random", "greedy", "alphabeta:depth=2")
BASELINES = ("random", "greedy")
FIRST_POINT = 1_000


def checkpoints(total: int, points: int) -> list[int]:
    """``points`` episode counts from FIRST_POINT to ``total``, spaced geometrically."""
    if points <= 1 or total <= FIRST_POINT:
        return [total]
    ratio = (total / FIRST_POINT) ** (1 / (points - 1))
    counts = {round(FIRST_POINT * ratio**i, -2) for i in range(points - 1)}
    return sorted({int(c) for c in counts if 0 < c < total} | {total})


def judged(agent: str, game: Any, judge: ExactPlay, games: int) -> tuple[dict[str, Any], OracleReport]:
    """The oracle's figures for ``agent`` (a spec) against OPPONENTS."""
    report = measure(agent, game, opponents=OPPONENTS, games=games, seed=0, judge=judge)
    tally = report.tally
    figures = {
        "accuracy": report.accuracy,
        "distinct_accuracy": report.distinct.accuracy,
        "exact_accuracy": report.exact_accuracy,
        "moves": report.moves,
        "won_positions": tally.won,
        "thrown": tally.thrown,
        "thrown_share": tally.thrown / tally.won if tally.won else 0.0,
        "games": report.games,
        "thrown_games": report.thrown_games,
        "wins": sum(r.wins for r in report.opponents),
        "draws": sum(r.draws for r in report.opponents),
        "losses": sum(r.losses for r in report.opponents),
        "oracle_seconds": round(report.seconds, 2),
    }
    return figures, report


def every_position_accuracy(policy: TabularPolicy, game: Any) -> tuple[int, int]:
    """``(positions where every greedy move keeps the value, open positions)`` over every board
    of a small Quixo (3**cells boards; 3x3 only, in practice)."""
    from boardlab.games.quixo.exact import move_values

    kernel, cells = game.kernel, int(game.size) ** 2
    good = total = 0
    for code in range(3**cells):
        me = opp = 0
        for cell in range(cells):
            code, digit = divmod(code, 3)
            me |= (digit == 1) << cell
            opp |= (digit == 2) << cell
        if kernel.status(kernel.ctx, me, opp) != ONGOING:
            continue
        state = game.state(me, opp, 0, 0)
        best = max(v.value for v in move_values(state))
        keeps = {v.action for v in move_values(state) if v.value == best}
        total += 1
        good += set(policy.best_actions(me, opp)) <= keeps
    return good, total


def run(
    game: Any,
    judge: ExactPlay,
    method: str,
    shaping: str,
    episodes: int,
    points: int,
    games: int,
    folder: Path,
) -> list[dict[str, Any]]:
    """One training run judged at each checkpoint."""
    trainer = Trainer.start(game, method, params_for(method, {"shaping": shaping}), seed=0)
    path = folder / f"{method}-{shaping}.npz"
    rows = []
    seconds = 0.0
    for target in checkpoints(episodes, points):
        seconds += trainer.train(target - trainer.episodes)
        trainer.save(path)
        figures, _ = judged(f"{method}:model={path}", game, judge, games)
        forget_models()
        rows.append(
            {
                "method": method,
                "shaping": shaping,
                "episodes": trainer.episodes,
                "train_seconds": round(seconds, 2),
                "entries": len(trainer.model.table),
                "model_bytes": path.stat().st_size,
                **figures,
            }
        )
    path.unlink()
    if int(game.size) == 3:
        good, total = every_position_accuracy(trainer.policy(), game)
        rows[-1] |= {"all_positions": good / total, "open_positions": total}
    return rows


def print_rows(console: Console, title: str, rows: list[dict[str, Any]]) -> None:
    """The figures of one board size as a table."""
    table = Table(title=title)
    columns = ("agent", "episodes", "train s", "entries", "accuracy", "distinct", "won thrown", "W/D/L")
    columns += ("all positions",)
    for column in columns:
        table.add_column(column, justify="right")
    for r in rows:
        name = r["method"] if r["shaping"] == "none" else f"{r['method']}+{r['shaping']}"
        table.add_row(
            name,
            "-" if r["episodes"] is None else f"{r['episodes']:,}",
            "-" if r["train_seconds"] is None else f"{r['train_seconds']:.1f}",
            "-" if r["entries"] is None else f"{r['entries']:,}",
            f"{r['accuracy']:.1%}",
            f"{r['distinct_accuracy']:.1%}",
            f"{r['thrown']}/{r['won_positions']}",
            f"{r['wins']}/{r['draws']}/{r['losses']}",
            f"{r['all_positions']:.1%}" if "all_positions" in r else "",
        )
    console.print(table)


def plot(results: dict[int, list[dict[str, Any]]], path: Path) -> Path:
    """Accuracy (each position once per game: loops of a deterministic policy would weigh one
    mistake many times) against episodes, one panel per board size, baselines dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(results)
    figure, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 4.5), squeeze=False)
    for ax, size in zip(axes[0], sizes, strict=True):
        rows = results[size]
        runs = sorted({(r["method"], r["shaping"]) for r in rows if r["episodes"] is not None})
        for method, shaping in runs:
            points = [r for r in rows if (r["method"], r["shaping"]) == (method, shaping)]
            label = method if shaping == "none" else f"{method} + {shaping} shaping"
            style = "-" if shaping == "none" else "--"
            ax.plot(
                [r["episodes"] for r in points],
                [100 * r["distinct_accuracy"] for r in points],
                style,
                marker="o",
                label=label,
            )
        baselines = [r for r in rows if r["episodes"] is None]
        for r, colour in zip(baselines, ("grey", "black"), strict=False):
            ax.axhline(
                100 * r["distinct_accuracy"],
                color=colour,
                linestyle=":",
                linewidth=1,
                label=f"{r['method']} agent",
            )
        ax.set_xscale("log")
        ax.set_xlabel("training episodes (self-play)")
        ax.set_ylabel("moves keeping the perfect-play value (%, distinct positions)")
        ax.set_title(f"Quixo {size}x{size}: greedy policy judged by the tablebase")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    figure.tight_layout()
    try:
        return atomic_savefig(figure, path, dpi=110)
    finally:
        plt.close(figure)


def parse_budgets(text: str) -> dict[int, int]:
    """``3=200000,4=1000000`` -> {3: 200000, 4: 1000000}; ``ValueError`` for anything else."""
    out = {}
    for part in text.split(","):
        size, _, count = part.partition("=")
        try:
            out[int(size)] = int(count)
        except ValueError:
            raise ValueError(
                f"--episodes takes SIZE=EPISODES pairs such as 3=200000,4=1000000, got {text!r}"
            ) from None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3,4")
    parser.add_argument("--methods", default="qlearning,mcrl")
    parser.add_argument("--shapings", default="none,fullest")
    parser.add_argument("--episodes", default="3=200000,4=1000000", help="episodes per run, by size")
    parser.add_argument("--points", type=int, default=6, help="judged points per run")
    parser.add_argument("--games", type=int, default=10, help="judged games per opponent and point")
    parser.add_argument("--out", type=Path, default=Path("results/quixo-tabular"))
    args = parser.parse_args()
    console = Console(width=130)
    console.print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    try:
        budgets = parse_budgets(args.episodes)
    except ValueError as error:
        parser.error(str(error))
    unbudgeted = [size for size in args.sizes.split(",") if not size.isdigit() or int(size) not in budgets]
    if unbudgeted:
        parser.error(f"--episodes gives no budget for size {', '.join(unbudgeted)} of --sizes {args.sizes}")
    results: dict[int, list[dict[str, Any]]] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        for size in (int(s) for s in args.sizes.split(",")):
            game = parse_game(f"quixo:size={size}")
            judge = judge_for(game)
            rows = []
            for baseline in BASELINES:
                figures, _ = judged(baseline, game, judge, args.games)
                rows.append(
                    {"method": baseline, "shaping": "none", "episodes": None, "train_seconds": None}
                    | {"entries": None, "model_bytes": None, **figures}
                )
            for method in args.methods.split(","):
                for shaping in args.shapings.split(","):
                    rows += run(
                        game, judge, method, shaping, budgets[size], args.points, args.games, Path(scratch)
                    )
                    elapsed = time.perf_counter() - started
                    console.print(f"  {size}x{size} {method} {shaping}: done at {elapsed:.0f} s")
            results[size] = rows
            print_rows(console, f"Quixo {size}x{size}: judged by {judge.title}", rows)
            args.out.mkdir(parents=True, exist_ok=True)
            atomic_write_text(args.out / "quixo_tabular.json", json.dumps(results, indent=1) + "\n")
            plot(results, args.out / "quixo_tabular_accuracy.png")
    console.print(f"load average {os.getloadavg()[0]:.2f} at the end; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
