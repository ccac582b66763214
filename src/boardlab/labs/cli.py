"""CLI commands of the optimisation labs (set cover with A*, black-box evolution)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Attach the lab commands to the main app."""
    from boardlab.labs import blackbox_cli, setcover_cli

    setcover_cli.register(app)
    blackbox_cli.register(app)
