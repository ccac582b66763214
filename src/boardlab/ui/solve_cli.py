"""CLI commands of exact play: ``solve`` builds Quixo's tables or solves a Connect Four
position, ``analyze`` prints the perfect-play values of a position and its moves from the
game's exact play."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from boardlab.core.console import LoggedProgress, counted, make_console, ply_count
from boardlab.core.files import output_problem, path_problem
from boardlab.core.processes import sigterm_as_interrupt
from boardlab.core.spec import shorten
from boardlab.games import (
    DRAW,
    ExactPlayError,
    GameError,
    GameOptionError,
    Reason,
    exact_play,
    exact_providers,
    parse_game,
)
from boardlab.games.exact import VALUE_NAMES, cut_by_cap, depth_rank
from boardlab.games.quixo.exact import MAX_BLANKS_5X5
from boardlab.ui.errors import fail
from boardlab.ui.game_args import MOVES_HELP, TABLES_DEFAULT_HELP, game_of, played, position_of
from boardlab.ui.search_analysis import (
    SEARCH_AGENT,
    SEARCH_SECONDS,
    search_decision,
    show_decision,
    value_words,
)

CONNECT4_SOLVER_SECONDS = 10.0
"""What ``analyze`` gives Connect Four's solver when no ``--seconds`` is given."""

DEFAULT_SOLVE_SIZE = 4


def register(app: typer.Typer) -> None:
    """Attach the ``solve`` and ``analyze`` commands to a typer app."""
    app.command(
        "solve",
        help="Solve a game exactly: Quixo's tables (3x3, 4x4, 5x5 endgames), a Connect Four position, "
        "or Connect Four's opening book.",
    )(solve_command)
    app.command(
        "analyze",
        help="Perfect-play value of a position and of each of its moves (every game with exact play); "
        "else, or with --agent, an agent's search.",
    )(analyze_command)


def _build_book(
    game: str, position: str, weak: bool, stones: int, directory: Path | None, jobs: int | None
) -> None:
    """``solve connect4 --book STONES``: the 7 x 6 opening book, into ``directory`` (else the
    tables folder, where every 7 x 6 solver looks for it), ``jobs`` solvers at once (default:
    one a core)."""
    from boardlab.games.connect4.solver import BOOK_FILE
    from boardlab.ui.connect4_cli import build_book_connect4

    if position or weak:
        fail("--book builds the opening book from the empty board: it takes no position and no --weak")
    try:
        board = parse_game(game)
    except GameError as err:
        fail(str(err))
    if (board.width, board.height, board.connect) != (7, 6, 4):  # type: ignore[attr-defined]
        fail(f"the opening book is for Connect Four on 7x6, not {board.spec}")
    if directory is not None:
        _check_dir(directory)
        if (problem := output_problem(directory, folder=True)) is not None:
            fail(f"--dir {shorten(str(directory))}: {problem}")
    if jobs is not None and jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    target = None if directory is None else directory / BOOK_FILE
    build_book_connect4(stones, target, jobs if jobs is not None else os.cpu_count() or 1)


def _check_dir(directory: Path | None) -> None:
    problem = None if directory is None else path_problem(directory, folder=True)
    if problem is not None:
        fail(f"--dir {shorten(str(directory))}: {problem}")


def _analyze_by_search(
    console: Console, state: Any, spec: str, seconds: float, started: float, why: str | None = None
) -> None:
    """The ``analyze`` of a search: ``spec``'s decision on ``state`` (``why``: the reason no
    exact play answered, printed first)."""
    decision = search_decision(state, spec, seconds)
    console.print(str(state))
    side = state.game.symbols[state.to_move]
    if why is not None:
        console.print(f"{side} to move; no exact value: {why}")
    else:
        console.print(f"{side} to move")
    show_decision(console, state, spec, seconds, decision)
    console.print(f"({time.perf_counter() - started:.2f} s)")


def _under_cap(value: int, depth: int | None, plies_left: int | None) -> tuple[int, int | None, bool]:
    """A value of the exact play (solved without the ply cap) under a cap ``plies_left`` plies
    away (None: no cap), and whether the cap changed it (see :func:`cut_by_cap`)."""
    if cut_by_cap(value, depth, plies_left):
        return DRAW, None, True
    return value, depth, False


