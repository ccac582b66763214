"""Search again the won positions that ``boardlab oracle`` runs list as thrown away.

    .venv/bin/python benchmarks/thrown_again.py results/oracle4-1s/oracle.json \\
        --agents alphabeta:time=0.75 "alphabeta:time=0.75,probe=false"

Reads the ``thrown_wins`` of one or more ``oracle.json`` reports, keeps each position once, and
lets every agent of ``--agents`` choose a move there (its seed fixed). The judge of the report's
game gives the value of that move. The table has one row per agent: how many of the positions
it now plays a winning move in, and what the others leave (draw or loss); ``--each`` adds a
line per position.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from boardlab.agents import make_agent
from boardlab.arena.oracle import OracleError, judge_for
from boardlab.games import parse_game


def thrown_positions(paths: list[Path]) -> tuple[str, list[str]]:
    """The game spec of the reports and their thrown-away positions, each once, in order."""
    games, positions = set(), []
    for path in paths:
        report = json.loads(path.read_text())
        games.add(report["game"])
        for opponent in report["opponents"]:
            positions += [t["position"] for t in opponent.get("thrown_wins", [])]
    if len(games) != 1:
        raise OracleError(f"the reports are of {len(games)} games; give reports of one game")
    return games.pop(), list(dict.fromkeys(positions))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", type=Path, help="oracle.json files")
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs to try")
    parser.add_argument("--seed", type=int, default=1, help="seed of every agent")
    parser.add_argument("--each", action="store_true", help="print each position's result")
    args = parser.parse_args(argv)
    console = Console()
    try:
        spec, positions = thrown_positions(args.reports)
        game = parse_game(spec)
        judge = judge_for(game)
        agents = [make_agent(agent, seed=args.seed, game=game) for agent in args.agents]
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    table = Table(title=f"{len(positions)} won positions thrown away on {spec}, searched again")
    for column in ("agent", "wins", "draws", "losses"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for name, agent in zip(args.agents, agents, strict=True):
        agent.prepare(game)
        left: Counter[str] = Counter()
        for text in positions:
            state = game.parse_position(text)
            values = {v.action: v.name for v in judge.move_values(state)}
            agent.new_game()
            move = agent.choose(state)
            value = values[game.action_of(move)]
            left[value] += 1
            if args.each:
                console.print(f"{name}  {text}  {move}  {value}")
        table.add_row(name, str(left["win"]), str(left["draw"]), str(left["loss"]))
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
