"""Elo by maximum likelihood, checked against closed forms and a generic optimiser."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from boardlab.arena.ratings import (
    ELO_SCALE,
    RatingError,
    elo_from_score,
    expected_score,
    fit_elo,
    fit_elo_matrices,
    log_likelihood,
    pair_elo,
    result_matrices,
)


@pytest.mark.parametrize(("wins", "draws", "losses"), [(70, 0, 30), (55, 20, 25), (3, 1, 8), (50, 0, 50)])
def test_two_players_match_the_closed_form(wins: int, draws: int, losses: int) -> None:
    n = wins + draws + losses
    score = (wins + draws / 2) / n
    diff, low, high = pair_elo(wins, draws, losses, prior_draws=0)
    assert diff == pytest.approx(400 * math.log10(score / (1 - score)), abs=1e-6)
    assert diff == pytest.approx(elo_from_score(score), abs=1e-6)
    # observed information of the difference: n c^2 s (1 - s)
    half = 1.959963984540054 / (ELO_SCALE * math.sqrt(n * score * (1 - score)))
    assert high - diff == pytest.approx(half, rel=1e-6)
    assert diff - low == pytest.approx(half, rel=1e-6)


def _random_results(n_players: int, games: int, seed: int) -> list[tuple[int, int, float]]:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 200, n_players)
    results = []
    for _ in range(games):
        a, b = rng.choice(n_players, size=2, replace=False)
        p = expected_score(strength[a] - strength[b])
        u = rng.random()
        score = 1.0 if u < p * 0.85 else 0.5 if u < p * 0.85 + 0.15 else 0.0
        results.append((int(a), int(b), score))
    return results


def _reference_fit(points: np.ndarray, games: np.ndarray, prior: float) -> np.ndarray:
    """scipy.optimize on the log-likelihood written out game by game, last rating = -sum(others)."""
    n = points.shape[0]

    def negative(theta: np.ndarray) -> float:
        ratings = np.append(theta, -theta.sum())
        total = 0.0
        for i in range(n):
            for j in range(n):
                if i != j and points[i, j]:
                    total += points[i, j] * math.log(expected_score(ratings[i] - ratings[j]))
            total += (
                prior * 0.5 * (math.log(expected_score(ratings[i])) + math.log(expected_score(-ratings[i])))
            )
        return -total

    found = minimize(negative, np.zeros(n - 1), method="BFGS", options={"gtol": 1e-9})
    return np.append(found.x, -found.x.sum())


@pytest.mark.parametrize("prior", [0.0, 1.0, 4.0])
def test_many_players_match_a_generic_optimiser(prior: float) -> None:
    results = _random_results(5, 400, seed=1)
    points, games = result_matrices(5, results)
    fit = fit_elo(5, results, prior_draws=prior)
    reference = _reference_fit(points, games, prior)
    assert fit.ratings.sum() == pytest.approx(0, abs=1e-6)
    np.testing.assert_allclose(fit.ratings, reference, atol=0.05)
    assert log_likelihood(fit.ratings, points, games, prior) >= log_likelihood(
        reference, points, games, prior
    )


def test_covariance_matches_a_numerical_hessian() -> None:
    results = _random_results(4, 300, seed=2)
    points, games = result_matrices(4, results)
    fit = fit_elo(4, results, prior_draws=1.0)
    # reduced coordinates: theta = first three ratings, last = -sum(theta)
    jac = np.vstack([np.eye(3), -np.ones((1, 3))])

    def f(theta: np.ndarray) -> float:
        return log_likelihood(jac @ theta, points, games, 1.0)

    theta, h = fit.ratings[:3], 1.0
    hess = np.zeros((3, 3))
    for a in range(3):
        for b in range(3):
            ea, eb = np.eye(3)[a] * h, np.eye(3)[b] * h
            hess[a, b] = (
                f(theta + ea + eb) - f(theta + ea - eb) - f(theta - ea + eb) + f(theta - ea - eb)
            ) / (4 * h * h)
    reference = jac @ np.linalg.inv(-hess) @ jac.T
    np.testing.assert_allclose(fit.covariance, reference, rtol=1e-3)


def test_perfect_score_needs_the_prior_and_stays_finite_with_it() -> None:
    with pytest.raises(RatingError, match="infinite"):
        pair_elo(20, 0, 0, prior_draws=0)
    small = pair_elo(10, 0, 0)
    large = pair_elo(100, 0, 0)
    for diff, low, high in (small, large):
        assert all(math.isfinite(v) for v in (diff, low, high))
        assert low < diff < high and diff > 0
    assert large[0] > small[0]
    assert large[1] > small[1]


def test_prior_pulls_towards_the_mean() -> None:
    plain = pair_elo(8, 0, 2, prior_draws=0)[0]
    assert 0 < pair_elo(8, 0, 2, prior_draws=1)[0] < plain
    assert pair_elo(8, 0, 2, prior_draws=5)[0] < pair_elo(8, 0, 2, prior_draws=1)[0]


def test_a_disconnected_player_has_no_maximum_likelihood_rating() -> None:
    results = [(0, 1, 1.0), (1, 0, 1.0), (2, 0, 1.0), (2, 1, 1.0)]
    with pytest.raises(RatingError):
        fit_elo(3, results, prior_draws=0)
    fit = fit_elo(3, results, prior_draws=1)
    assert fit.ratings[2] == max(fit.ratings)


def test_bad_scores_are_rejected() -> None:
    with pytest.raises(RatingError):
        fit_elo(2, [(0, 1, 0.3)])
    with pytest.raises(RatingError):
        fit_elo(2, [(1, 1, 1.0)])
    with pytest.raises(RatingError):
        fit_elo_matrices(np.zeros((1, 1)), np.zeros((1, 1)))


def test_known_elo_values_and_the_score_bounds() -> None:
    # 75 % is +190.85 Elo, 10/11 is +400: 400 * log10(3) and 400 * log10(10)
    assert elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-190.848) == pytest.approx(0.25, abs=1e-6)
    for score in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(RatingError, match="strictly between 0 and 1"):
            elo_from_score(score)


def test_bad_game_scores_and_priors_are_rejected() -> None:
    for score in (2, -1, 0.25):
        with pytest.raises(RatingError, match="a game score"):
            result_matrices(2, [(0, 1, score)])
    with pytest.raises(RatingError, match="prior draws"):
        pair_elo(5, 0, 5, prior_draws=-0.5)
