"""CLI bodies of the Connect Four solver: ``solve connect4 MOVES``, ``analyze --game connect4
MOVES`` and building the opening book.

The bodies are plain functions (:func:`solve_connect4`, :func:`analyze_connect4`,
:func:`build_book_connect4`) that the one ``solve`` and the one ``analyze`` command of the
``boardlab`` app dispatch to by game. Bad input ends with a one-line error and exit code 2;
the errors of a move sequence name the ply where it went wrong.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from boardlab.core.console import LoggedProgress, counted, make_console, ply_count
from boardlab.games import GameError, parse_game
from boardlab.games.connect4 import ConnectFour
from boardlab.games.connect4.solver import CONNECT, Solver, build_book, default_book_path, score_text
from boardlab.ui.errors import fail

SYMBOLS = "XO"


def load_position(position: str, game_spec: str = "connect4") -> tuple[Any, Any]:
    """The game and the position of a command line: moves like ``4453`` (empty: the empty
    board) or a board text; exits with code 2 and a one-line error on bad input."""

    try:
        game = parse_game(game_spec)
    except (GameError, ValueError) as err:
        fail(str(err))
    if not isinstance(game, ConnectFour):
        fail(f"this command solves Connect Four (connect4), not {game.name}")
    if game.connect != CONNECT:
        fail(f"the Connect Four solver handles lines of {CONNECT} only, not connect={game.connect}")
    text = position.strip()
    try:
        if not text:
            return game, game.initial()
        if "/" in text or len(text.split()[0]) >= game.width * game.height:
            return game, game.parse_position(text)  # the board form
        # anything else is read as moves, so that junk is reported at the ply it starts
        return game, game.play_moves(text)
    except GameError as err:
        fail(str(err))


def _columns(cols: list[int]) -> str:
    return ", ".join(str(c + 1) for c in cols) or "-"


def _line(cols: list[int], width: int) -> str:
    sep = "" if width <= 9 else " "
    return sep.join(str(c + 1) for c in cols) or "-"


def _signed(score: int) -> str:
    return f"{score:+d}" if score else "0"


def _header(console: Console, game: Any, state: Any) -> None:
    console.print(f"{game.title}, {SYMBOLS[state.to_move]} to move, ply {state.ply}")
    console.print(state.render())


def _waiting(solver: Any, state: Any, doing: str = "solving") -> str:
    # positions near the opening take minutes unless the opening book answers them: their
    # best moves too, which needs the book to hold their children
    book = solver.book.stones if solver.book else -1
    if book <= state.ply <= 8:
        return (
            f"{doing} (positions this early can take minutes; an opening book answers them at once: "
            "`boardlab solve connect4 --book 6` builds one)..."
        )
    return f"{doing}..."


def solve_connect4(position: str = "", weak: bool = False, game: str = "connect4") -> None:
    """Print the score of a position for the side to move, its best moves and (unless
    ``weak``) a principal variation: a perfect game from there to the end."""

    the_game, state = load_position(position, game)
    console = make_console(highlight=False)
    _header(console, the_game, state)
    mover = SYMBOLS[state.to_move]
    solver = Solver.for_game(the_game)
    if (final := solver.final_score(state)) is not None:  # the game is over
        console.print(f"game over: {state.outcome.text()}; score for {mover} {_signed(final)}")
        return
    solver.count_from_zero()
    start = time.perf_counter()
    with console.status(_waiting(solver, state)):
        score = solver.solve(state, weak=weak)
    assert score is not None
    if weak:  # the moves keeping the outcome: a score of at least 1 (a win), 0 (a draw), or any
        outcome = {1: "win", 0: "draw", -1: "loss"}[score]
        console.print(f"result      {outcome} for {mover} (weak solve)")
        with console.status(_waiting(solver, state, "the moves that keep it")):
            best = solver.best_moves(state, score=score if score >= 0 else -64)
        console.print(f"best moves  {_columns(best)}  (keep the {outcome})")
    else:  # each part printed as it comes: the line can take longest
        meaning = score_text(score, state.ply, the_game.width, the_game.height)
        console.print(f"score       {_signed(score)}  ({mover}: {meaning})")
        with console.status(_waiting(solver, state, "the moves that keep it")):
            best = solver.best_moves(state, score)
        console.print(f"best moves  {_columns(best)}")
        with console.status(_waiting(solver, state, "a perfect line to the end")):
            line = solver.principal_variation(state, score)
        console.print(f"perfect play {_line(line, the_game.width)}  ({ply_count(len(line))})")
    seconds = time.perf_counter() - start
    console.print(f"[dim]{solver.nodes:,} nodes in {seconds:.3f} s[/dim]")


def analyze_connect4(
    position: str = "", weak: bool = False, game: str = "connect4", seconds: float | None = None
) -> bool:
    """Print every column's score for the side to move (the best ones marked), solved within
    ``seconds`` (None: as long as it takes). False, having printed nothing, if the solver
    settled not every column in time."""

    the_game, state = load_position(position, game)
    console = make_console(highlight=False)
    if state.is_over:
        _header(console, the_game, state)
        console.print(f"game over: {state.outcome.text()}")
        return True
    solver = Solver.for_game(the_game)
    solver.count_from_zero()
    start = time.perf_counter()
    with console.status(_waiting(solver, state)):
        scores = solver.analyze_within(state, seconds, weak=weak)
    if scores is None:
        return False
    _header(console, the_game, state)
    seconds = time.perf_counter() - start
    best = max(s for s in scores if s is not None)
    mover = SYMBOLS[state.to_move]
    table = Table(title=f"{mover} to move: {'outcome' if weak else 'score'} of each column")
    for name, justify in (("column", "right"), ("score", "right"), ("for " + mover, "left"), ("", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for col, score in enumerate(scores):
        if score is None:
            table.add_row(str(col + 1), "-", "full", "", style="dim")
            continue
        if weak:
            meaning = {1: "win", 0: "draw", -1: "loss"}[score]
        else:
            meaning = score_text(score, state.ply, the_game.width, the_game.height)
        mark = "best" if score == best else ""
        table.add_row(str(col + 1), _signed(score), meaning, mark, style="bold" if mark else "")
    console.print(table)
    console.print(f"[dim]{solver.nodes:,} nodes in {seconds:.3f} s[/dim]")
    return True


def build_book_connect4(stones: int = 4, path: Path | None = None, jobs: int = 1) -> None:
    """Build the 7 x 6 opening book: every position with ``stones`` stones solved, ``jobs``
    at once (resumes after a kill), the positions with fewer derived, saved as ``.npz``."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    if not 0 <= stones <= 8:
        fail(f"--book must be in 0..8 stones (each stone multiplies the work by about 4), got {stones}")
    target = path if path is not None else default_book_path()
    console = make_console(highlight=False)
    console.print(
        f"Building the Connect Four opening book ({counted(stones, 'stone')}, "
        f"{counted(jobs, 'solver')} at once) into {target}"
    )
    columns = (TextColumn("positions"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with LoggedProgress(*columns, console=console) as bar:
        task = bar.add_task("solve", total=None)
        try:
            book = build_book(
                7,
                6,
                stones,
                target,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                jobs=jobs,
            )
        except OSError as err:
            fail(str(err))
    console.print(f"{len(book):,} positions with at most {counted(stones, 'stone')} in {target}")


__all__ = ["analyze_connect4", "build_book_connect4", "load_position", "solve_connect4"]
