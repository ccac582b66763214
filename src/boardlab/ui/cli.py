"""The `boardlab` command line: one typer app whose sub-commands stay thin and call the library.

Every error a user can cause ends the same way: one line on stderr starting with ``Error:``
and exit status 2, before any work starts; values that are too long are shortened. That holds
for the usage errors the command-line parser finds (a number that is not a number, an unknown
option) as well as for the commands' own checks. An unexpected exception (a bug) is reported
on one line with exit status 1; ``BOARDLAB_DEBUG=1`` shows its traceback instead.
"""

from __future__ import annotations

from boardlab.ui import starting  # first: Ctrl-C while the modules below load ends cleanly

# isort: split

import inspect
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table
from typer import Abort
from typer._click.exceptions import ClickException, UsageError
from typer.core import TyperGroup

from boardlab import __version__
from boardlab.core.console import fit_streams, make_console
from boardlab.core.inputs import InputFileError
from boardlab.core.processes import stop_requests
from boardlab.core.spec import shorten
from boardlab.games.base import ONGOING
from boardlab.ui.arena import register as register_arena
from boardlab.ui.blackbox import register as register_blackbox
from boardlab.ui.engine_cli import register as register_engine
from boardlab.ui.errors import error_line, fail
from boardlab.ui.game_args import game_of, position_of
from boardlab.ui.listing import register as register_listing
from boardlab.ui.oracle_cli import register as register_oracle
from boardlab.ui.play import register as register_play
from boardlab.ui.review_cli import register as register_review
from boardlab.ui.serve import register as register_serve
from boardlab.ui.setcover import register as register_setcover
from boardlab.ui.solve_cli import register as register_solvers
from boardlab.ui.train import register as register_train


