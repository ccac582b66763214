"""The ``review`` command: a game's moves judged one by one against perfect play.

The game comes from ``--moves`` (played from a position, by default the start) or from an
arena store (``--db``, ``--tournament``, ``--index``); the judge is the game's exact play, as
for ``oracle``. The table gives every judged move's value before and after, its verdict and
the best moves; runs of moves the judge does not cover are one line saying why.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from boardlab.arena.oracle import OracleError, Tally, judge_for
from boardlab.arena.play import GameRecord
from boardlab.arena.review import (
    Progressed,
    Review,
    ReviewedMove,
    ReviewRow,
    StoredMistake,
    TournamentReview,
    Verdict,
    review_game,
    review_games,
    review_rows,
)
from boardlab.arena.store import Store, StoreError
from boardlab.core.console import LoggedProgress, counted, make_console, ply_count, print_whole
from boardlab.core.processes import raise_if_stopping, sigterm_as_interrupt
from boardlab.core.spec import shorten
from boardlab.games import ExactPlay, Game, parse_game
from boardlab.games.exact import VALUE_NAMES
from boardlab.ui.arena import check_store_file, warn_unreadable
from boardlab.ui.errors import fail
from boardlab.ui.game_args import MOVES_HELP, TABLES_DEFAULT_HELP, move_texts, played, position_of

BEST_SHOWN = 4
MISTAKES_SHOWN = 20
"""Most thrown wins and lost draws listed after a tournament's table."""
T = TypeVar("T")
"""Most best moves named in a row."""
VERDICT_STYLES = {Verdict.THREW_WIN: "bold red", Verdict.LOST_DRAW: "bold red", Verdict.KEPT: "yellow"}


def register(app: typer.Typer) -> None:
    """Attach the ``review`` command to a typer app."""
    app.command(
        "review",
        help="A game's moves judged one by one against perfect play: wins thrown, draws lost.",
    )(review_command)


NOTHING_TO_REVIEW = (
    'say which game to review: --moves "MOVES" (with --game, and a POSITION to start elsewhere), '
    "or --db STORE --tournament NAME (with --index N for one of its games)"
)


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
    index: Annotated[
        int | None, typer.Option("--index", help="with --db: the game's index in it (default: every game)")
    ] = None,
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
        records = _stored_games(db, tournament)
        if index is None:
            _review_tournament(records, tables, from_ply, as_json)
            return
        record = _game_at(records, index, str(tournament))
        start, moves_played, opening = (
            parse_game(record.game).initial(),
            list(record.moves),
            len(record.opening),
        )
    else:
        if tournament is not None or index is not None:
            fail("--tournament and --index choose a game of --db")
        start, opening = position_of(game or "quixo", None, position), 0
        if moves is None:
            fail(NOTHING_TO_REVIEW)
        moves_played = move_texts(moves, start.game)
        if not moves_played:
            fail("--moves names no move to review")
    played(start, moves_played, "the stored game" if db is not None else "--moves")  # each move legal
    judge, console = _judge(start.game, tables, counted(len(moves_played), "move"), as_json)
    review = _counted_work(
        console,
        "move",
        len(moves_played),
        lambda progress: review_game(start, moves_played, judge, from_ply, progress, opening),
    )
    if as_json:
        typer.echo(json.dumps(review.to_json(start), indent=1))
        return
    print_whole(console, _table(review_rows(start, review.moves, judge), start.game.symbols))
    for side in (0, 1):
        console.print(_side_line(start.game.symbols[side], review, side))


def _stored_games(db: Path, tournament: str | None) -> list[GameRecord]:
    """Every game of ``tournament`` (an id or a name) in ``db``, in index order."""
    if tournament is None:
        fail("--db needs --tournament (id or name), and --index for one game of it")
    check_store_file(db)
    try:
        with Store(db, read_only=True) as store:
            found = [t for t in store.tournaments() if tournament in (t["id"], t["name"])]
            if len(found) != 1:
                named = ", ".join(f"{t['id']} ({t['name'] or 'no name'})" for t in store.tournaments())
                which = "several tournaments are" if found else "no tournament is"
                held = shorten(named or "none", 300)
                fail(f"{which} named {shorten(tournament)!r} in {shorten(str(db))}; it holds: {held}")
            records = store.games(found[0]["id"], on_unreadable=warn_unreadable)
    except StoreError as err:
        fail(str(err))
    if not records:
        fail(f"tournament {shorten(tournament)} holds no game")
    return records


