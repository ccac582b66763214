"""Behaviour of the evolutionary toolkit: operators, diversity, stopping rules, strategies."""

from __future__ import annotations

import io
import itertools
import json
import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.labs.evolve import (
    CompactGAConfig,
    EvolutionResult,
    GAConfig,
    HillClimberConfig,
    IslandConfig,
    LinkageClimberConfig,
    MuLambdaConfig,
    OnePlusLambdaConfig,
    ResumeError,
    ResumePoint,
    Run,
    StopRule,
    UMDAConfig,
    bit_flip_mutation,
    compact_ga,
    flip_exactly,
    gaussian_mutation,
    genetic_algorithm,
    group_by_effect,
    hill_climber,
    island_model,
    linkage_hill_climber,
    locus_entropy,
    mean_locus_entropy,
    mean_pairwise_hamming,
    mu_comma_lambda,
    mu_plus_lambda,
    one_plus_lambda,
    one_point_crossover,
    random_bits,
    random_reals,
    rank_selection,
    roulette_selection,
    strategies,
    tournament_selection,
    truncation_selection,
    umda,
    uniform_crossover,
    unique_fraction,
)


def onemax(population: np.ndarray) -> np.ndarray:
    return population.mean(axis=1)


StrategyCall = Callable[[Run, int, np.random.Generator], EvolutionResult]

STRATEGIES: dict[str, StrategyCall] = {
    "(1+1) adaptive": lambda run, n, rng: one_plus_lambda(run, n, OnePlusLambdaConfig(offspring=1), rng),
    "(1+8)": lambda run, n, rng: one_plus_lambda(run, n, OnePlusLambdaConfig(), rng),
    "(mu+lambda)": lambda run, n, rng: mu_plus_lambda(run, n, MuLambdaConfig(), rng),
    "(mu,lambda)": lambda run, n, rng: mu_comma_lambda(run, n, MuLambdaConfig(), rng),
    "ga": lambda run, n, rng: genetic_algorithm(run, n, GAConfig(population=40), rng),
    "ga one-point roulette": lambda run, n, rng: genetic_algorithm(
        run, n, GAConfig(population=40, selection="roulette", crossover="one_point"), rng
    ),
    "ga rank": lambda run, n, rng: genetic_algorithm(run, n, GAConfig(population=40, selection="rank"), rng),
    "ga truncation": lambda run, n, rng: genetic_algorithm(
        run, n, GAConfig(population=40, selection="truncation"), rng
    ),
    "islands": lambda run, n, rng: island_model(run, n, IslandConfig(), rng),
    "hill climber": lambda run, n, rng: hill_climber(run, n, HillClimberConfig(), rng),
    "cga": lambda run, n, rng: compact_ga(run, n, CompactGAConfig(), rng),
    "umda": lambda run, n, rng: umda(run, n, UMDAConfig(), rng),
    "linkage": lambda run, n, rng: linkage_hill_climber(run, n, LinkageClimberConfig(), rng),
}


# -- representations and selection --------------------------------------------------------------


def test_random_bits_and_reals_shapes_and_ranges() -> None:
    rng = np.random.default_rng(0)
    bits = random_bits(rng, 50, 40, p_one=0.25)
    assert bits.shape == (50, 40) and bits.dtype == bool
    assert 0.2 < bits.mean() < 0.3
    reals = random_reals(rng, 30, 5, low=-2.0, high=3.0)
    assert reals.shape == (30, 5)
    assert reals.min() >= -2.0 and reals.max() < 3.0


SELECTORS = {
    "roulette": roulette_selection,
    "tournament": tournament_selection,
    "rank": rank_selection,
    "truncation": truncation_selection,
}


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_selection_returns_indices_in_range_and_favours_the_fit(name: str) -> None:
    rng = np.random.default_rng(1)
    fitness = np.linspace(-1.0, 1.0, 50)
    chosen = SELECTORS[name](fitness, 5000, rng)
    assert chosen.shape == (5000,)
    assert chosen.min() >= 0 and chosen.max() < 50
    assert fitness[chosen].mean() > fitness.mean() + 0.1


def test_truncation_only_picks_the_best_fraction() -> None:
    fitness = np.arange(20.0)
    chosen = truncation_selection(fitness, 1000, np.random.default_rng(2), fraction=0.25)
    assert set(chosen.tolist()) == {15, 16, 17, 18, 19}


def test_tournament_of_whole_population_size_prefers_best() -> None:
    fitness = np.array([0.1, 0.9, 0.5])
    chosen = tournament_selection(fitness, 2000, np.random.default_rng(3), size=8)
    assert np.mean(chosen == 1) > 0.9


def test_roulette_never_picks_unevaluated_individuals() -> None:
    fitness = np.array([0.2, -math.inf, 0.4, -math.inf])
    chosen = roulette_selection(fitness, 500, np.random.default_rng(4))
    assert set(chosen.tolist()) <= {0, 2}


def test_roulette_with_equal_fitness_picks_uniformly_and_never_the_unevaluated() -> None:
    # no spread among the evaluated: each gets the same weight; an unevaluated one gets none
    chosen = roulette_selection(np.array([0.5, -math.inf, 0.5]), 4000, np.random.default_rng(4))
    counts = np.bincount(chosen, minlength=3)
    assert counts[1] == 0
    assert counts[0] == pytest.approx(2000, rel=0.1)


class _RecordingChoice:
    """A stand-in generator whose ``choice`` records the probabilities it was given."""

    def __init__(self) -> None:
        self.p: np.ndarray | None = None

    def choice(self, n: int, size: int, p: np.ndarray) -> np.ndarray:
        self.p = p
        return np.zeros(size, dtype=np.intp)


@pytest.mark.parametrize(
    ("pressure", "expected"),
    [(1.0, [1 / 3, 1 / 3, 1 / 3]), (1.5, [3 / 6, 1 / 6, 2 / 6]), (2.0, [2 / 3, 0.0, 1 / 3])],
)
def test_rank_selection_probabilities_grow_linearly_with_rank(pressure: float, expected: list[float]) -> None:
    rng = _RecordingChoice()
    rank_selection(np.array([3.0, 1.0, 2.0]), 4, rng, pressure=pressure)  # type: ignore[arg-type]
    assert rng.p == pytest.approx(expected)


def test_selection_from_a_single_individual_picks_it() -> None:
    rng = np.random.default_rng(3)
    for select in SELECTORS.values():
        assert select(np.array([0.7]), 5, rng).tolist() == [0] * 5


def test_truncation_keeps_at_least_the_best_individual() -> None:
    chosen = truncation_selection(np.array([0.1, 0.9, 0.5]), 100, np.random.default_rng(2), fraction=0.1)
    assert set(chosen.tolist()) == {1}


