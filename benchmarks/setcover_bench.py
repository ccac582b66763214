"""Set cover benchmark: A* heuristics, weighted A*, the anytime search and the HiGHS MILP.

Prints Markdown tables:

1. lab instances 20 x 40 and 50 x 100 (density 0.2), averaged over a few solvable seeds: mean
   expansions, generated nodes and seconds per heuristic, and how many runs reached the MILP
   optimum or hit the limit;
2. challenge instances with 100, 1000 and 5000 points (sets = points, density 0.3 and 0.7):
   A*, weighted A* (w = 2) and the anytime search under a time limit, against greedy and the
   MILP (with its own time limit, gap reported).

Usage::

    .venv/bin/python benchmarks/setcover_bench.py            # full run (about 15 minutes)
    .venv/bin/python benchmarks/setcover_bench.py --quick    # small limits, a smoke test
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import statistics
import time
from dataclasses import dataclass

from boardlab.labs.setcover import (
    HEURISTICS,
    CoverResult,
    MilpResult,
    SetCoverProblem,
    UnsolvableInstanceError,
    greedy_cover,
    make_challenge_problem,
    make_lab_problem,
    solve_anytime,
    solve_astar,
    solve_milp,
    start_heuristic,
)


@dataclass(frozen=True)
class Limits:
    """Per-run limits of the benchmark."""

    lab_seeds: int
    lab_seconds: float
    lab_expansions: int
    challenge_sizes: tuple[int, ...]
    challenge_search_seconds: float
    challenge_anytime_seconds: float
    milp_seconds: float


FULL = Limits(
    lab_seeds=3,
    lab_seconds=20.0,
    lab_expansions=2_000_000,
    challenge_sizes=(100, 1000, 5000),
    challenge_search_seconds=20.0,
    challenge_anytime_seconds=30.0,
    milp_seconds=60.0,
)
QUICK = Limits(
    lab_seeds=2,
    lab_seconds=2.0,
    lab_expansions=50_000,
    challenge_sizes=(100, 1000),
    challenge_search_seconds=2.0,
    challenge_anytime_seconds=2.0,
    milp_seconds=5.0,
)


def solvable_lab_problems(
    points: int, sets: int, density: float, count: int
) -> list[tuple[int, SetCoverProblem]]:
    """The first ``count`` seeds (from 0) whose lab instance is solvable."""
    found: list[tuple[int, SetCoverProblem]] = []
    seed = 0
    while len(found) < count:
        with contextlib.suppress(UnsolvableInstanceError):
            found.append((seed, make_lab_problem(points, sets, density, seed)))
        seed += 1
    return found


def _lab_runs(problem: SetCoverProblem, limits: Limits) -> dict[str, CoverResult]:
    runs = {
        name: solve_astar(problem, name, time_limit=limits.lab_seconds, max_expansions=limits.lab_expansions)
        for name in HEURISTICS
    }
    runs["weighted w=2 (dual_bound)"] = solve_astar(
        problem, "dual_bound", weight=2.0, time_limit=limits.lab_seconds, max_expansions=limits.lab_expansions
    )
    runs["anytime (dual_bound)"] = solve_anytime(problem, time_limit=limits.lab_seconds)
    return runs


def lab_table(points: int, sets: int, density: float, limits: Limits) -> None:
    """Mean figures per heuristic over a few seeds of the lab generator."""
    problems = solvable_lab_problems(points, sets, density, limits.lab_seeds)
    seeds = [seed for seed, _ in problems]
    print(f"\n### Lab {points} x {sets}, density {density}, seeds {seeds}\n", flush=True)
    optima = []
    per_method: dict[str, list[tuple[CoverResult, int]]] = {}
    starts: dict[str, list[float]] = {}
    for _, problem in problems:
        milp = solve_milp(problem, time_limit=limits.milp_seconds)
        assert milp.proven_optimal and milp.size is not None
        optima.append(milp.size)
        for name in HEURISTICS:
            starts.setdefault(name, []).append(start_heuristic(problem, name))
        for method, result in _lab_runs(problem, limits).items():
            per_method.setdefault(method, []).append((result, milp.size))
    print(f"MILP optima: {optima}\n")
    print(
        "| method | h(start) | mean expansions | mean generated | mean seconds | = MILP optimum | hit limit |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for method, runs in per_method.items():
        start = f"{statistics.mean(starts[method]):.2f}" if method in starts else ""
        optimal = sum(1 for result, optimum in runs if result.size == optimum)
        limited = sum(1 for result, _ in runs if result.budget_exhausted)
        print(
            f"| {method} | {start} | {statistics.mean(r.expansions for r, _ in runs):,.0f} "
            f"| {statistics.mean(r.generated for r, _ in runs):,.0f} "
            f"| {statistics.mean(r.seconds for r, _ in runs):.3f} "
            f"| {optimal}/{len(runs)} | {limited}/{len(runs)} |",
            flush=True,
        )


def _cover_cell(result: CoverResult) -> str:
    size = str(result.size) if result.found else "none"
    proof = " (proven optimal)" if result.proven_optimal else ""
    return f"{size}{proof}, bound {result.lower_bound}"


def _milp_cell(milp: MilpResult) -> str:
    if milp.proven_optimal:
        return f"{milp.size} optimal ({milp.seconds:.1f} s)"
    best = f"{milp.size}, gap {milp.gap:.0%}" if milp.chosen else "no cover"
    return f"{best}, bound {milp.lower_bound} (stopped at {milp.seconds:.0f} s)"


def challenge_rows(limits: Limits) -> None:
    """A*, weighted A*, anytime, greedy and MILP on the challenge instances."""
    print("\n### Challenge instances (sets = points, seed 0)\n")
    print(
        f"Limits: A* and weighted A* {limits.challenge_search_seconds:.0f} s, anytime "
        f"{limits.challenge_anytime_seconds:.0f} s, MILP {limits.milp_seconds:.0f} s.\n"
    )
    print(
        "| points | density | h(start) | greedy | A* (dual_bound) | A* expansions / generated / s "
        "| weighted A* w=2 | anytime (greedy + DFBnB) | anytime nodes | MILP (HiGHS) |"
    )
    print("|---:|---:|---:|---:|---|---|---|---|---:|---|")
    for size in limits.challenge_sizes:
        for density in (0.3, 0.7):
            began = time.perf_counter()
            problem = make_challenge_problem(size, size, density, seed=0)
            greedy = greedy_cover(problem)
            root = start_heuristic(problem, "dual_bound")
            astar = solve_astar(problem, "dual_bound", time_limit=limits.challenge_search_seconds)
            weighted = solve_astar(
                problem, "dual_bound", weight=2.0, time_limit=limits.challenge_search_seconds
            )
            anytime = solve_anytime(problem, time_limit=limits.challenge_anytime_seconds)
            milp = solve_milp(problem, time_limit=limits.milp_seconds)
            print(
                f"| {size} | {density} | {root:.0f} | {len(greedy)} | {_cover_cell(astar)} "
                f"| {astar.expansions:,} / {astar.generated:,} / {astar.seconds:.1f} "
                f"| {_cover_cell(weighted)} | {_cover_cell(anytime)} | {anytime.expansions:,} "
                f"| {_milp_cell(milp)} |",
                flush=True,
            )
            print(f"<!-- {size} x {size} at {density}: {time.perf_counter() - began:.0f} s -->", flush=True)


def main() -> None:
    """Run the benchmark and print Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small limits (smoke test)")
    parser.add_argument("--skip-challenge", action="store_true", help="lab tables only")
    arguments = parser.parse_args()
    limits = QUICK if arguments.quick else FULL
    began = time.perf_counter()
    print(f"Python {platform.python_version()} on {platform.machine()}; limits {limits}")
    lab_table(20, 40, 0.2, limits)
    lab_table(50, 100, 0.2, limits)
    if not arguments.skip_challenge:
        challenge_rows(limits)
    print(f"\nTotal {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