def _review_tournament(records: list[GameRecord], tables: Path | None, from_ply: int, as_json: bool) -> None:
    """Every game of a tournament reviewed: each player's tally over its judged moves, and the
    moves that threw a win or lost a draw."""
    game = parse_game(records[0].game)
    for record in records:
        played(game.initial(), list(record.moves), f"stored game {record.index}")
    judge, console = _judge(game, tables, counted(len(records), "game"), as_json)

    def review_all(progress: Progressed) -> TournamentReview:
        return review_games(game.initial(), records, judge, from_ply, progress)

    reviewed = _counted_work(console, "game", len(records), review_all)
    if as_json:
        typer.echo(json.dumps(reviewed.to_json(), indent=1))
        return
    print_whole(console, _players_table(reviewed))
    for mistake in reviewed.mistakes[:MISTAKES_SHOWN]:
        console.print(_mistake_line(mistake))
    if len(reviewed.mistakes) > MISTAKES_SHOWN:
        console.print(f"... and {len(reviewed.mistakes) - MISTAKES_SHOWN} more (--json lists them all)")


def _players_table(reviewed: TournamentReview) -> Table:
    table = Table(title="Each player's moves against perfect play")
    for column in ("player", "games", "judged", "kept the value", "best", "wins thrown", "draws lost"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for spec, tally in reviewed.players.items():
        table.add_row(
            spec,
            str(reviewed.games[spec]),
            str(tally.moves),
            _share(tally.kept, tally.moves),
            _share(tally.exact, tally.moves),
            f"{tally.thrown} of {tally.won}",
            f"{tally.lost} of {tally.drawn}",
        )
    return table


def _share(part: int, whole: int) -> str:
    return "-" if not whole else f"{part / whole:.1%}"


def _mistake_line(mistake: StoredMistake) -> str:
    move = mistake.move
    return (
        f"game {mistake.game}, ply {move.ply}: {mistake.player} played {move.move} "
        f"({move.verdict.value}; best {' '.join(move.best[:BEST_SHOWN])})"
    )


def _game_at(records: list[GameRecord], index: int, tournament: str) -> GameRecord:
    by_index = {record.index: record for record in records}
    if index not in by_index:
        fail(f"--index {index}: tournament {tournament} holds games {_ranges(sorted(by_index))}")
    return by_index[index]


def _ranges(indices: list[int]) -> str:
    if not indices:
        return "none"
    return (
        f"{indices[0]}..{indices[-1]}"
        if indices == list(range(indices[0], indices[-1] + 1))
        else shorten(", ".join(map(str, indices)), 120)
    )


def _judge(game: Game, tables: Path | None, what: str, as_json: bool) -> tuple[ExactPlay, Console]:
    """The game's judge and the console that shows the review's progress (standard error when
    the review goes out as JSON), saying what is reviewed; one line and exit 2 without a judge."""
    try:
        judge = judge_for(game, tables)
    except OracleError as err:
        fail(str(err))
    console = make_console(stderr=as_json, highlight=False)
    console.print(f"Reviewing {what} of {game.title} with {judge.title}")
    return judge, console


def _counted_work(console: Console, what: str, total: int, work: Callable[[Progressed], T]) -> T:
    """``work(progress)`` under a progress bar of ``total`` ``what``s; a judge's refusal is one
    line (exit 2), Ctrl-C or SIGTERM stops it with one line (exit 130 or 143)."""
    columns = (TextColumn(what + "s"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    done = [0]

    def progress(count: int, of: int) -> None:
        done[0] = count
        bar.update(task, completed=count, total=of)
        raise_if_stopping()

    with (
        LoggedProgress(*columns, console=console, transient=True) as bar,
        sigterm_as_interrupt() as termination,
    ):
        task = bar.add_task(what, total=total)
        try:
            return work(progress)
        except OracleError as err:  # the moves were checked: a judge's own refusal
            fail(str(err))
        except KeyError as err:  # a table missing after the check (removed meanwhile)
            fail(str(err.args[0]) if err.args else str(err))
        except KeyboardInterrupt:
            how = "Terminated" if termination.received else "Interrupted"
            typer.echo(f"{how} after {done[0]} of {counted(total, what)}.", err=True)
            raise typer.Exit(termination.exit_code) from None


def _table(rows: list[ReviewRow], symbols: tuple[str, str]) -> Table:
    table = Table(title="Every move against perfect play (value: for the side to move)")
    for column in ("ply", "side", "move", "value", "after it", "verdict", "best instead"):
        table.add_column(column)
    for row in rows:
        first = row.moves[0]
        if first.verdict is Verdict.UNJUDGED:
            plies = f"{first.ply}" if len(row.moves) == 1 else f"{first.ply}-{row.moves[-1].ply}"
            moves = " ".join(m.move for m in row.moves)
            table.add_row(plies, "", shorten(moves, 24), "", "", f"not judged: {row.why}", "", style="dim")
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
