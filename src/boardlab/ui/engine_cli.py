"""The ``engine`` command: an agent speaking the engine protocol on standard input and output."""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated

import typer

from boardlab.agents.base import parse_spec
from boardlab.core.spec import SpecError
from boardlab.interop.engine_server import EngineServerError, serve_engine
from boardlab.play.referee import AgentForfeit
from boardlab.ui.errors import fail


def register(app: typer.Typer) -> None:
    """Attach the ``engine`` command to a typer app."""
    app.command("engine")(engine_command)


def engine_command(
    spec: Annotated[str, typer.Argument(metavar="AGENT", help="the agent to play, e.g. alphabeta:depth=6")],
    seed: Annotated[int | None, typer.Option(help="the agent's seed (default: a fresh one)")] = None,
) -> None:
    """Play an agent through the engine protocol on standard input and output (docs/interop.md,
    "Engines in any language"): any program speaking the protocol, boardlab's own
    engine:cmd=... among them, plays it.

    It exits with status 2 at a command it cannot follow, 1 if the agent fails to decide (one line on stderr).
    Standard output carries the protocol only: what the agent prints (print(), sys.stdout) goes to stderr.
    """
    try:
        parse_spec(spec)
    except SpecError as err:
        fail(str(err))
    with contextlib.suppress(AttributeError, ValueError, OSError):
        # under a UTF-8 locale the input is strict: a byte that is not UTF-8 raised on reading it
        sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]
    protocol = sys.stdout
    try:
        # the protocol alone writes to standard output: what the agent prints goes to stderr
        with contextlib.redirect_stdout(sys.stderr):
            serve_engine(spec, sys.stdin, protocol, seed)
    except EngineServerError as err:
        fail(str(err))
    except AgentForfeit as err:
        fail(f"{spec}: {err.detail}", code=1)