# -- crossover and mutation ---------------------------------------------------------------------


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8), length=st.integers(2, 40))
@settings(max_examples=40, deadline=None)
def test_crossover_children_take_each_locus_from_a_parent(seed: int, n: int, length: int) -> None:
    rng = np.random.default_rng(seed)
    mothers, fathers = random_bits(rng, n, length), random_bits(rng, n, length)
    for crossover in (one_point_crossover, uniform_crossover):
        children = crossover(mothers, fathers, rng)
        assert children.shape == mothers.shape
        assert np.all((children == mothers) | (children == fathers))


def test_one_point_crossover_switches_parent_once() -> None:
    rng = np.random.default_rng(5)
    mothers = np.zeros((100, 30), dtype=bool)
    fathers = np.ones((100, 30), dtype=bool)
    children = one_point_crossover(mothers, fathers, rng)
    switches = np.abs(np.diff(children.astype(int), axis=1)).sum(axis=1)
    assert np.all(switches == 1)


def test_bit_flip_mutation_rate_is_respected() -> None:
    rng = np.random.default_rng(6)
    genomes = np.zeros((400, 500), dtype=bool)
    mutated = bit_flip_mutation(genomes, 0.02, rng)
    assert mutated.mean() == pytest.approx(0.02, rel=0.05)


def test_bit_flip_mutation_at_least_one_always_changes_the_genome() -> None:
    rng = np.random.default_rng(7)
    genomes = random_bits(rng, 300, 50)
    mutated = bit_flip_mutation(genomes, 1e-4, rng, at_least_one=True)
    assert np.all((mutated != genomes).sum(axis=1) >= 1)


def test_flip_exactly_flips_k_distinct_bits() -> None:
    rng = np.random.default_rng(8)
    genomes = random_bits(rng, 50, 20)
    assert np.all((flip_exactly(genomes, 3, rng) != genomes).sum(axis=1) == 3)


def test_gaussian_mutation_noise_scale_and_bounds() -> None:
    rng = np.random.default_rng(9)
    genomes = np.zeros((2000, 10))
    mutated = gaussian_mutation(genomes, 0.3, rng)
    assert mutated.mean() == pytest.approx(0.0, abs=0.02)
    assert mutated.std() == pytest.approx(0.3, rel=0.05)
    clipped = gaussian_mutation(genomes, 5.0, rng, low=-1.0, high=1.0)
    assert clipped.min() >= -1.0 and clipped.max() <= 1.0


def test_one_point_crossover_of_single_locus_genomes_copies_the_mother() -> None:
    mothers = np.array([[True], [False]])
    children = one_point_crossover(mothers, ~mothers, np.random.default_rng(5))
    assert np.array_equal(children, mothers)


def test_uniform_crossover_takes_each_locus_from_the_mother_with_its_probability() -> None:
    mothers = np.zeros((200, 100), dtype=bool)
    children = uniform_crossover(mothers, ~mothers, np.random.default_rng(5), p_mother=0.9)
    assert (~children).mean() == pytest.approx(0.9, abs=0.01)


def test_bit_flip_mutation_at_rate_zero_leaves_genomes_unchanged_by_default() -> None:
    genomes = random_bits(np.random.default_rng(6), 20, 30)
    assert np.array_equal(bit_flip_mutation(genomes, 0.0, np.random.default_rng(6)), genomes)


def test_gaussian_mutation_with_one_sigma_per_genome() -> None:
    genomes = np.zeros((2, 3000))
    mutated = gaussian_mutation(genomes, np.array([0.0, 2.0]), np.random.default_rng(9))
    assert np.all(mutated[0] == 0.0)
    assert mutated[1].std() == pytest.approx(2.0, rel=0.05)


def test_gaussian_mutation_changes_each_gene_with_its_rate() -> None:
    genomes = np.zeros((100, 100))
    mutated = gaussian_mutation(genomes, 1.0, np.random.default_rng(9), rate=0.75)
    assert (mutated != 0.0).mean() == pytest.approx(0.75, abs=0.02)


@pytest.mark.parametrize(("low", "high"), [(0.0, None), (None, 0.0)])
def test_gaussian_mutation_clips_to_a_single_bound(low: float | None, high: float | None) -> None:
    mutated = gaussian_mutation(np.zeros((50, 20)), 1.0, np.random.default_rng(9), low=low, high=high)
    assert (mutated >= 0.0).all() if low is not None else (mutated <= 0.0).all()
    assert (mutated != 0.0).any()


def test_operators_are_reproducible_from_the_seed() -> None:
    def sample(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        genomes = random_bits(rng, 10, 30)
        children = uniform_crossover(genomes, genomes[::-1], rng)
        return bit_flip_mutation(children, 0.1, rng)

    assert np.array_equal(sample(11), sample(11))
    assert not np.array_equal(sample(11), sample(12))


# -- diversity ----------------------------------------------------------------------------------


def test_diversity_of_a_converged_population_is_zero() -> None:
    population = np.tile(random_bits(np.random.default_rng(10), 1, 16), (5, 1))
    assert mean_pairwise_hamming(population) == 0.0
    assert mean_locus_entropy(population) == 0.0
    assert unique_fraction(population) == pytest.approx(0.2)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8), length=st.integers(1, 12))
@settings(max_examples=30, deadline=None)
def test_mean_pairwise_hamming_matches_pairwise_loop(seed: int, n: int, length: int) -> None:
    population = random_bits(np.random.default_rng(seed), n, length)
    distances = [np.sum(population[i] != population[j]) for i in range(n) for j in range(i + 1, n)]
    assert mean_pairwise_hamming(population) == pytest.approx(np.mean(distances))


def test_locus_entropy_is_one_for_balanced_loci() -> None:
    population = np.array([[0, 1, 1], [1, 1, 0]], dtype=bool)
    assert locus_entropy(population) == pytest.approx([1.0, 0.0, 1.0])


def test_mean_locus_entropy_averages_over_the_loci() -> None:
    population = np.array([[0, 1, 1], [1, 1, 0]], dtype=bool)
    assert mean_locus_entropy(population) == pytest.approx(2 / 3)


# -- run accounting and stopping rules ----------------------------------------------------------


def test_stop_rule_rejects_bad_limits() -> None:
    with pytest.raises(ValueError):
        StopRule()
    with pytest.raises(ValueError):
        StopRule(max_calls=0)


