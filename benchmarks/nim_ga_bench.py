"""Evolved Nim players: roulette-wheel against tournament selection, and optimal-move shares.

    .venv/bin/python benchmarks/nim_ga_bench.py [--seeds 3] [--epochs 50] [--rules-epochs 60]
        [--out results/nim-ga-bench] [--ship PATH --ship-selection S --ship-seed N]

One process, one core; compile time is excluded (a warm-up run comes first).

1. The ``target`` genome (preferred nim-sum and range, the earlier work's genome) on Nim
   1-3-5-7, normal play and misère, from the starting piles, fitness = games won against
   ``random`` and ``optimal`` (both seats): for each selection method and seed, the share of
   fitness games the whole population wins in the last epoch, the best genome's share,
   the population's diversity, the best genome and its optimal-move share over the won
   positions within 1-3-5-7.
2. The ``rules`` genome (weights of move features per play convention) on Nim with 4 piles of
   up to 7, normal and misère, without a move limit and with k = 2 and k = 3, fitness = games
   won against ``optimal`` from random positions: the first epoch at which the best genome
   plays every won position of all six games optimally (exhaustive: 4,096 positions each), the
   final share per game, and the share on games it never trained on.
3. The shipped model's exhaustive shares on the games it claims.

The plots of seed 0 (both selection methods on the same axes) go to ``--out``. With ``--ship``
the rules run of ``--ship-selection`` and ``--ship-seed`` is written as the shipped model, with
the exhaustive share of every training and unseen game it plays perfectly recorded as its claims.
The shipped ``src/boardlab/models/nim-ga.json`` is ``--ship-selection roulette --ship-seed 1``
(defaults; the run that also plays all seven unseen games perfectly).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from boardlab.agents.nim_genome import shipped_model
from boardlab.games import parse_game
from boardlab.models.nim_genome import load_model
from boardlab.train.nim_ga import (
    Evolution,
    GAParams,
    accuracy,
    save_player,
)
from boardlab.train.plots import write_ga_plots

SELECTIONS = ("roulette", "tournament")
TARGET_GAMES = {"normal": "nim:misere=false", "misère": "nim"}
RULES_GAMES = [f"nim:piles=7-7-7-7{k}{m}" for k in ("", ",k=2", ",k=3") for m in ("", ",misere=false")]
UNSEEN_GAMES = [
    "nim:misere=false",
    "nim",
    "nim:piles=7-7-7-7,k=1",
    "nim:piles=7-7-7-7,k=4,misere=false",
    "nim:piles=7-7-7-7,k=5",
    "nim:piles=9-9-9",
    "nim:piles=4-4-4-4-4,k=3,misere=false",
]


def wins_share(record: dict) -> float:
    return sum(record["fitness"]) / (len(record["fitness"]) * record["games"])


def evolve(
    games, params: GAParams, seed: int, epochs: int, watch=None
) -> tuple[Evolution, float, int | None]:
    """A run of ``epochs`` epochs; the seconds it took and the first epoch at which ``watch``
    (a run -> bool) held and kept holding to the end (None if it does not hold at the end)."""
    started = time.perf_counter()
    run = Evolution.start(games, params, seed)
    stable = 0 if watch is not None and watch(run) else None
    while run.epoch < epochs:
        run.step()
        if watch is not None:
            if watch(run):
                stable = run.epoch if stable is None else stable
            else:
                stable = None
    return run, time.perf_counter() - started, stable


def mean_sd(values: list[float], scale: float = 1.0, digits: int = 1) -> str:
    mean = statistics.fmean(values) * scale
    if len(values) < 2:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {statistics.stdev(values) * scale:.{digits}f}"


def target_part(console: Console, seeds: int, epochs: int, out: Path) -> None:
    table = Table(title=f"target genome on Nim 1-3-5-7, {epochs} epochs, {seeds} seeds (mean ± sd)")
    for column in (
        "play",
        "selection",
        "population wins %",
        "best genome wins %",
        "optimal player wins %",
        "diversity",
        "best genome (pref, range)",
        "optimal moves %",
        "seconds / run",
    ):
        table.add_column(column, justify="right")
    for play, spec in TARGET_GAMES.items():
        game = parse_game(spec)
        params = {"genome": "target", "pool": "both", "starts": "initial"}
        histories = {}
        for selection in SELECTIONS:
            rows = []
            for seed in range(seeds):
                run, seconds, _ = evolve([game], GAParams(selection=selection, **params), seed, epochs)
                last = run.history[-1]
                rows.append(
                    (
                        wins_share(last),
                        max(last["fitness"]) / last["games"],
                        last["reference"] / last["games"],
                        last["diversity"],
                        run.best,
                        accuracy("target", run.best, game).share,
                        seconds,
                    )
                )
                if seed == 0:
                    histories[f"{selection} selection"] = run.history
            genomes = np.array([r[4] for r in rows])
            table.add_row(
                play,
                selection,
                mean_sd([r[0] for r in rows], 100),
                mean_sd([r[1] for r in rows], 100),
                mean_sd([r[2] for r in rows], 100),
                mean_sd([r[3] for r in rows], 1, 3),
                f"({np.median(genomes[:, 0]):.3f}, {np.median(genomes[:, 1]):.3f})",
                mean_sd([r[5] for r in rows], 100),
                mean_sd([r[6] for r in rows], 1, 2),
            )
        folder = out / ("target-normal" if play == "normal" else "target-misere")
        paths = write_ga_plots(folder, histories, "target", f"target genome on {spec}, seed 0")
        console.print(f"plots: {', '.join(str(p) for p in paths)}")
    console.print(table)
    console.print(
        "population wins: share of all fitness games the last epoch's population won (20 games against "
        "random and 20 against optimal per genome, seats alternating; at most about 75%: the start is "
        "lost for the first player); optimal player: the hand-written optimal rules genome on the same "
        "games; best genome (pref, range): median over seeds."
    )


def rules_part(console: Console, seeds: int, epochs: int, out: Path, ship: tuple | None) -> None:
    games = [parse_game(spec) for spec in RULES_GAMES]
    unseen = [parse_game(spec) for spec in UNSEEN_GAMES]
    table = Table(title=f"rules genome on {len(games)} Nim games of 4 piles up to 7, {epochs} epochs")
    for column in (
        "selection",
        "seed",
        "100% from epoch",
        *(_short(s) for s in RULES_GAMES),
        "unseen 100%",
        "s",
    ):
        table.add_column(column, justify="right")
    histories = {}
    for selection in SELECTIONS:
        for seed in range(seeds):

            def perfect(run: Evolution) -> bool:
                return all(v == 1.0 for v in run.history[-1]["accuracy"].values())

            run, seconds, stable = evolve(games, GAParams(selection=selection), seed, epochs, perfect)
            shares = [accuracy("rules", run.best, g) for g in games]
            others = [accuracy("rules", run.best, g) for g in unseen]
            table.add_row(
                selection,
                str(seed),
                "never" if stable is None else str(stable),
                *(f"{100 * a.share:.2f}" for a in shares),
                f"{sum(a.share == 1.0 for a in others)}/{len(others)}",
                f"{seconds:.1f}",
            )
            if seed == 0:
                histories[f"{selection} selection"] = run.history
            if ship is not None and (selection, seed) == ship[1:]:
                verify = [g for g, a in zip(games + unseen, shares + others, strict=True) if a.share == 1.0]
                save_player(ship[0], run, verify)
                console.print(f"shipped model written to {ship[0]} ({ship[0].stat().st_size:,} bytes)")
    console.print(table)
    console.print(
        "100% from epoch: the first epoch from which the best genome plays every won position of all "
        "six training games optimally to the end of the run; unseen: " + "; ".join(UNSEEN_GAMES)
    )
    paths = write_ga_plots(out / "rules", histories, "rules", "rules genome on 4 piles up to 7, seed 0")
    console.print(f"plots: {', '.join(str(p) for p in paths)}")


def _short(spec: str) -> str:
    text = spec.replace("nim:piles=7-7-7-7", "").replace(",misere=false", " normal").lstrip(",")
    text = text or "misère"
    return text if "normal" in text else (text + " misère" if text != "misère" else text)


def shipped_part(console: Console) -> None:
    path = shipped_model()
    if path is None:
        console.print("no shipped model")
        return
    model = load_model(path)
    table = Table(title=f"shipped model {path.name}: exhaustive optimal-move share")
    for column in ("game", "positions", "won", "optimal", "%"):
        table.add_column(column, justify="right")
    for claim in model.header.get("verified", []):
        a = accuracy(model.kind, model.genome, parse_game(claim["game"]))
        table.add_row(a.game, f"{a.positions:,}", f"{a.won:,}", f"{a.optimal:,}", f"{100 * a.share:.2f}")
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=50, help="epochs of the target-genome runs")
    parser.add_argument("--rules-epochs", type=int, default=60, help="epochs of the rules-genome runs")
    parser.add_argument("--out", type=Path, default=Path("results/nim-ga-bench"))
    parser.add_argument("--ship", type=Path, default=None, help="write the shipped model here")
    parser.add_argument("--ship-selection", choices=SELECTIONS, default="roulette")
    parser.add_argument("--ship-seed", type=int, default=1)
    args = parser.parse_args()
    for option in ("seeds", "epochs", "rules_epochs"):
        if getattr(args, option) < 1:
            parser.error(f"--{option.replace('_', '-')} must be at least 1, got {getattr(args, option)}")
    console = Console(width=160)
    evolve([parse_game("nim")], GAParams(genome="target", population=4, games=2), 0, 1)  # warm-up: compile
    evolve([parse_game("nim")], GAParams(population=4, games=2), 0, 1)
    started = time.perf_counter()
    target_part(console, args.seeds, args.epochs, args.out)
    ship = None if args.ship is None else (args.ship, args.ship_selection, args.ship_seed)
    rules_part(console, args.seeds, args.rules_epochs, args.out, ship)
    shipped_part(console)
    console.print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
