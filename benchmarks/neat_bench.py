"""Win rates of a NEAT-evolved Quixo network (the ``neat`` agent) against fixed opponents.

    .venv/bin/python benchmarks/neat_bench.py [--model PATH] [--guard model|on|off] [--games 1000]
        [--seed 0] [--opponents random greedy alphabeta:depth=1] [--opening 2] [--markdown]
    .venv/bin/python benchmarks/neat_bench.py --agent greedy   # a baseline in the same games
    .venv/bin/python benchmarks/neat_bench.py --candidates DIR/checkpoint.json --games 100 --seed 1 \
        --opponents greedy alphabeta:depth=1 --write-best best.json   # choose a champion to ship

``--candidates`` plays every champion of a run's opponent pool (one every ``champion_every``
generations) and its latest champion, prints their scores (win 1, draw ½) and with
``--write-best`` writes the best one as a model file; measure that one afterwards on other
seeds, so that the figures reported are not the ones it was chosen on.

Every game is played through the agents' own API (``make_agent("neat:model=...")`` against
``make_agent(opponent)``) on 5×5 Quixo: the network moves first in the even games, each game
opens with ``--opening`` uniformly random plies (so that two deterministic players do not
replay one game), and the opponent is seeded afresh for each game. Without ``--model`` it
measures the model shipped in the package. Prints the network's size, then wins, draws and
losses per opponent with the share won and its 95% Wilson interval, and the mean game length.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from boardlab.agents.base import make_agent
from boardlab.agents.neat_player import load_model, shipped_model
from boardlab.games import parse_game

OPPONENTS = ("random", "greedy", "alphabeta:depth=1")


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of wins."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(spec: str, opponent: str, games: int, opening: int, seed: int) -> dict[str, float]:
    """Wins, draws, losses, mean plies and seconds of ``games`` games against ``opponent``."""
    game = parse_game("quixo")
    rng = random.Random(seed)
    player = make_agent(spec, seed=seed, game=game)
    player.prepare(game)
    counts = {"wins": 0, "draws": 0, "losses": 0, "plies": 0}
    started = time.perf_counter()
    for index in range(games):
        other = make_agent(opponent, seed=rng.getrandbits(62), game=game)
        seat = index % 2
        state = game.initial()
        while not state.is_over:
            if state.ply < opening:
                move = rng.choice(state.legal_moves())
            else:
                move = (player if state.to_move == seat else other).choose(state)
            state = state.play(move)
        key = "draws" if state.winner is None else ("wins" if state.winner == seat else "losses")
        counts[key] += 1
        counts["plies"] += state.ply
    return {**counts, "plies": counts["plies"] / max(games, 1), "seconds": time.perf_counter() - started}


def compare_candidates(args: argparse.Namespace) -> None:
    """Score every champion of a run's checkpoint against the opponents; write the best."""
    from boardlab.core.files import atomic_write_text
    from boardlab.train.neat_quixo import Evolution

    run = Evolution.resume(args.candidates)
    console = Console()
    table = Table(title=f"champions of {args.candidates}, {args.games} games per opponent")
    for column in ("generation", *args.opponents, "score"):
        table.add_column(column, justify="right")
    best: tuple[float, dict] | None = None
    with tempfile.TemporaryDirectory() as folder:
        for model in run.candidates():
            path = Path(folder) / f"g{model['generation']}.json"
            path.write_text(json.dumps(model))
            spec = f"neat:model={path}" + (f",guard={args.guard}" if args.guard != "model" else "")
            cells, points = [], 0.0
            for index, opponent in enumerate(args.opponents):
                r = play(spec, opponent, args.games, args.opening, args.seed * 1000 + index)
                points += r["wins"] + r["draws"] / 2
                cells.append(f"{r['wins']}/{r['draws']}/{r['losses']}")
            score = points / (args.games * len(args.opponents))
            table.add_row(str(model["generation"]), *cells, f"{100 * score:.1f}%")
            if best is None or score > best[0]:
                best = (score, model)
    console.print(table)
    if best is not None and args.write_best:
        atomic_write_text(args.write_best, json.dumps(best[1], indent=1))
        console.print(
            f"best: generation {best[1]['generation']} ({100 * best[0]:.1f}%), written to {args.write_best}"
        )


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="", help="model.json (default: the shipped model)")
    parser.add_argument("--guard", default="model", choices=("model", "on", "off"), help="the agent's guard")
    parser.add_argument("--agent", default="", help="measure this agent spec instead (a baseline)")
    parser.add_argument("--games", type=int, default=1000, help="games against each opponent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opening", type=int, default=2, help="random opening plies of each game")
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    parser.add_argument("--candidates", default="", help="a run's checkpoint.json: compare its champions")
    parser.add_argument("--write-best", default="", help="with --candidates: write the best model here")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.candidates:
        compare_candidates(args)
        return
    options = [f"model={args.model}"] * bool(args.model) + [f"guard={args.guard}"] * (args.guard != "model")
    spec = args.agent or ("neat:" + ",".join(options) if options else "neat")
    console = Console()
    if not args.agent:
        model = load_model(args.model or str(shipped_model()))
        enabled = sum(1 for c in model.genome["connections"] if c["enabled"])
        console.print(
            f"{spec}: generation {model.header.get('generation')}, {len(model.genome['nodes'])} nodes, "
            f"{enabled} enabled connections; hyper {json.dumps(model.header.get('hyper', {}))}",
            soft_wrap=True,
        )
    table = Table(title=f"{spec} on 5×5 Quixo, {args.games} games per opponent, {args.opening} random plies")
    for column in ("opponent", "wins", "draws", "losses", "won", "95% interval", "mean plies", "seconds"):
        table.add_column(column, justify="right")
    rows = []
    for index, opponent in enumerate(args.opponents):
        r = play(spec, opponent, args.games, args.opening, args.seed * 1000 + index)
        low, high = wilson(int(r["wins"]), args.games)
        row = [
            opponent,
            str(r["wins"]),
            str(r["draws"]),
            str(r["losses"]),
            f"{100 * r['wins'] / args.games:.1f}%",
            f"{100 * low:.1f}–{100 * high:.1f}%",
            f"{r['plies']:.1f}",
            f"{r['seconds']:.1f}",
        ]
        rows.append(row)
        table.add_row(*row)
    console.print(table)
    if args.markdown:
        print("| opponent | wins | draws | losses | won | 95% interval | mean plies | seconds |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for row in rows:
            print("| `" + row[0] + "` | " + " | ".join(row[1:]) + " |")


if __name__ == "__main__":
    main()