@pytest.mark.parametrize("target", [math.nan, math.inf, -math.inf])
def test_stop_rule_refuses_a_target_fitness_that_is_not_a_finite_number(target: float) -> None:
    # NaN is never reached and an infinite target means no target (None says so); a finite target
    # above 1 stays accepted: the toolkit's fitness functions are not bounded by 1
    with pytest.raises(ValueError, match=f"^target_fitness must be a finite number, got {target}$"):
        StopRule(target_fitness=target, max_calls=10)
    assert StopRule(target_fitness=30.0).target_fitness == 30.0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        # each of these used to hang for ever, fail deep inside numpy or run on garbage
        (lambda: IslandConfig(ga=GAConfig(population=5, elitism=5)), "GAConfig.elitism must be below"),
        (lambda: IslandConfig(migration_interval=0), "migration_interval must be a whole number >= 1"),
        (lambda: IslandConfig(migrants=26), "migrants must be at most an island's population"),
        (lambda: CompactGAConfig(pairs_per_generation=0), "pairs_per_generation must be a whole number"),
        (lambda: CompactGAConfig(virtual_population=0), "virtual_population must be a whole number"),
        (lambda: HillClimberConfig(neighbours=0), "neighbours must be a whole number >= 1"),
        (lambda: HillClimberConfig(patience=1.5), "patience must be a whole number >= 1, got 1.5"),
        (lambda: UMDAConfig(selected=0), "selected must be a whole number >= 1"),
        (lambda: UMDAConfig(samples=10, selected=11), "selected must be at most samples"),
        (lambda: OnePlusLambdaConfig(offspring=0), "offspring must be a whole number >= 1"),
        (lambda: OnePlusLambdaConfig(mutation_rate=1.5), r"mutation_rate must be a number in \[0, 1\]"),
        (lambda: MuLambdaConfig(mu=0), "MuLambdaConfig.mu must be a whole number >= 1"),
        (lambda: MuLambdaConfig(crossover="two_point"), "crossover must be one of one_point, uniform"),
        (lambda: MuLambdaConfig(representation="ints"), "representation must be one of bits, reals"),  # type: ignore[arg-type]
        (lambda: MuLambdaConfig(sigma=float("nan")), "sigma must be a number"),
        (lambda: GAConfig(selection="best"), "selection must be one of roulette, tournament"),
        (lambda: GAConfig(population=10, elitism=-1), "elitism must be a whole number >= 0"),
        (lambda: GAConfig(crossover_rate=2.0), "crossover_rate must be a number in"),
        (lambda: GAConfig(tournament_size=0), "tournament_size must be a whole number >= 1"),
        (lambda: LinkageClimberConfig(perturbation=-0.1), "perturbation must be a number in"),
        (lambda: LinkageClimberConfig(effect_tolerance=-1e-9), "effect_tolerance must be a number"),
        (lambda: OnePlusLambdaConfig(offspring=True), "offspring must be a whole number >= 1, got True"),
        (lambda: GAConfig(crossover_rate=True), "crossover_rate must be a number in"),
        (lambda: MuLambdaConfig(sigma=None), "sigma must be a number"),  # type: ignore[arg-type]
        (lambda: GAConfig(crossover=["uniform"]), "crossover must be one of"),  # type: ignore[arg-type]
    ],
)
def test_configs_refuse_settings_no_strategy_can_run(make: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_run_counts_every_genome_and_truncates_at_the_budget() -> None:
    seen: list[int] = []

    def counted(population: np.ndarray) -> np.ndarray:
        seen.append(len(population))
        return onemax(population)

    run = Run(counted, StopRule(max_calls=10))
    genome = np.ones((1, 8), dtype=bool)
    run.evaluate(np.repeat(genome, 4, axis=0))
    run.evaluate(np.repeat(genome, 4, axis=0))  # identical genomes are evaluated again
    values = run.evaluate(np.repeat(genome, 4, axis=0))
    assert run.calls == 10 and sum(seen) == 10
    assert np.isneginf(values[2:]).all() and np.all(values[:2] == 1.0)
    assert run.done and run.stop_reason == "max_calls"
    assert run.calls_to_best == 1


def test_a_run_records_when_its_best_and_its_target_were_first_reached() -> None:
    run = Run(onemax, StopRule(target_fitness=0.5, max_calls=100))
    run.evaluate(np.array([[0, 0], [0, 0]], dtype=bool))  # calls 1 and 2
    run.end_generation()
    run.evaluate(
        np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=bool)
    )  # the target at call 4, the best at 5
    run.end_generation()
    run.evaluate(np.array([[1, 0], [1, 1]], dtype=bool))  # later hits and ties change neither
    result = run.result()
    assert (result.calls_to_target, result.calls_to_best, result.best_generation) == (4, 5, 1)
    assert result.history_best == [0.0, 1.0] and result.calls == 8
    assert result.history_mean == [0.0, 0.5] and result.history_calls == [2, 6]


def test_a_resumed_run_past_its_budget_has_no_calls_left_and_evaluates_nothing() -> None:
    seen: list[int] = []
    run = Run(lambda pop: seen.append(len(pop)) or onemax(pop), StopRule(max_calls=5), calls_offset=8)
    assert run.remaining_calls == 0 and run.done and run.stop_reason == "max_calls"
    assert np.isneginf(run.evaluate(np.ones((3, 4), dtype=bool))).all()
    assert seen == [] and run.calls == 8


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("budget", [1, 37, 501])
def test_max_calls_is_never_exceeded(name: str, budget: int) -> None:
    run = Run(onemax, StopRule(max_calls=budget))
    result = STRATEGIES[name](run, 60, np.random.default_rng(0))
    assert result.calls <= budget
    assert len(result.history_best) == result.generations


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_max_generations_is_honoured(name: str) -> None:
    run = Run(onemax, StopRule(max_generations=5))
    result = STRATEGIES[name](run, 60, np.random.default_rng(1))
    assert result.generations == 5 and result.stop_reason == "max_generations"


def test_stagnation_stops_a_run_that_cannot_improve() -> None:
    run = Run(lambda pop: np.zeros(len(pop)), StopRule(stagnation=7, max_calls=100_000))
    result = genetic_algorithm(run, 20, GAConfig(population=10), np.random.default_rng(2))
    assert result.stop_reason == "stagnation"
    assert result.generations == 8  # the initial generation improves on -inf, then 7 stale


# -- strategies ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_each_strategy_solves_small_onemax(name: str) -> None:
    run = Run(onemax, StopRule(target_fitness=1.0, max_calls=30_000))
    result = STRATEGIES[name](run, 24, np.random.default_rng(3))
    assert result.best_fitness == 1.0
    assert result.stop_reason == "target"
    assert result.best_genome.all()
    assert result.calls_to_target is not None and result.calls_to_target <= result.calls
    assert result.history_best == sorted(result.history_best)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategies_are_reproducible_from_the_seed(name: str) -> None:
    def once() -> EvolutionResult:
        run = Run(onemax, StopRule(max_calls=400))
        return STRATEGIES[name](run, 40, np.random.default_rng(4))

    first, second = once(), once()
    assert np.array_equal(first.best_genome, second.best_genome)
    assert first.history_mean == second.history_mean


