"""The ``boardlab play`` command: a human against an agent in the terminal.

The agent plays from a child process (:class:`~boardlab.play.referee.AgentProcess`) under a time
limit per move (``--move-timeout``): an agent that fails, answers an illegal move or does not
answer in time forfeits, and a hung one is stopped. On a game clock (``--tc``) both sides play
on their clocks instead, and the one whose clock runs out loses on time.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from boardlab.agents.base import check_whole_game, make_agent
from boardlab.core.console import make_console
from boardlab.core.processes import sigterm_as_interrupt
from boardlab.core.spec import shorten
from boardlab.play.clock import TimeControl, TimeControlError
from boardlab.play.referee import (
    MIN_MOVE_TIMEOUT,
    MOVE_TIMEOUT_FACTOR,
    AgentForfeit,
    AgentProcess,
    TimeLimitError,
    move_limit,
)
from boardlab.ui.errors import fail
from boardlab.ui.game_args import MOVES_HELP, played, position_of
from boardlab.ui.terminal import TerminalGame

SIDES = {"x": 0, "o": 1}
HINT_AGENT = "alphabeta:time=1"
"""The adviser of ``hint`` unless ``--hints`` names another."""

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
        bool | None,
        typer.Option("--human-first/--human-second", help="move first (X; the default) or second (O)"),
    ] = None,
    side: Annotated[str | None, typer.Option("--side", help="your symbol: x (first) or o (second)")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="seed of the agent's random choices")] = None,
    position: Annotated[
        str, typer.Option("--position", help="start from this position text (default: the game's start)")
    ] = "",
    moves: Annotated[str | None, typer.Option("--moves", help=MOVES_HELP)] = None,
    hints: Annotated[
        str,
        typer.Option(
            "--hints",
            help=(
                "the adviser that answers hint, an agent spec started at the first hint "
                "(on a clock, its start-up is not charged to you)"
            ),
        ),
    ] = HINT_AGENT,
    move_timeout: Annotated[
        float | None,
        typer.Option(
            "--move-timeout",
            help=(
                "seconds the agent may think per move before it forfeits (0: no limit; default: "
                f"{MOVE_TIMEOUT_FACTOR:g}x its own time option, at least {MIN_MOVE_TIMEOUT:g} s; "
                "not with --tc)"
            ),
        ),
    ] = None,
    time_control: Annotated[
        str | None,
        typer.Option(
            "--tc",
            metavar="[MOVES/]BASE[+INC]",
            help=(
                "play on a game clock: BASE seconds a side for the game (or for every MOVES moves: "
                "40/300), INC more after each move (60+1); your time runs from your prompt to your "
                "move, the agent shares its clock out instead of its own time per move, and a side "
                "whose clock runs out loses on time"
            ),
        ),
    ] = None,
) -> None:
    """Play against an agent: type moves in the game's notation (help explains it); moves, hint,
    position, undo, resign, help and quit also work."""
    human_side = _human_side(human_first, side)
    if seed is not None and not 0 <= seed < 2**63:
        fail(f"--seed must be in 0..2**63-1, got {shorten(str(seed))}")
    clock = _time_control(time_control, move_timeout)
    try:  # on a clock, the clock is the agent's limit
        limit = None if clock is not None else move_limit(agent, move_timeout)
    except TimeLimitError as err:
        fail("--" + str(err).replace("move timeout", "move-timeout", 1))
    if sys.stdin is None or sys.stdin.closed:  # started with standard input closed (<&-)
        fail("standard input is closed; play reads your moves from it (a terminal, a file or a pipe)")
    if sys.stdout is None or sys.stdout.closed:  # started with standard output closed (>&-)
        fail("standard output is closed; play shows the board and its prompt there")
    state = played(position_of(game, None, position), moves)
    if state.is_over:
        fail(f"the game is over in that position ({state.outcome.text(state.game.symbols)}); nothing to play")
    start = None if not position and not moves else state  # None: the game's first position
    _build(lambda: check_whole_game(agent, state.game, start), "agent")
    _build(lambda: make_agent(agent, seed, game=state.game), "agent")
    _build(lambda: make_agent(hints, 0, game=state.game), "adviser", "--hints: ")
    console = make_console(highlight=False)
    with contextlib.suppress(AttributeError, ValueError, OSError):
        sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]  # bad bytes: a refused move
    with sigterm_as_interrupt() as termination:
        try:
            chosen = side is not None or human_first is not None
            other = "" if chosen else f"--side {'xo'[1 - human_side]}"  # said where the agent starts
            _play_game(state, (agent, hints), seed, (limit, clock), (human_side, other), console)
            if termination.requested:  # a signal that landed where it could not raise
                raise KeyboardInterrupt
        except KeyboardInterrupt:  # the agent's process is stopped by now
            typer.echo(f"{termination.how}.", err=True)
            raise typer.Exit(termination.exit_code) from None


def _play_game(
    state: Any,
    specs: tuple[str, str],
    seed: int | None,
    limits: tuple[float | None, TimeControl | None],
    sides: tuple[int, str],
    console: Console,
) -> None:
    """Start the agent's process (``specs``: the agent and the adviser), play the game in the
    terminal (``limits``: the agent's seconds per move, the game clock; ``sides``: the person's
    side and how to choose the other, unless they chose), then stop the
    processes; a KeyboardInterrupt (Ctrl-C, SIGTERM) passes through once they are stopped."""
    agent, hints = specs
    limit, clock = limits
    side, other_side = sides
    try:
        with console.status(Text(f"starting {shorten(agent)}...")):
            opponent = AgentProcess(state.game.spec, agent, seed, limit)
    except AgentForfeit as err:
        fail(f"the agent {shorten(agent)} cannot play: {err.detail}", code=1)

    def adviser() -> AgentProcess:
        return AgentProcess(state.game.spec, hints, 0, move_limit(hints))

    _edit_lines()
    with opponent:
        TerminalGame(
            state,
            opponent,
            side,
            console=console,
            agent_label=agent,
            move_timeout=limit,
            adviser=adviser,
            time_control=clock,
            other_side=other_side,
        ).run()


def _edit_lines() -> None:
    """On a terminal, the move prompt edits its line (arrow keys, Ctrl-A, Ctrl-E, ...) and
    recalls earlier lines with the up arrow: Python's ``input()``, which the prompt reads with,
    does so once ``readline`` is loaded (not on every platform: there, plain lines)."""
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401


def _time_control(text: str | None, move_timeout: float | None) -> TimeControl | None:
    """The game clock of ``--tc`` (None without one); exit 2 for a bad one or one given with
    ``--move-timeout``."""
    if text is None:
        return None
    if move_timeout is not None:
        fail("give either --tc (a game clock) or --move-timeout (a limit per move)")
    try:
        return TimeControl.parse(text)
    except TimeControlError as err:
        fail(f"--tc: {err}")


def _human_side(human_first: bool | None, side: str | None) -> int:
    """0 if the human moves first, 1 if second; exit 2 on contradicting or unknown choices."""
    from_side = None
    if side is not None:
        if side.strip().lower() not in SIDES:
            fail(f"--side must be x or o, got {shorten(side)!r}")
        from_side = SIDES[side.strip().lower()]
    from_flag = None if human_first is None else (0 if human_first else 1)
    if from_side is not None and from_flag is not None and from_side != from_flag:
        fail(f"--side {side} contradicts --human-{'first' if human_first else 'second'}")
    for choice in (from_side, from_flag):
        if choice is not None:
            return choice
    return 0


def _build(factory: Callable[[], T], what: str, prefix: str = "") -> T:
    """Call ``factory``; a bad spec ends the command with a one-line error (after ``prefix``)
    and exit code 2."""
    try:
        return factory()
    except ValueError as err:
        fail(f"{prefix}{err}")
    except Exception as err:  # an agent's constructor may fail in its own way
        fail(f"{prefix}cannot build the {what}: {type(err).__name__}: {err}")
