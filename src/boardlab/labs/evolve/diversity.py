"""Diversity measures of a bit-string population ``(n, L)``."""

from __future__ import annotations

import numpy as np


def mean_pairwise_hamming(population: np.ndarray) -> float:
    """Mean Hamming distance over all unordered pairs of distinct individuals.

    Computed per locus in O(n L): a locus with ``k`` ones among ``n`` genomes contributes
    ``k (n - k)`` differing pairs.
    """
    n = population.shape[0]
    if n < 2:
        return 0.0
    ones = population.sum(axis=0, dtype=np.int64)
    differing_pairs = float(np.sum(ones * (n - ones)))
    return differing_pairs / (n * (n - 1) / 2)


def locus_entropy(population: np.ndarray) -> np.ndarray:
    """Shannon entropy (bits) of each locus: 0 when fixed, 1 when half ones."""
    p = population.mean(axis=0, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(p * np.log2(p)) - ((1 - p) * np.log2(1 - p))
    return np.nan_to_num(terms, nan=0.0)


def mean_locus_entropy(population: np.ndarray) -> float:
    """Average of :func:`locus_entropy` over the loci (0 = converged, 1 = maximally diverse)."""
    return float(locus_entropy(population).mean())


def unique_fraction(population: np.ndarray) -> float:
    """Fraction of distinct genomes in the population."""
    return len(np.unique(population, axis=0)) / population.shape[0]