class OneLineErrors(TyperGroup):
    """The app's command group: usage errors and unexpected failures reported on one line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for command in self.commands.values():  # the list in --help: each summary one paragraph
            if command.short_help is None and command.help:
                summary = inspect.cleandoc(command.help).split("\n\n")[0]
                command.short_help = " ".join(summary.split())

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        fit_streams()  # every command, rich or plain, prints on any terminal's encoding
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except ClickException as err:
            if type(err).__name__ != "NoArgsIsHelpError":  # the help is already shown
                ctx = getattr(err, "ctx", None)
                hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
                error_line(f"{err.format_message()}{hint}")
            sys.exit(err.exit_code)
        except Abort:
            error_line("aborted")
            sys.exit(1)
        except InputFileError as err:  # a file the user gave that cannot be used, whatever reads it
            error_line(str(err))
            sys.exit(2)
        except OSError as err:  # the system refused a read or write (a full disk): not a bug
            if os.environ.get("BOARDLAB_DEBUG"):
                raise
            where = f" ({err.filename})" if err.filename else ""
            error_line(f"{err.strerror or err}{where}")
            sys.exit(1)
        except Exception as err:  # a bug: still one line, unless debugging
            if os.environ.get("BOARDLAB_DEBUG"):
                raise
            error_line(f"unexpected {type(err).__name__}: {err} (a bug; BOARDLAB_DEBUG=1 shows where)")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        try:
            starting.done()  # the command begins: its own Ctrl-C handling takes over
            return super().invoke(ctx)
        except KeyboardInterrupt:  # Ctrl-C that a command did not answer itself (its arguments read)
            typer.echo("Interrupted.", err=True)
            raise typer.Exit(130) from None

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _number_checks(command)
            _flags_listed_bare(command)
        return command

    def get_params(self, ctx: Any) -> list[Any]:
        return _without_flag_metavars(super().get_params(ctx))


def _without_flag_metavars(params: list[Any]) -> list[Any]:
    """``params`` with every flag's type hidden from the help: typer's rich help would list
    ``--help <bool>``, as if a flag took a value."""
    for param in params:
        if getattr(param, "is_flag", False):
            param.metavar = ""  # shown instead of the type; no value follows a flag
    return params


def _flags_listed_bare(command: Any) -> None:
    """Make the help of ``command`` (and of its sub-commands) list its flags, ``--help``
    among them (made when the help is asked for), without a type."""
    for sub in getattr(command, "commands", {}).values():
        _flags_listed_bare(sub)
    if getattr(command, "_flags_bare", False):
        return
    listed = command.get_params

    def get_params(ctx: Any, listed: Any = listed) -> list[Any]:
        return _without_flag_metavars(listed(ctx))

    command.get_params = get_params
    command._flags_bare = True


def _number_checks(command: Any) -> None:
    """Make every number option of ``command`` (and of its sub-commands) check a value given on
    the command line in the words the commands' own checks use: ``--games must be a whole
    number, got 1.5``, ``--depth must be at least 1, got 0``; ``nan`` and ``inf`` are refused
    as not being numbers, before any range (which would say ``nan`` "should be <= 600")."""
    for sub in getattr(command, "commands", {}).values():
        _number_checks(sub)
    for param in getattr(command, "params", ()):
        kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if kind not in (int, float) or getattr(param, "_numbers_checked", False):
            continue
        checked = param.process_value
        bounds = (getattr(param, "min", None), getattr(param, "max", None))

        def process_value(
            ctx: Any,
            value: Any,
            param: Any = param,
            checked: Any = checked,
            kind: Any = kind,
            bounds: Any = bounds,
        ) -> Any:
            if isinstance(value, str) and (problem := _number_problem(value, kind is int, *bounds)):
                raise UsageError(f"{max(param.opts, key=len, default=param.name)} {problem}", ctx=ctx)
            return checked(ctx, value)

        param.process_value = process_value
        param._numbers_checked = True


def _number_problem(text: str, whole: bool, low: float | None, high: float | None) -> str | None:
    """What is wrong with ``text`` given for a number option (``whole``: an integer one), or None."""
    shown = shorten(text.strip())
    try:
        number = int(text) if whole else float(text)
    except ValueError:
        return f"must be a {'whole ' if whole else ''}number, got {shown}"
    if not whole and not math.isfinite(number):
        return f"must be a finite number, got {shown}"
    if low is not None and number < low:
        return f"must be at least {low}, got {shown}"
    if high is not None and number > high:
        return f"must be at most {high}, got {shown}"
    return None


app = typer.Typer(
    name="boardlab",
    help="Board-game AI toolkit: engines, agents, arena and labs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=OneLineErrors,
)
console = make_console()


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"boardlab {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Show the version and exit."),
    ] = False,
) -> None:
    """Board-game AI toolkit: engines, agents, arena and labs."""


register_listing(app)  # agents, games: first in the list of commands


PERFT_COMPILED_DEPTH = 5
"""perft hands subtrees of this depth to compiled code (a fraction of a second each on 5x5
Quixo); above it the root is split in Python, so that Ctrl-C is heard between calls."""


def _perft(kernel: Any, a: int, b: int, depth: int, ended: bool, stop: Any, plies_left: int | None) -> int:
    """Leaves at ``depth`` (the ply cap ``plies_left`` plies away, None: none, ends a game);
    deep counts are split into compiled calls so that ``stop`` (set by Ctrl-C or SIGTERM) is
    looked at every few milliseconds (the count is then partial)."""
    from boardlab.games.perft import capped_depth, perft  # compiled code: loaded by this command only

    capped = capped_depth(depth, ended, plies_left)
    if capped is None:
        return 0
    depth = capped
    ctx = kernel.ctx
    if depth <= PERFT_COMPILED_DEPTH or kernel.status(ctx, np.int64(a), np.int64(b)) != ONGOING:
        return perft(kernel, a, b, depth, ended)
    moves = np.empty(kernel.num_actions, dtype=np.int64)
    count = kernel.gen_moves(ctx, np.int64(a), np.int64(b), moves)
    total = 0
    for move in moves[:count]:
        if stop:
            break
        x, y = kernel.play(ctx, np.int64(a), np.int64(b), move)
        total += _perft(kernel, int(x), int(y), depth - 1, ended, stop, None)  # the cap is past depth
    return total


def _warm_perft(kernel: Any, a: int, b: int, ended: bool) -> None:
    """Compile (or load from numba's cache) what :func:`_perft` runs: the compiled count and,
    for the deep counts split in Python, the kernel's functions called from here."""
    from boardlab.games.perft import perft  # compiled code: loaded by this command only

    perft(kernel, a, b, 1, ended)
    ctx = kernel.ctx
    kernel.status(ctx, np.int64(a), np.int64(b))
    moves = np.empty(kernel.num_actions, dtype=np.int64)
    if kernel.gen_moves(ctx, np.int64(a), np.int64(b), moves):
        kernel.play(ctx, np.int64(a), np.int64(b), moves[0])


@app.command("perft")
def perft_command(
    depth: int = typer.Option(5, min=1, max=12, help="Plies to count."),
    game: str = typer.Option("quixo", "--game", help="Game spec, e.g. connect4 or quixo:size=4."),
    size: int | None = typer.Option(None, help="Quixo's board side: 3, 4 or 5 (as --game quixo:size=N)."),
    position: str = typer.Option("", help="Start position text (default: the game's start)."),
) -> None:
    """Count the leaves of a game tree at each depth (a game that ends earlier, by its rules or
    its ply cap, is a leaf, or not counted where the game's published counts are of move
    sequences: Connect Four, Tic-Tac-Toe)."""
    state = position_of(game, size, position)
    ended = state.game.perft_ended_leaves
    cap = state.game.ply_cap
    plies_left = None if cap is None else cap - state.ply
    table = Table(title=f"perft of {state.game.title} from {state.to_text()}")
    for column in ("depth", "leaves", "seconds"):
        table.add_column(column, justify="right")
    with stop_requests() as stop:
        _warm_perft(state.kernel, state.a, state.b, ended)  # the times are of counting, not compiling
        for d in range(1, depth + 1):
            start = time.perf_counter()
            leaves = _perft(state.kernel, state.a, state.b, d, ended, stop, plies_left)
            if stop:
                break
            table.add_row(str(d), f"{leaves:,}", f"{time.perf_counter() - start:.4f}")
    console.print(table)
    if stop:
        typer.echo(f"{stop.how}.", err=True)
        raise typer.Exit(stop.exit_code)


@app.command("bench")
def bench_command(
    quick: bool = typer.Option(False, help="Smaller workloads."),
    game: str = typer.Option("quixo", "--game", help="Game spec, e.g. connect4 or quixo:size=4."),
    eval_name: str = typer.Option("", "--eval", help="Alpha-beta's evaluation (default: the game's first)."),
) -> None:
    """Measure engine speed: playouts, perft, alpha-beta and MCTS (one core)."""

    the_game = game_of(game)
    if eval_name and eval_name not in the_game.evaluations:
        fail(f"{the_game.name} has no evaluation {eval_name!r}; it has {', '.join(the_game.evaluations)}")
    table = Table(title=f"{the_game.title} engine speed (one core, compile time excluded)")
    for column in ("figure", "value", "unit", "detail"):
        table.add_column(column)
    from boardlab.search.bench import engine_figures  # compiled code: loaded by this command only

    with console.status("measuring..."):
        figures = engine_figures(the_game, quick, eval_name)
    for f in figures:
        value = f"{f.value:,.0f}" if f.value >= 100 else f"{f.value:.4f}"
        table.add_row(f.name, value, f.unit, f.detail)
    console.print(table)


for register in (
    register_play,
    register_arena,
    register_train,
    register_setcover,
    register_blackbox,
    register_solvers,
    register_oracle,
    register_review,
    register_serve,
    register_engine,
):
    register(app)

starting.done()


def main() -> None:
    """Entry point of the `boardlab` script."""
    starting.arm()  # Ctrl-C while the command line is built and read: nothing was done yet
    try:
        app()
    finally:
        starting.done()  # a command line refused before any command began
