"""Quixo engine speed: random playouts, perft, alpha-beta depths 5-7, MCTS simulations.

Run on an otherwise idle machine:  .venv/bin/python benchmarks/engine_bench.py
(the same figures as `boardlab bench`; single process, so one core).
"""

from __future__ import annotations

import platform

from rich.console import Console
from rich.table import Table

from boardlab.bench import engine_figures


def main() -> None:
    console = Console()
    table = Table(title=f"Quixo engine speed on {platform.machine()} ({platform.python_version()})")
    for column in ("figure", "value", "unit", "detail"):
        table.add_column(column)
    for figure in engine_figures():
        value = f"{figure.value:,.0f}" if figure.value >= 100 else f"{figure.value:.4f}"
        table.add_row(figure.name, value, figure.unit, figure.detail)
    console.print(table)


if __name__ == "__main__":
    main()
