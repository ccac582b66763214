"""The `boardlab` command line: one typer app whose sub-commands stay thin and call the library."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="boardlab",
    help="Board-game AI toolkit: engines, agents, arena and labs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register_commands() -> None:
    from boardlab.optim.cli import register as register_labs
    from boardlab.ui.cli import register as register_play

    register_play(app)
    register_labs(app)


_register_commands()


def main() -> None:
    """Entry point of the `boardlab` script."""
    app()