def test_warm_start_genome_is_used() -> None:
    run = Run(onemax, StopRule(max_generations=1))
    result = mu_plus_lambda(
        run, 30, MuLambdaConfig(), np.random.default_rng(5), initial=np.ones(30, dtype=bool)
    )
    assert result.best_fitness == 1.0


def test_mu_plus_lambda_on_real_vectors_minimises_the_sphere() -> None:
    config = MuLambdaConfig(representation="reals", sigma=0.05, crossover_rate=0.3)
    run = Run(lambda pop: -np.sum(pop**2, axis=1), StopRule(max_calls=8_000))
    result = mu_plus_lambda(run, 5, config, np.random.default_rng(6))
    assert result.best_fitness > -0.01


def test_parent_key_changes_what_selection_ranks_by() -> None:
    # Fitness rewards zeros, the key rewards ones: with no elitism the population follows the key.
    config = GAConfig(population=30, elitism=0, selection="truncation")
    run = Run(lambda pop: 1.0 - pop.mean(axis=1), StopRule(max_generations=40))
    genetic_algorithm(run, 20, config, np.random.default_rng(7), parent_key=lambda g, f: g.sum(axis=1))
    assert run.history_mean[-1] < 0.2


@given(values=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=1, max_size=30))
@settings(max_examples=50, deadline=None)
def test_group_by_effect_partitions_loci_by_equal_value(values: list[float]) -> None:
    array = np.array(values)
    groups = group_by_effect(array)
    assert sorted(np.concatenate(groups).tolist()) == list(range(len(values)))
    assert [array[g[0]] for g in groups] == sorted(set(values), reverse=True)
    assert all(np.all(array[g] == array[g[0]]) for g in groups)


def test_linkage_climber_crosses_a_deceptive_block() -> None:
    # Two blocks: ones in block B are each harmful unless the whole block is set.
    def deceptive(pop: np.ndarray) -> np.ndarray:
        a, b = pop[:, :10].sum(axis=1), pop[:, 10:].sum(axis=1)
        return a + np.where(b == 10, 20.0, -0.5 * b)

    run = Run(deceptive, StopRule(target_fitness=30.0, max_calls=5_000))
    result = linkage_hill_climber(run, 20, LinkageClimberConfig(), np.random.default_rng(8))
    assert result.best_fitness == 30.0


def test_population_strategies_record_diversity_that_falls_as_they_converge() -> None:
    run = Run(onemax, StopRule(max_generations=60))
    result = genetic_algorithm(run, 40, GAConfig(population=30), np.random.default_rng(9))
    diversity = np.array(result.history_diversity)
    assert len(diversity) == result.generations
    assert np.all((diversity >= 0) & (diversity <= 1))
    assert diversity[0] == pytest.approx(0.5, abs=0.05)
    assert diversity[-1] < diversity[0] / 2


def test_single_solution_strategies_record_no_diversity() -> None:
    run = Run(onemax, StopRule(max_generations=3))
    result = hill_climber(run, 20, HillClimberConfig(), np.random.default_rng(10))
    assert len(result.history_diversity) == 3
    assert all(math.isnan(d) for d in result.history_diversity)


# -- what each strategy's settings do to the genomes it evaluates -------------------------------


class Recorder:
    """A population fitness (``score``, OneMax by default) that keeps a copy of every batch."""

    def __init__(self, score: Callable[[np.ndarray], np.ndarray] = onemax) -> None:
        self.score = score
        self.batches: list[np.ndarray] = []

    def __call__(self, population: np.ndarray) -> np.ndarray:
        self.batches.append(population.copy())
        return self.score(population)


def flat(population: np.ndarray) -> np.ndarray:
    return np.zeros(len(population))


def rising() -> Callable[[np.ndarray], np.ndarray]:
    """A fitness that is higher for every genome evaluated after another."""
    calls = itertools.count()
    return lambda population: np.array([float(next(calls)) for _ in population])


