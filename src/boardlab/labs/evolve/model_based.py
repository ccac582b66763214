"""Single-solution and model-based strategies: hill climbing with restarts, compact GA, UMDA."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardlab.labs.evolve.core import EvolutionResult, Run, check_count
from boardlab.labs.evolve.operators import best_indices, random_bits, single_flips

# -- hill climbing with restarts -------------------------------------------------------------


@dataclass(frozen=True)
class HillClimberConfig:
    """Randomised local search over single-bit flips, restarted when stuck.

    Attributes:
        neighbours: distinct single-bit flips sampled and evaluated per generation.
        patience: generations without strict improvement before a random restart.
    """

    neighbours: int = 8
    patience: int = 200

    def __post_init__(self) -> None:
        check_count(self, "neighbours")
        check_count(self, "patience")


def hill_climber(
    run: Run,
    length: int,
    config: HillClimberConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """Best-of-k single-flip hill climbing; equal moves are accepted to cross plateaus."""
    saved = run.begin(rng)
    if saved is None:
        current = initial.copy() if initial is not None else random_bits(rng, 1, length)[0]
        current_fitness = run.evaluate_one(current)
        stale = 0
        run.end_generation()
    else:
        current = saved.array("current", bool, (length,))
        current_fitness, stale = saved.number("current_fitness"), saved.whole("stale")
    while not run.done:
        run.mark(rng, current=current, current_fitness=current_fitness, stale=stale)
        positions = rng.choice(length, size=min(config.neighbours, length), replace=False)
        neighbours = single_flips(current, positions)
        fitness = run.evaluate(neighbours)
        best = int(np.argmax(fitness))
        stale = 0 if fitness[best] > current_fitness else stale + 1
        if fitness[best] >= current_fitness:
            current, current_fitness = neighbours[best], float(fitness[best])
        if stale >= config.patience and not run.done:
            current = random_bits(rng, 1, length)[0]
            current_fitness = run.evaluate_one(current)
            stale = 0
        run.end_generation()
    return run.result()


# -- compact GA -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactGAConfig:
    """Compact GA: a probability vector stands for a virtual population.

    Attributes:
        virtual_population: the update step is 1 / virtual_population (default: L).
        pairs_per_generation: competitions sampled and evaluated together per generation;
            their updates are summed.
    """

    virtual_population: int | None = None
    pairs_per_generation: int = 8

    def __post_init__(self) -> None:
        if self.virtual_population is not None:
            check_count(self, "virtual_population")
        check_count(self, "pairs_per_generation")


def compact_ga(
    run: Run,
    length: int,
    config: CompactGAConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """cGA: sample pairs, shift each locus probability towards the winner where they differ."""
    step = 1.0 / (config.virtual_population or length)
    low, high = 1.0 / length, 1.0 - 1.0 / length
    saved = run.begin(rng)
    if saved is None:
        p = np.full(length, 0.5) if initial is None else np.clip(initial.astype(float), low, high)
    else:
        p = saved.array("p", np.float64, (length,))
    while not run.done:
        run.mark(rng, p=p)
        pairs = config.pairs_per_generation
        samples = rng.random((2 * pairs, length)) < p
        fitness = run.evaluate(samples).reshape(pairs, 2)
        first_wins = fitness[:, 0] >= fitness[:, 1]
        pair_samples = samples.reshape(pairs, 2, length)
        winners = np.where(first_wins[:, None], pair_samples[:, 0], pair_samples[:, 1])
        losers = np.where(first_wins[:, None], pair_samples[:, 1], pair_samples[:, 0])
        shift = winners.astype(int) - losers.astype(int)
        p = np.clip(p + step * shift.sum(axis=0), low, high)
        run.end_generation(samples)
    return run.result()


# -- UMDA -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UMDAConfig:
    """Univariate marginal distribution algorithm.

    Attributes:
        samples: λ, genomes sampled from the model per generation.
        selected: μ, best samples the marginals are re-estimated from.
    """

    samples: int = 100
    selected: int = 30

    def __post_init__(self) -> None:
        check_count(self, "samples")
        check_count(self, "selected")
        if self.selected > self.samples:
            raise ValueError(
                f"UMDAConfig.selected must be at most samples, got {self.selected} of {self.samples}"
            )


def umda(
    run: Run,
    length: int,
    config: UMDAConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """UMDA: per-locus frequencies of the μ best of λ samples, kept within [1/L, 1 - 1/L]."""
    low, high = 1.0 / length, 1.0 - 1.0 / length
    saved = run.begin(rng)
    if saved is None:
        p = np.full(length, 0.5) if initial is None else np.clip(initial.astype(float), low, high)
    else:
        p = saved.array("p", np.float64, (length,))
    while not run.done:
        run.mark(rng, p=p)
        samples = rng.random((config.samples, length)) < p
        fitness = run.evaluate(samples)
        elite = samples[best_indices(fitness, config.selected)]
        p = np.clip(elite.mean(axis=0), low, high)
        run.end_generation(samples)
    return run.result()
