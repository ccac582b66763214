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

:class:`SprtTally` runs a test over the games of a two-player match as they come in (the
arena's ``match --sprt`` and ``benchmarks/ab_sprt.py``): it scores each game for the match's
first agent and reports the test's state, its decision and its summary.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from boardlab.arena.play import GameRecord
from boardlab.arena.ratings import elo_from_score, expected_score, pair_elo

EPSILON = 1e-3
"""Count given to an empty cell of the result histogram."""
TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
Z95 = 1.959963984540054
MAX_SHOWN_ELO = 2000.0
"""Elo shown for a score of exactly 0 or 1 (an infinite estimate)."""
MAX_TESTED_ELO = 2000.0
"""The largest Elo difference, either way, that a hypothesis may state: beyond it the expected
score is too near 0 or 1 to test."""
MAX_OBSERVATIONS = 2**62
"""Where :meth:`Sprt.fewest_to_decide` stops looking."""

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
        if not all(math.isfinite(elo) and abs(elo) <= MAX_TESTED_ELO for elo in (self.elo0, self.elo1)):
            raise ValueError(
                f"elo0 and elo1 must be numbers within ±{MAX_TESTED_ELO:g}, got {self.elo0} and {self.elo1}"
            )
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

    def fewest_to_decide(self, scores: Sequence[float]) -> tuple[int, int]:
        """The fewest observations over ``scores`` that can accept H1 (every one the best
        result) and H0 (every one the worst): below either, the test cannot accept that
        hypothesis whatever the results."""
        best = len(scores) - 1
        return (
            self._fewest(scores, best, lambda state: state.decision == H1_ACCEPTED),
            self._fewest(scores, 0, lambda state: state.decision == H0_ACCEPTED),
        )

    def _fewest(self, scores: Sequence[float], cell: int, accepts: Callable[[SprtState], bool]) -> int:
        def decides(n: int) -> bool:
            counts = [0] * len(scores)
            counts[cell] = n
            return accepts(self.state(counts, scores))

        high = 1
        while not decides(high):  # a sweep's LLR grows with its length: double, then bisect
            if high >= MAX_OBSERVATIONS:
                return MAX_OBSERVATIONS
            high *= 2
        low = high // 2  # 0, or a count that does not decide
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (low, middle) if decides(middle) else (middle, high)
        return high


MAX_PATH_POINTS = 400
"""The most points of :meth:`SprtTally.llr_path`: each costs an LLR, about half a millisecond."""

PENTANOMIAL = "pentanomial"
TRINOMIAL = "trinomial"
PAIR_POINTS = ("0", "½", "1", "1½", "2")
"""The points of a game pair out of 2, as the pentanomial counts are labelled."""


class SprtTally:
    """A test run over the games of a two-player match as they end.

    Each game is scored for the match's player 0 (the first agent: the "new" version of an A/B
    test) and kept by its index in the schedule. Games ``2m`` and ``2m + 1`` form a pair, the
    same opening with the colours swapped; a pentanomial test (the default) counts a pair once
    both its games are in, whichever ends first, and a trinomial one (``trinomial``) counts
    every game. The state is a function of the set of games alone, so a test resumed from the
    stored games stands where it stood. The counts are kept as games come in and the state is
    computed once per change, so a long match of fast agents costs no more per game as it goes.
    """

    def __init__(self, sprt: Sprt, trinomial: bool = False) -> None:
        self.sprt = sprt
        self.trinomial = trinomial
        self.scores: dict[int, float] = {}
        self._game_counts = [0] * len(TRINOMIAL_SCORES)  # losses, draws, wins
        self._pair_counts = [0] * len(PENTANOMIAL_SCORES)
        self._state: SprtState | None = None

    @property
    def sampling(self) -> str:
        """:data:`PENTANOMIAL` or :data:`TRINOMIAL`."""
        return TRINOMIAL if self.trinomial else PENTANOMIAL

    @property
    def games(self) -> int:
        """Games counted (a lone game of a pair included)."""
        return len(self.scores)

    def add(self, record: GameRecord) -> None:
        """Count a finished game (a game counted again replaces its first count)."""
        index = record.index
        if index in self.scores:
            self._count(index, -1)
        self.scores[index] = record.score_of(0)
        self._count(index, +1)
        self._state = None

    def _count(self, index: int, step: int) -> None:
        """Add ``step`` to the cells of game ``index``, and of its pair where both are in."""
        self._game_counts[game_counts([self.scores[index]]).index(1)] += step
        partner = index ^ 1
        if partner in self.scores:
            pair = pair_counts([self.scores[index] + self.scores[partner]])
            self._pair_counts[pair.index(1)] += step

    def extend(self, records: Iterable[GameRecord]) -> None:
        """Count finished games (the stored games of a resumed test)."""
        for record in records:
            self.add(record)

    def completes(self, record: GameRecord) -> bool:
        """True when the counted ``record`` completes an observation of the test: any game
        (trinomial), or the second of a pair to finish, whichever of the pair's two games it is
        (with several workers the odd game may end first)."""
        return self.trinomial or record.index ^ 1 in self.scores

    def pair_scores(self) -> list[float]:
        """Points of player 0 out of 2 in each complete pair (games 2m and 2m + 1)."""
        return [
            self.scores[i] + self.scores[i + 1]
            for i in sorted(self.scores)
            if i % 2 == 0 and i + 1 in self.scores
        ]

    def llr_path(self, most: int = MAX_PATH_POINTS) -> list[tuple[int, float]]:
        """The LLR as the games came in, in schedule order: ``(games, llr)`` after each
        observation (a complete pair, or a game with ``trinomial``), at most ``most`` of them
        evenly spaced, the last always in (its LLR is :meth:`state`'s). With several workers
        games end out of order, so the path is drawn over the schedule, not over time."""
        values = [self.scores[i] for i in sorted(self.scores)] if self.trinomial else self.pair_scores()
        scores: Sequence[float] = TRINOMIAL_SCORES if self.trinomial else PENTANOMIAL_SCORES
        per = 1 if self.trinomial else 2  # games an observation takes
        total = len(values)
        shown = {total * k // most for k in range(1, most + 1)} if total > most else set(range(1, total + 1))
        counts = [0] * len(scores)
        path = []
        for n, value in enumerate(values, start=1):
            counts[round(value * 2)] += 1  # a game's 0, ½, 1 or a pair's 0 to 2 points: its cell
            if n in shown:
                path.append((n * per, gsprt_llr(counts, scores, self.sprt.elo0, self.sprt.elo1)))
        return path

    def pentanomial(self) -> list[int]:
        """Complete pairs scoring 0, ½, 1, 1½ and 2 points for player 0."""
        return list(self._pair_counts)

    def state(self) -> SprtState:
        """The test on the games so far."""
        if self._state is None:
            if self.trinomial:
                self._state = self.sprt.state(self._game_counts, TRINOMIAL_SCORES)
            else:
                self._state = self.sprt.state(self._pair_counts, PENTANOMIAL_SCORES)
        return self._state

    @property
    def decided(self) -> bool:
        """Whether H0 or H1 is accepted."""
        return self.state().decision != CONTINUE

    def decision(self, max_games: int) -> str:
        """:data:`H1_ACCEPTED`, :data:`H0_ACCEPTED`, :data:`INCONCLUSIVE` once ``max_games``
        games are in without either, else :data:`CONTINUE`."""
        decision = self.state().decision
        if decision == CONTINUE and self.games >= max_games:
            return INCONCLUSIVE
        return decision

    def wdl(self) -> tuple[int, int, int]:
        """Wins, draws and losses of player 0."""
        losses, draws, wins = self._game_counts
        return wins, draws, losses

    def llr_text(self) -> str:
        """``LLR +1.23 [-2.94, +2.94]``: the LLR and its bounds."""
        state = self.state()
        return f"LLR {state.llr:+.2f} [{state.lower:+.2f}, {state.upper:+.2f}]"

    def line(self) -> str:
        """One progress line: games, W-D-L, pentanomial counts, LLR with bounds, Elo."""
        wins, draws, losses = self.wdl()
        return (
            f"games {self.games:4d}  W-D-L {wins}-{draws}-{losses}  pairs {self.pentanomial()}  "
            f"{self.llr_text()}  Elo {self.elo_text()}"
        )

    def elo_text(self) -> str:
        """The test's Elo estimate ± its 95 % error; after a sweep (a score of 0 or 1, whose
        estimate is infinite) the arena's finite one instead, with the ratings' prior of virtual
        draws, and its 95 % interval (:func:`boardlab.arena.ratings.pair_elo`)."""
        estimate = self.state().estimate
        if not self.scores or 0 < estimate.score < 1:
            return estimate.text()
        diff, low, high = pair_elo(*self.wdl())
        return f"{diff:+.0f} [{low:+.0f}, {high:+.0f}] (score {estimate.score:.1%}; with the ratings' prior)"

    def hypotheses_text(self) -> str:
        """``H0 Elo <= 0, H1 Elo >= 10, alpha 0.05, beta 0.05``."""
        test = self.sprt
        return f"H0 Elo <= {test.elo0:g}, H1 Elo >= {test.elo1:g}, alpha {test.alpha:g}, beta {test.beta:g}"

    def report_lines(self, max_games: int, names: tuple[str, str] = ("A", "B")) -> list[str]:
        """The test's outcome: the decision, LLR and bounds, games, W-D-L and pentanomial counts,
        and the Elo of player 0 over player 1 (``names``) with its 95 % error."""
        decision = self.decision(max_games)
        wins, draws, losses = self.wdl()
        observed = (
            f"{self.games} games"
            if self.trinomial
            else f"{self.games} games, {self.state().observations} complete pairs"
        )
        return [
            f"SPRT ({self.sampling}; {self.hypotheses_text()}): {decision}",
            f"  {self.llr_text()} after {observed} (at most {max_games:,})",
            f"  W-D-L {wins}-{draws}-{losses} for {names[0]}; pairs scoring "
            f"{', '.join(PAIR_POINTS)} points: {', '.join(map(str, self.pentanomial()))}",
            f"  Elo of {names[0]} over {names[1]}: {self.elo_text()}",
        ]

    def result(self, max_games: int) -> dict[str, Any]:
        """The test as plain JSON-ready values (what ``summary.json`` holds as ``sprt``)."""
        state = self.state()
        estimate = state.estimate
        finite = bool(self.scores) and 0 < estimate.score < 1
        wins, draws, losses = self.wdl()
        return {
            "elo0": self.sprt.elo0,
            "elo1": self.sprt.elo1,
            "alpha": self.sprt.alpha,
            "beta": self.sprt.beta,
            "sampling": self.sampling,
            "decision": self.decision(max_games),
            "llr": state.llr,
            "lower": state.lower,
            "upper": state.upper,
            "games": self.games,
            "max_games": max_games,
            "observations": state.observations,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "pentanomial": self.pentanomial(),
            "score": estimate.score if self.scores else None,
            "elo": estimate.elo if finite else None,
            "elo_error95": estimate.error if finite else None,
            "elo_text": self.elo_text(),
        }
