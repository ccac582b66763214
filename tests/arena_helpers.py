"""What the arena command tests share: the arena commands on a Typer app of their own."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from boardlab.ui import arena as arena_cli


def arena_app() -> typer.Typer:
    """A Typer app holding only the arena commands (match, tournament, ratings, ...)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    arena_cli.register(app)
    return app


def invoke(app: typer.Typer, *args: str) -> tuple[int, str, str]:
    """Run ``app`` with ``args``: its exit code, standard output and standard error."""
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr
