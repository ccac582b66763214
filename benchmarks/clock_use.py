"""How the agents of clocked tournaments used their game clocks, from a game store of the arena.

    .venv/bin/boardlab tournament alphabeta mcts hybrid --game connect4 --tc 5+0.05 --db clock.sqlite
    .venv/bin/python benchmarks/clock_use.py clock.sqlite

For every tournament of the store played on a clock (or the one named by ``--tournament``),
each player's clock is replayed from its games' thinking times: the table gives the games and
moves, the games lost on time, the mean time per move, the median share of its clock a game
used (time spent over the base plus the increments it earned) and the least it ever had left
after a move.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from boardlab.arena import Store
from boardlab.arena.play import GameRecord
from boardlab.games import Reason
from boardlab.play.clock import TimeControl


@dataclass
class ClockUse:
    """One player's use of its clock over its games."""

    games: int = 0
    moves: int = 0
    lost_on_time: int = 0
    seconds: float = 0.0
    shares: list[float] = field(default_factory=list)
    lowest: float = float("inf")


def sides(record: GameRecord) -> Iterator[tuple[int, list[float]]]:
    """Each player of ``record`` (its index in the tournament) with the thinking times of its
    moves, in order (the first timed move follows the opening)."""
    players = (record.first_player, record.second_player)
    times: tuple[list[float], list[float]] = ([], [])
    for i, seconds in enumerate(record.move_times):
        times[(len(record.opening) + i) % 2].append(seconds)
    yield from ((players[colour], times[colour]) for colour in (0, 1))


def replay_clock(control: TimeControl, times: list[float]) -> tuple[float, float]:
    """The share of the clock ``times`` used and the least left after a move (the base when
    there was no move)."""
    lowest = control.base
    for made, seconds in enumerate(times):
        lowest = min(lowest, control.left(times[:made]) - seconds)
    if not times:
        return 0.0, lowest
    # what the side had for its moves: the clock before its last move, and that move's increment
    granted = control.left(times[:-1]) + sum(times[:-1]) + control.increment
    return sum(times) / granted, lowest


def collect(path: str, tournament: str | None) -> dict[str, ClockUse]:
    """Each player's clock use in the clocked tournaments of the store at ``path``, by its spec
    and clock."""
    use: dict[str, ClockUse] = {}
    with Store(path, read_only=True) as store:
        for item in store.tournaments():
            if not item["time_control"] or tournament not in (None, item["id"], item["name"]):
                continue
            control = TimeControl.parse(item["time_control"])
            for record in store.games(item["id"]):
                for player, times in sides(record):
                    entry = use.setdefault(f"{item['specs'][player]} ({control})", ClockUse())
                    add_game(entry, record, player, control, times)
    return use


def add_game(
    entry: ClockUse, record: GameRecord, player: int, control: TimeControl, times: list[float]
) -> None:
    """Count ``player``'s game ``record`` with its thinking ``times`` into ``entry``."""
    entry.games += 1
    if record.outcome.reason is Reason.TIME:
        loser = record.second_player if record.winner == 0 else record.first_player
        entry.lost_on_time += loser == player
    share, lowest = replay_clock(control, times)
    entry.moves += len(times)
    entry.seconds += sum(times)
    entry.shares.append(share)
    entry.lowest = min(entry.lowest, lowest)


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 2 when the store holds no clocked tournament."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", help="the arena's SQLite store")
    parser.add_argument("--tournament", help="one tournament's id or name (default: every clocked one)")
    args = parser.parse_args(argv)
    use = collect(args.db, args.tournament)
    if not use:
        print(f"Error: {args.db} holds no tournament played on a clock", file=sys.stderr)
        return 2
    table = Table(title=f"Clock use in {args.db}")
    table.add_column("player (clock)", no_wrap=True)
    for column in ("games", "moves", "lost on time", "s/move", "clock used", "least left"):
        table.add_column(column, justify="right")
    for name, entry in sorted(use.items()):
        table.add_row(
            name,
            str(entry.games),
            str(entry.moves),
            str(entry.lost_on_time),
            f"{entry.seconds / max(entry.moves, 1):.3f}",
            f"{statistics.median(entry.shares):.0%}",
            f"{entry.lowest:.2f} s",
        )
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
