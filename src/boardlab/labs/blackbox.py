"""The lab's black-box problem and the experiments run on it.

``make_problem(a)`` builds the problem: a genome of ``L`` bits is read as ``a`` interleaved
strands ``g[s::a]``; with ``fs`` the strands' counts of ones sorted in descending order, the
fitness is ``(sum of the counts equal to fs[0] - sum_k f_k 0.1^(k+1) over the counts f_k below
fs[0], k = 0, 1, ...) / L``. All-ones scores 1.0. The lab uses ``a`` in 1, 2, 5, 10 on 1000 loci.

Every genome evaluated counts one call, re-evaluations included; there is no cache.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from boardlab.core.files import agg_figure, atomic_savefig, fit_titles
from boardlab.core.spec import number_problem, shorten
from boardlab.labs.evolve import (
    CompactGAConfig,
    EvolutionResult,
    GAConfig,
    HillClimberConfig,
    IslandConfig,
    LinkageClimberConfig,
    MuLambdaConfig,
    OnePlusLambdaConfig,
    ParentKey,
    Run,
    StopRule,
    UMDAConfig,
    compact_ga,
    genetic_algorithm,
    hill_climber,
    island_model,
    linkage_hill_climber,
    mu_comma_lambda,
    mu_plus_lambda,
    one_plus_lambda,
    umda,
)

LOCI = 1000
INSTANCES = (1, 2, 5, 10)


# -- the problem ------------------------------------------------------------------------------


def strand_counts(genomes: np.ndarray, strands: int) -> np.ndarray:
    """Ones in each strand ``g[s::strands]`` of each genome: ``(n, L)`` -> ``(n, strands)``."""
    genomes = np.asarray(genomes).astype(bool, copy=False)
    return np.stack([genomes[:, s::strands].sum(axis=1, dtype=np.int64) for s in range(strands)], axis=1)


def fitness_from_counts(counts: np.ndarray, length: int) -> np.ndarray:
    """The lab's fitness of each row of strand counts ``(n, a)`` for genomes of ``length`` bits."""
    ranked = -np.sort(-counts, axis=1)
    tied = ranked == ranked[:, :1]
    tied_total = np.where(tied, ranked, 0).sum(axis=1)
    rank_below = np.arange(ranked.shape[1])[None, :] - tied.sum(axis=1, keepdims=True)
    weights = np.where(tied, 0.0, 0.1 ** (rank_below + 1.0))
    penalty = (ranked * weights).sum(axis=1)
    return (tied_total - penalty) / length


def _checked_genomes(genomes: Sequence[int] | Sequence[Sequence[int]] | np.ndarray, ndim: int) -> np.ndarray:
    """``genomes`` as an array of ``ndim`` dimensions (1: one genome, 2: one a row) holding only
    0/1 or bools; TypeError for text or other values that are not numbers, ValueError for a
    value other than 0 and 1 (which the fitness would read as a one) or another shape."""
    array = np.asarray(genomes)
    if array.dtype.kind not in "biuf":
        of = "" if array.ndim == 0 else f" of {array.dtype}"
        raise TypeError(f"a genome must be a sequence of 0/1 or bools, got {type(genomes).__name__}{of}")
    if array.ndim != ndim:
        wanted = "one genome (1-D)" if ndim == 1 else "one genome or a 2-D array of genomes (one a row)"
        raise ValueError(f"expected {wanted} of 0/1 or bools, got an array of shape {array.shape}")
    if array.dtype.kind != "b":  # a population of bools (every strategy's) needs no look
        outside = np.argwhere((array != 0) & (array != 1))
        if outside.size:
            where = tuple(outside[0])
            place = f"locus {where[-1]}" + (f" of genome {where[0]}" if ndim == 2 else "")
            raise ValueError(f"a genome holds only 0/1 or bools, got {array[where].item()} at {place}")
    return array


