"""CLI commands of the optimisation labs (set cover with A*, black-box evolution)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Attach the lab commands to the main app."""
    del app
