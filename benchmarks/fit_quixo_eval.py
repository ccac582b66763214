"""Fit Quixo's ``tuned`` or ``patterns`` evaluation to self-play outcomes and write the shipped
weights.

    .venv/bin/python benchmarks/fit_quixo_eval.py [--model tuned|patterns] [--sizes 3,4,5]
        [--games 3000] [--workers 2] [--seed 0] [--players SPEC ...] (--out FILE | --shipped)
        [--save POSITIONS.npz | --load POSITIONS.npz ...]

For each board size, ``--games`` games between random pairs of ``--players`` (by default
alpha-beta at depths 2-4 with ``lines2``, ``lines3`` and ``density``) from random openings are
played in ``--workers`` processes, and the weights are fitted to their results
(:mod:`boardlab.train.eval_fit`), a fifth of the games held out. Prints the weights (for
``patterns``, the ten largest) and the held-out log-loss of the model next to the best
logistic rescaling of ``lines2`` and ``lines3`` (and, for ``patterns``, a fit of ``tuned``) on
the same positions (lower is better; 0.693 is a coin flip), and for ``tuned`` the shipped weights
as they stand (``shipped``), then writes the weights as JSON to ``--out FILE`` (played with
``alphabeta:weights=FILE``), or with ``--shipped`` to the file the Quixo kernel reads,
``src/boardlab/games/quixo/data/quixo-<model>.json``; sizes not fitted in this run keep the
weights the file held.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from boardlab.core.files import atomic_write_text
from boardlab.train.eval_fit import DEFAULT_PLAYERS, FEWEST_GAMES, MODELS, Fit, Positions, fit, self_play

DATA = Path(__file__).resolve().parents[1] / "src/boardlab/games/quixo/data"
SHOWN = 10


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=MODELS, default="tuned", help="evaluation to fit")
    parser.add_argument("--sizes", default="3,4,5", help="board sizes, comma-separated")
    parser.add_argument("--games", type=int, default=3000, help="self-play games per size")
    parser.add_argument("--workers", type=int, default=2, help="processes playing the games")
    parser.add_argument("--seed", type=int, default=0, help="seed of the openings and players")
    parser.add_argument(
        "--players", nargs="+", default=list(DEFAULT_PLAYERS), help="agent specs of the self-play games"
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", type=Path, help="weights file to write (play it with alphabeta:weights=FILE)")
    where.add_argument(
        "--shipped", action="store_true", help="rewrite the weights the package ships (in src/)"
    )
    parser.add_argument("--save", type=Path, help="also write the self-play positions to this .npz file")
    parser.add_argument(
        "--load", type=Path, nargs="+", help="fit on positions saved by --save, not new games (one size)"
    )
    args = parser.parse_args(argv)
    if args.load is None and args.games < FEWEST_GAMES:
        parser.error(
            f"--games: at least {FEWEST_GAMES} (one game in {FEWEST_GAMES} is held out to judge the fit)"
        )
    if args.workers < 1:
        parser.error("--workers: at least 1")
    return args


def positions_for(
    size: int, games: int, workers: int, seed: int, players: list[str], progress: Progress
) -> Positions:
    """Self-play positions of ``games`` games split over ``workers`` processes."""
    shares = [games // workers + (i < games % workers) for i in range(workers)]
    task = progress.add_task(f"{size}x{size} self-play", total=workers)
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(self_play, size, n, seed + 1000 * i, players) for i, n in enumerate(shares)]
        parts = []
        for future in futures:
            parts.append(future.result())
            progress.advance(task)
    return Positions.join(parts)


def report(console: Console, fitted: Fit) -> None:
    """Print one size's weights and log-losses."""
    title = f"{fitted.model}, {fitted.size}x{fitted.size}: {fitted.positions:,} positions"
    weights = fitted.weights.items()
    if fitted.model == "patterns":
        title += f", the {SHOWN} largest of {len(weights)} weights"
        weights = sorted(weights, key=lambda item: -abs(item[1]))[:SHOWN]
    table = Table(title=title)
    table.add_column("feature")
    table.add_column("weight (logit)", justify="right")
    for name, weight in weights:
        table.add_row(name, f"{weight:+.4f}")
    table.add_row("(the move: intercept)", f"{fitted.intercept:+.4f}")
    console.print(table)
    losses = ", ".join(f"{name} {value:.4f}" for name, value in fitted.baselines.items())
    console.print(f"held-out log-loss: {fitted.model} {fitted.log_loss:.4f}; baselines {losses}")


def main(argv: list[str] | None = None) -> int:
    """Play, fit, print and write; returns the exit status."""
    args = _arguments(argv)
    console = Console()
    sizes = [int(s) for s in args.sizes.split(",")]
    out = DATA / f"quixo-{args.model}.json" if args.shipped else args.out
    previous = json.loads(out.read_text())["sizes"] if out.exists() else {}
    if (args.load or args.save) and len(sizes) != 1:
        console.print("[red]--load and --save take one board size: give it with --sizes[/red]")
        return 2
    fits = []
    with Progress(console=console) as progress:
        for size in sizes:
            if args.load:
                try:
                    positions = Positions.load(*args.load)
                except ValueError as error:
                    console.print(str(error), style="red", markup=False)
                    return 2
                if np.any((positions.me | positions.opp) >> (size * size)):
                    console.print(f"[red]the loaded positions are not of a {size}x{size} board[/red]")
                    return 2
            else:
                positions = positions_for(size, args.games, args.workers, args.seed, args.players, progress)
                if args.save:
                    positions.save(args.save)
            try:
                fits.append((fit(size, positions, model=args.model), positions))
            except ValueError as error:
                console.print(f"{size}x{size}: {error}; nothing written", style="red", markup=False)
                return 2
    for fitted, positions in fits:
        report(console, fitted)
        weights = fitted.to_json()
        games = len(np.unique(positions.game))
        weights["fit"].update(games=games, players=list(positions.players))
        if not args.load:
            weights["fit"]["seed"] = args.seed
        previous[str(fitted.size)] = weights
    document = {"sizes": dict(sorted(previous.items()))}
    atomic_write_text(out, json.dumps(document, indent=1) + "\n")
    console.print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
