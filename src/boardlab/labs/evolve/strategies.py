"""Population-based strategies: (1+λ), (μ+λ), (μ,λ), generational GA and the island model.

Each strategy reads top to bottom: initialise, then loop ``evaluate -> select -> vary`` until the
:class:`~boardlab.labs.evolve.core.Run` says it is done. Hyper-parameters live in one frozen
dataclass per strategy. Every strategy takes an optional ``initial`` genome (warm start), is
reproducible from its ``numpy.random.Generator`` and returns an
:class:`~boardlab.labs.evolve.core.EvolutionResult`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from boardlab.labs.evolve.core import EvolutionResult, Run, check_choice, check_count, check_number
from boardlab.labs.evolve.operators import (
    CROSSOVERS,
    SELECTIONS,
    best_indices,
    bit_flip_mutation,
    gaussian_mutation,
    random_bits,
    random_reals,
    recombine,
)

ParentKey = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""Maps ``(genomes, fitness)`` to the scores parent selection ranks by (default: fitness)."""


def _initial_population(
    rng: np.random.Generator,
    size: int,
    length: int,
    initial: np.ndarray | None,
    representation: Literal["bits", "reals"] = "bits",
) -> np.ndarray:
    """Random population; a warm-start genome, if given, replaces the first individual."""
    if representation == "bits":
        population = random_bits(rng, size, length)
    else:
        population = random_reals(rng, size, length)
    if initial is not None:
        population[0] = initial
    return population


def _genome_dtype(representation: Literal["bits", "reals"]) -> type:
    """The dtype of a genome of this representation (what a resume point must hold)."""
    return bool if representation == "bits" else np.float64


# -- (1+λ) EA ------------------------------------------------------------------------------


def _rate(mutation_rate: float | None, length: int) -> float:
    """The per-bit flip rate set (0 too: every child then differs from its parent in one bit,
    the mutation's at-least-one flip), or 1/L when none is."""
    return 1.0 / length if mutation_rate is None else mutation_rate


@dataclass(frozen=True)
class OnePlusLambdaConfig:
    """(1+λ) EA on bit strings with an optionally self-adjusting mutation rate.

    Attributes:
        offspring: λ, children per generation.
        mutation_rate: per-bit flip probability (default 1/L); with ``self_adjusting`` only the
            initial one.
        self_adjusting: with λ >= 2 a two-rate scheme (half the children use rate/2, half
            2*rate; the rate moves towards the one that produced the best child); with λ = 1,
            the one-fifth success rule ((1+1) EA with adaptive step). The adapted rates stay
            within [1/L, 1/4]; without ``self_adjusting`` the rate is used as given.
    """

    offspring: int = 8
    mutation_rate: float | None = None
    self_adjusting: bool = True

    def __post_init__(self) -> None:
        check_count(self, "offspring")
        check_number(self, "mutation_rate", 0.0, 1.0, optional=True)


_MAX_ADAPTED_RATE = 0.25
"""The highest flip rate the self-adjusting schemes reach (the lowest is 1/L)."""


def _child_rates(rate: float, config: OnePlusLambdaConfig, length: int) -> np.ndarray:
    """Each child's flip rate: the two-rate scheme within [1/L, 1/4], or ``rate`` for all."""
    if not config.self_adjusting:
        return np.full(config.offspring, rate)
    if config.offspring > 1:
        half = config.offspring // 2
        rates = np.r_[np.full(half, rate / 2), np.full(config.offspring - half, rate * 2)]
    else:
        rates = np.full(config.offspring, rate)
    return np.clip(rates, 1.0 / length, _MAX_ADAPTED_RATE)


def _adapted_rate(
    rate: float, rates: np.ndarray, winner: int, success: bool, offspring: int, rng: np.random.Generator
) -> float:
    """The self-adjusting rate after a generation (one-fifth rule for λ = 1, else two-rate)."""
    if offspring == 1:
        return rate * 1.5 if success else rate * 1.5**-0.25
    return float(rates[winner]) if rng.random() < 0.5 else float(rng.choice([rate / 2, rate * 2]))