class BlackBoxProblem:
    """The lab's black-box fitness for ``strands`` interleaved strands; counts its calls.

    Call it on one genome (a sequence of 0/1 or bools) or use :meth:`evaluate_population` on an
    ``(n, L)`` array; both count one call per genome and give identical values. Anything else
    (text, a 2, a 0.5, NaN) is refused: ``TypeError`` for values that are not numbers,
    ``ValueError`` for other numbers or shapes; a refused call is not counted.
    """

    def __init__(self, strands: int) -> None:
        if isinstance(strands, bool) or not isinstance(strands, (int, np.integer)):
            raise TypeError(f"the number of strands must be a whole number, got {type(strands).__name__}")
        if strands < 1:
            raise ValueError(f"the number of strands must be >= 1, got {strands}")
        self.strands = int(strands)
        self._calls = 0

    @property
    def calls(self) -> int:
        """Genomes evaluated so far (every evaluation counts, repeated genomes included)."""
        return self._calls

    def evaluate_population(self, genomes: np.ndarray) -> np.ndarray:
        """Fitness of each row of ``genomes`` ``(n, L)`` (or of one genome); counts ``n`` calls."""
        one = np.ndim(genomes) == 1
        genomes = _checked_genomes(genomes, 1)[None, :] if one else _checked_genomes(genomes, 2)
        if genomes.shape[1] < self.strands:
            raise ValueError("a genome needs at least one locus per strand")
        self._calls += genomes.shape[0]
        return fitness_from_counts(strand_counts(genomes, self.strands), genomes.shape[1])

    def __call__(self, genome: Sequence[int] | np.ndarray) -> float:
        """Fitness of one genome; counts one call."""
        return float(self.evaluate_population(_checked_genomes(genome, 1))[0])


def make_problem(a: int) -> BlackBoxProblem:
    """The lab's problem instance with ``a`` strands (``calls`` counts the evaluations)."""
    return BlackBoxProblem(a)


def check_target(target: float, name: str = "target_fitness") -> None:
    """Refuse a target fitness that the lab's problem cannot reach or that means nothing: the
    fitness is at most 1.0 (all ones). ``name`` is how the message names it (``--target`` on
    the command line).

    Raises:
        TypeError: a target that is not a number.
        ValueError: a target outside ``[0, 1]``, NaN or infinite.
    """
    if isinstance(target, bool) or not isinstance(target, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(target).__name__}")
    problem = number_problem(name, float(target), 0.0, 1.0)
    if problem is not None:
        raise ValueError(problem)


# -- strategies available on the lab ----------------------------------------------------------

StrategyFn = Callable[[Run, int, np.random.Generator, np.ndarray | None], EvolutionResult]


@dataclass(frozen=True)
class LabStrategy:
    """A toolkit strategy with the hyper-parameters used on the lab."""

    description: str
    run: StrategyFn


def _ones_count(genomes: np.ndarray, fitness: np.ndarray) -> np.ndarray:
    """Parent-selection key of the comparison: the raw number of ones of each genome."""
    del fitness
    return genomes.sum(axis=1).astype(float)


PARENT_KEYS: dict[str, ParentKey | None] = {"fitness": None, "ones": _ones_count}
"""Parent-selection keys compared by :func:`compare_parent_selection`."""

COMPARISON_GA = GAConfig(population=100, elitism=2, selection="tournament", tournament_size=2)

STRATEGIES: dict[str, LabStrategy] = {
    "linkage": LabStrategy(
        "effect-group linkage hill climbing with perturbation restarts",
        lambda run, n, rng, init: linkage_hill_climber(run, n, LinkageClimberConfig(), rng, init),
    ),
    "one-plus-lambda": LabStrategy(
        "(1+8) EA with self-adjusting mutation rate",
        lambda run, n, rng, init: one_plus_lambda(run, n, OnePlusLambdaConfig(), rng, init),
    ),
    "mu-plus-lambda": LabStrategy(
        "(10+40) EA, uniform crossover, bit-flip mutation",
        lambda run, n, rng, init: mu_plus_lambda(run, n, MuLambdaConfig(), rng, init),
    ),
    "mu-comma-lambda": LabStrategy(
        "(10,40) EA, uniform crossover, bit-flip mutation",
        lambda run, n, rng, init: mu_comma_lambda(run, n, MuLambdaConfig(), rng, init),
    ),
    "ga": LabStrategy(
        "generational GA, 100 individuals, tournament parents, elitism 2",
        lambda run, n, rng, init: genetic_algorithm(run, n, COMPARISON_GA, rng, init),
    ),
    "ga-ones": LabStrategy(
        "the same GA choosing parents by their raw count of ones",
        lambda run, n, rng, init: genetic_algorithm(run, n, COMPARISON_GA, rng, init, parent_key=_ones_count),
    ),
    "islands": LabStrategy(
        "4 islands of 25, ring migration of 2 every 10 generations",
        lambda run, n, rng, init: island_model(run, n, IslandConfig(), rng, init),
    ),
    "hill-climb": LabStrategy(
        "best-of-8 single-flip hill climbing with random restarts",
        lambda run, n, rng, init: hill_climber(run, n, HillClimberConfig(), rng, init),
    ),
    "cga": LabStrategy(
        "compact GA, virtual population L",
        lambda run, n, rng, init: compact_ga(run, n, CompactGAConfig(), rng, init),
    ),
    "umda": LabStrategy(
        "UMDA, 30 best of 100 samples",
        lambda run, n, rng, init: umda(run, n, UMDAConfig(), rng, init),
    ),
}