def nearest_distance(children: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """Hamming distance from each child to the nearest of ``parents``."""
    return (children[:, None, :] != parents[None, :, :]).sum(axis=2).min(axis=1)


def nearest_one_point_distance(children: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """Hamming distance from each child to the nearest one-point splice of two of ``parents``."""
    off = (children[:, None, :] != parents[None, :, :]).astype(int)
    zero = np.zeros((*off.shape[:2], 1), dtype=int)
    prefix = np.concatenate([zero, np.cumsum(off, axis=2)], axis=2)  # mismatches before each cut
    suffix = prefix[:, :, -1:] - prefix  # mismatches from each cut on
    splices = prefix[:, :, None, :] + suffix[:, None, :, :]  # (child, mother, father, cut)
    return splices.reshape(len(children), -1).min(axis=1)


@pytest.mark.parametrize("rate", [0.1, 0.4])
def test_one_plus_lambda_uses_a_fixed_mutation_rate_as_given(rate: float) -> None:
    fitness = Recorder()
    config = OnePlusLambdaConfig(offspring=8, mutation_rate=rate, self_adjusting=False)
    one_plus_lambda(Run(fitness, StopRule(max_generations=2)), 400, config, np.random.default_rng(20))
    parent, children = fitness.batches
    assert (children != parent).sum(axis=1).mean() == pytest.approx(rate * 400, rel=0.15)


@pytest.mark.parametrize(
    "strategy",
    [
        lambda run, rng: one_plus_lambda(
            run, 200, OnePlusLambdaConfig(mutation_rate=0.0, self_adjusting=False), rng
        ),
        lambda run, rng: mu_plus_lambda(run, 200, MuLambdaConfig(crossover_rate=0.0, mutation_rate=0.0), rng),
        lambda run, rng: genetic_algorithm(run, 200, GAConfig(crossover_rate=0.0, mutation_rate=0.0), rng),
    ],
    ids=["1+lambda", "mu+lambda", "ga"],
)
def test_a_mutation_rate_of_zero_flips_one_bit_of_each_child(strategy: Callable[..., object]) -> None:
    fitness = Recorder()
    strategy(Run(fitness, StopRule(max_generations=2)), np.random.default_rng(22))
    parents, children = fitness.batches[0], fitness.batches[1]
    distances = (children[:, None, :] != parents[None, :, :]).sum(axis=2).min(axis=1)
    assert (distances == 1).all()  # not the 1/L default, which flips none or several at times


def test_self_adjusting_one_plus_lambda_tries_half_and_double_its_rate_up_to_a_quarter() -> None:
    fitness = Recorder()
    config = OnePlusLambdaConfig(offspring=8, mutation_rate=0.2)
    one_plus_lambda(Run(fitness, StopRule(max_generations=2)), 400, config, np.random.default_rng(21))
    parent, children = fitness.batches
    flips = (children != parent).sum(axis=1)
    assert flips[:4].mean() == pytest.approx(0.1 * 400, rel=0.2)  # rate / 2
    assert flips[4:].mean() == pytest.approx(0.25 * 400, rel=0.2)  # 2 * rate, capped at 1/4


@pytest.mark.parametrize(
    ("landscape", "self_adjusting", "expected_flips"),
    [
        ("rising", True, 100.0),  # every child better: the rate grows (x1.5) to its cap of 1/4
        ("flat", True, 1.0),  # no child better: the rate falls (x1.5^-1/4) to its floor of 1/L
        ("flat", False, 40.0),  # a fixed rate stays where it was set
    ],
)
def test_one_plus_one_ea_adapts_its_rate_by_the_one_fifth_rule(
    landscape: str, self_adjusting: bool, expected_flips: float
) -> None:
    fitness = Recorder(rising() if landscape == "rising" else flat)
    config = OnePlusLambdaConfig(offspring=1, mutation_rate=0.1, self_adjusting=self_adjusting)
    one_plus_lambda(Run(fitness, StopRule(max_generations=80)), 400, config, np.random.default_rng(22))
    # each child replaced its parent (better or equal), so it is the next child's parent
    children = np.concatenate(fitness.batches)
    late = (children[-10:] != children[-11:-1]).sum(axis=1)
    assert late.mean() == pytest.approx(expected_flips, rel=0.25, abs=1.0)


def test_one_plus_lambda_moves_to_an_equally_fit_child() -> None:
    fitness = Recorder(flat)
    config = OnePlusLambdaConfig(offspring=1, mutation_rate=0.01, self_adjusting=False)
    one_plus_lambda(Run(fitness, StopRule(max_generations=40)), 200, config, np.random.default_rng(23))
    start, last = fitness.batches[0][0], fitness.batches[-1][0]
    assert (start != last).sum() > 20  # a walk across the plateau, not 40 tries around the start


@pytest.mark.parametrize("self_adjusting", [True, False])
def test_one_plus_lambda_never_spends_a_call_on_a_copy_of_its_parent(self_adjusting: bool) -> None:
    fitness = Recorder()
    config = OnePlusLambdaConfig(offspring=8, mutation_rate=0.001, self_adjusting=self_adjusting)
    run = Run(fitness, StopRule(max_generations=30))
    one_plus_lambda(run, 100, config, np.random.default_rng(24), initial=np.ones(100, dtype=bool))
    children = np.concatenate(fitness.batches[1:])  # the all-ones parent is never replaced
    assert len(children) == 29 * 8 and not children.all(axis=1).any()


def test_mu_plus_lambda_keeps_its_parent_while_mu_comma_lambda_replaces_it() -> None:
    config = MuLambdaConfig(mu=1, lam=1, mutation_rate=0.001)
    zeros = {}
    for name, strategy in (("plus", mu_plus_lambda), ("comma", mu_comma_lambda)):
        fitness = Recorder()
        run = Run(fitness, StopRule(max_generations=60))
        strategy(run, 100, config, np.random.default_rng(25), initial=np.ones(100, dtype=bool))
        zeros[name] = [int((~batch).sum()) for batch in fitness.batches[1:]]
    assert max(zeros["plus"]) <= 2  # every child is a mutant of the all-ones parent
    assert zeros["comma"][-1] >= 15  # each worse child replaced its parent


def test_mu_comma_lambda_needs_at_least_mu_children() -> None:
    with pytest.raises(ValueError, match=r"needs lam >= mu"):
        mu_comma_lambda(
            Run(onemax, StopRule(max_calls=50)), 10, MuLambdaConfig(mu=5, lam=4), np.random.default_rng(0)
        )
    result = mu_comma_lambda(
        Run(onemax, StopRule(max_generations=3)), 10, MuLambdaConfig(mu=4, lam=4), np.random.default_rng(0)
    )
    assert result.calls == 12


def first_children(strategy: str, length: int, **settings: object) -> tuple[np.ndarray, np.ndarray]:
    """The first population of ten and the ten children bred from it by the GA, two islands of
    five or (10+10)."""
    fitness = Recorder()
    run = Run(fitness, StopRule(max_generations=2))
    rng = np.random.default_rng(26)
    if strategy == "ga":
        genetic_algorithm(run, length, GAConfig(population=10, elitism=0, **settings), rng)  # type: ignore[arg-type]
    elif strategy == "islands":
        ga = GAConfig(population=5, elitism=0, **settings)  # type: ignore[arg-type]
        island_model(run, length, IslandConfig(islands=2, ga=ga, migrants=0), rng)
    else:
        mu_plus_lambda(run, length, MuLambdaConfig(mu=10, lam=10, **settings), rng)  # type: ignore[arg-type]
    parents, children = fitness.batches
    return parents, children


@pytest.mark.parametrize("strategy", ["ga", "islands", "mu+lambda"])
def test_without_crossover_each_child_is_a_light_mutant_of_one_parent(strategy: str) -> None:
    parents, children = first_children(strategy, 60, crossover_rate=0.0)
    assert nearest_distance(children, parents).max() <= 3
    parents, children = first_children(strategy, 60, crossover_rate=1.0)
    assert np.median(nearest_distance(children, parents)) > 5  # uniform crossover mixes two parents


@pytest.mark.parametrize("strategy", ["ga", "islands", "mu+lambda"])
def test_children_are_mutated_at_the_configured_rate(strategy: str) -> None:
    parents, children = first_children(strategy, 200, crossover_rate=0.0, mutation_rate=0.2)
    assert nearest_distance(children, parents).mean() == pytest.approx(0.2 * 200, rel=0.2)


@pytest.mark.parametrize("strategy", ["ga", "islands", "mu+lambda"])
def test_one_point_crossover_splices_two_parents_at_one_cut(strategy: str) -> None:
    parents, children = first_children(strategy, 60, crossover_rate=1.0, crossover="one_point")
    assert nearest_one_point_distance(children, parents).max() <= 3
    parents, children = first_children(strategy, 60, crossover_rate=1.0, crossover="uniform")
    assert np.median(nearest_one_point_distance(children, parents)) > 3


def test_mu_plus_lambda_mutates_real_vectors_with_the_configured_sigma() -> None:
    fitness = Recorder(lambda pop: -np.sum(pop**2, axis=1))
    config = MuLambdaConfig(mu=1, lam=400, crossover_rate=0.0, representation="reals", sigma=0.5)
    run = Run(fitness, StopRule(max_generations=2))
    result = mu_plus_lambda(run, 5, config, np.random.default_rng(27), initial=np.zeros(5))
    assert fitness.batches[1].std() == pytest.approx(0.5, rel=0.1)
    assert all(math.isnan(d) for d in result.history_diversity)  # Hamming diversity is for bits


def test_elites_are_kept_without_being_evaluated_again() -> None:
    run = Run(onemax, StopRule(max_generations=5))
    genetic_algorithm(run, 20, GAConfig(population=10, elitism=3), np.random.default_rng(28))
    assert np.diff(run.history_calls).tolist() == [7] * 4
    run = Run(onemax, StopRule(max_generations=5))
    island_model(
        run, 20, IslandConfig(islands=3, ga=GAConfig(population=8, elitism=2)), np.random.default_rng(28)
    )
    assert run.history_calls[0] == 24 and np.diff(run.history_calls).tolist() == [18] * 4


class KeepsBest(Run):
    """A run that checks every generation's population still holds the best genome so far."""

    def end_generation(self, population: np.ndarray | None = None) -> None:
        assert population is not None and self.best_genome is not None
        assert (population == self.best_genome).all(axis=1).any()
        super().end_generation(population)


@pytest.mark.parametrize(
    "strategy",
    [
        lambda run, rng: genetic_algorithm(run, 40, GAConfig(population=12, elitism=1), rng),
        lambda run, rng: island_model(
            run, 40, IslandConfig(islands=3, ga=GAConfig(population=6, elitism=1)), rng
        ),
        lambda run, rng: mu_plus_lambda(run, 40, MuLambdaConfig(mu=3, lam=6), rng),
    ],
)
def test_elitist_strategies_never_lose_their_best_genome(
    strategy: Callable[[Run, np.random.Generator], EvolutionResult],
) -> None:
    result = strategy(KeepsBest(onemax, StopRule(max_generations=25)), np.random.default_rng(29))
    assert result.generations == 25


def test_tournaments_as_large_as_the_population_breed_from_the_best() -> None:
    fitness = Recorder()
    config = GAConfig(population=10, elitism=0, tournament_size=100, crossover_rate=0.0, mutation_rate=0.001)
    genetic_algorithm(Run(fitness, StopRule(max_generations=2)), 60, config, np.random.default_rng(30))
    parents, children = fitness.batches
    best = parents[onemax(parents) == onemax(parents).max()]
    assert nearest_distance(children, best).max() <= 2  # mutants of a best genome, one flip or two


def test_migration_sends_each_island_s_best_to_replace_the_next_island_s_worst() -> None:
    genomes = [np.arange(3)[:, None] + 10 * i + np.zeros((3, 2)) for i in range(3)]
    fitnesses = [np.array([5.0, 9.0, 1.0]) + 10 * i for i in range(3)]
    strategies._migrate(genomes, fitnesses, 1)
    # island i's best is its row 1; island i+1's worst is its row 2 (ring: 2 sends to 0)
    assert [g[:, 0].tolist() for g in genomes] == [[0, 1, 21], [10, 11, 1], [20, 21, 11]]
    assert [f.tolist() for f in fitnesses] == [[5, 9, 29], [15, 19, 9], [25, 29, 19]]


@pytest.mark.parametrize(("interval", "migrants", "migrations"), [(3, 2, 3), (1, 2, 9), (3, 0, 0), (3, 6, 3)])
def test_islands_migrate_every_interval_generations(
    monkeypatch: pytest.MonkeyPatch, interval: int, migrants: int, migrations: int
) -> None:
    calls: list[int] = []
    real = strategies._migrate
    monkeypatch.setattr(strategies, "_migrate", lambda *args: calls.append(args[2]) or real(*args))
    config = IslandConfig(
        islands=2, ga=GAConfig(population=6, elitism=1), migration_interval=interval, migrants=migrants
    )
    island_model(Run(onemax, StopRule(max_generations=10)), 20, config, np.random.default_rng(31))
    assert calls == [migrants] * migrations


def test_linkage_climber_solves_onemax_in_one_sweep_and_one_group_flip() -> None:
    run = Run(onemax, StopRule(target_fitness=1.0, max_calls=1_000))
    result = linkage_hill_climber(run, 40, LinkageClimberConfig(), np.random.default_rng(32))
    assert result.calls == result.calls_to_target == 40 + 2  # the start, L single flips, the zeros


def one_good_bit_block(population: np.ndarray) -> np.ndarray:
    """Loci 0-3: exactly one set is best, any other count is worse; loci 4-7: each set is +2."""
    block = population[:, :4].sum(axis=1)
    return -((block - 1.0) ** 2) + 2.0 * population[:, 4:].sum(axis=1)


@pytest.mark.parametrize(("cheap_refresh", "largest_batch", "smallest_sweep"), [(True, 8, 2), (False, 8, 8)])
def test_linkage_climber_refreshes_known_groups_cheaply_and_flips_one_bit_of_a_bad_group(
    cheap_refresh: bool, largest_batch: int, smallest_sweep: int
) -> None:
    fitness = Recorder(one_good_bit_block)
    run = Run(fitness, StopRule(max_generations=3))  # the start, then two rounds
    config = LinkageClimberConfig(cheap_refresh=cheap_refresh)
    result = linkage_hill_climber(run, 8, config, np.random.default_rng(33), initial=np.zeros(8, dtype=bool))
    sweeps = [len(batch) for batch in fitness.batches if len(batch) > 1]
    assert max(sweeps) == largest_batch and min(sweeps) == smallest_sweep
    # round 1 sets loci 4-7 (fitness 7); in round 2 the whole group 0-3 is worse (-1) but one
    # of its bits alone is best (8): that single flip is taken
    assert result.history_calls == [1, 11, 11 + smallest_sweep + 3]
    group_flip, single_flip, other_group = fitness.batches[-3:]
    assert one_good_bit_block(group_flip).tolist() == [-1.0] and one_good_bit_block(single_flip).tolist() == [
        8.0
    ]
    assert result.best_fitness == 8.0 and len(other_group) == 1


@pytest.mark.parametrize(("perturbation", "flips"), [(0.25, 10), (0.0, 1)])
def test_linkage_climber_perturbs_its_latest_equal_local_optimum(perturbation: float, flips: int) -> None:
    fitness = Recorder(flat)
    run = Run(fitness, StopRule(max_generations=3))
    linkage_hill_climber(run, 40, LinkageClimberConfig(perturbation=perturbation), np.random.default_rng(34))
    # start, sweep, whole-group flip, perturbed start; sweep, group flip, perturbed again
    sizes = [len(batch) for batch in fitness.batches]
    assert sizes == [1, 40, 1, 1, 40, 1, 1]
    start, first, second = fitness.batches[0][0], fitness.batches[3][0], fitness.batches[6][0]
    assert (first != start).sum() == flips and (second != first).sum() == flips


def test_group_by_effect_joins_values_closer_than_the_tolerance() -> None:
    values = np.array([0.5, 1.0, 0.95, 0.2, 0.35])
    groups = group_by_effect(values, tolerance=0.1)
    assert [g.tolist() for g in groups] == [[1, 2], [0], [4], [3]]
    assert [g.tolist() for g in group_by_effect(values, tolerance=0.2)] == [[1, 2], [0, 4, 3]]


def test_hill_climber_samples_every_locus_when_asked_for_more_neighbours_than_loci() -> None:
    run = Run(onemax, StopRule(max_generations=3))
    result = hill_climber(run, 10, HillClimberConfig(neighbours=50), np.random.default_rng(35))
    assert result.history_calls == [1, 11, 21]


def test_hill_climber_restarts_after_patience_generations_without_a_strict_improvement() -> None:
    fitness = Recorder(flat)
    run = Run(fitness, StopRule(max_generations=10))
    hill_climber(run, 30, HillClimberConfig(neighbours=4, patience=3), np.random.default_rng(36))
    assert [len(batch) for batch in fitness.batches] == [1] + [4, 4, 4, 1] * 3


def test_hill_climber_walks_across_a_plateau() -> None:
    fitness = Recorder(flat)
    run = Run(fitness, StopRule(max_generations=30))
    hill_climber(run, 100, HillClimberConfig(neighbours=4, patience=1_000), np.random.default_rng(37))
    start = fitness.batches[0][0]
    assert (np.concatenate(fitness.batches) != start).sum(axis=1).max() > 10


def test_compact_ga_steps_by_one_over_its_virtual_population() -> None:
    def last_diversity(virtual_population: int | None) -> float:
        run = Run(onemax, StopRule(max_generations=6))
        config = CompactGAConfig(virtual_population=virtual_population, pairs_per_generation=4)
        return compact_ga(run, 100, config, np.random.default_rng(38)).history_diversity[-1]

    assert last_diversity(1) < 0.15 < 0.4 < last_diversity(None)  # steps of 1 versus 1/L


def test_umda_may_re_estimate_its_model_from_every_sample() -> None:
    run = Run(onemax, StopRule(max_generations=3))
    assert umda(run, 20, UMDAConfig(samples=5, selected=5), np.random.default_rng(41)).calls == 15


def test_compact_ga_evaluates_its_pairs_per_generation() -> None:
    run = Run(onemax, StopRule(max_generations=4))
    compact_ga(run, 20, CompactGAConfig(pairs_per_generation=3), np.random.default_rng(39))
    assert run.history_calls == [6, 12, 18, 24]


@pytest.mark.parametrize(
    "strategy",
    [
        lambda run, rng, init: compact_ga(run, 10, CompactGAConfig(virtual_population=1), rng, init),
        lambda run, rng, init: umda(run, 10, UMDAConfig(samples=10, selected=1), rng, init),
    ],
)
def test_model_based_strategies_keep_every_locus_open_to_both_values(
    strategy: Callable[[Run, np.random.Generator, np.ndarray], EvolutionResult],
) -> None:
    # warm-started from all zeros and with steps so large a model would fix its loci at once
    run = Run(onemax, StopRule(target_fitness=1.0, max_calls=20_000))
    result = strategy(run, np.random.default_rng(40), np.zeros(10, dtype=bool))
    assert result.best_fitness == 1.0


def test_a_run_reports_progress_after_every_batch_it_evaluates() -> None:
    seen: list[tuple[int, float]] = []
    run = Run(onemax, StopRule(max_calls=5), on_progress=lambda r: seen.append((r.calls, r.best_fitness)))
    run.evaluate(np.zeros((3, 4), dtype=bool))
    run.evaluate(np.ones((4, 4), dtype=bool))  # only two fit in the budget
    run.evaluate(np.ones((1, 4), dtype=bool))  # nothing left: nothing evaluated, nothing to report
    assert seen == [(3, 0.0), (5, 1.0)]


def test_a_generation_that_evaluated_nothing_has_no_mean() -> None:
    run = Run(onemax, StopRule(max_calls=2))
    run.evaluate(np.array([[1, 0], [1, 1]], dtype=bool))
    run.end_generation()
    run.evaluate(np.ones((3, 2), dtype=bool))
    run.end_generation()
    assert run.history_mean[0] == 0.75 and math.isnan(run.history_mean[1])
    assert run.history_calls == [2, 2]


def test_a_target_reached_on_the_last_call_of_the_budget_is_reported_as_the_target() -> None:
    run = Run(onemax, StopRule(target_fitness=1.0, max_calls=2))
    run.evaluate(np.array([[0, 1], [1, 1]], dtype=bool))
    assert run.done and run.stop_reason == "target"


def test_a_result_taken_before_any_limit_is_reached_says_interrupted() -> None:
    run = Run(onemax, StopRule(max_calls=100))
    with pytest.raises(RuntimeError, match="no genome has been evaluated yet"):
        run.result()
    run.evaluate(np.array([[0, 1, 1]], dtype=bool))
    result = run.result()
    assert result.stop_reason == "interrupted" and result.calls == 1


def test_a_summary_writes_bit_strings_as_zeros_and_ones_and_real_vectors_as_floats() -> None:
    run = Run(lambda pop: pop.sum(axis=1).astype(float), StopRule(max_calls=5))
    run.evaluate(np.array([[1, 0, 0, 1]], dtype=bool))
    assert run.result().summary()["best_genome"] == "1001"
    run = Run(lambda pop: pop.sum(axis=1), StopRule(max_calls=5))
    run.evaluate(np.array([[0.5, -1.0]]))
    summary = run.result().summary()
    assert summary["best_genome"] == [0.5, -1.0] and summary["best_fitness"] == -0.5


# -- results saved as JSON and read back ---------------------------------------------------------


def _through_json(result: EvolutionResult) -> EvolutionResult:
    """``result`` written as strict JSON (no NaN literal) and read back."""
    return EvolutionResult.from_record(json.loads(json.dumps(result.to_record(), allow_nan=False)))


def _same(first: EvolutionResult, second: EvolutionResult) -> None:
    """The two results hold the same figures, bit for bit (NaN where NaN)."""
    assert first.best_genome.dtype == second.best_genome.dtype
    np.testing.assert_array_equal(first.best_genome, second.best_genome)
    for name in ("best_fitness", "best_generation", "generations", "calls", "calls_to_best"):
        assert getattr(first, name) == getattr(second, name), name
    assert (first.calls_to_target, first.stop_reason) == (second.calls_to_target, second.stop_reason)
    assert first.history_calls == second.history_calls
    for name in ("history_best", "history_mean", "history_diversity"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name), err_msg=name)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_result_read_back_from_its_json_record_is_the_same_result(name: str) -> None:
    run = Run(lambda population: onemax(population) ** 3, StopRule(target_fitness=0.9, max_calls=1_500))
    result = STRATEGIES[name](run, 30, np.random.default_rng(4))
    _same(_through_json(result), result)


def test_a_real_vector_result_with_nan_and_infinities_is_read_back_exactly() -> None:
    result = EvolutionResult(
        best_genome=np.array([0.1, -2.5e-300, math.inf]),
        best_fitness=-1 / 3,
        best_generation=1,
        generations=2,
        calls=7,
        calls_to_best=3,
        calls_to_target=None,
        history_best=[-math.inf, -1 / 3],
        history_mean=[math.nan, 0.2],
        history_calls=[0, 7],
        history_diversity=[math.nan, math.nan],
        stop_reason="max_calls",
    )
    back = _through_json(result)
    _same(back, result)
    assert back.to_record() == result.to_record()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"calls": None}, "'calls'"),
        ({"calls": -1}, "'calls'"),
        ({"generations": True}, "'generations'"),
        ({"best_fitness": "high"}, "'best_fitness'"),
        ({"history_best": [0.5]}, "one value for each of its 2 generations"),
        ({"history_calls": [1, 2.5]}, "'history_calls'"),
        ({"best_genome": "01x"}, "'best_genome'"),
        ({"stop_reason": 3}, "'stop_reason'"),
    ],
)
def test_a_damaged_result_record_is_refused_naming_the_field(change: dict[str, object], message: str) -> None:
    run = Run(onemax, StopRule(max_generations=2))
    record = one_plus_lambda(run, 8, OnePlusLambdaConfig(), np.random.default_rng(0)).to_record()
    with pytest.raises(ValueError, match=message):
        EvolutionResult.from_record({**record, **change})