def solve_command(
    game: Annotated[
        str, typer.Argument(metavar="GAME", help="the game to solve: quixo, quixo:rules=course or connect4")
    ] = "quixo",
    position: Annotated[
        str,
        typer.Argument(metavar="POSITION", help="connect4: the moves played, e.g. 4453 (empty: the start)"),
    ] = "",
    weak: Annotated[bool, typer.Option("--weak", help="connect4: win / draw / loss only, faster")] = False,
    size: Annotated[
        int | None, typer.Option("--size", "-n", help="Quixo board side: 3, 4 (the default) or 5 (endgames)")
    ] = None,
    blanks: Annotated[
        int | None,
        typer.Option("--blanks", help="only positions with at most this many blank cubes (5x5: 0 or 1)"),
    ] = None,
    directory: Annotated[
        Path | None,
        typer.Option("--tables", "--dir", help=f"the folder of this board's tables ({TABLES_DEFAULT_HELP})"),
    ] = None,
    verify: Annotated[
        bool, typer.Option("--verify/--no-verify", help="check the checksums of tables already built")
    ] = True,
    book: Annotated[
        int | None,
        typer.Option(
            "--book",
            metavar="STONES",
            help="connect4: build the 7x6 opening book, every position with STONES stones solved (resumes)",
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", help="--book: solvers at once, 128 MB each (default: one a core)"),
    ] = None,
) -> None:
    """Build the tables class pair by class pair (fullest boards first); a run that was cut
    short resumes from the last finished pair. Ctrl-C and SIGTERM stop it with the finished
    pairs kept (exit 130 and 143)."""
    # the games' compiled code is loaded by the commands that use it, not at start-up
    from boardlab.games.quixo import SIZES
    from boardlab.games.quixo.solver import check_folder, default_table_dir, solve
    from boardlab.ui.connect4_cli import solve_connect4

    if book is None and jobs is not None:
        fail("--jobs is for building the Connect Four book (--book)")
    if game.strip().lower().startswith("connect4"):
        if size is not None or blanks is not None:
            fail("--size and --blanks are for Quixo; a Connect Four solve takes its board from the spec")
        if book is None and directory is not None:
            fail("--dir is where Quixo's tables or the Connect Four book (--book) go")
        with sigterm_as_interrupt() as termination:
            try:
                if book is not None:
                    _build_book(game.strip().lower(), position, weak, book, directory, jobs)
                else:
                    solve_connect4(position, weak=weak, game=game.strip().lower())
            except KeyboardInterrupt:
                typer.echo(f"{termination.how}.", err=True)
                raise typer.Exit(termination.exit_code) from None
        return
    if book is not None:
        fail("--book builds the Connect Four opening book: boardlab solve connect4 --book 6")
    rulebook = _quixo_rulebook(game, "solve")
    if position:
        fail("a Quixo solve takes no position; analyze a position with: boardlab analyze POSITION")
    _check_dir(directory)
    if size is not None and size not in SIZES:
        fail(f"--size must be 3, 4 or 5, got {size}")
    # --size and the spec agree (the spec named as solve takes it: an argument)
    size = int(game_of(game.strip().lower(), size, DEFAULT_SOLVE_SIZE, given_as="the game").size)
    cells = size * size
    if blanks is None:
        if size == 5:
            fail(
                "5x5 Quixo is too large to solve in full; "
                f"pass --blanks 0..{MAX_BLANKS_5X5} for endgame tables"
            )
        blanks = cells
    if not 0 <= blanks <= cells:
        fail(f"--blanks must be in 0..{cells}, got {blanks}")
    if size == 5 and blanks > MAX_BLANKS_5X5:
        fail(f"5x5 endgame tables go up to --blanks {MAX_BLANKS_5X5} (more needs far more memory)")
    folder = directory if directory is not None else default_table_dir(size, rulebook)
    problem = output_problem(folder, folder=True)  # before hours of solving, not after
    if problem is not None:
        fail(f"--dir {shorten(str(folder))}: {problem}")
    try:  # tables of the other rulebook there would be overwritten
        check_folder(folder, size, rulebook)
    except ValueError as err:
        fail(f"--dir: {err}")
    console = make_console(highlight=False)
    rules_note = "" if rulebook == "official" else f", {rulebook} rules"
    most = counted(blanks, "blank cube")
    console.print(f"Solving {size}x{size} Quixo (at most {most}{rules_note}) into {folder}")
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[positions]:,} positions"),
        TimeElapsedColumn(),
    )
    seen = 0
    with (
        sigterm_as_interrupt() as termination,
        LoggedProgress(*columns, console=console) as bar,
    ):
        task = bar.add_task("class pairs", total=None, positions=0)

        def progress(done: int, total: int, pair: tuple[int, int], positions: int) -> None:
            nonlocal seen
            seen += positions
            bar.update(task, completed=done, total=total, positions=seen, description=f"class pair {pair}")

        try:
            report = solve(
                size, folder, min_cubes=cells - blanks, progress=progress, verify=verify, rulebook=rulebook
            )
        except OSError as err:  # a full disk: what was written is whole
            fail(
                f"cannot write into {folder}: {err.strerror or err}; the finished class pairs are kept "
                "there, and the same command resumes once there is room",
                code=1,
            )
        except ValueError as err:
            fail(str(err))
        except KeyboardInterrupt:
            bar.stop()
            typer.echo(
                f"{termination.how}: the finished class pairs are kept in {folder}; "
                "run the same command again to resume.",
                err=True,
            )
            raise typer.Exit(termination.exit_code) from None
    _print_report(console, report)


