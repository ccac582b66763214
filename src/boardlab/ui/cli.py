"""The ``boardlab play`` command: a human against an agent in the terminal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, NoReturn, TypeVar

import typer
from rich.console import Console

from boardlab.agents.base import make_agent
from boardlab.games import new_game
from boardlab.ui.terminal import TerminalGame

SIDES = {"x": 0, "o": 1}

T = TypeVar("T")


def register(app: typer.Typer) -> None:
    """Attach the ``play`` command to a typer app."""
    app.command("play", help="Play against an agent in the terminal.")(play)


def play(
    agent: Annotated[
        str,
        typer.Option("--agent", "-a", help="the opponent, an agent spec such as greedy or mcts:iters=2000"),
    ] = "greedy",
    game: Annotated[
        str,
        typer.Option(
            "--game", "-g", help="the game spec, e.g. quixo, quixo:size=4, connect4, tictactoe, nim"
        ),
    ] = "quixo",
    human_first: Annotated[
        bool | None, typer.Option("--human-first/--human-second", help="move first (X) or second (O)")
    ] = None,
    side: Annotated[str | None, typer.Option("--side", help="your symbol: x (first) or o (second)")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="seed of the agent's random choices")] = None,
) -> None:
    """Play against an agent: type moves in the game's notation (help explains it); moves, undo,
    resign, help and quit also work."""
    human_side = _human_side(human_first, side)
    state = _build(lambda: new_game(game), "game")
    opponent = _build(lambda: make_agent(agent, seed, game=state.game), "agent")
    try:
        TerminalGame(state, opponent, human_side, console=Console(highlight=False)).run()
    except ValueError as err:
        typer.echo(f"Error: {err}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo("Interrupted.", err=True)
        raise typer.Exit(130) from None


def _human_side(human_first: bool | None, side: str | None) -> int:
    """0 if the human moves first, 1 if second; exit 2 on contradicting or unknown choices."""
    from_side = None
    if side is not None:
        if side.strip().lower() not in SIDES:
            _fail(f"--side must be x or o, got {side!r}")
        from_side = SIDES[side.strip().lower()]
    from_flag = None if human_first is None else (0 if human_first else 1)
    if from_side is not None and from_flag is not None and from_side != from_flag:
        _fail(f"--side {side} contradicts --human-{'first' if human_first else 'second'}")
    for choice in (from_side, from_flag):
        if choice is not None:
            return choice
    return 0


def _build(factory: Callable[[], T], what: str) -> T:
    """Call ``factory``; a bad spec ends the command with a one-line error and exit code 2."""
    try:
        return factory()
    except ValueError as err:
        _fail(str(err))
    except Exception as err:  # an agent's constructor may fail in its own way
        _fail(f"cannot build the {what}: {type(err).__name__}: {err}")


def _fail(message: str) -> NoReturn:
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)
