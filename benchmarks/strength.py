"""Playing strength of one agent against a list of opponents.

Each opponent plays ``--games`` games against the agent: colours alternate, each opening
(random plies, or a suite's in turn with ``--openings FILE``) is played with both colours,
games run in parallel and are stored in ``--db`` (so an interrupted run resumes where it
stopped when the same command is run again). Prints a table: wins/draws/losses overall and by
colour, score, and the agent's Elo difference over the opponent with its 95 % interval (maximum
likelihood, one virtual draw per player as prior, see boardlab.arena.ratings).

``--backend ray`` plays the games on Ray (a local instance, or the cluster at ``--address``);
the results come back to this process, which alone writes the store.

Usage:
    .venv/bin/python benchmarks/strength.py --agent hybrid \\
        --opponents random alphabeta:depth=3,eval=lines3 --games 1000 [--markdown] \\
        [--backend ray [--address HOST:PORT]]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from boardlab.arena import ArenaError, Store, TournamentConfig, TournamentRun, read_openings, run_tournament
from boardlab.arena.report import output_console, progress_bar
from boardlab.arena.runner import validate_config
from boardlab.core.inputs import InputFileError
from boardlab.play.backend import BACKENDS, Backend, BackendError, open_backend


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="agent spec to measure, e.g. hybrid")
    parser.add_argument("--opponents", nargs="+", required=True, help="opponent specs")
    parser.add_argument("--games", type=int, default=100, help="games against each opponent")
    parser.add_argument("--game", default="quixo", help="game spec, e.g. quixo or quixo:size=4")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed")
    parser.add_argument("--opening-plies", type=int, default=2, help="random opening plies")
    parser.add_argument("--openings", type=Path, help="a suite of openings played in turn (one a line)")
    parser.add_argument("--tc", default="", metavar="[MOVES/]BASE[+INC]", help="a clock for both: 60+0.5")
    parser.add_argument("--db", type=Path, default=Path("results/strength.sqlite"), help="SQLite game store")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    parser.add_argument("--backend", choices=BACKENDS, default="local", help="where the workers run")
    parser.add_argument("--address", default=None, help="HOST:PORT of a Ray cluster to join (--backend ray)")
    return parser.parse_args(argv)


def _configs(args: argparse.Namespace) -> list[TournamentConfig]:
    if args.games < 1:
        raise ArenaError(f"--games must be at least 1, got {args.games}")
    if args.workers is not None and args.workers < 1:
        raise ArenaError(f"--workers must be at least 1, got {args.workers}")
    suite = read_openings(args.openings, args.game) if args.openings is not None else ()
    configs = [
        TournamentConfig(
            (args.agent, opponent),
            args.games,
            args.game,
            args.seed,
            args.opening_plies,
            openings=suite,
            time_control=args.tc,
        )
        for opponent in args.opponents
    ]
    for config in configs:
        validate_config(config)
    return configs


def _row(run: TournamentRun) -> list[str]:
    summary = run.summary()
    overall, first, second = summary.overall(0), summary.as_first[0], summary.as_second[0]
    diff, low, high = summary.elo.difference(0, 1) if summary.elo else (math.nan,) * 3
    seconds = summary.move_seconds[0] if summary.move_seconds else math.nan
    longest = summary.max_move_seconds[0] if summary.max_move_seconds else math.nan
    return [
        run.config.specs[1],
        str(overall.games),
        overall.text(),
        first.text(),
        second.text(),
        f"{overall.score:.1%}",
        f"{diff:+.0f} [{low:+.0f}, {high:+.0f}]",
        f"{seconds * 1000:.1f}",
        f"{longest * 1000:.0f}",
        f"{statistics.fmean(summary.plies):.1f}",
    ]


COLUMNS = (
    "opponent",
    "games",
    "W-D-L",
    "as first",
    "as second",
    "score",
    "Elo diff [95%]",
    "ms/move",
    "max ms",
    "plies",
)


def _print_tables(agent: str, rows: list[list[str]], console: Console, markdown: bool) -> None:
    table = Table(title=f"Strength of {agent}")
    for i, column in enumerate(COLUMNS):
        table.add_column(column, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    table.caption = (
        "W-D-L and score from the agent's side; "
        "ms/move and max ms: the agent's mean and longest thinking time per move"
    )
    console.print(table)
    if markdown:
        print(f"\n`{agent}`\n")
        print("| " + " | ".join(COLUMNS) + " |")
        print("|---" + "|---:" * (len(COLUMNS) - 1) + "|")
        for row in rows:
            print("| " + " | ".join(f"`{row[0]}`" if i == 0 else cell for i, cell in enumerate(row)) + " |")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status."""
    args = _arguments(argv)
    console, status = output_console(), Console(stderr=True)
    try:
        configs = _configs(args)
        backend = open_backend(args.backend, args.address)
    except (ArenaError, BackendError, InputFileError) as err:
        print(f"Error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    with backend:
        try:
            store = Store(args.db)
        except ArenaError as err:
            print(f"Error: {' '.join(str(err).split())}", file=sys.stderr)
            return 2
        with store:
            return _measure(args, configs, store, backend, console, status)


def _measure(
    args: argparse.Namespace,
    configs: list[TournamentConfig],
    store: Store,
    backend: Backend,
    console: Console,
    status: Console,
) -> int:
    rows = []
    for config in configs:
        with progress_bar(status, f"{config.specs[0]} vs {config.specs[1]}") as (on_start, on_game):
            try:
                run = run_tournament(
                    config, store, workers=args.workers, on_start=on_start, on_game=on_game, backend=backend
                )
            except ArenaError as err:
                print(f"Error: {' '.join(str(err).split())}", file=sys.stderr)
                return 1
        if run.interrupted:
            status.print(
                f"Interrupted: the games played are stored in {args.db}; run the same command to resume.",
                soft_wrap=True,
            )
            return 130
        rows.append(_row(run))
    title = f"{args.agent}, clock {configs[0].time_control}" if args.tc else args.agent
    _print_tables(title, rows, console, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
