"""Black-box evolution figures: the best strategy on the four lab instances over several seeds,
the parent-selection comparison, and the other toolkit strategies at a fixed budget.

Usage: .venv/bin/python benchmarks/blackbox_bench.py [--seeds 20] [--baseline-calls 100000]
Prints Markdown tables (pasted into BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from boardlab.labs.blackbox import (
    INSTANCES,
    STRATEGIES,
    compare_parent_selection,
    make_problem,
    run_strategy,
)
from boardlab.labs.evolve import (
    GAConfig,
    LinkageClimberConfig,
    OnePlusLambdaConfig,
    Run,
    StopRule,
    genetic_algorithm,
    linkage_hill_climber,
    one_plus_lambda,
)

BEST_STRATEGY = "linkage"
EARLIER_BEST = {
    1: "99.9% @ 2,241 (100% @ 24,750)",
    2: "100% @ 352,316",
    5: "83.5% @ 2.17 M",
    10: "53% @ 16.1 M",
}


def _best_strategy_table(seeds: int, max_calls: int) -> None:
    print(f"### `{BEST_STRATEGY}` strategy, seeds 0..{seeds - 1}, budget {max_calls:,} calls\n")
    print(
        "| instance | solved | worst best fitness | calls to 1.0: median | min | max "
        "| earlier best known | seconds |"
    )
    print("|---:|---:|---:|---:|---:|---:|---|---:|")
    for instance in INSTANCES:
        began = time.perf_counter()
        fitness, to_target = [], []
        for seed in range(seeds):
            problem = make_problem(instance)
            run = Run(problem.evaluate_population, StopRule(target_fitness=1.0, max_calls=max_calls))
            result = run_strategy(BEST_STRATEGY, instance, run.stop, seed, run=run)
            assert result.calls == problem.calls  # the problem's own counter agrees
            fitness.append(result.best_fitness)
            if result.calls_to_target is not None:
                to_target.append(result.calls_to_target)
        seconds = time.perf_counter() - began
        cells = (
            [f"{statistics.median(to_target):,.0f}", f"{min(to_target):,}", f"{max(to_target):,}"]
            if to_target
            else ["-", "-", "-"]
        )
        print(
            f"| {instance} | {len(to_target)}/{seeds} | {min(fitness):.4f} | "
            + " | ".join(cells)
            + f" | {EARLIER_BEST[instance]} | {seconds:.1f} |"
        )
    print()


def _comparison_table(max_calls: int) -> None:
    print(
        f"### Parent selection by black-box fitness vs by raw count of ones (GA, seed 0, "
        f"budget {max_calls:,}, stop after 50 stale generations)\n"
    )
    print("| instance | parents by | best fitness | generation of best | generations | calls | population |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for row in compare_parent_selection(seed=0, max_calls=max_calls):
        r = row.result
        print(
            f"| {row.instance} | {row.parent_key} | {r.best_fitness:.4f} | {r.best_generation} "
            f"| {r.generations} | {r.calls:,} | {row.population} |"
        )
    print()


def _baselines_table(max_calls: int) -> None:
    print(f"### Every lab strategy, seed 0, budget {max_calls:,} calls (best fitness / calls to reach it)\n")
    print("| strategy | " + " | ".join(f"a={a}" for a in INSTANCES) + " | seconds |")
    print("|---|" + "---:|" * (len(INSTANCES) + 1))
    for name in STRATEGIES:
        began = time.perf_counter()
        cells = []
        for instance in INSTANCES:
            result = run_strategy(name, instance, StopRule(target_fitness=1.0, max_calls=max_calls), 0)
            cells.append(f"{result.best_fitness:.3f} / {result.calls_to_best:,}")
        print(f"| {name} | " + " | ".join(cells) + f" | {time.perf_counter() - began:.1f} |")
    print()


def _trap5(population: np.ndarray) -> np.ndarray:
    """Concatenated deceptive 5-bit traps: a block scores 5 when full, else 4 - its ones."""
    ones = population.reshape(len(population), -1, 5).sum(axis=2)
    return np.where(ones == 5, 5.0, 4.0 - ones).sum(axis=1)


def _leading_ones(population: np.ndarray) -> np.ndarray:
    """Length of the prefix of ones."""
    padded = np.c_[population, np.zeros(len(population), dtype=bool)]
    return np.argmin(padded, axis=1).astype(float)


def _generality_table(seeds: int) -> None:
    print(
        f"### The same toolkit strategies on other problems, seeds 0..{seeds - 1} "
        "(solved / median calls to the optimum)\n"
    )
    problems = {  # fitness, length, optimum, call budget
        "trap-5 x 10 (L=50), budget 20k": (_trap5, 50, 50.0, 20_000),
        "LeadingOnes (L=64), budget 100k": (_leading_ones, 64, 64.0, 100_000),
        "OneMax (L=200), budget 100k": (lambda pop: pop.sum(axis=1).astype(float), 200, 200.0, 100_000),
    }
    strategies = {
        "linkage": lambda run, n, rng: linkage_hill_climber(run, n, LinkageClimberConfig(), rng),
        "(1+1) EA adaptive": lambda run, n, rng: one_plus_lambda(
            run, n, OnePlusLambdaConfig(offspring=1), rng
        ),
        "ga": lambda run, n, rng: genetic_algorithm(run, n, GAConfig(), rng),
    }
    print("| strategy | " + " | ".join(problems) + " |")
    print("|---|" + "---:|" * len(problems))
    for name, strategy in strategies.items():
        cells = []
        for fitness, length, optimum, max_calls in problems.values():
            to_target = []
            for seed in range(seeds):
                run = Run(fitness, StopRule(target_fitness=optimum, max_calls=max_calls))
                result = strategy(run, length, np.random.default_rng(seed))
                if result.calls_to_target is not None:
                    to_target.append(result.calls_to_target)
            median = f"{statistics.median(to_target):,.0f}" if to_target else "-"
            cells.append(f"{len(to_target)}/{seeds} / {median}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--max-calls", type=int, default=100_000)
    parser.add_argument("--compare-calls", type=int, default=30_000)
    parser.add_argument("--baseline-calls", type=int, default=100_000)
    parser.add_argument("--no-baselines", action="store_true")
    args = parser.parse_args()
    for option in ("seeds", "max_calls", "compare_calls", "baseline_calls"):
        if getattr(args, option) < 1:
            parser.error(f"--{option.replace('_', '-')} must be at least 1, got {getattr(args, option)}")
    _best_strategy_table(args.seeds, args.max_calls)
    _comparison_table(args.compare_calls)
    if not args.no_baselines:
        _baselines_table(args.baseline_calls)
    _generality_table(seeds=5)


if __name__ == "__main__":
    main()
