"""Win rates of an evolved ``rules`` Quixo player against the fixed opponents.

    .venv/bin/python benchmarks/rules_es_bench.py [--model PATH] [--games 1000] [--seed 0]
        [--opponents random greedy alphabeta:depth=1 alphabeta:depth=2] [--markdown]

Every game is played through the agents' own API (``make_agent("rules:model=...")`` against
``make_agent(opponent)``), from the empty 5×5 board, the rule player moving first in the even
games; the opponent is seeded afresh for each game. Without ``--model`` it measures the model
shipped in the package. Prints the model's weights, then wins, draws and losses per opponent
with the share won and its 95% Wilson interval, and the mean game length.
"""

from __future__ import annotations

import argparse
import math
import time

from rich.console import Console
from rich.table import Table

from boardlab.agents.base import make_agent
from boardlab.agents.rules import RULES, RulesAgent, RulesSettings, shipped_model
from boardlab.games import parse_game

OPPONENTS = ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2")


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of wins."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(model: str, opponent: str, games: int, seed: int) -> dict[str, float]:
    """Wins, draws, losses, mean plies and seconds of ``games`` games against ``opponent``."""
    game = parse_game("quixo")
    player = make_agent(f"rules:model={model}", seed=seed, game=game)
    player.prepare(game)
    counts = {"wins": 0, "draws": 0, "losses": 0, "plies": 0}
    started = time.perf_counter()
    for index in range(games):
        rival = make_agent(opponent, seed=seed * 1_000_003 + index, game=game)
        rival.new_game()
        seat = index % 2
        state = game.initial()
        while not state.is_over:
            agent = player if state.to_move == seat else rival
            state = state.play(agent.choose(state))
        counts["plies"] += state.ply
        key = "draws" if state.winner is None else ("wins" if state.winner == seat else "losses")
        counts[key] += 1
    return {**counts, "seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="model file (default: the shipped model)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    model = args.model or str(shipped_model())
    weights = RulesAgent.model(RulesSettings(model=model)).weights
    console = Console()
    console.print(f"model {model}")
    console.print("weights: " + ", ".join(f"{n}={w:.3f}" for n, w in zip(RULES, weights, strict=True)))
    rows = []
    for opponent in args.opponents:
        result = play(model, opponent, args.games, args.seed)
        low, high = wilson(int(result["wins"]), args.games)
        rows.append((opponent, result, low, high))
    if args.markdown:
        print("| opponent | games | W-D-L | won | 95% interval | plies | s |")
        print("|---|---:|---:|---:|---:|---:|---:|")
    else:
        table = Table(title=f"rules against fixed opponents, {args.games} games each (seed {args.seed})")
        for column in ("opponent", "games", "W-D-L", "won", "95% interval", "plies", "s"):
            table.add_column(column, justify="right")
    for opponent, r, low, high in rows:
        cells = (
            f"`{opponent}`" if args.markdown else opponent,
            str(args.games),
            f"{r['wins']}-{r['draws']}-{r['losses']}",
            f"{100 * r['wins'] / args.games:.1f}%",
            f"[{100 * low:.1f}, {100 * high:.1f}]",
            f"{r['plies'] / args.games:.1f}",
            f"{r['seconds']:.1f}",
        )
        if args.markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            table.add_row(*cells)
    if not args.markdown:
        console.print(table)


if __name__ == "__main__":
    main()
