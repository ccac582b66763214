"""Evolutionary-algorithm toolkit on numpy populations.

Representations, selection, crossover and mutation operators (:mod:`.operators`), diversity
measures (:mod:`.diversity`), a counted and budgeted :class:`Run` with a common
:class:`EvolutionResult` (:mod:`.core`) and strategies: (1+λ), (μ+λ), (μ,λ), generational GA with
elitism, island model (:mod:`.strategies`), hill climbing with restarts, compact GA, UMDA
(:mod:`.model_based`) and effect-group linkage hill climbing (:mod:`.linkage`). A resumable run
keeps resume points (:mod:`.resume`) from which an interrupted strategy continues exactly.

Example::

    import numpy as np
    from boardlab.labs.evolve import Run, StopRule, GAConfig, genetic_algorithm

    onemax = lambda pop: pop.mean(axis=1)
    run = Run(onemax, StopRule(target_fitness=1.0, max_calls=20_000))
    result = genetic_algorithm(run, 64, GAConfig(), np.random.default_rng(0))
"""

from boardlab.labs.evolve.core import EvolutionResult, PopulationFitness, Run, StopRule
from boardlab.labs.evolve.diversity import (
    locus_entropy,
    mean_locus_entropy,
    mean_pairwise_hamming,
    unique_fraction,
)
from boardlab.labs.evolve.linkage import (
    LinkageClimberConfig,
    group_by_effect,
    linkage_hill_climber,
)
from boardlab.labs.evolve.model_based import (
    CompactGAConfig,
    HillClimberConfig,
    UMDAConfig,
    compact_ga,
    hill_climber,
    umda,
)
from boardlab.labs.evolve.operators import (
    CROSSOVERS,
    SELECTIONS,
    best_indices,
    bit_flip_mutation,
    flip_exactly,
    gaussian_mutation,
    one_point_crossover,
    random_bits,
    random_reals,
    rank_selection,
    recombine,
    roulette_selection,
    single_flips,
    tournament_selection,
    truncation_selection,
    uniform_crossover,
)
from boardlab.labs.evolve.resume import ResumeError, ResumePoint, SavedState
from boardlab.labs.evolve.strategies import (
    GAConfig,
    IslandConfig,
    MuLambdaConfig,
    OnePlusLambdaConfig,
    ParentKey,
    genetic_algorithm,
    island_model,
    mu_comma_lambda,
    mu_plus_lambda,
    one_plus_lambda,
)

__all__ = [
    "CROSSOVERS",
    "SELECTIONS",
    "CompactGAConfig",
    "EvolutionResult",
    "GAConfig",
    "HillClimberConfig",
    "IslandConfig",
    "LinkageClimberConfig",
    "MuLambdaConfig",
    "OnePlusLambdaConfig",
    "ParentKey",
    "PopulationFitness",
    "ResumeError",
    "ResumePoint",
    "Run",
    "SavedState",
    "StopRule",
    "UMDAConfig",
    "best_indices",
    "bit_flip_mutation",
    "compact_ga",
    "flip_exactly",
    "gaussian_mutation",
    "genetic_algorithm",
    "group_by_effect",
    "hill_climber",
    "island_model",
    "linkage_hill_climber",
    "locus_entropy",
    "mean_locus_entropy",
    "mean_pairwise_hamming",
    "mu_comma_lambda",
    "mu_plus_lambda",
    "one_plus_lambda",
    "one_point_crossover",
    "random_bits",
    "random_reals",
    "rank_selection",
    "recombine",
    "roulette_selection",
    "single_flips",
    "tournament_selection",
    "truncation_selection",
    "umda",
    "uniform_crossover",
    "unique_fraction",
]
