"""Rich tables and the progress bar of the arena."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from boardlab.arena.play import GameRecord
from boardlab.arena.ratings import pair_elo
from boardlab.arena.runner import GameHook, StartHook
from boardlab.arena.schedule import GAUNTLET
from boardlab.arena.summary import Outcomes, Summary
from boardlab.core.console import LoggedProgress, counted, make_console, ply_count, print_whole
from boardlab.core.files import atomic_write_text
from boardlab.core.spec import shortened_in_the_middle
from boardlab.games import GameError, Reason, parse_game

PIPE_WIDTH = 130
PLAYER_MIN_WIDTH = 16
"""Columns a player's name keeps however narrow the terminal (a longer name folds)."""
MAX_FORFEITS_SHOWN = 10


def output_console() -> Console:
    """A console on stdout; when stdout is not a terminal, wide enough for the tables."""
    console = make_console()
    return console if console.is_terminal else make_console(width=PIPE_WIDTH)


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1%}"


def _seconds(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _player_column(table: Table, summary: Summary) -> None:
    # a long name (a course player's path) folds onto more lines: it is never cut, and never
    # takes the room of the numbers
    longest = max(map(len, summary.names))
    table.add_column("player", overflow="fold", min_width=min(longest, PLAYER_MIN_WIDTH))


def _fitted(table: Table) -> Table:
    """``table`` with every column but the players' as wide as its longest cell: a number is
    never cut (``100.…``) or wrapped; a header too long for its column folds between its words
    (a name longer than a player's column, anywhere)."""
    for column in table.columns:
        if column.header == "player":
            continue
        column.overflow = "fold"
        word = max((cell_len(w) for w in str(column.header).split()), default=0)
        cells = max((cell_len(str(cell)) for cell in column.cells), default=0)
        column.min_width = max(cells, min(word, PLAYER_MIN_WIDTH))
    return table


def ratings_table(summary: Summary, title: str = "Ratings") -> Table:
    """Players best first: Elo with interval, games, wins-draws-losses, score, time per move,
    and the games lost by forfeit when there were any."""
    level = f"{summary.elo.level:.0%}" if summary.elo else "95%"
    table = Table(title=title)
    table.add_column("#", justify="right")
    _player_column(table, summary)
    show_forfeits = any(summary.forfeits)
    names = ["Elo", f"{level} interval", "games", "W-D-L", "score", "time/move"]
    for name in names + (["forfeits"] if show_forfeits else []):
        table.add_column(name, justify="right")
    for rank, i in enumerate(summary.ranking(), start=1):
        overall = summary.overall(i)
        if summary.elo is not None:
            low, high = summary.elo.interval(i)
            elo, interval = f"{summary.elo.ratings[i]:+.0f}", f"[{low:+.0f}, {high:+.0f}]"
        else:
            elo, interval = "-", "-"
        seconds = summary.move_seconds[i] if summary.move_seconds else math.nan
        cells = [str(rank), summary.names[i], elo, interval, str(overall.games), overall.text()]
        cells += [_pct(overall.score), _seconds(seconds)]
        table.add_row(*cells, *([str(summary.forfeits[i])] if show_forfeits else []))
    if summary.elo is not None and summary.elo.prior_draws:
        table.caption = (
            f"Elo by maximum likelihood, mean 0; prior: {summary.elo.prior_draws:g} virtual "
            f"draw{'' if summary.elo.prior_draws == 1 else 's'} per player against a mean-rated opponent"
        )
    return _fitted(table)


def score_matrix_table(summary: Summary, title: str = "Score matrix (row player's score)") -> Table:
    """The score of each row player against each column player, with the games played."""
    order = summary.ranking()
    scores = summary.score_matrix()
    table = Table(title=title)
    _player_column(table, summary)
    for j in order:
        table.add_column(summary.names[j], justify="right")
    for i in order:
        cells = []
        for j in order:
            games = int(summary.games[i, j])
            cells.append("" if i == j or not games else f"{scores[i, j]:.0%} ({games})")
        table.add_row(summary.names[i], *cells)
    return _fitted(table)


def colour_table(summary: Summary, title: str = "Results by colour") -> Table:
    """Wins-draws-losses and score of each player moving first and moving second."""
    table = Table(title=title)
    _player_column(table, summary)
    for name in ("as first W-D-L", "score", "as second W-D-L", "score"):
        table.add_column(name, justify="right")
    for i in summary.ranking():
        first, second = summary.as_first[i], summary.as_second[i]
        table.add_row(summary.names[i], first.text(), _pct(first.score), second.text(), _pct(second.score))
    table.caption = _first_player_caption(summary.first_player) + _endings_caption(summary)
    return _fitted(table)


def _first_player_caption(first: Outcomes) -> str:
    return f"all games: the first player won {first.wins}, drew {first.draws}, lost {first.losses}"


ENDINGS: dict[str, str] = {
    Reason.RULE: "won by the rules",
    Reason.DRAW: "drawn by the rules",
    Reason.PLY_CAP: "at the ply cap",
    Reason.REPETITION: "by repetition",
    Reason.RESIGNATION: "by resignation",
    Reason.FORFEIT: "by forfeit",
    Reason.TIME: "on time",
}
"""How a game that ended for each :class:`~boardlab.games.base.Reason` is said."""


def _endings_caption(summary: Summary) -> str:
    """``; 35 won by the rules, 5 drawn by the rules, 2 at the ply cap (2 draws)``: how the
    games ended (wins and draws told apart where the reason does not say which)."""
    parts = []
    for reason, wins, draws in summary.endings:
        part = f"{wins + draws} {ENDINGS.get(reason, reason.replace('_', ' '))}"
        if reason not in (Reason.RULE, Reason.DRAW):
            part += f" ({', '.join(counted(n, word) for n, word in ((wins, 'win'), (draws, 'draw')) if n)})"
        parts.append(part)
    return "; " + ", ".join(parts) if parts else ""


def tournaments_table(stored: Sequence[dict[str, Any]], title: str = "Tournaments") -> Table:
    """The tournaments of a store (as :meth:`boardlab.arena.store.Store.tournaments` lists
    them), oldest first: id, name, game, pairing, openings, clock, players, stored games and
    when the tournament began."""
    table = Table(title=title)
    for name in ("id", "name", "game", "pairing", "openings", "clock"):
        table.add_column(name, overflow="fold")
    for name in ("players", "games"):
        table.add_column(name, justify="right")
    table.add_column("created (UTC)")
    for item in stored:
        table.add_row(
            item["id"],
            item["name"],
            item["game"],
            item["pairing"],
            openings_text(item["openings"], item["opening_plies"]),
            item["time_control"] or "-",
            str(len(item["specs"])),
            f"{item['games']:,}",
            str(item["created"])[:16].replace("T", " "),
        )
    return _fitted(table)


def openings_text(suite: Sequence[Sequence[str]], plies: int) -> str:
    """How a tournament's games open, as :func:`tournaments_table` says it: ``a suite of 7``
    (openings played in turn) or ``2 plies at random``."""
    return f"a suite of {len(suite):,}" if suite else f"{ply_count(plies)} at random"


def tournament_label(item: Mapping[str, Any]) -> str:
    """One line telling a stored tournament (as :meth:`~boardlab.arena.store.Store.tournaments`
    lists it) from every other, in the words of :func:`tournaments_table`: its name, then its
    game, a gauntlet's pairing, its openings, its clock, its stored games and its id (``demo
    (quixo, openings 2 plies at random, clock 10+0.1, 40 games, id 5f2c...)``)."""
    parts = [str(item["game"])]
    if item["pairing"] == GAUNTLET:
        parts.append(GAUNTLET)
    parts.append(f"openings {openings_text(item['openings'], item['opening_plies'])}")
    if item["time_control"]:
        parts.append(f"clock {item['time_control']}")
    parts += [counted(item["games"], "game"), f"id {item['id']}"]
    return f"{item['name']} ({', '.join(parts)})"


def gauntlet_table(summary: Summary, records: Sequence[GameRecord]) -> Table:
    """The first player's results in ``records`` against each of the others, in their order:
    games, W-D-L overall and with each colour, score, and its Elo difference over that opponent
    with a 95 % interval (:func:`~boardlab.arena.ratings.pair_elo`)."""
    table = Table(title=f"{summary.names[0]} against each")
    longest = max(map(len, summary.names[1:]))
    table.add_column("opponent", overflow="fold", min_width=min(longest, PLAYER_MIN_WIDTH))
    for name in ("games", "W-D-L", "as first", "as second", "score", "Elo diff [95%]"):
        table.add_column(name, justify="right")
    for other in range(1, len(summary.names)):
        first = _results_of_first(r for r in records if (r.first_player, r.second_player) == (0, other))
        second = _results_of_first(r for r in records if (r.first_player, r.second_player) == (other, 0))
        both = first + second
        elo = "-"
        if both.games:
            diff, low, high = pair_elo(both.wins, both.draws, both.losses)
            elo = f"{diff:+.0f} [{low:+.0f}, {high:+.0f}]"
        row = (str(both.games), both.text(), first.text(), second.text(), _pct(both.score), elo)
        table.add_row(summary.names[other], *row)
    table.caption = f"W-D-L, score and Elo difference from {summary.names[0]}'s side"
    return _fitted(table)


def _results_of_first(records: Iterable[GameRecord]) -> Outcomes:
    """The tournament's player 0's wins, draws and losses in ``records`` (games it played)."""
    scores = [record.score_of(0) for record in records]
    return Outcomes(scores.count(1.0), scores.count(0.5), scores.count(0.0))


def print_report(
    summary: Summary,
    console: Console,
    title: str = "",
    records: Sequence[GameRecord] = (),
    gauntlet: bool = False,
) -> None:
    """Print the ratings, the score matrix (a gauntlet: the first player's results against each
    of the others) and colour tables, then the games of ``records`` forfeited or lost on time."""
    heading = f" ({title})" if title else ""
    print_whole(console, ratings_table(summary, f"Ratings{heading}: {counted(summary.n_games, 'game')}"))
    if len(summary.names) > 2:
        print_whole(console, gauntlet_table(summary, records) if gauntlet else score_matrix_table(summary))
    print_whole(console, colour_table(summary))
    lines = forfeit_lines(records, summary.names) + forfeit_lines(records, summary.names, on_time=True)
    for line in lines:
        console.print(line, soft_wrap=True, markup=False, highlight=False)


def _last_position(record: GameRecord) -> str | None:
    """The position text (as ``analyze`` and ``--openings`` read it) where ``record`` ended,
    None where its moves cannot be replayed."""
    try:
        state = parse_game(record.game).initial()
        for move in record.moves:
            state = state.play(state.parse_move(move))
    except GameError:
        return None
    return state.to_text()


def forfeit_lines(
    records: Sequence[GameRecord],
    names: Sequence[str],
    limit: int = MAX_FORFEITS_SHOWN,
    *,
    on_time: bool = False,
) -> list[str]:
    """A heading and one line per forfeited game (with ``on_time``: per game lost on time), the
    first ``limit`` of them: who lost it and how."""
    reason, heading, verb = (
        (Reason.TIME, "lost on time", "loses on time")
        if on_time
        else (Reason.FORFEIT, "forfeited", "forfeits")
    )
    lost = [r for r in records if r.outcome.reason is reason and r.winner is not None]
    if not lost:
        return []
    lines = [f"{counted(len(lost), 'game')} {heading}:"]
    for record in lost[:limit]:
        loser = record.second_player if record.winner == 0 else record.first_player
        detail = record.outcome.detail
        at = _last_position(record)
        where = "" if at is None else f" (at {at})"
        lines.append(
            f"  game {record.index}: {names[loser]} {verb} after {ply_count(record.plies)}: {detail}{where}"
        )
    if len(lost) > limit:
        lines.append(f"  ... and {len(lost) - limit} more (see the store)")
    return lines


def write_summary_json(summary: Summary, path: str | Path, extra: Mapping[str, Any] | None = None) -> Path:
    """Write the summary (scores, colours, ratings) as JSON, with the items of ``extra`` (a
    match's ``sprt``) added."""
    return atomic_write_text(path, summary_json(summary, extra))


def summary_json(summary: Summary, extra: Mapping[str, Any] | None = None) -> str:
    """The text of :func:`write_summary_json`."""
    data = {**summary.to_dict(), **(extra or {})}
    return json.dumps(data, indent=2) + "\n"


PROGRESS_LABEL_CHARS = 36
"""Longest label of a progress bar: a longer one (specs of long commands) is shortened in the
middle, so that the count, the time and the LLR keep their room on a terminal 100 wide."""
PROGRESS_BAR_CHARS = 16
NARROW_BAR_CHARS = 8
"""The bar's width on a terminal narrower than :data:`WIDE_TERMINAL`."""
WIDE_TERMINAL = 100
SHORTEST_LABEL_CHARS = 30
"""Room below which the label goes on a line of its own above the bar, whole."""


def _progress_label(label: str, chars: int = PROGRESS_LABEL_CHARS) -> str:
    """``label`` within ``chars``: a match's two specs (``A vs B``) each shortened in its
    middle, where two versions of one program differ."""
    players = label.split(" vs ")
    if len(players) != 2:
        return shortened_in_the_middle(label, chars)
    half = (chars - len(" vs ")) // 2
    return " vs ".join(shortened_in_the_middle(player, half) for player in players)


def _label_room(width: int, bar: int, total: int, note: str) -> int:
    """Characters left for the label on a line ``width`` wide beside the bar, the count of
    ``total`` games, the elapsed time and ``note`` (or the ETA), one space between columns."""
    ending = len(note) if note else len("ETA 0:00:00")
    taken = bar + len(f"{total}/{total}") + len(" games") + len(" 0:00:00") + len(" ") + ending
    return min(PROGRESS_LABEL_CHARS, width - taken - 1)


@contextmanager
def progress_bar(
    console: Console, label: str, note: Callable[[], str] | None = None
) -> Iterator[tuple[StartHook, GameHook]]:
    """A rich progress bar (games done / total, elapsed, ETA) and the hooks that drive it.

    ``note`` (an SPRT's LLR and bounds), asked again after each game, is shown instead of the
    ETA: a run that may stop any time has none.
    """
    ending = (
        (TextColumn("ETA"), TimeRemainingColumn())
        if note is None
        else (TextColumn("{task.fields[note]}", markup=False),)
    )
    bar = PROGRESS_BAR_CHARS if console.width >= WIDE_TERMINAL else NARROW_BAR_CHARS
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(bar_width=bar),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        *ending,
    )
    with LoggedProgress(*columns, console=console, transient=False) as progress:
        tasks: list[TaskID] = []

        def noted() -> str:
            return note() if note is not None else ""

        def on_start(total: int, done: int) -> None:
            # created here, with the stored games already counted, so the ETA ignores them
            room = _label_room(console.width, bar, total, noted())
            if room < min(len(label), SHORTEST_LABEL_CHARS):  # a narrow terminal: the label above, whole
                progress.console.print(label, markup=False, highlight=False, soft_wrap=True)
                room = 0
            shown = escape(_progress_label(label, room)) if room else ""
            tasks.append(progress.add_task(shown, total=total, completed=done, note=noted()))

        def on_game(record: GameRecord) -> None:
            if tasks:
                progress.update(tasks[-1], advance=1, note=noted())

        yield on_start, on_game