def one_plus_lambda(
    run: Run,
    length: int,
    config: OnePlusLambdaConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """(1+λ) EA: keep one parent, replace it by its best child when that child is not worse."""
    saved = run.begin(rng)
    if saved is None:
        parent = _initial_population(rng, 1, length, initial)[0]
        parent_fitness = run.evaluate_one(parent)
        rate = _rate(config.mutation_rate, length)
        run.end_generation()
    else:
        parent = saved.array("parent", bool, (length,))
        parent_fitness, rate = saved.number("parent_fitness"), saved.number("rate")
    while not run.done:
        run.mark(rng, parent=parent, parent_fitness=parent_fitness, rate=rate)
        rates = _child_rates(rate, config, length)
        children = bit_flip_mutation(
            np.repeat(parent[None, :], config.offspring, axis=0), rates, rng, at_least_one=True
        )
        fitness = run.evaluate(children)
        winner = int(np.argmax(fitness))
        success = bool(fitness[winner] > parent_fitness)
        if fitness[winner] >= parent_fitness:
            parent, parent_fitness = children[winner], float(fitness[winner])
        if config.self_adjusting:
            rate = _adapted_rate(rate, rates, winner, success, config.offspring, rng)
            rate = float(np.clip(rate, 1.0 / length, _MAX_ADAPTED_RATE))
        run.end_generation()
    return run.result()


# -- (μ+λ) and (μ,λ) -------------------------------------------------------------------------


@dataclass(frozen=True)
class MuLambdaConfig:
    """Hyper-parameters of (μ+λ) and (μ,λ).

    Attributes:
        mu: parents kept each generation.
        lam: children per generation (for (μ,λ) must be >= mu).
        crossover: "uniform" or "one_point".
        crossover_rate: probability that a child is recombined from two parents.
        mutation_rate: per-bit flip probability for bit strings (default 1/L).
        representation: "bits" (bit-flip mutation) or "reals" (Gaussian mutation).
        sigma: Gaussian step size for real vectors.
    """

    mu: int = 10
    lam: int = 40
    crossover: str = "uniform"
    crossover_rate: float = 0.5
    mutation_rate: float | None = None
    representation: Literal["bits", "reals"] = "bits"
    sigma: float = 0.1

    def __post_init__(self) -> None:
        check_count(self, "mu")
        check_count(self, "lam")
        check_choice(self, "crossover", CROSSOVERS)
        check_number(self, "crossover_rate", 0.0, 1.0)
        check_number(self, "mutation_rate", 0.0, 1.0, optional=True)
        check_choice(self, "representation", ("bits", "reals"))
        check_number(self, "sigma", 0.0, math.inf)


def _mu_lambda_children(parents: np.ndarray, config: MuLambdaConfig, rng: np.random.Generator) -> np.ndarray:
    """λ children: uniformly chosen parent pairs, recombined then mutated."""
    mothers = parents[rng.integers(0, len(parents), size=config.lam)]
    fathers = parents[rng.integers(0, len(parents), size=config.lam)]
    children = recombine(mothers, fathers, rng, CROSSOVERS[config.crossover], config.crossover_rate)
    if config.representation == "reals":
        return gaussian_mutation(children, config.sigma, rng)
    rate = _rate(config.mutation_rate, parents.shape[1])
    return bit_flip_mutation(children, rate, rng, at_least_one=True)


def mu_plus_lambda(
    run: Run,
    length: int,
    config: MuLambdaConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """(μ+λ): the μ best of parents and children survive (elitist)."""
    saved = run.begin(rng)
    if saved is None:
        parents = _initial_population(rng, config.mu, length, initial, config.representation)
        parent_fitness = run.evaluate(parents)
        run.end_generation(parents)
    else:
        parents = saved.array("parents", _genome_dtype(config.representation), (config.mu, length))
        parent_fitness = saved.array("parent_fitness", np.float64, (config.mu,))
    while not run.done:
        run.mark(rng, parents=parents, parent_fitness=parent_fitness)
        children = _mu_lambda_children(parents, config, rng)
        child_fitness = run.evaluate(children)
        pool = np.concatenate([parents, children])
        pool_fitness = np.concatenate([parent_fitness, child_fitness])
        survivors = best_indices(pool_fitness, config.mu)
        parents, parent_fitness = pool[survivors], pool_fitness[survivors]
        run.end_generation(parents)
    return run.result()


def mu_comma_lambda(
    run: Run,
    length: int,
    config: MuLambdaConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """(μ,λ): the μ best children replace all parents (non-elitist; the run keeps the best)."""
    if config.lam < config.mu:
        raise ValueError("(mu, lambda) needs lam >= mu")
    saved = run.begin(rng)
    if saved is None:
        parents = _initial_population(rng, config.mu, length, initial, config.representation)
        run.evaluate(parents)
        run.end_generation(parents)
    else:
        parents = saved.array("parents", _genome_dtype(config.representation), (config.mu, length))
    while not run.done:
        run.mark(rng, parents=parents)
        children = _mu_lambda_children(parents, config, rng)
        child_fitness = run.evaluate(children)
        parents = children[best_indices(child_fitness, config.mu)]
        run.end_generation(parents)
    return run.result()


# -- generational GA with elitism ------------------------------------------------------------


@dataclass(frozen=True)
class GAConfig:
    """Generational GA on bit strings.

    Attributes:
        population: individuals per generation.
        elitism: best individuals copied unchanged (and not re-evaluated) to the next generation.
        selection: "tournament", "roulette", "rank" or "truncation".
        tournament_size: contestants per tournament.
        crossover: "uniform" or "one_point".
        crossover_rate: probability that a child is recombined.
        mutation_rate: per-bit flip probability (default 1/L).
    """

    population: int = 100
    elitism: int = 2
    selection: str = "tournament"
    tournament_size: int = 2
    crossover: str = "uniform"
    crossover_rate: float = 0.7
    mutation_rate: float | None = None

    def __post_init__(self) -> None:
        check_count(self, "population")
        check_count(self, "elitism", 0)
        if self.elitism >= self.population:
            raise ValueError(
                f"GAConfig.elitism must be below the population, got {self.elitism} of {self.population}"
            )
        check_choice(self, "selection", SELECTIONS)
        check_count(self, "tournament_size")
        check_choice(self, "crossover", CROSSOVERS)
        check_number(self, "crossover_rate", 0.0, 1.0)
        check_number(self, "mutation_rate", 0.0, 1.0, optional=True)


def _select_parents(scores: np.ndarray, k: int, config: GAConfig, rng: np.random.Generator) -> np.ndarray:
    if config.selection == "tournament":
        return SELECTIONS["tournament"](scores, k, rng, size=config.tournament_size)
    return SELECTIONS[config.selection](scores, k, rng)


def _ga_children(
    population: np.ndarray,
    fitness: np.ndarray,
    count: int,
    config: GAConfig,
    rng: np.random.Generator,
    parent_key: ParentKey | None,
) -> np.ndarray:
    """``count`` children from parents chosen by ``parent_key`` scores (fitness by default)."""
    scores = fitness if parent_key is None else parent_key(population, fitness)
    mothers = population[_select_parents(scores, count, config, rng)]
    fathers = population[_select_parents(scores, count, config, rng)]
    children = recombine(mothers, fathers, rng, CROSSOVERS[config.crossover], config.crossover_rate)
    rate = _rate(config.mutation_rate, population.shape[1])
    return bit_flip_mutation(children, rate, rng, at_least_one=True)


def _ga_next_generation(
    run: Run,
    population: np.ndarray,
    fitness: np.ndarray,
    config: GAConfig,
    rng: np.random.Generator,
    parent_key: ParentKey | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Elites survive as they are; the rest of the population is replaced by new children."""
    elites = best_indices(fitness, config.elitism)
    children = _ga_children(population, fitness, config.population - config.elitism, config, rng, parent_key)
    child_fitness = run.evaluate(children)
    return (
        np.concatenate([population[elites], children]),
        np.concatenate([fitness[elites], child_fitness]),
    )


def genetic_algorithm(
    run: Run,
    length: int,
    config: GAConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
    parent_key: ParentKey | None = None,
) -> EvolutionResult:
    """Generational GA with elitism; ``parent_key`` changes what parent selection ranks by."""
    saved = run.begin(rng)
    if saved is None:
        population = _initial_population(rng, config.population, length, initial)
        fitness = run.evaluate(population)
        run.end_generation(population)
    else:
        population = saved.array("population", bool, (config.population, length))
        fitness = saved.array("fitness", np.float64, (config.population,))
    while not run.done:
        run.mark(rng, population=population, fitness=fitness)
        population, fitness = _ga_next_generation(run, population, fitness, config, rng, parent_key)
        run.end_generation(population)
    return run.result()


# -- island model ----------------------------------------------------------------------------


@dataclass(frozen=True)
class IslandConfig:
    """Several GAs evolving apart, exchanging their best individuals along a ring.

    Attributes:
        islands: number of sub-populations.
        ga: the GA run on every island (``ga.population`` is the size of one island).
        migration_interval: generations between migrations.
        migrants: individuals sent from each island to the next one (they replace the worst).
    """

    islands: int = 4
    ga: GAConfig = GAConfig(population=25, elitism=1)
    migration_interval: int = 10
    migrants: int = 2

    def __post_init__(self) -> None:
        check_count(self, "islands")
        if not isinstance(self.ga, GAConfig):
            raise ValueError(f"IslandConfig.ga must be a GAConfig, got {self.ga!r}")
        check_count(self, "migration_interval")
        check_count(self, "migrants", 0)
        if self.migrants > self.ga.population:
            raise ValueError(
                f"IslandConfig.migrants must be at most an island's population, got {self.migrants} "
                f"of {self.ga.population}"
            )


def _migrate(populations: list[np.ndarray], fitnesses: list[np.ndarray], migrants: int) -> None:
    """Ring migration: island i's best ``migrants`` replace island i+1's worst, in place."""
    emigrants = [
        (pop[best_indices(fit, migrants)].copy(), fit[best_indices(fit, migrants)].copy())
        for pop, fit in zip(populations, fitnesses, strict=True)
    ]
    for i, (genomes, values) in enumerate(emigrants):
        target = (i + 1) % len(populations)
        worst = np.argsort(fitnesses[target], kind="stable")[:migrants]
        populations[target][worst] = genomes
        fitnesses[target][worst] = values


def island_model(
    run: Run,
    length: int,
    config: IslandConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """Island model: one GA generation per island (one batched evaluation), ring migration."""
    ga = config.ga
    saved = run.begin(rng)
    if saved is None:
        everyone = _initial_population(rng, config.islands * ga.population, length, initial)
        everyone_fitness = run.evaluate(everyone)
        run.end_generation(everyone)
    else:
        everyone = saved.array("everyone", bool, (config.islands * ga.population, length))
        everyone_fitness = saved.array("everyone_fitness", np.float64, (config.islands * ga.population,))
    populations = list(np.split(everyone, config.islands))
    fitnesses = list(np.split(everyone_fitness, config.islands))
    while not run.done:
        run.mark(rng, everyone=np.concatenate(populations), everyone_fitness=np.concatenate(fitnesses))
        elites = [best_indices(fit, ga.elitism) for fit in fitnesses]
        children = [
            _ga_children(pop, fit, ga.population - ga.elitism, ga, rng, None)
            for pop, fit in zip(populations, fitnesses, strict=True)
        ]
        child_fitness = np.split(run.evaluate(np.concatenate(children)), config.islands)
        populations = [
            np.concatenate([pop[e], kids]) for pop, e, kids in zip(populations, elites, children, strict=True)
        ]
        fitnesses = [
            np.concatenate([fit[e], kid_fit])
            for fit, e, kid_fit in zip(fitnesses, elites, child_fitness, strict=True)
        ]
        if config.migrants and run.generation % config.migration_interval == 0:
            _migrate(populations, fitnesses, config.migrants)
        run.end_generation(np.concatenate(populations))
    return run.result()
