"""Elo ratings by maximum likelihood (Bradley–Terry on the 400-point base-10 logistic).

Player ``i`` is expected to score ``1 / (1 + 10 ** ((r_j - r_i) / 400))`` against player
``j``; a draw counts as half a win and half a loss. The ratings maximise the likelihood of
all games with the mean rating fixed at 0, found by Newton's method. The 95 % intervals come
from the observed information (the negative Hessian of the log-likelihood) in the subspace
where the mean stays 0.

Prior: a player who won (or lost) every game has an infinite maximum-likelihood rating.
With ``prior_draws = k > 0`` (default 1) each player also gets ``k`` virtual draws against a
virtual opponent rated at the players' mean, as BayesElo does. This keeps every rating
finite and pulls ratings from few games towards the mean; with hundreds of real games its
effect on a difference is a few Elo at most. ``prior_draws = 0`` is plain maximum likelihood
and raises :class:`RatingError` when a rating would be infinite.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

ELO_SCALE = math.log(10) / 400  # the logistic slope per Elo point
DEFAULT_PRIOR_DRAWS = 1.0


class RatingError(ValueError):
    """Ratings that cannot be computed from the given games (e.g. infinite without a prior)."""


def expected_score(difference: float) -> float:
    """The expected score of a player rated ``difference`` Elo above its opponent."""
    return 1.0 / (1.0 + 10 ** (-difference / 400))


def elo_from_score(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (0 < score < 1)."""
    if not 0 < score < 1:
        raise RatingError(f"score must be strictly between 0 and 1, got {score}")
    return 400 * math.log10(score / (1 - score))


@dataclass(frozen=True)
class EloFit:
    """Fitted ratings (mean 0) with their covariance, one entry per player."""

    ratings: np.ndarray
    covariance: np.ndarray
    prior_draws: float
    level: float = 0.95

    @property
    def z(self) -> float:
        """The normal quantile of the interval level (1.96 for 95 %)."""
        return NormalDist().inv_cdf(0.5 + self.level / 2)

    def stderr(self, player: int) -> float:
        """Standard error of a player's rating."""
        return math.sqrt(max(float(self.covariance[player, player]), 0.0))

    def interval(self, player: int) -> tuple[float, float]:
        """The interval (at ``level``) of a player's rating."""
        half = self.z * self.stderr(player)
        return float(self.ratings[player]) - half, float(self.ratings[player]) + half

    def difference(self, a: int, b: int) -> tuple[float, float, float]:
        """Rating of ``a`` minus rating of ``b``, with its interval: ``(diff, low, high)``."""
        cov = self.covariance
        var = cov[a, a] + cov[b, b] - 2 * cov[a, b]
        diff = float(self.ratings[a] - self.ratings[b])
        half = self.z * math.sqrt(max(float(var), 0.0))
        return diff, diff - half, diff + half


def result_matrices(
    n_players: int, results: Iterable[tuple[int, int, float]]
) -> tuple[np.ndarray, np.ndarray]:
    """``(points, games)`` matrices from ``(player, opponent, score of player)`` triples.

    ``points[i, j]`` is what ``i`` scored against ``j``; ``games[i, j]`` how many they played.
    """
    points = np.zeros((n_players, n_players))
    games = np.zeros((n_players, n_players))
    for a, b, score in results:
        if a == b:
            raise RatingError(f"player {a} cannot play itself in a rating list")
        if score not in (0, 0.5, 1):
            raise RatingError(f"a game score must be 0, 0.5 or 1, got {score}")
        points[a, b] += score
        points[b, a] += 1 - score
        games[a, b] += 1
        games[b, a] += 1
    return points, games


def fit_elo(
    n_players: int,
    results: Iterable[tuple[int, int, float]],
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    level: float = 0.95,
) -> EloFit:
    """Maximum-likelihood Elo of ``n_players`` from ``(player, opponent, score)`` triples."""
    points, games = result_matrices(n_players, results)
    return fit_elo_matrices(points, games, prior_draws, level)


