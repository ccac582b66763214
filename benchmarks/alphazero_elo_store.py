"""What AlphaZero's evaluation games in the arena store cost: disk and the Elo fit.

- the size of a network snapshot (what each evaluated iteration keeps) for the default
  network (3 blocks x 32 channels) of each game;
- a synthetic store shaped like a long Connect Four run (``--evaluations`` tournaments of a
  learner against two opponents, ``--versus`` games each, 28-ply games): its bytes per game and
  the seconds of one Elo fit over all of it (what each evaluation adds to an iteration);
- optionally (``--play N``), ``N`` real evaluation games per opponent of the shipped Connect
  Four network (32 simulations a move) played and stored in this process: seconds per game.

    .venv/bin/python benchmarks/alphazero_elo_store.py
    .venv/bin/python benchmarks/alphazero_elo_store.py --evaluations 300 --play 4
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from boardlab.arena.play import make_record
from boardlab.arena.store import Store
from boardlab.games import Outcome, Reason, parse_game
from boardlab.models.network import Network, save_network
from boardlab.play.pool import Workers, timestamp
from boardlab.train.arena_games import elo_ratings, evaluation_config, learner_tasks, play_into_store

OPPONENTS = ("random", "mcts:iters=400")


def snapshot_sizes(folder: Path) -> dict[str, int]:
    sizes = {}
    for spec in ("tictactoe", "connect4", "quixo:size=4", "quixo"):
        path = save_network(folder / f"{spec}.safetensors", Network.for_game(parse_game(spec), 3, 32, 0))
        sizes[spec] = path.stat().st_size
    return sizes


def synthetic_store(path: Path, evaluations: int, versus: int) -> tuple[int, float]:
    """A store of ``evaluations`` learner tournaments (the learner improving over them); its
    games and the seconds of one Elo fit over every game."""
    rng = random.Random(0)
    moves = ["d", "c", "d", "c", "e", "e", "d", "c", "f", "a", "b", "g", "d", "c"] * 2
    games = 0
    with Store(path) as store:
        learner = ""
        for k in range(evaluations):
            learner = f"alphazero:model=snapshots/it{5 * k:06d}.safetensors,sims=32"
            config = evaluation_config(
                "connect4", learner, OPPONENTS, versus, k, f"alphazero iteration {5 * k}"
            )
            store.register_tournament(config)
            strength = k / evaluations
            for task in learner_tasks(config):
                colour = 0 if task.first_player == 0 else 1
                win = rng.random() < (
                    0.5 + 0.45 * strength if "random" in (task.first_spec, task.second_spec) else strength / 2
                )
                outcome = Outcome(colour if win else 1 - colour, Reason.RULE, "")
                store.add_game(make_record(task, moves, [0.01] * len(moves), outcome, timestamp()))
                games += 1
        start = time.perf_counter()
        elo_ratings(store, "connect4", OPPONENTS[0], [learner, *OPPONENTS])
        seconds = time.perf_counter() - start
    return games, seconds


def real_games(folder: Path, per_opponent: int) -> tuple[int, float]:
    from boardlab.agents.alphazero import shipped_model
    from boardlab.models.network import require_torch

    require_torch().set_num_threads(1)
    model = shipped_model("connect4")
    assert model is not None
    learner = f"alphazero:model={model},sims=32"
    config = evaluation_config("connect4", learner, OPPONENTS, per_opponent, 0, "speed")
    with Store(folder / "real.sqlite") as store:
        start = time.perf_counter()
        records = play_into_store(Workers(1), store, config, {})
        return len(records), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--evaluations", type=int, default=300, help="tournaments in the synthetic store")
    parser.add_argument("--versus", type=int, default=10, help="games per opponent per evaluation")
    parser.add_argument("--play", type=int, default=0, help="real Connect Four games per opponent to time")
    args = parser.parse_args()
    for option in ("evaluations", "versus"):
        if getattr(args, option) < 1:
            parser.error(f"--{option} must be at least 1, got {getattr(args, option)}")
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        table = Table(title="network snapshot (3 blocks x 32 channels)")
        table.add_column("game")
        table.add_column("bytes", justify="right")
        for spec, size in snapshot_sizes(folder).items():
            table.add_row(spec, f"{size:,}")
        console.print(table)
        path = folder / "arena.sqlite"
        games, seconds = synthetic_store(path, args.evaluations, args.versus)
        size = path.stat().st_size
        console.print(
            f"synthetic store: {args.evaluations} evaluations, {games:,} games, {size:,} bytes "
            f"({size / games:.0f} per game); one Elo fit over {args.evaluations + 2} players: "
            f"{seconds:.2f} s"
        )
        if args.play > 0:
            count, spent = real_games(folder, args.play)
            console.print(
                f"real games, shipped Connect Four network at 32 simulations: {count} in {spent:.1f} s"
            )


if __name__ == "__main__":
    main()