def test_a_result_record_without_a_field_is_refused_naming_it() -> None:
    run = Run(onemax, StopRule(max_generations=2))
    record = one_plus_lambda(run, 8, OnePlusLambdaConfig(), np.random.default_rng(0)).to_record()
    del record["calls_to_best"]
    with pytest.raises(ValueError, match="lacks 'calls_to_best'"):
        EvolutionResult.from_record(record)


# -- resuming a run exactly ---------------------------------------------------------------------


NK_TABLE = np.random.default_rng(0).random((40, 8))


def nk_landscape(population: np.ndarray) -> np.ndarray:
    """A rugged fitness on 40 bits (each locus scored with its two right neighbours): single-flip
    climbers get stuck and restart, the linkage climber perturbs, populations keep diverse."""
    bits = population.astype(int)
    index = 4 * bits + 2 * np.roll(bits, -1, axis=1) + np.roll(bits, -2, axis=1)
    return NK_TABLE[np.arange(40), index].mean(axis=1)


def sphere(population: np.ndarray) -> np.ndarray:
    return -(population**2).sum(axis=1)


RESUMED: dict[str, tuple[Callable[[np.ndarray], np.ndarray], StrategyCall]] = {
    **{name: (nk_landscape, call) for name, call in STRATEGIES.items()},
    "(mu+lambda) reals": (
        sphere,
        lambda run, n, rng: mu_plus_lambda(run, n, MuLambdaConfig(representation="reals"), rng),
    ),
    "ga ones key": (
        nk_landscape,
        lambda run, n, rng: genetic_algorithm(
            run, n, GAConfig(population=40), rng, parent_key=lambda genomes, _: genomes.sum(axis=1) * 1.0
        ),
    ),
}