def _print_report(console: Console, report: Any) -> None:
    from boardlab.games.quixo.solver import QuixoTables

    rules_note = "" if report.rulebook == "official" else f", {report.rulebook} rules"
    table = Table(title=f"{report.size}x{report.size} Quixo{rules_note}, side to move")
    for column in ("positions", "wins", "losses", "draws", "seconds"):
        table.add_column(column, justify="right")
    table.add_row(
        f"{report.positions:,}",
        f"{report.wins:,}",
        f"{report.losses:,}",
        f"{report.draws:,}",
        f"{report.seconds:.1f}",
    )
    console.print(table)
    console.print(f"{report.pairs_solved} class pairs solved, {report.pairs_loaded} already built")
    tables = QuixoTables(report.size, report.directory, rulebook=report.rulebook)
    if tables.covers(0, 0):
        value, depth = tables.value(0, 0)
        console.print(f"Empty board, first player to move: {value_words(value, depth)}")
    else:
        console.print("The empty board is not covered by these tables.")


def _quixo_rulebook(game: str, command: str) -> str:
    """The rulebook of a Quixo game spec (``quixo``, ``quixo:rules=course``); exit 2 otherwise."""
    from boardlab.games.quixo import Quixo

    try:
        parsed = parse_game(game.strip().lower())
    except GameOptionError as err:
        fail(f"cannot {command} {shorten(game)!r}: {err}")
    if not isinstance(parsed, Quixo):
        accepted = "quixo, quixo:rules=course or connect4"
        fail(f"cannot {command} {shorten(game)!r}; accepted: {accepted}{_solved_on_demand(parsed)}")
    return str(parsed.rules)


def _solved_on_demand(game: Any) -> str:
    """Where a game with exact play but no tables to build is solved, for a refused ``solve``."""
    if not exact_providers(game):
        return ""
    command = f"boardlab analyze --game {game.spec}"
    return f" ({game.name} needs no tables: {command} solves its positions when asked)"


def parse_quixo_position(text: str, rulebook: str = "official") -> Any:
    """A Quixo State from position text (``XO.O.../... X 5``: cells, side to move, ply)."""
    from boardlab.games.quixo import State

    return State.from_text(text, rules=rulebook)


def read_position(game: str, text: str) -> Any:
    """The position of ``analyze``: the game's position text (Quixo: its size read from the
    text); exits with code 2 and a one-line error on bad input."""

    try:
        parse_game(game.strip().lower())
    except GameError as err:
        fail(f"cannot analyze {shorten(game)!r}: {err}")
    return position_of(game.strip().lower(), None, text)


