"""Variation and selection operators, each acting on a whole population at once.

Conventions: a population is a 2-D array ``(n, L)`` (``bool`` for bit strings, ``float`` for
real vectors); fitness is a 1-D array ``(n,)`` where higher is better; every random choice comes
from the ``numpy.random.Generator`` passed in, so results are reproducible from a seed.
Selection operators return *indices* into the population.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# -- representations ------------------------------------------------------------------------


def random_bits(rng: np.random.Generator, n: int, length: int, p_one: float = 0.5) -> np.ndarray:
    """``n`` random bit strings of ``length`` loci, each bit 1 with probability ``p_one``."""
    return rng.random((n, length)) < p_one


def random_reals(
    rng: np.random.Generator, n: int, length: int, low: float = -1.0, high: float = 1.0
) -> np.ndarray:
    """``n`` real vectors drawn uniformly in ``[low, high)^length``."""
    return rng.uniform(low, high, size=(n, length))


# -- selection ------------------------------------------------------------------------------

Selection = Callable[..., np.ndarray]
"""``(fitness, k, rng, **options) -> k indices``."""


def roulette_selection(fitness: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Fitness-proportionate selection of ``k`` indices.

    Fitness is shifted so the worst individual gets a small positive weight, which makes the
    operator usable with negative fitness values.
    """
    finite = np.where(np.isfinite(fitness), fitness, np.nan)
    low = np.nanmin(finite)
    spread = np.nanmax(finite) - low
    weights = np.nan_to_num(finite - low, nan=0.0) + (spread * 1e-3 if spread > 0 else 1.0)
    weights[~np.isfinite(fitness)] = 0.0
    return rng.choice(len(fitness), size=k, p=weights / weights.sum())


def tournament_selection(fitness: np.ndarray, k: int, rng: np.random.Generator, size: int = 2) -> np.ndarray:
    """``k`` tournaments of ``size`` contestants drawn with replacement; each winner's index."""
    contestants = rng.integers(0, len(fitness), size=(k, size))
    winners = np.argmax(fitness[contestants], axis=1)
    return contestants[np.arange(k), winners]


def rank_selection(
    fitness: np.ndarray, k: int, rng: np.random.Generator, pressure: float = 2.0
) -> np.ndarray:
    """Linear ranking: selection probability grows linearly with rank (``pressure`` in [1, 2])."""
    n = len(fitness)
    ranks = np.empty(n)
    ranks[np.argsort(fitness, kind="stable")] = np.arange(n)
    if n == 1:
        return np.zeros(k, dtype=np.intp)
    weights = (2.0 - pressure) / n + 2.0 * ranks * (pressure - 1.0) / (n * (n - 1))
    return rng.choice(n, size=k, p=weights / weights.sum())


def truncation_selection(
    fitness: np.ndarray, k: int, rng: np.random.Generator, fraction: float = 0.5
) -> np.ndarray:
    """Uniform choice among the best ``fraction`` of the population."""
    n_best = max(1, round(len(fitness) * fraction))
    best = np.argsort(-fitness, kind="stable")[:n_best]
    return best[rng.integers(0, n_best, size=k)]


SELECTIONS: dict[str, Selection] = {
    "roulette": roulette_selection,
    "tournament": tournament_selection,
    "rank": rank_selection,
    "truncation": truncation_selection,
}


def best_indices(fitness: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` fittest individuals, best first (deterministic survivor selection)."""
    return np.argsort(-fitness, kind="stable")[:k]


# -- crossover ------------------------------------------------------------------------------


def one_point_crossover(mothers: np.ndarray, fathers: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One child per pair: the mother's loci before a random cut point, the father's after."""
    n, length = mothers.shape
    cuts = rng.integers(1, length, size=(n, 1)) if length > 1 else np.ones((n, 1), dtype=int)
    from_mother = np.arange(length)[None, :] < cuts
    return np.where(from_mother, mothers, fathers)


def uniform_crossover(
    mothers: np.ndarray, fathers: np.ndarray, rng: np.random.Generator, p_mother: float = 0.5
) -> np.ndarray:
    """One child per pair: each locus from the mother with probability ``p_mother``."""
    return np.where(rng.random(mothers.shape) < p_mother, mothers, fathers)


Crossover = Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]

CROSSOVERS: dict[str, Crossover] = {
    "one_point": one_point_crossover,
    "uniform": uniform_crossover,
}


def recombine(
    parents_a: np.ndarray,
    parents_b: np.ndarray,
    rng: np.random.Generator,
    crossover: Crossover,
    rate: float,
) -> np.ndarray:
    """Apply ``crossover`` to each pair with probability ``rate``; otherwise copy parent a."""
    children = crossover(parents_a, parents_b, rng)
    keep_a = rng.random(len(parents_a)) >= rate
    children[keep_a] = parents_a[keep_a]
    return children


# -- mutation -------------------------------------------------------------------------------


def bit_flip_mutation(
    genomes: np.ndarray, rate: float | np.ndarray, rng: np.random.Generator, at_least_one: bool = False
) -> np.ndarray:
    """Flip each bit independently with probability ``rate`` (scalar or one rate per genome).

    With ``at_least_one`` a genome left unchanged gets one uniformly chosen bit flipped, so no
    fitness call is wasted on an exact copy of its parent.
    """
    rates = np.broadcast_to(np.asarray(rate, dtype=float).reshape(-1, 1), (genomes.shape[0], 1))
    flips = rng.random(genomes.shape) < rates
    if at_least_one:
        untouched = np.flatnonzero(~flips.any(axis=1))
        flips[untouched, rng.integers(0, genomes.shape[1], size=untouched.size)] = True
    return genomes ^ flips


def flip_exactly(genomes: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Flip exactly ``k`` distinct, uniformly chosen bits of every genome."""
    n, length = genomes.shape
    positions = np.argsort(rng.random((n, length)), axis=1)[:, :k]
    children = genomes.copy()
    rows = np.repeat(np.arange(n), k)
    children[rows, positions.ravel()] ^= True
    return children


def single_flips(genome: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """One copy of ``genome`` per entry of ``positions``, with that locus flipped."""
    neighbours = np.repeat(genome[None, :], len(positions), axis=0)
    neighbours[np.arange(len(positions)), positions] ^= True
    return neighbours


def gaussian_mutation(
    genomes: np.ndarray,
    sigma: float | np.ndarray,
    rng: np.random.Generator,
    rate: float = 1.0,
    low: float | None = None,
    high: float | None = None,
) -> np.ndarray:
    """Add N(0, sigma^2) noise to each gene with probability ``rate``; clip to [low, high].

    ``sigma`` is a scalar or one value per genome; either bound may be left open (``None``).
    """
    sigmas = np.asarray(sigma, dtype=float)
    if sigmas.ndim == 1:
        sigmas = sigmas[:, None]
    noise = rng.standard_normal(genomes.shape) * sigmas
    if rate < 1.0:
        noise *= rng.random(genomes.shape) < rate
    children = genomes + noise
    if low is not None or high is not None:
        children = np.clip(children, low, high)
    return children
