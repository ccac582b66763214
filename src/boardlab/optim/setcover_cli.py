"""CLI command of a lab (filled in by its module)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Attach this lab's command to the main app."""
    del app
