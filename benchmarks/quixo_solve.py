"""Strong solutions of Quixo: time, peak memory and win / loss / draw counts.

    python benchmarks/quixo_solve.py                      # 3x3 and 4x4 (the issue's targets)
    python benchmarks/quixo_solve.py --size 5 --blanks 0  # 5x5 full-board endgame table
    python benchmarks/quixo_solve.py --size 5 --blanks 1  # ... and the one-blank tables

Tables go to a temporary folder (removed afterwards) unless --dir is given. Compile time is
measured apart (a 3x3 solve first loads or builds the numba cache). Figures to compare:
4x4 in at most 20 s wall on 2 cores and 2 GB; 3x3 well under a second.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from boardlab.games.quixo.solver import QuixoTables, solve, solve_in_memory

# Counts for the side to move over all 3^(n*n) boards (a position where the side to move has
# a line is won, else one where the opponent has one is lost).
EXPECTED_3X3 = (12_748, 6_935, 0)
# 5x5 with a full board (25 cubes) or one blank (24 cubes): class (a cubes of the side to move,
# b of the opponent) -> wins, losses, draws for the side to move, as committed by the authors
# of "Quixo Is Solved" (github.com/st34-satoshi/quixo-cpp, python/result-5by5-activeIsO.txt
# at commit c0fc17d; there "o" is the side to move, "x" the side that just moved).
PUBLISHED_5X5 = {
    (0, 25): (0, 1, 0),
    (1, 24): (0, 25, 0),
    (2, 23): (0, 300, 0),
    (3, 22): (0, 2300, 0),
    (4, 21): (0, 12650, 0),
    (5, 20): (12, 53118, 0),
    (6, 19): (304, 176796, 0),
    (7, 18): (3304, 477396, 0),
    (8, 17): (21536, 1060039, 0),
    (9, 16): (110114, 1932861, 0),
    (10, 15): (436320, 2832416, 24),
    (11, 14): (1251548, 3202644, 3208),
    (12, 13): (2572251, 2519395, 108654),
    (13, 12): (4474366, 684731, 41203),
    (14, 11): (4183052, 273388, 960),
    (15, 10): (3188460, 80292, 8),
    (16, 9): (2027081, 15894, 0),
    (17, 8): (1079295, 2280, 0),
    (18, 7): (480320, 380, 0),
    (19, 6): (177060, 40, 0),
    (20, 5): (53128, 2, 0),
    (21, 4): (12650, 0, 0),
    (22, 3): (2300, 0, 0),
    (23, 2): (300, 0, 0),
    (24, 1): (25, 0, 0),
    (25, 0): (1, 0, 0),
    (0, 24): (0, 25, 0),
    (1, 23): (0, 600, 0),
    (2, 22): (0, 6900, 0),
    (3, 21): (0, 50600, 0),
    (4, 20): (0, 265650, 0),
    (5, 19): (400, 1062200, 0),
    (6, 18): (8088, 3356812, 0),
    (7, 17): (75588, 8577012, 0),
    (8, 16): (526253, 17860522, 0),
    (9, 15): (2657244, 30030292, 64),
    (10, 14): (9303796, 39717120, 10484),
    (11, 13): (22867964, 39017000, 518636),
    (12, 12): (47587226, 12697868, 7318806),
    (13, 11): (57545724, 4781100, 76776),
    (14, 10): (47370928, 1659100, 1372),
    (15, 9): (32283000, 404584, 16),
    (16, 8): (18322999, 63776, 0),
    (17, 7): (8645760, 6840, 0),
    (18, 6): (3364140, 760, 0),
    (19, 5): (1062560, 40, 0),
    (20, 4): (265650, 0, 0),
    (21, 3): (50600, 0, 0),
    (22, 2): (6900, 0, 0),
    (23, 1): (600, 0, 0),
    (24, 0): (25, 0, 0),
}


def peak_mb() -> float:
    """Peak resident memory of this process and its finished children, in MB (Linux: KB units)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return own / 1024


def run(size: int, blanks: int, folder: Path) -> None:
    cells = size * size
    wall = time.perf_counter()
    cpu = time.process_time()
    report = solve(size, folder, min_cubes=cells - blanks)
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    print(f"{size}x{size}, at most {blanks} blanks: {report.positions:,} positions")
    print(f"  wall {wall:.1f} s, cpu {cpu:.1f} s, peak memory {peak_mb():.0f} MB")
    print(f"  side to move: {report.wins:,} wins, {report.losses:,} losses, {report.draws:,} draws")
    tables = QuixoTables(size, folder)
    if tables.covers(0, 0):
        value, depth = tables.value(0, 0)
        print(f"  empty board: {'win' if value > 0 else 'loss' if value < 0 else 'draw'} in {depth} plies")
    if size == 5:
        covered = {c: v for c, v in PUBLISHED_5X5.items() if sum(c) >= cells - blanks}
        differ = [c for c, expected in covered.items() if report.per_class.get(c) != expected]
        print(f"  classes matching the published counts: {len(covered) - len(differ)} of {len(covered)}")
        if differ:
            print(f"  differ: {differ}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument("--blanks", type=int, default=None, help="at most this many blank cubes")
    parser.add_argument("--dir", type=Path, default=None, help="keep the tables here")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; numba threads {os.environ.get('NUMBA_NUM_THREADS', 'default')}")

    started = time.perf_counter()
    solve_in_memory(3)
    print(f"compile / cache load: {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    tables3 = solve_in_memory(3)
    elapsed = time.perf_counter() - started
    counts = tables3.counts()
    print(f"3x3 in memory: {elapsed * 1000:.0f} ms, counts {counts} "
          f"({'as expected' if counts == EXPECTED_3X3 else 'EXPECTED ' + str(EXPECTED_3X3)}), "
          f"empty board {tables3.value(0, 0)}")  # fmt: skip
    if args.size == 3:
        return
    blanks = args.blanks if args.blanks is not None else args.size * args.size
    folder = args.dir if args.dir is not None else Path(tempfile.mkdtemp(prefix=f"quixo{args.size}-"))
    try:
        run(args.size, blanks, folder)
    finally:
        if args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
