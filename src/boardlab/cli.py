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


def _register_labs() -> None:
    from boardlab.optim.cli import register

    register(app)


_register_labs()


def main() -> None:
    """Entry point of the `boardlab` script."""
    app()
