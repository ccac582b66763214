"""Two versions of an agent on the same games: which games changed result, and is the change real.

    .venv/bin/python benchmarks/paired.py results/new.sqlite results/old.sqlite

Each store holds one ``strength.py`` row (the measured agent first in the tournament's specs)
run with the same ``--seed``, ``--games`` and opponent, so game ``i`` of one store starts from
the same opening, with the same colours, as game ``i`` of the other. For every game index
found in both, the measured agent's score (1, ½, 0) is compared. Prints each store's W-D-L by
the agent's colour, how many games got better or worse, and a two-sided sign test on the
changed games (scipy's exact binomial test): a small p says the change of version, not the
luck of the games, moved the results.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from scipy.stats import binomtest

from boardlab.arena import Store
from boardlab.arena.play import GameRecord


@dataclass
class Row:
    """The measured agent's games of one store, by game index."""

    agent: str
    opponent: str
    scores: dict[int, float]  # game index -> the agent's score
    colours: dict[int, int]  # game index -> the agent's colour (0 first)


def read_row(path: str) -> Row:
    """The single row of the store at ``path``."""
    with Store(path) as store:
        tournaments = store.tournaments()
        if len(tournaments) != 1:
            raise SystemExit(f"{path}: expected one row (tournament), found {len(tournaments)}")
        records = store.games(tournaments[0]["id"])
    if not records:
        raise SystemExit(f"{path}: no games stored")
    agent = _agent_spec(records[0])
    row = Row(agent, "", {}, {})
    for record in records:
        colour = 0 if record.first_spec == agent else 1
        row.opponent = record.second_spec if colour == 0 else record.first_spec
        row.scores[record.index] = record.outcome.score_for(colour)
        row.colours[record.index] = colour
    return row


def _agent_spec(record: GameRecord) -> str:
    # strength.py enters the measured agent first: player 0 of the tournament
    return record.first_spec if record.first_player == 0 else record.second_spec


def _wdl(scores: list[float]) -> str:
    return f"{scores.count(1.0)}-{scores.count(0.5)}-{scores.count(0.0)}"


def main(argv: list[str] | None = None) -> int:
    """Print the comparison; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("new", help="store of the new version's row")
    parser.add_argument("old", help="store of the old version's row, same games")
    args = parser.parse_args(argv)
    new, old = read_row(args.new), read_row(args.old)
    if new.opponent != old.opponent:
        print(f"the rows have different opponents: {new.opponent} and {old.opponent}", file=sys.stderr)
        return 2
    common = sorted(set(new.scores) & set(old.scores))
    if any(new.colours[i] != old.colours[i] for i in common):
        print("the rows do not play the same games (colours differ): use the same --seed", file=sys.stderr)
        return 2
    table = Table(title=f"{len(common)} games against {new.opponent}")
    for column in ("version", "W-D-L", "as first", "as second", "score"):
        table.add_column(column, justify="left" if column == "version" else "right")
    for row in (new, old):
        scores = [row.scores[i] for i in common]
        by_colour = [[row.scores[i] for i in common if row.colours[i] == c] for c in (0, 1)]
        score = f"{sum(scores) / len(scores):.1%}" if scores else "-"
        table.add_row(row.agent, _wdl(scores), _wdl(by_colour[0]), _wdl(by_colour[1]), score)
    console = Console(highlight=False)
    console.print(table)
    better = sum(new.scores[i] > old.scores[i] for i in common)
    worse = sum(new.scores[i] < old.scores[i] for i in common)
    p = binomtest(better, better + worse).pvalue if better + worse else 1.0
    same = len(common) - better - worse
    console.print(f"games better: {better}, worse: {worse}, unchanged: {same}; sign test p = {p:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