def fit_elo_matrices(
    points: np.ndarray, games: np.ndarray, prior_draws: float = DEFAULT_PRIOR_DRAWS, level: float = 0.95
) -> EloFit:
    """Maximum-likelihood Elo from a points matrix and a games matrix (see :func:`result_matrices`)."""
    n = points.shape[0]
    if n < 2:
        raise RatingError("ratings need at least two players")
    if prior_draws < 0:
        raise RatingError(f"prior draws must be at least 0, got {prior_draws}")
    if prior_draws == 0 and not _finite_without_prior(points):
        raise RatingError(
            "maximum-likelihood ratings are infinite: some group of players won or lost every game "
            "against the rest; use prior_draws > 0"
        )
    basis = _zero_mean_basis(n)
    theta = np.zeros(n - 1)
    for _ in range(200):
        ratings = basis @ theta
        grad, hess = _gradient_hessian(ratings, points, games, prior_draws)
        step = np.linalg.solve(-(basis.T @ hess @ basis), basis.T @ grad)
        theta = _line_search(theta, step, basis, points, games, prior_draws)
        if np.max(np.abs(step)) < 1e-9:
            break
    else:
        raise RatingError("Elo fit did not converge")
    ratings = basis @ theta
    _, hess = _gradient_hessian(ratings, points, games, prior_draws)
    covariance = basis @ np.linalg.inv(-(basis.T @ hess @ basis)) @ basis.T
    return EloFit(ratings=ratings, covariance=covariance, prior_draws=prior_draws, level=level)


def log_likelihood(
    ratings: np.ndarray, points: np.ndarray, games: np.ndarray, prior_draws: float = DEFAULT_PRIOR_DRAWS
) -> float:
    """Log-likelihood of the ratings (prior included) that :func:`fit_elo_matrices` maximises."""
    diff = ELO_SCALE * (ratings[:, None] - ratings[None, :])
    value = float(np.sum(points * _log_sigmoid(diff)))
    own = ELO_SCALE * ratings
    return value + prior_draws * float(np.sum(0.5 * _log_sigmoid(own) + 0.5 * _log_sigmoid(-own)))


def pair_elo(
    wins: float, draws: float, losses: float, prior_draws: float = DEFAULT_PRIOR_DRAWS, level: float = 0.95
) -> tuple[float, float, float]:
    """Elo difference ``(diff, low, high)`` of a player with these results against one opponent."""
    total = wins + draws + losses
    if total <= 0:
        raise RatingError("an Elo difference needs at least one game")
    points = np.array([[0.0, wins + draws / 2], [losses + draws / 2, 0.0]])
    games = np.array([[0.0, total], [total, 0.0]])
    return fit_elo_matrices(points, games, prior_draws, level).difference(0, 1)


def _zero_mean_basis(n: int) -> np.ndarray:
    """Orthonormal columns spanning the rating changes that keep the mean at 0."""
    _, _, vt = np.linalg.svd(np.ones((1, n)))
    return vt[1:].T


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.exp(_log_sigmoid(x))


def _gradient_hessian(
    ratings: np.ndarray, points: np.ndarray, games: np.ndarray, prior_draws: float
) -> tuple[np.ndarray, np.ndarray]:
    expected = _sigmoid(ELO_SCALE * (ratings[:, None] - ratings[None, :]))
    grad = ELO_SCALE * np.sum(points - games * expected, axis=1)
    weights = ELO_SCALE**2 * games * expected * (1 - expected)
    hess = weights - np.diag(np.sum(weights, axis=1))
    own = _sigmoid(ELO_SCALE * ratings)
    grad += ELO_SCALE * prior_draws * (0.5 - own)
    hess -= np.diag(ELO_SCALE**2 * prior_draws * own * (1 - own))
    return grad, hess


def _line_search(
    theta: np.ndarray,
    step: np.ndarray,
    basis: np.ndarray,
    points: np.ndarray,
    games: np.ndarray,
    prior_draws: float,
) -> np.ndarray:
    """Newton step, halved until the log-likelihood does not fall (the function is concave)."""
    current = log_likelihood(basis @ theta, points, games, prior_draws)
    scale = 1.0
    for _ in range(60):
        candidate = theta + scale * step
        if log_likelihood(basis @ candidate, points, games, prior_draws) >= current - 1e-12:
            return candidate
        scale /= 2
    return theta


def _finite_without_prior(points: np.ndarray) -> bool:
    """True if every player can reach every other through 'scored something against' links."""
    scored = points > 0
    n = points.shape[0]
    return _reaches_all(scored, n) and _reaches_all(scored.T, n)


def _reaches_all(adjacent: np.ndarray, n: int) -> bool:
    seen, frontier = {0}, [0]
    while frontier:
        node = frontier.pop()
        for other in np.flatnonzero(adjacent[node]).tolist():
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    return len(seen) == n