def analyze_command(
    position: Annotated[
        str,
        typer.Argument(
            metavar="POSITION",
            help='position text, e.g. "X.O.O.X.. O 5" (Quixo) or 4453 (Connect Four); empty: the start',
        ),
    ] = "",
    directory: Annotated[
        Path | None,
        typer.Option(
            "--tables",
            "--dir",
            help=f"the folder of this board's tables, as solve wrote it ({TABLES_DEFAULT_HELP})",
        ),
    ] = None,
    game: Annotated[
        str,
        typer.Option("--game", help="quixo, quixo:rules=course, connect4, tictactoe, nim..."),
    ] = "quixo",
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help=f"analyse with this agent's search instead of exact play (where none covers the position: "
            f"{SEARCH_AGENT})",
        ),
    ] = None,
    seconds: Annotated[
        float | None,
        typer.Option(
            "--seconds",
            min=0.05,
            max=3600,
            help=f"seconds the search may think (default {SEARCH_SECONDS:g}); on Connect Four, first "
            f"the solver's (default {CONNECT4_SOLVER_SECONDS:g}), then the search's where it does not settle",
        ),
    ] = None,
    moves_played: Annotated[str | None, typer.Option("--moves", help=MOVES_HELP)] = None,
) -> None:
    """Print the value and depth to the end of a position, and every legal move's value, from
    the game's exact play; where none covers the position, or with ``--agent``, what an agent's
    search decides there."""
    from boardlab.ui.connect4_cli import analyze_connect4

    started = time.perf_counter()
    if agent is None and game.strip().lower().startswith("connect4"):
        if moves_played:
            position = played(read_position(game, position), moves_played).to_text()
        budget = CONNECT4_SOLVER_SECONDS if seconds is None else seconds
        if not analyze_connect4(position, game=game.strip().lower(), seconds=budget):
            why = (
                f"the solver settled not every move within {budget:g} s (--seconds gives it more; "
                "an opening book answers early positions at once: boardlab solve connect4 --book 6)"
            )
            state = read_position(game, position)
            console = make_console(highlight=False)
            search_seconds = SEARCH_SECONDS if seconds is None else seconds
            _analyze_by_search(console, state, SEARCH_AGENT, search_seconds, started, why=why)
        return
    seconds = SEARCH_SECONDS if seconds is None else seconds
    _check_dir(directory)
    state = played(read_position(game, position), moves_played)
    console = make_console(highlight=False)
    outcome = state.outcome
    # a game over by its ply cap is over whatever the tables say; a search has nothing to search
    if outcome is not None and (agent is not None or outcome.reason == Reason.PLY_CAP):
        console.print(str(state))
        console.print(f"{state.game.symbols[state.to_move]} to move: {outcome.text(state.game.symbols)}")
        console.print("No move to play: the game is over.")
        return
    if agent is not None:
        _analyze_by_search(console, state, agent, seconds, started)
        return
    cap = state.game.ply_cap
    plies_left = None if cap is None else cap - state.ply
    try:
        exact = exact_play(state.game, tables=directory)
        exact.check_covered(state)
        value = exact.position_value(state)
        moves = exact.move_values(state)
    except KeyError as err:
        fail(str(err.args[0]) if err.args else str(err))
    except ExactPlayError as err:  # no exact play here: a search answers, saying why
        _analyze_by_search(console, state, SEARCH_AGENT, seconds, started, why=str(err))
        return
    except (OSError, ValueError) as err:
        fail(str(err))
    side = state.game.symbols[state.to_move]
    console.print(f"{state.game.title}, perfect play:")  # the rulebook judged by, where it matters
    console.print(str(state))
    capped_value, capped_depth, cut = _under_cap(value.value, value.depth, plies_left)
    line = value_words(capped_value, capped_depth)
    if cut:
        line += f" by the ply cap ({ply_count(cap)}; without it: {value_words(value.value, value.depth)})"
    console.print(f"{side} to move: {line}")
    if not moves:
        console.print("No move to play: the game is over.")
        return
    rows = []
    for m in moves:
        move_value, move_depth, move_cut = _under_cap(m.value, m.depth, plies_left)
        rank = depth_rank(move_value, move_depth) if plies_left is not None else m.rank
        rows.append((rank, m, move_value, move_depth, move_cut))
    rows.sort(key=lambda row: row[0], reverse=True)
    best = rows[0][0]
    table = Table(title=f"{len(moves)} legal moves, best first")
    for column in ("move", "value for " + side, "plies to the end", "best"):
        table.add_column(column)
    for rank, m, move_value, move_depth, move_cut in rows:
        table.add_row(
            str(state.move_from_index(m.action)),
            f"draw (cap; {value_words(m.value, m.depth)} without)" if move_cut else VALUE_NAMES[move_value],
            "-" if move_depth is None else str(move_depth),
            "*" if rank == best else "",
        )
    console.print(table)
    if plies_left is not None and any(row[4] for row in rows):  # a move cut by the ply cap
        console.print(
            f"(cap: the ply cap of {ply_count(cap)} ends the game {ply_count(plies_left)} from here, "
            "before perfect play would; the tables are solved without it)"
        )
    if plies_left is not None and any(
        m.value != DRAW and m.depth is None for m in moves
    ):  # no depth: the cap's effect is unknown
        console.print(
            f"(values without the ply cap of {ply_count(cap)}, which ends this game in {plies_left})"
        )
    console.print(f"({time.perf_counter() - started:.2f} s)")
