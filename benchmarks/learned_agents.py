"""Every learned agent shipped with boardlab against its game's baselines, in one table.

For each model in ``boardlab.models``: what trained it (episodes or games, seconds, as
stored in the model file), its size, and its wins / draws / losses against the baselines of
its game, each opponent met ``--games`` times with colours alternating (seeds 0, 1, ...).

    python benchmarks/learned_agents.py --games 200 --markdown
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from boardlab.agents.base import make_agent
from boardlab.games import parse_game
from boardlab.models.table import read_header

QUIXO_BASELINES = ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2")


@dataclass(frozen=True)
class Shipped:
    """A shipped model: the agent spec that plays it, its game and its baselines."""

    agent: str
    game: str
    model: str
    baselines: tuple[str, ...]


SHIPPED = (
    Shipped("qlearning", "tictactoe", "tictactoe-qlearning.npz", ("random", "perfect")),
    Shipped("mcrl", "tictactoe", "tictactoe-mcrl.npz", ("random", "perfect")),
    Shipped("qlearning", "quixo:size=3", "quixo-size3-qlearning.npz", (*QUIXO_BASELINES, "perfect")),
    Shipped("mcrl", "quixo:size=3", "quixo-size3-mcrl.npz", (*QUIXO_BASELINES, "perfect")),
    Shipped("rules", "quixo", "quixo-rules.json", QUIXO_BASELINES),
    Shipped("neat", "quixo", "quixo-neat.json", QUIXO_BASELINES),
    Shipped("neat:guard=off", "quixo", "quixo-neat.json", QUIXO_BASELINES),
    Shipped("nimga", "nim", "nim-ga.json", ("random", "optimal")),
    Shipped("nimga", "nim:misere=false", "nim-ga.json", ("random", "optimal")),
)


def model_path(name: str) -> Path:
    return Path(str(resources.files("boardlab.models") / name))


def training(path: Path) -> tuple[str, str]:
    """(what trained it, seconds) from the model file's own record."""
    if path.suffix == ".npz":
        header = read_header(path)
        return f"{int(header['episodes']):,} episodes", f"{float(header['train_seconds']):.1f}"
    data = json.loads(path.read_text())
    seconds = data.get("train_seconds")
    if "training_games" in data:
        done = f"{int(data['training_games']):,} games"
    elif "generation" in data:
        done = f"{int(data['generation'])} generations"
    else:
        done = "-"
    return done, "-" if seconds is None else f"{float(seconds):.1f}"


def play(game: Any, first: Any, second: Any) -> int | None:
    """The winner's seat (0 moved first) or None for a draw."""
    state = game.initial()
    players = (first, second)
    for player in players:
        player.new_game()
    while not state.is_over:
        state = state.play(players[state.to_move].choose(state))
    return state.winner


def score(entry: Shipped, opponent: str, games: int) -> str:
    """``W-D-L`` of the learned agent against ``opponent`` over ``games`` games."""
    game = parse_game(entry.game)
    wins = draws = losses = 0
    for i in range(games):
        me = make_agent(entry.agent, seed=2 * i, game=game)
        them = make_agent(opponent, seed=2 * i + 1, game=game)
        seat = i % 2
        winner = play(game, *((me, them) if seat == 0 else (them, me)))
        wins += winner == seat
        losses += winner == 1 - seat
        draws += winner is None
    return f"{wins}-{draws}-{losses}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100, help="games per opponent (default 100)")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    args = parser.parse_args()
    console = Console(highlight=False)
    headers = ["agent", "game", "trained on", "train s", "model bytes", "results (W-D-L)"]
    table = Table(title=f"Learned agents shipped with boardlab, {args.games} games per opponent")
    for header in headers:
        table.add_column(header)
    rows = []
    for entry in SHIPPED:
        path = model_path(entry.model)
        if not path.is_file():
            console.print(f"{entry.model}: not shipped, skipped", style="dim")
            continue
        started = time.perf_counter()
        done, seconds = training(path)
        results = ", ".join(f"{o} {score(entry, o, args.games)}" for o in entry.baselines)
        row = [entry.agent, entry.game, done, seconds, f"{path.stat().st_size:,}", results]
        rows.append(row)
        table.add_row(*row)
        console.print(f"{entry.agent} on {entry.game}: {time.perf_counter() - started:.0f} s", style="dim")
    console.print(table)
    console.print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    if args.markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "---|" * len(headers))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
