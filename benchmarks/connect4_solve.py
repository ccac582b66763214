"""Connect Four solver: correctness and speed on the public benchmark sets, against the C++
reference solver (Pascal Pons's, github.com/PascalPons/connect4, no opening book).

For each set: the positions solved, how many gave the published score (strong) and its sign
(weak), and per position the mean wall time, the mean CPU time of this process (less
disturbed by other jobs on a shared machine), the mean nodes and the nodes per CPU second.
The transposition table is cold for every position (reset between positions, in O(1) by an
epoch; the reset is not timed), one core, no opening book unless ``--book``.
The sets are read from ``shared/data/connect4`` beside the checkout (``BOARDLAB_CONNECT4_DATA``
overrides it).

Two references: the figures measured for the brief on this machine (``C++ brief``), and,
with ``--pons DIR`` (a checkout of the C++ solver), the C++ solver run here on exactly the
same positions, before ours on each set (``C++ here``, same-run ratios: trust these on a
loaded machine). ``--empty`` also solves the empty 7 x 6 board (minutes without the book).

    .venv/bin/python benchmarks/connect4_solve.py                 # all of the first four sets,
                                                                  # 200 Begin-Medium, 50 Begin-Hard
    .venv/bin/python benchmarks/connect4_solve.py --pons ~/src/connect4
    .venv/bin/python benchmarks/connect4_solve.py --sets Test_L1_R2 Test_L1_R3 --count 1000
    .venv/bin/python benchmarks/connect4_solve.py --sets Test_L1_R3 --stride 20 --count 50
                                                                  # every 20th Begin-Hard position
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from boardlab.games.connect4 import ConnectFour
from boardlab.games.connect4.solver import DEFAULT_TT_LOG2, Solver, benchmark_sets_folder, default_book

DATA = benchmark_sets_folder()

# set -> (name, reference seconds per position, reference nodes per position, default count)
REFERENCE = {
    "Test_L3_R1": ("End-Easy", 10e-6, 51, 1000),
    "Test_L2_R1": ("Middle-Easy", 75e-6, 449, 1000),
    "Test_L2_R2": ("Middle-Medium", 7.3e-3, 38_900, 1000),
    "Test_L1_R1": ("Begin-Easy", 0.52e-3, 3_300, 1000),
    "Test_L1_R2": ("Begin-Medium", 0.19, 1_120_000, 200),
    "Test_L1_R3": ("Begin-Hard", 4.6, 25_600_000, 50),
}

# A harness for the C++ solver: solve each "moves score" line of stdin after a reset (not
# timed); print the score, the nodes, the wall and CPU microseconds of the solve.
HARNESS = r"""
#include "Solver.hpp"
#include <chrono>
#include <ctime>
#include <iostream>
using namespace GameSolver::Connect4;
int main(int argc, char** argv) {
  Solver solver;
  bool weak = argc > 1 && argv[1][0] == 'w';
  std::string moves;
  int expected;
  while (std::cin >> moves >> expected) {
    Position P;
    if (P.play(moves) != moves.size()) { std::cout << "invalid 0 0 0\n"; continue; }
    solver.reset();
    timespec c0, c1;
    auto t0 = std::chrono::steady_clock::now();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    int score = solver.solve(P, weak);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    auto t1 = std::chrono::steady_clock::now();
    double cpu = (c1.tv_sec - c0.tv_sec) * 1e6 + (c1.tv_nsec - c0.tv_nsec) / 1e3;
    std::cout << score << " " << solver.getNodeCount() << " "
              << std::chrono::duration<double, std::micro>(t1 - t0).count() << " " << cpu << std::endl;
  }
}
"""


@dataclass
class Run:
    """Means per position of one solver on one set."""

    ok: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    nodes: float = 0.0

    @property
    def rate(self) -> float:
        return self.nodes / self.cpu if self.cpu else 0.0


@dataclass
class SetResult:
    set: str
    name: str
    positions: int
    strong: Run
    weak: Run | None
    pons: Run | None
    brief_seconds: float
    brief_nodes: float


def read_set(path: Path, stride: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    out = [(moves, int(score)) for moves, score in lines]
    return out[::stride] + [line for i, line in enumerate(out) if i % stride]  # spread samples first


def run_ours(solver: Solver, positions: list[tuple[int, int, int]], weak: bool) -> Run:
    run = Run()
    for a, b, score in positions:
        solver.reset()
        wall, cpu = time.perf_counter(), time.process_time()
        got = solver.solve((a, b), weak=weak)
        run.cpu += time.process_time() - cpu
        run.wall += time.perf_counter() - wall
        run.nodes += solver.nodes
        run.ok += got == ((score > 0) - (score < 0) if weak else score)
    return _means(run, len(positions))


def _means(run: Run, n: int) -> Run:
    n = max(n, 1)
    return Run(run.ok, run.wall / n, run.cpu / n, run.nodes / n)


def build_pons(source: Path) -> Path:
    """Compile the harness against a checkout of the C++ solver (its Makefile's flags)."""
    folder = Path(tempfile.mkdtemp(prefix="c4-pons-"))
    for path in source.iterdir():
        if path.suffix in (".hpp", ".cpp") and path.name not in ("main.cpp", "generator.cpp"):
            shutil.copy(path, folder)
    (folder / "harness.cpp").write_text(HARNESS)
    binary = folder / "harness"
    flags = ["--std=c++11", "-W", "-Wall", "-O3", "-DNDEBUG"]
    subprocess.run(["g++", *flags, "-o", str(binary), "harness.cpp", "Solver.cpp"], cwd=folder, check=True)
    return binary


def run_pons(binary: Path, lines: list[tuple[str, int]]) -> Run:
    text = "".join(f"{moves} {score}\n" for moves, score in lines)
    out = subprocess.run([str(binary)], input=text, capture_output=True, text=True, check=True).stdout
    run = Run()
    for (_, score), row in zip(lines, out.splitlines(), strict=True):
        got, nodes, wall, cpu = row.split()
        run.ok += got == str(score)
        run.nodes += int(nodes)
        run.wall += float(wall) * 1e-6
        run.cpu += float(cpu) * 1e-6
    return _means(run, len(lines))


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def fmt_count(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e4:
        return f"{x / 1e3:.1f} k"
    return f"{x:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sets",
        nargs="*",
        choices=list(REFERENCE),
        default=list(REFERENCE),
        help="set files (default: all six)",
    )
    parser.add_argument("--count", type=int, default=None, help="positions per set (default: 1000/200/50)")
    parser.add_argument("--stride", type=int, default=1, help="take every STRIDE-th position first")
    parser.add_argument("--no-weak", action="store_true", help="skip the weak solves")
    parser.add_argument("--book", action="store_true", help="use the opening book (if built)")
    parser.add_argument("--empty", action="store_true", help="also solve the empty board")
    parser.add_argument(
        "--pons", type=Path, default=None, help="a checkout of PascalPons/connect4 to run here"
    )
    parser.add_argument("--tt-log2", type=int, default=DEFAULT_TT_LOG2)
    parser.add_argument("--json", type=Path, default=None, help="write the figures as JSON too")
    args = parser.parse_args()
    missing = [key for key in args.sets if not (DATA / key).is_file()]
    if missing:
        parser.error(
            f"no set file {', '.join(missing)} in {DATA} "
            "(set BOARDLAB_CONNECT4_DATA to the folder of the sets)"
        )

    console = Console(width=max(Console().width, 200))
    book = default_book() if args.book else None
    if args.book and book is None:
        console.print("[yellow]no opening book built; running without[/yellow]")
    solver = Solver(7, 6, tt_log2=args.tt_log2, book=book if book is not None else False)
    game = ConnectFour()
    solver.solve(game.parse_position("2252576253462244111563365343671351441"))  # load the compiled code
    pons = build_pons(args.pons.expanduser()) if args.pons else None
    load_before = os.getloadavg()
    results = []
    for key in args.sets:
        name, brief_seconds, brief_nodes, default_count = REFERENCE[key]
        count = args.count if args.count is not None else default_count
        lines = read_set(DATA / key, args.stride)
        with console.status(f"{name} ({key})..."):
            # parsed first: parsing between solves made the solves' wall time ten times
            # their CPU time on the test machine (a VM), though it is outside the timed calls
            chosen = lines[:count]
            positions = [((s := game.play_moves(m)).a, s.b, v) for m, v in chosen]
            pons_run = run_pons(pons, chosen) if pons else None
            strong = run_ours(solver, positions, False)
            weak = None if args.no_weak else run_ours(solver, positions, True)
        results.append(SetResult(key, name, len(chosen), strong, weak, pons_run, brief_seconds, brief_nodes))
    load_after = os.getloadavg()

    title = (
        f"Connect Four solver, cold table per position, {'with' if book else 'no'} book, "
        f"table 2^{args.tt_log2} entries ({platform.machine()}, {os.cpu_count()} cores, "
        f"load {load_before[0]:.1f} -> {load_after[0]:.1f})"
        + (f", every {args.stride}th position first" if args.stride > 1 else "")
    )
    table = Table(title=title)
    columns = ["set", "positions", "ok", "wall", "cpu", "nodes", "nodes/s", "C++ brief", "cpu/brief"]
    if pons:
        columns += ["C++ here: cpu", "nodes", "nodes/s", "cpu/C++"]
    columns += ["weak ok", "weak cpu", "weak nodes"]
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        s = r.strong
        row = [
            f"{r.name} ({r.set})",
            str(r.positions),
            str(s.ok),
            fmt_time(s.wall),
            fmt_time(s.cpu),
            fmt_count(s.nodes),
            fmt_count(s.rate),
            f"{fmt_time(r.brief_seconds)} ({fmt_count(r.brief_nodes)})",
            f"{s.cpu / r.brief_seconds:.2f}",
        ]
        if r.pons:
            p = r.pons
            row += [
                fmt_time(p.cpu) + (" !" if p.ok != r.positions else ""),
                fmt_count(p.nodes),
                fmt_count(p.rate),
            ]
            row += [f"{s.cpu / p.cpu:.2f}" if p.cpu else "-"]
        w = r.weak
        row += [str(w.ok), fmt_time(w.cpu), fmt_count(w.nodes)] if w else ["-", "-", "-"]
        table.add_row(*row)
    console.print(table)

    empty = {}
    if args.empty:
        for weak_solve in (True, False):
            kind = "weak" if weak_solve else "strong"
            solver.reset()
            wall, cpu = time.perf_counter(), time.process_time()
            with console.status(f"the empty board ({kind})..."):
                score = solver.solve((0, 0), weak=weak_solve)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            empty[kind] = {"score": score, "wall": wall, "cpu": cpu, "nodes": solver.nodes}
            console.print(
                f"empty board, {kind}: score {score}, {fmt_time(wall)} wall, {fmt_time(cpu)} cpu, "
                f"{fmt_count(solver.nodes)} nodes"
            )
    if args.json:
        payload = {
            "book": bool(book),
            "tt_log2": args.tt_log2,
            "stride": args.stride,
            "load": [load_before[0], load_after[0]],
            "sets": [asdict(r) for r in results],
            "empty": empty,
        }
        args.json.write_text(json.dumps(payload, indent=2))


if __name__ == "__main__":
    main()
