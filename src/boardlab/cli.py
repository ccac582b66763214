"""The `boardlab` command line: one typer app whose sub-commands stay thin and call the library."""

from __future__ import annotations

import time

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="boardlab",
    help="Board-game AI toolkit: engines, agents, arena and labs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()


def fail(message: str) -> typer.Exit:
    """Print a one-line error and return the exit (code 2) to raise."""
    Console(stderr=True).print(f"[red]Error:[/red] {message}", highlight=False)
    return typer.Exit(2)


@app.command("agents")
def agents_command() -> None:
    """List every agent with its parameters (spec: NAME:key=value,...)."""
    from boardlab.agents import list_agents
    from boardlab.spec import options_of

    table = Table(title="Agents (build them from a spec such as alphabeta:depth=5,eval=lines3)")
    table.add_column("name", style="bold")
    table.add_column("what it does")
    table.add_column("games")
    table.add_column("options (default)")
    for cls in list_agents():
        options = "\n".join(o.describe() for o in options_of(cls.Settings))
        table.add_row(cls.name, cls.summary, ", ".join(cls.games) or "all", options or "-")
    console.print(table)


@app.command("games")
def games_command() -> None:
    """List every game with its options and evaluations (spec: NAME:key=value,...)."""
    from boardlab.games import available_games, parse_game
    from boardlab.spec import options_of

    table = Table(title="Games (build them from a spec such as connect4:width=8,height=7)")
    for column in ("name", "title", "options (default)", "evaluations (first is the default)"):
        table.add_column(column)
    for name in available_games():
        game = parse_game(name)
        options = "\n".join(o.describe() for o in options_of(type(game)))
        table.add_row(name, game.title, options or "-", ", ".join(game.evaluations))
    console.print(table)


@app.command("perft")
def perft_command(
    depth: int = typer.Option(5, min=1, max=8, help="Plies to count."),
    size: int = typer.Option(5, help="Board side: 3, 4 or 5."),
    position: str = typer.Option("", help="Start position text (default: the empty board)."),
) -> None:
    """Count the leaves of the Quixo game tree at each depth (finished games are leaves)."""
    from boardlab.games import GameError
    from boardlab.games import quixo_kernel as qk
    from boardlab.games.quixo import State

    try:
        state = State.from_text(position) if position else State.initial(size)
    except (GameError, ValueError) as err:
        raise fail(str(err)) from None
    me, opp = state.words
    ctx = state.kernel.ctx
    table = Table(title=f"perft from {state.to_text()}")
    for column in ("depth", "leaves", "seconds"):
        table.add_column(column, justify="right")
    for d in range(1, depth + 1):
        start = time.perf_counter()
        leaves = qk.perft(ctx, np.int64(me), np.int64(opp), d)
        table.add_row(str(d), f"{leaves:,}", f"{time.perf_counter() - start:.4f}")
    console.print(table)


@app.command("bench")
def bench_command(quick: bool = typer.Option(False, help="Smaller workloads.")) -> None:
    """Measure engine speed: playouts, perft, alpha-beta and MCTS (one core)."""
    from boardlab.bench import engine_figures

    table = Table(title="Quixo engine speed (one core, compile time excluded)")
    for column in ("figure", "value", "unit", "detail"):
        table.add_column(column)
    with console.status("measuring..."):
        figures = engine_figures(quick)
    for f in figures:
        value = f"{f.value:,.0f}" if f.value >= 100 else f"{f.value:.4f}"
        table.add_row(f.name, value, f.unit, f.detail)
    console.print(table)


def _register_commands() -> None:
    from boardlab.arena.cli import register as register_arena
    from boardlab.learn.cli import register as register_train
    from boardlab.optim.cli import register as register_labs
    from boardlab.solvers.cli import register as register_solvers
    from boardlab.solvers.oracle_cli import register as register_oracle
    from boardlab.ui.cli import register as register_play

    register_play(app)
    register_arena(app)
    register_train(app)
    register_labs(app)
    register_solvers(app)
    register_oracle(app)


_register_commands()


def main() -> None:
    """Entry point of the `boardlab` script."""
    app()
