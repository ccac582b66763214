"""What playing through Ray costs per game, against the local worker pool, on the same games.

Plays one match twice, the same schedule on each backend (same seed: the same games, which
the script checks game for game), with the same number of workers, into an in-memory store.
For each backend it prints the start-up (from the call to the first stored game, workers'
start and warm-up included), the seconds per game once running (from the first stored game
to the last, over the games after the first) and the whole run; then Ray's extra cost per
game. Starting the local Ray instance (``ray.init``) is timed on its own.

Usage:
    .venv/bin/python benchmarks/ray_overhead.py [--games 200] [--game tictactoe] \\
        [--agents random greedy] [--workers 2] [--address HOST:PORT]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from boardlab.arena import GameRecord, Store, TournamentConfig, run_tournament
from boardlab.play.backend import Backend, BackendError, LocalBackend, open_backend


@dataclass(frozen=True)
class Timing:
    """One backend's run: seconds to the first stored game, per game after it, in all."""

    backend: str
    first: float
    per_game: float
    total: float
    records: tuple[GameRecord, ...]


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games of the match (default 200)")
    parser.add_argument("--game", default="tictactoe", help="game spec (default tictactoe: short games)")
    parser.add_argument("--agents", nargs=2, default=["random", "greedy"], help="the two agent specs")
    parser.add_argument("--workers", type=int, default=2, help="workers on each backend (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="match seed")
    parser.add_argument(
        "--address", default=None, help="a Ray cluster's HOST:PORT (default: a local instance)"
    )
    args = parser.parse_args(argv)
    if args.games < 2 or args.workers < 1:
        parser.error("--games must be at least 2 and --workers at least 1")
    return args


def measure(config: TournamentConfig, workers: int, backend: Backend) -> Timing:
    """Play ``config`` on ``backend`` into a fresh in-memory store, timing each stored game."""
    stamps: list[float] = []
    started = time.perf_counter()
    with Store(":memory:") as store:
        run = run_tournament(
            config,
            store,
            workers=workers,
            backend=backend,
            on_game=lambda _: stamps.append(time.perf_counter()),
        )
    first, last = stamps[0] - started, stamps[-1] - started
    per_game = (last - first) / (len(stamps) - 1)
    return Timing(backend.name, first, per_game, last, run.records)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status."""
    args = _arguments(argv)
    config = TournamentConfig(tuple(args.agents), args.games, args.game, args.seed, 2)
    local = measure(config, args.workers, LocalBackend())
    started = time.perf_counter()
    try:
        ray_backend = open_backend("ray", args.address)
    except BackendError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 2
    ray_start = time.perf_counter() - started
    with ray_backend:
        on_ray = measure(config, args.workers, ray_backend)
    same = [r.game_content() for r in local.records] == [r.game_content() for r in on_ray.records]
    table = Table(
        title=f"{args.games} games of {' vs '.join(args.agents)} on {args.game}, {args.workers} workers"
    )
    for column in ("backend", "start-up s", "ms per game", "total s"):
        table.add_column(column, justify="left" if column == "backend" else "right")
    for timing in (local, on_ray):
        table.add_row(
            timing.backend, f"{timing.first:.2f}", f"{timing.per_game * 1000:.1f}", f"{timing.total:.2f}"
        )
    console = Console(highlight=False)
    console.print(table)
    where = f"joining {args.address}" if args.address else "starting a local Ray instance"
    console.print(f"{where}: {ray_start:.2f} s")
    extra, later = (on_ray.per_game - local.per_game) * 1000, on_ray.first - local.first
    console.print(f"Ray's extra cost per game once running: {extra:+.1f} ms; start-up {later:+.2f} s")
    console.print(f"same games on both backends: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