def run_strategy(
    name: str,
    instance: int,
    stop: StopRule,
    seed: int,
    loci: int = LOCI,
    run: Run | None = None,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """Run the lab strategy ``name`` on instance ``instance``; honours ``stop`` exactly.

    Pass a prepared ``run`` (built on ``make_problem(instance).evaluate_population``) to watch
    progress or to keep the best so far if the caller interrupts the run.

    Raises:
        ValueError: an unknown strategy (the message lists them), a target fitness the problem
            cannot reach (see :func:`check_target`), a bad instance (see :func:`make_problem`).
        TypeError: a ``stop`` that is not a :class:`StopRule`.
    """
    if not isinstance(name, str) or name not in STRATEGIES:
        shown = shorten(name) if isinstance(name, str) else type(name).__name__
        raise ValueError(f"unknown strategy {shown!r}; accepted: {', '.join(STRATEGIES)}")
    if not isinstance(stop, StopRule):
        raise TypeError(f"stop must be a StopRule, got {type(stop).__name__}")
    if stop.target_fitness is not None:
        check_target(stop.target_fitness)
    if run is None:
        run = Run(make_problem(instance).evaluate_population, stop)
    rng = np.random.default_rng(seed)
    return STRATEGIES[name].run(run, loci, rng, initial)


# -- the parent-selection comparison ----------------------------------------------------------


@dataclass
class ComparisonRow:
    """One line of the parent-selection comparison."""

    instance: int
    parent_key: str
    population: int
    result: EvolutionResult


def compare_parent_selection(
    instances: Sequence[int] = INSTANCES,
    seed: int = 0,
    max_calls: int = 30_000,
    stagnation: int = 50,
    loci: int = LOCI,
    config: GAConfig = COMPARISON_GA,
    on_row: Callable[[ComparisonRow], None] | None = None,
    target: float = 1.0,
) -> list[ComparisonRow]:
    """The same GA, parents chosen by black-box fitness vs by raw count of ones, per instance.

    Both variants evaluate every child with the black box (so calls are comparable) and stop on
    fitness ``target``, ``max_calls`` or ``stagnation`` generations without a better best.

    Raises:
        ValueError: a target fitness the problem cannot reach (see :func:`check_target`).
    """
    check_target(target, "target")
    rows = []
    for instance in instances:
        for key_name, key in PARENT_KEYS.items():
            problem = make_problem(instance)
            stop = StopRule(target_fitness=target, max_calls=max_calls, stagnation=stagnation)
            run = Run(problem.evaluate_population, stop)
            rng = np.random.default_rng(seed)
            result = genetic_algorithm(run, loci, config, rng, parent_key=key)
            row = ComparisonRow(instance, key_name, config.population, result)
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


# -- plots ------------------------------------------------------------------------------------


def plot_histories(
    panels: dict[str, dict[str, EvolutionResult]],
    path: Path,
    title: str = "",
    x_axis: Literal["generation", "calls"] = "generation",
) -> Path:
    """PNG of best-so-far (solid) and mean (dotted) fitness per generation or against calls.

    ``panels`` maps a panel title to ``{series label: result}``; one subplot per panel.
    """
    count = len(panels)
    columns = min(count, 2)
    rows = (count + columns - 1) // columns
    figure = agg_figure(6 * columns, 4 * rows)  # no pyplot: the caller's backend is left alone
    axes = figure.subplots(rows, columns, squeeze=False)
    for axis, (panel_title, series) in zip(axes.ravel(), panels.items(), strict=False):
        for index, (label, result) in enumerate(series.items()):
            colour = f"C{index}"
            if x_axis == "calls":
                xs = np.asarray(result.history_calls)
            else:
                xs = np.arange(len(result.history_best))
            axis.plot(xs, result.history_best, color=colour, label=f"{label} best")
            axis.plot(xs, result.history_mean, color=colour, linestyle=":", alpha=0.7, label=f"{label} mean")
        axis.set_title(panel_title)
        axis.set_xlabel("fitness calls" if x_axis == "calls" else "generation")
        axis.set_ylabel("fitness")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    for axis in axes.ravel()[count:]:
        axis.set_visible(False)
    if title:
        figure.suptitle(title)
    atomic_savefig(fit_titles(figure), path, dpi=110)
    return path
