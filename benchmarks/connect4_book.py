"""Connect Four opening-book builds: one solver against several at once, in the same run.

Builds the same book (by default every 6 x 5 position of five stones, a few seconds a build) with
each number of solvers in ``--jobs``, in turn and ``--rounds`` times over so that the host's
drift falls on every count alike, each build from scratch into a scratch folder; prints each
count's builds, its best wall time and its speed-up over the first count's best. The books are
checked equal.

    .venv/bin/python benchmarks/connect4_book.py
    .venv/bin/python benchmarks/connect4_book.py --width 7 --height 6 --stones 2 --rounds 1 --jobs 1 2
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from boardlab.games.connect4.solver import Book, build_book, positions_at


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=6, help="board columns")
    parser.add_argument("--height", type=int, default=5, help="board rows")
    parser.add_argument("--stones", type=int, default=5, help="the book's depth")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="solver counts to compare")
    parser.add_argument("--rounds", type=int, default=3, help="builds of each count")
    parser.add_argument("--tt", type=int, default=22, help="log2 of each solver's table entries")
    args = parser.parse_args(argv)
    if args.rounds < 1 or min(args.jobs) < 1:
        parser.error("--rounds and --jobs: at least 1")
    return args


def _build(args: argparse.Namespace, jobs: int, folder: Path) -> tuple[float, Book]:
    path = folder / f"book-{jobs}-{time.monotonic_ns()}.npz"
    started = time.perf_counter()
    book = build_book(args.width, args.height, args.stones, path, tt_log2=args.tt, jobs=jobs)
    return time.perf_counter() - started, book


def main(argv: list[str] | None = None) -> int:
    """Build, time and print; returns the exit status."""
    args = _arguments(argv)
    console = Console()
    solved = len(positions_at(args.width, args.height, args.stones))
    times: dict[int, list[float]] = {jobs: [] for jobs in args.jobs}
    books: list[Book] = []
    with tempfile.TemporaryDirectory() as scratch:
        _build(args, 1, Path(scratch))  # compiled code loaded or compiled before the clock
        for _ in range(args.rounds):
            for jobs in args.jobs:
                seconds, book = _build(args, jobs, Path(scratch))
                times[jobs].append(seconds)
                books.append(book)
    same = all(
        np.array_equal(b.keys, books[0].keys) and np.array_equal(b.scores, books[0].scores) for b in books
    )
    title = f"{args.width}x{args.height} book of {args.stones} stones: {solved:,} positions solved a build"
    table = Table(title=title)
    for column in ("solvers", "builds (s)", "best (s)", "speed-up"):
        table.add_column(column, justify="right")
    first = min(times[args.jobs[0]])
    for jobs, seconds in times.items():
        shown = " ".join(f"{s:.2f}" for s in seconds)
        table.add_row(str(jobs), shown, f"{min(seconds):.2f}", f"{first / min(seconds):.2f}x")
    console.print(table)
    console.print("books equal: yes" if same else "[red]books differ[/red]")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
