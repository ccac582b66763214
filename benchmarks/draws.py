"""Where an agent's drawn games turned into draws, from a game store of the arena.

    .venv/bin/python benchmarks/draws.py results/g100/official.sqlite --agent hybrid:time=0.25

Each drawn game of ``--agent`` is replayed. The table counts the draws by the agent's colour and
gives, for those in which a position repeated (the same cubes and the same side to move),
the ply of the first repetition and the game's evaluation (``--eval``, default the game's
first) of that position from the agent's side: the quartiles and the share at or below 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from rich.console import Console
from rich.table import Table

from boardlab.arena import Store
from boardlab.arena.play import GameRecord
from boardlab.games import parse_game


@dataclass
class Draws:
    """The drawn games of one colour of the agent."""

    games: int = 0
    repeat_plies: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)  # at the first repetition, agent's side


def first_repetition(record: GameRecord, colour: int, eval_name: str) -> tuple[int, float] | None:
    """The ply at which a position of ``record`` first repeats, and its evaluation for
    ``colour``; None when no position repeats."""
    game = parse_game(record.game)
    state = game.initial()
    kernel = state.kernel
    eval_id = kernel.evaluations.index(eval_name) if eval_name else 0
    seen = {(state.words, state.to_move)}
    for move in record.moves:
        state = state.play(game.move_of(game.parse_action(move)))
        key = (state.words, state.to_move)
        if key in seen:
            me, opp = state.words
            value = float(kernel.evaluate(kernel.ctx, np.int64(me), np.int64(opp), eval_id))
            return state.ply, value if state.to_move == colour else -value
        seen.add(key)
    return None


def collect(path: str, agent: str, eval_name: str) -> dict[str, Draws]:
    """The agent's drawn games in the store at ``path``, by its colour."""
    draws = {"first": Draws(), "second": Draws()}
    with Store(path) as store:
        for tournament in store.tournaments():
            for record in store.games(tournament["id"]):
                if record.outcome.winner is not None or agent not in (record.first_spec, record.second_spec):
                    continue
                colour = 0 if record.first_spec == agent else 1
                side = draws["first" if colour == 0 else "second"]
                side.games += 1
                found = first_repetition(record, colour, eval_name)
                if found is not None:
                    side.repeat_plies.append(found[0])
                    side.values.append(found[1])
    return draws


def _quartiles(values: Sequence[float]) -> str:
    if len(values) < 2:
        return "-"
    low, mid, high = statistics.quantiles(values, n=4)
    return f"{mid:+.0f} [{low:+.0f}, {high:+.0f}]"


def main(argv: list[str] | None = None) -> int:
    """Print the table; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", help="SQLite game store written by the arena")
    parser.add_argument("--agent", required=True, help="the agent spec exactly as stored")
    parser.add_argument("--eval", default="", help="evaluation of the positions (default: the game's first)")
    args = parser.parse_args(argv)
    draws = collect(args.db, args.agent, args.eval)
    table = Table(title=f"Draws of {args.agent} in {args.db}")
    for column in ("as", "draws", "with a repetition", "first repetition: ply", "evaluation there", "≤ 0"):
        table.add_column(column, justify="left" if column == "as" else "right")
    for side, d in draws.items():
        share = f"{sum(v <= 0 for v in d.values) / len(d.values):.0%}" if d.values else "-"
        plies = _quartiles(d.repeat_plies).replace("+", "")
        table.add_row(side, str(d.games), str(len(d.values)), plies, _quartiles(d.values), share)
    console = Console(highlight=False)
    console.print(table)
    note = "median [quartiles]; the evaluation from the agent's side (Quixo tuned: 100 = odds e to 1)"
    console.print(note, markup=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