class Stopped(Exception):
    """Stands for Ctrl-C in the middle of a run."""


def stopped_at(
    calls: int, strategy: StrategyCall, fitness: Callable[[np.ndarray], np.ndarray], point: ResumePoint | None
) -> ResumePoint:
    """Run ``strategy`` (from ``point``, else from the start) until it has spent ``calls`` calls;
    its latest resume point, passed through an ``.npz`` file as a checkpoint is."""

    def stop(run: Run) -> None:
        if run.calls >= calls:
            raise Stopped

    run = Run(fitness, StopRule(max_calls=1_500), on_progress=stop, resumable=True)
    if point is not None:
        run.restore(point)
    with pytest.raises(Stopped):
        strategy(run, 40, np.random.default_rng(0))
    assert run.resume_point is not None
    buffer = io.BytesIO()
    np.savez(buffer, **run.resume_point.to_arrays())
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as data:
        return ResumePoint.from_arrays(dict(data))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(RESUMED))
def test_a_run_stopped_twice_and_restored_gives_the_uninterrupted_result(name: str) -> None:
    fitness, strategy = RESUMED[name]
    whole = strategy(Run(fitness, StopRule(max_calls=1_500)), 40, np.random.default_rng(0))
    # a call count inside each generation after the first: a stop there comes before its end
    inside = [(low + high + 1) // 2 for low, high in itertools.pairwise(whole.history_calls)]
    assert len(inside) >= 4, inside
    first = stopped_at(inside[len(inside) // 3], strategy, fitness, None)
    second = stopped_at(inside[2 * len(inside) // 3], strategy, fitness, first)
    assert 0 < first.calls < second.calls and first.strategy is not None
    run = Run(fitness, StopRule(max_calls=1_500))
    run.restore(second)
    resumed = strategy(run, 40, np.random.default_rng(12345))  # the saved generator state is used
    assert resumed.to_record() == whole.to_record()
    assert np.array_equal(resumed.best_genome, whole.best_genome)


def test_a_resume_point_of_another_configuration_is_refused_by_name() -> None:
    run = Run(onemax, StopRule(max_calls=200), resumable=True)
    genetic_algorithm(run, 30, GAConfig(population=20), np.random.default_rng(0))
    point = run.resume_point
    assert point is not None
    other = Run(onemax, StopRule(max_calls=400))
    other.restore(point)
    with pytest.raises(ResumeError, match="'population' must be 30x30 of bool, not 20x30 of bool"):
        genetic_algorithm(other, 30, GAConfig(population=30), np.random.default_rng(0))
    damaged = point.to_arrays()
    del damaged["history_mean"]
    with pytest.raises(ResumeError, match="history_mean"):
        ResumePoint.from_arrays(damaged)


def test_a_run_restored_from_its_first_point_starts_as_a_fresh_run() -> None:
    run = Run(onemax, StopRule(max_calls=300), resumable=True)
    rng = np.random.default_rng(4)
    assert run.begin(rng) is None
    point = run.resume_point
    assert point is not None and point.strategy is None and point.calls == 0
    restored = Run(onemax, StopRule(max_calls=300))
    restored.restore(point)
    again = umda(restored, 30, UMDAConfig(), np.random.default_rng(99))
    assert again.to_record() == umda(Run(onemax, StopRule(max_calls=300)), 30, UMDAConfig(), rng).to_record()
