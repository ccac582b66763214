"""Move accuracy of every agent that plays Quixo 4x4, judged by the solved 4x4 tables.

Each agent plays ``--games`` games against each opponent (random, greedy, alpha-beta depth 2,
MCTS 500 iterations by default; colours alternate, short random openings, all from
``--seed``), and each of its moves is judged: does it keep the perfect-play value, is it
exactly best (fastest win, slowest loss), did the agent throw a won position away in a game.

The 4x4 tables must be built first (about 20 s): ``boardlab solve quixo --size 4``. With
``--size 5`` the games start from random boards the 5x5 endgame tables cover (at most one
blank; ``boardlab solve quixo --size 5 --blanks 1``, a few minutes).

    python benchmarks/oracle_bench.py --games 4
    python benchmarks/oracle_bench.py --games 4 --markdown --plot results/oracle-4x4.png
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

from rich.console import Console
from rich.table import Table

from boardlab.agents.base import AgentSpecError
from boardlab.arena.oracle import (
    DEFAULT_OPENING,
    DEFAULT_OPPONENTS,
    OracleError,
    OracleReport,
    judge_for,
    measure,
    plot_accuracy,
)

AGENTS = (
    "random",
    "greedy",
    "minimax:depth=2",
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "mcts:iters=1000",
    "hybrid:time=0.2,tables=false",
    "perfect",
)
AGENTS_5X5 = (*AGENTS[:-1], "hybrid:time=0.2")
"""On 5x5 the perfect agent cannot play whole games; hybrid with its endgame tables stands in."""


def _share(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.1%}"


def _row(report: OracleReport) -> list[str]:
    t = report.tally
    return [
        report.agent,
        f"{t.moves:,}",
        _share(t.accuracy),
        _share(t.exact_accuracy),
        _share(report.distinct.accuracy),
        f"{t.thrown:,} / {t.won:,}",
        f"{report.thrown_games} / {report.games} ({_share(report.thrown_share)})",
        f"{t.lost:,} / {t.drawn:,}",
        f"{report.capped}",
        f"{report.seconds:.0f}",
    ]


HEADERS = [
    "agent",
    "moves judged",
    "accuracy",
    "exactly best",
    "accuracy, distinct positions",
    "wins thrown / won positions",
    "games with a thrown win",
    "draws lost / drawn positions",
    "games at the ply cap",
    "seconds",
]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=4, help="games per opponent (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--size", type=int, default=4, choices=(3, 4, 5), help="Quixo board side (default 4; 5: endgames)"
    )
    parser.add_argument("--opening", type=int, default=DEFAULT_OPENING, help="most random opening plies")
    parser.add_argument("--agents", nargs="+", default=None, help="agent specs to judge")
    parser.add_argument("--opponents", nargs="+", default=list(DEFAULT_OPPONENTS), help="opponent specs")
    parser.add_argument(
        "--markdown", action="store_true", help="also print a Markdown table for BENCHMARKS.md"
    )
    parser.add_argument("--plot", default=None, help="write a PNG of accuracy by cubes for every agent")
    args = parser.parse_args()
    if args.agents is None:
        args.agents = list(AGENTS_5X5 if args.size == 5 else AGENTS)

    console = Console(highlight=False)
    game = f"quixo:size={args.size}"
    try:
        judge = judge_for(game)
    except OracleError as err:
        console.print(f"[red]Error:[/red] {err}")
        return 2
    reports: list[OracleReport] = []
    for spec in args.agents:
        started = time.perf_counter()
        try:
            report = measure(
                spec,
                game,
                opponents=args.opponents,
                games=args.games,
                seed=args.seed,
                opening=args.opening,
                judge=judge,
            )
        except (AgentSpecError, OracleError) as err:
            console.print(f"[red]Error:[/red] {spec}: {err}")
            return 2
        reports.append(report)
        console.print(
            f"{spec}: {report.moves} moves, accuracy {_share(report.accuracy)}, "
            f"{time.perf_counter() - started:.0f} s",
            style="dim",
        )

    title = (
        f"Move accuracy on Quixo {args.size}x{args.size} against {', '.join(args.opponents)}: "
        f"{args.games} games per opponent, openings of 0..{args.opening} random plies, seed {args.seed}"
    )
    table = Table(title=title)
    for header in HEADERS:
        table.add_column(header, justify="left" if header == "agent" else "right")
    for report in reports:
        table.add_row(*_row(report))
    console.print(table)
    console.print(
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
        f"judged by {judge.title}"
    )
    if args.plot:
        console.print(f"Wrote {plot_accuracy(reports, args.plot)}")
    if args.markdown:
        print()
        print("| " + " | ".join(HEADERS) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(HEADERS) - 1)) + "|")
        for report in reports:
            print("| " + " | ".join(_row(report)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
