"""How every command reports bad input and failures: one line on standard error, then an exit
status (2: bad input, 1: a failure while working)."""

from __future__ import annotations

from typing import NoReturn

import typer

from boardlab.core.spec import one_line


def error_line(message: str) -> None:
    """Print ``Error: message`` on one line of standard error."""
    typer.echo(f"Error: {one_line(message)}", err=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print the error line of ``message`` and end the command with exit status ``code``."""
    error_line(message)
    raise typer.Exit(code)


__all__ = ["error_line", "fail"]
