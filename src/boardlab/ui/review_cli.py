"""The ``review`` command: a game's moves judged one by one against perfect play.

The game comes from ``--moves`` (played from a position, by default the start) or from an
arena store (``--db``, ``--tournament``, ``--index``); the judge is the game's exact play, as
for ``oracle``. The table gives every judged move's value before and after, its verdict and
the best moves; runs of moves the judge does not cover are one line saying why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from boardlab.arena.oracle import OracleError, Tally, judge_for
from boardlab.arena.review import Review, ReviewedMove, Verdict, review_game
from boardlab.arena.store import Store, StoreError
from boardlab.core.console import counted, make_console, ply_count, print_whole
from boardlab.core.processes import raise_if_stopping, sigterm_as_interrupt
from boardlab.core.spec import shorten
from boardlab.games import parse_game
from boardlab.games.exact import VALUE_NAMES
from boardlab.ui.errors import fail
from boardlab.ui.game_args import MOVES_HELP, TABLES_DEFAULT_HELP, move_texts, played, position_of

BEST_SHOWN = 4
"""Most best moves named in a row."""
VERDICT_STYLES = {Verdict.THREW_WIN: "bold red", Verdict.LOST_DRAW: "bold red", Verdict.KEPT: "yellow"}


def register(app: typer.Typer) -> None:
    """Attach the ``review`` command to a typer app."""
    app.command(
        "review",
        help="A game's moves judged one by one against perfect play: wins thrown, draws lost.",
    )(review_command)


def review_command(
    position: Annotated[
        str,
        typer.Argument(
            metavar="POSITION", help="the position the moves start from (empty: the game's start)"
        ),
    ] = "",
    moves: Annotated[str | None, typer.Option("--moves", help=MOVES_HELP)] = None,
    game: Annotated[
        str | None,
        typer.Option("--game", help="quixo (the default), quixo:size=4, connect4, tictactoe, nim..."),
    ] = None,
    db: Annotated[Path | None, typer.Option("--db", help="review a game of this arena store instead")] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="with --db: the tournament (id or name)")
    ] = None,
    index: Annotated[int | None, typer.Option("--index", help="with --db: the game's index in it")] = None,
    tables: Annotated[
        Path | None,
        typer.Option("--tables", "--dir", help=f"the folder of solved tables ({TABLES_DEFAULT_HELP})"),
    ] = None,
    from_ply: Annotated[
        int,
        typer.Option(
            "--from-ply", min=0, help="judge the moves from this ply on (Connect Four: early plies are slow)"
        ),
    ] = 0,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the review as JSON (progress and errors on standard error)")
    ] = False,
) -> None:
    """Judge every move of a game with perfect play, where the game's exact play covers it:
    the value the mover had, what the move kept, the best moves, and where a win was thrown
    or a draw lost. Example: boardlab review --game tictactoe --moves "b2 a1 c3 a3 a2"."""
    if db is not None:
        if position or moves is not None or game is not None:
            fail("--db reviews a stored game: give no position, --moves or --game with it")
        start, moves_played = _stored_game(db, tournament, index)
    else:
        if tournament is not None or index is not None:
            fail("--tournament and --index choose a game of --db")
        start = position_of(game or "quixo", None, position)
        moves_played = move_texts(moves or "")
        if not moves_played:
            fail("--moves names no move to review")
    played(start, moves_played, "the stored game" if db is not None else "--moves")  # each move legal
    try:
        judge = judge_for(start.game, tables)
    except OracleError as err:
        fail(str(err))
    console = make_console(stderr=as_json, highlight=False)
    console.print(f"Reviewing {counted(len(moves_played), 'move')} of {start.game.title} with {judge.title}")
    review = _review(console, start, moves_played, judge, from_ply)
    if as_json:
        typer.echo(json.dumps(review.to_json(start), indent=1))
        return
    print_whole(console, _table(review, start.game.symbols))
    for side in (0, 1):
        console.print(_side_line(start.game.symbols[side], review, side))


def _stored_game(db: Path, tournament: str | None, index: int | None) -> tuple[Any, list[str]]:
    """The first position and the moves of game ``index`` of ``tournament`` in ``db``."""
    if tournament is None or index is None:
        fail("--db needs --tournament (id or name) and --index (the game)")
    if not db.is_file():
        fail(f"--db {shorten(str(db))}: no such store (match and tournament write one with --db)")
    try:
        with Store(db, read_only=True) as store:
            found = [t for t in store.tournaments() if tournament in (t["id"], t["name"])]
            if len(found) != 1:
                named = ", ".join(f"{t['id']} ({t['name'] or 'no name'})" for t in store.tournaments())
                which = "several tournaments are" if found else "no tournament is"
                held = shorten(named or "none", 300)
                fail(f"{which} named {shorten(tournament)!r} in {shorten(str(db))}; it holds: {held}")
            records = {record.index: record for record in store.games(found[0]["id"])}
    except StoreError as err:
        fail(str(err))
    if index not in records:
        fail(f"--index {index}: tournament {tournament} holds games {_ranges(sorted(records))}")
    record = records[index]
    return parse_game(record.game).initial(), list(record.moves)


def _ranges(indices: list[int]) -> str:
    if not indices:
        return "none"
    return (
        f"{indices[0]}..{indices[-1]}"
        if indices == list(range(indices[0], indices[-1] + 1))
        else shorten(", ".join(map(str, indices)), 120)
    )


def _review(console: Console, start: Any, played: list[str], judge: Any, from_ply: int) -> Review:
    columns = (TextColumn("moves"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    done = [0]

    def progress(count: int, total: int) -> None:
        done[0] = count
        bar.update(task, completed=count, total=total)
        raise_if_stopping()

    with Progress(*columns, console=console, transient=True) as bar, sigterm_as_interrupt() as termination:
        task = bar.add_task("moves", total=len(played))
        try:
            return review_game(start, played, judge, from_ply, progress)
        except OracleError as err:  # the moves were checked: a judge's own refusal
            fail(str(err))
        except KeyError as err:  # a table missing after the check (removed meanwhile)
            fail(str(err.args[0]) if err.args else str(err))
        except KeyboardInterrupt:
            how = "Terminated" if termination.received else "Interrupted"
            typer.echo(f"{how} after {done[0]} of {counted(len(played), 'move')}.", err=True)
            raise typer.Exit(termination.exit_code) from None


def _table(review: Review, symbols: tuple[str, str]) -> Table:
    table = Table(title="Every move against perfect play (value: for the side to move)")
    for column in ("ply", "side", "move", "value", "after it", "verdict", "best instead"):
        table.add_column(column)
    for run in _runs(review.moves):
        first = run[0]
        if first.verdict is Verdict.UNJUDGED:
            plies = f"{first.ply}" if len(run) == 1 else f"{first.ply}-{run[-1].ply}"
            moves = " ".join(m.move for m in run)
            table.add_row(plies, "", shorten(moves, 24), "", "", f"not judged: {first.why}", "", style="dim")
            continue
        table.add_row(
            str(first.ply),
            symbols[first.mover],
            first.move,
            VALUE_NAMES[first.value] if first.value is not None else "",
            _kept(first),
            first.verdict.value,
            _best(first),
            style=VERDICT_STYLES.get(first.verdict, ""),
        )
    return table


def _runs(moves: list[ReviewedMove]) -> list[list[ReviewedMove]]:
    """Judged moves one by one; consecutive moves not judged for the same reason together."""
    runs: list[list[ReviewedMove]] = []
    for move in moves:
        previous = runs[-1][-1] if runs else None
        if (
            previous is not None
            and move.verdict is Verdict.UNJUDGED
            and previous.verdict is Verdict.UNJUDGED
            and move.why == previous.why
        ):
            runs[-1].append(move)
        else:
            runs.append([move])
    return runs


def _kept(move: ReviewedMove) -> str:
    if move.played is None:
        return ""
    words = VALUE_NAMES[move.played]
    return words if move.plies is None or move.played == 0 else f"{words} in {ply_count(move.plies)}"


def _best(move: ReviewedMove) -> str:
    if move.verdict is Verdict.BEST:
        return ""
    shown = " ".join(move.best[:BEST_SHOWN])
    return shown + (f" (+{len(move.best) - BEST_SHOWN})" if len(move.best) > BEST_SHOWN else "")


def _side_line(symbol: str, review: Review, side: int) -> str:
    tally: Tally = review.tallies[side]
    all_moves = sum(1 for m in review.moves if m.mover == side)
    if not tally.moves:
        return f"{symbol}: none of its {counted(all_moves, 'move')} judged"
    mistakes = [m for m in review.mistakes if m.mover == side]
    said = f"{symbol}: {tally.moves} of {counted(all_moves, 'move')} judged"
    said += f", {tally.kept} kept the value ({tally.exact} best)"
    if tally.thrown:
        said += f", {counted(tally.thrown, 'win')} thrown"
    if tally.lost:
        said += f", {counted(tally.lost, 'draw')} lost"
    if mistakes:
        said += " (ply " + ", ".join(str(m.ply) for m in mistakes) + ")"
    return said


__all__ = ["register", "review_command"]
