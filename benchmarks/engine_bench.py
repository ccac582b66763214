"""Engine speed of a game: random playouts, perft, alpha-beta depths 5-7, MCTS simulations.

Run on an otherwise idle machine:  .venv/bin/python benchmarks/engine_bench.py [--game connect4]
(the same figures as `boardlab bench`; single process, so one core). Quixo's alpha-beta
figures use its ``lines3`` evaluation, as they always have, unless ``--eval`` says otherwise.
"""

from __future__ import annotations

import argparse
import platform

from rich.console import Console
from rich.table import Table

from boardlab.games import parse_game
from boardlab.search.bench import engine_figures

QUIXO_SERIES_EVAL = "lines3"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="quixo", help="game spec (default quixo)")
    parser.add_argument("--eval", default=None, help="alpha-beta's evaluation (default: see above)")
    args = parser.parse_args()
    game = parse_game(args.game)
    eval_name = args.eval if args.eval is not None else QUIXO_SERIES_EVAL if game.name == "quixo" else ""
    console = Console()
    table = Table(title=f"{game.title} engine speed on {platform.machine()} ({platform.python_version()})")
    for column in ("figure", "value", "unit", "detail"):
        table.add_column(column)
    for figure in engine_figures(game, eval_name=eval_name):
        value = f"{figure.value:,.0f}" if figure.value >= 100 else f"{figure.value:.4f}"
        table.add_row(figure.name, value, figure.unit, figure.detail)
    console.print(table)


if __name__ == "__main__":
    main()
