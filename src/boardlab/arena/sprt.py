"""Sequential probability ratio test (SPRT) for A/B matches between two versions of an agent.

The question an A/B match asks is "is B at least ``elo1`` stronger than A, or at most
``elo0``?". Both hypotheses are stated as logistic Elo differences, turned into expected
scores with :func:`~boardlab.arena.ratings.expected_score`. After each observation the
log-likelihood ratio (LLR) of H1 against H0 is compared with Wald's bounds
``log(beta / (1 - alpha))`` (accept H0 below) and ``log((1 - beta) / alpha)`` (accept H1 above);
``alpha`` and ``beta`` are the false-positive and false-negative rates the test keeps.

The LLR is the generalised one (GSPRT) used by chess-engine testing frameworks: the observed
results form a multinomial sample over a few score values, and the likelihood of each
hypothesis is that of the most likely multinomial whose mean score equals the hypothesis's
expected score (Van den Bergh's construction). Two samplings are offered:

- *trinomial*: one observation per game, scored 0, 1/2 or 1;
- *pentanomial*: one observation per game pair (the same opening played with the colours
  swapped), scored by the pair's mean 0, 1/4, 1/2, 3/4 or 1. Pairs cancel most of what an
  opening gives one colour, which lowers the variance and so the games a decision needs.

Empty cells get a small count (:data:`EPSILON`) so that a sample with one kind of result
still has a defined LLR, as the testing frameworks do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from boardlab.arena.ratings import elo_from_score, expected_score

EPSILON = 1e-3
"""Count given to an empty cell of the result histogram."""
TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
Z95 = 1.959963984540054
MAX_SHOWN_ELO = 2000.0
"""Elo shown for a score of exactly 0 or 1 (an infinite estimate)."""

H1_ACCEPTED = "H1 accepted"
H0_ACCEPTED = "H0 accepted"
CONTINUE = "continue"
INCONCLUSIVE = "inconclusive"


def llr_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: below the lower accept H0, above the upper accept H1."""
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError(f"alpha and beta must be in (0, 0.5), got {alpha} and {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _regularized(counts: Sequence[float]) -> list[float]:
    return [c if c > 0 else EPSILON for c in counts]


def mle_with_mean(frequencies: Sequence[float], scores: Sequence[float], mean: float) -> list[float]:
    """The distribution over ``scores`` closest to ``frequencies`` (in likelihood) with ``mean``.

    Maximises ``sum f_i log p_i`` subject to ``sum p_i = 1`` and ``sum p_i x_i = mean``; the
    answer is ``p_i = f_i / (1 + theta (x_i - mean))`` with ``theta`` found by bisection.
    ``frequencies`` must be positive and sum to 1, and ``mean`` lie strictly between the
    smallest and the largest score.
    """
    low_x, high_x = min(scores), max(scores)
    if not low_x < mean < high_x:
        raise ValueError(f"mean {mean} must lie strictly between {low_x} and {high_x}")
    # 1 + theta (x_i - mean) > 0 for every i bounds theta
    lo = -1 / (high_x - mean)
    hi = 1 / (mean - low_x)

    def slope(theta: float) -> float:  # decreasing in theta; its root is the multiplier
        pairs = zip(frequencies, scores, strict=True)
        return sum(f * (x - mean) / (1 + theta * (x - mean)) for f, x in pairs)

    for _ in range(200):
        mid = (lo + hi) / 2
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
    theta = (lo + hi) / 2
    return [f / (1 + theta * (x - mean)) for f, x in zip(frequencies, scores, strict=True)]


def gsprt_llr(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalised LLR of H1 (Elo ``elo1``) over H0 (Elo ``elo0``) for a result histogram.

    ``counts[i]`` observations scored ``scores[i]``; 0.0 when there are none.
    """
    if len(counts) != len(scores):
        raise ValueError(f"{len(counts)} counts for {len(scores)} scores")
    if sum(counts) <= 0:
        return 0.0
    regular = _regularized(counts)
    total = sum(regular)
    frequencies = [c / total for c in regular]
    p0 = mle_with_mean(frequencies, scores, expected_score(elo0))
    p1 = mle_with_mean(frequencies, scores, expected_score(elo1))
    return total * sum(f * math.log(b / a) for f, a, b in zip(frequencies, p0, p1, strict=True))


def normal_llr(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The LLR under a normal approximation: ``N (s1 - s0)(2 m - s0 - s1) / (2 v)``.

    ``m`` and ``v`` are the sample mean and variance of the scores; ``s0`` and ``s1`` the
    expected scores of the two hypotheses. Close to :func:`gsprt_llr` when the bounds are near
    each other; kept as a check and for a quick estimate.
    """
    regular = _regularized(counts)
    total = sum(regular)
    if sum(counts) <= 0:
        return 0.0
    mean = sum(c * x for c, x in zip(regular, scores, strict=True)) / total
    variance = sum(c * (x - mean) ** 2 for c, x in zip(regular, scores, strict=True)) / total
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference from a mean score, with its 95 % interval (from the score's error)."""

    score: float
    elo: float
    low: float
    high: float

    @property
    def error(self) -> float:
        """Half the width of the interval, in Elo (the ``±`` figure)."""
        return (self.high - self.low) / 2

    def text(self) -> str:
        """E.g. ``+12.3 ± 20.1 (score 51.8%)``; a score of 0 or 1 shows an infinite Elo."""
        if not 0 < self.score < 1:
            return f"{'+' if self.score >= 1 else '-'}inf (score {self.score:.1%})"
        return f"{self.elo:+.1f} ± {self.error:.1f} (score {self.score:.1%})"


def _elo(score: float) -> float:
    if score <= 0:
        return -MAX_SHOWN_ELO
    if score >= 1:
        return MAX_SHOWN_ELO
    return max(-MAX_SHOWN_ELO, min(MAX_SHOWN_ELO, elo_from_score(score)))


def elo_estimate(counts: Sequence[float], scores: Sequence[float]) -> EloEstimate:
    """Elo of the mean score of a histogram, ± 1.96 standard errors of that mean, in Elo.

    With pentanomial counts the error is that of pair means, which accounts for the
    correlation of the two games of a pair.
    """
    total = sum(counts)
    if total <= 0:
        return EloEstimate(0.5, 0.0, -MAX_SHOWN_ELO, MAX_SHOWN_ELO)
    mean = sum(c * x for c, x in zip(counts, scores, strict=True)) / total
    variance = sum(c * (x - mean) ** 2 for c, x in zip(counts, scores, strict=True)) / total
    half = Z95 * math.sqrt(variance / total)
    return EloEstimate(mean, _elo(mean), _elo(mean - half), _elo(mean + half))


def pair_counts(pair_scores: Sequence[float]) -> list[int]:
    """The pentanomial histogram of pair scores (each the sum of a pair's two game scores: 0..2)."""
    counts = [0] * len(PENTANOMIAL_SCORES)
    for total in pair_scores:
        index = round(total * 2)
        if not (0 <= index <= 4 and math.isclose(index / 2, total)):
            raise ValueError(f"a pair of games scores 0, 0.5, 1, 1.5 or 2 points, not {total}")
        counts[index] += 1
    return counts


def game_counts(game_scores: Sequence[float]) -> list[int]:
    """The trinomial histogram (losses, draws, wins) of game scores 0, 0.5 and 1."""
    counts = [0, 0, 0]
    for score in game_scores:
        index = round(score * 2)
        if not (0 <= index <= 2 and math.isclose(index / 2, score)):
            raise ValueError(f"a game scores 0, 0.5 or 1, not {score}")
        counts[index] += 1
    return counts


@dataclass(frozen=True)
class SprtState:
    """Where a test stands: its LLR against the bounds, and the decision so far."""

    llr: float
    lower: float
    upper: float
    estimate: EloEstimate
    observations: int

    @property
    def decision(self) -> str:
        """:data:`H1_ACCEPTED`, :data:`H0_ACCEPTED` or :data:`CONTINUE`."""
        if self.llr >= self.upper:
            return H1_ACCEPTED
        if self.llr <= self.lower:
            return H0_ACCEPTED
        return CONTINUE


@dataclass(frozen=True)
class Sprt:
    """A test of H0: Elo ≤ ``elo0`` against H1: Elo ≥ ``elo1`` at error rates ``alpha``, ``beta``."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0} and {self.elo1}")
        llr_bounds(self.alpha, self.beta)  # checks them

    @property
    def bounds(self) -> tuple[float, float]:
        """The (lower, upper) LLR bounds."""
        return llr_bounds(self.alpha, self.beta)

    def state(self, counts: Sequence[float], scores: Sequence[float]) -> SprtState:
        """The test after the results in a histogram over ``scores``."""
        lower, upper = self.bounds
        llr = gsprt_llr(counts, scores, self.elo0, self.elo1)
        return SprtState(llr, lower, upper, elo_estimate(counts, scores), int(sum(counts)))

    def pentanomial(self, pair_scores: Sequence[float]) -> SprtState:
        """The test on game pairs, each given by its points out of 2."""
        return self.state(pair_counts(pair_scores), PENTANOMIAL_SCORES)

    def trinomial(self, game_scores: Sequence[float]) -> SprtState:
        """The test on single games, each scored 0, 1/2 or 1."""
        return self.state(game_counts(game_scores), TRINOMIAL_SCORES)
