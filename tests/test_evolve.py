"""Behaviour of the evolutionary toolkit: operators, diversity, stopping rules, strategies."""

from __future__ import annotations

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


# -- run accounting and stopping rules ----------------------------------------------------------


def test_stop_rule_rejects_bad_limits() -> None:
    with pytest.raises(ValueError):
        StopRule()
    with pytest.raises(ValueError):
        StopRule(max_calls=0)


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
