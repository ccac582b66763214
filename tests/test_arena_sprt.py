"""The SPRT of A/B matches: LLR against direct computations, bounds, Elo estimates."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.optimize import minimize

from boardlab.arena.play import GameRecord
from boardlab.arena.ratings import expected_score, pair_elo
from boardlab.arena.sprt import (
    CONTINUE,
    H0_ACCEPTED,
    H1_ACCEPTED,
    INCONCLUSIVE,
    PENTANOMIAL_SCORES,
    TRINOMIAL_SCORES,
    Sprt,
    SprtState,
    SprtTally,
    elo_estimate,
    game_counts,
    gsprt_llr,
    llr_bounds,
    mle_with_mean,
    normal_llr,
    pair_counts,
)
from boardlab.arena.store import Store
from boardlab.games import Outcome, Reason
from scripts import load_script


def _constrained_max_loglik(counts: list[float], scores: tuple[float, ...], mean: float) -> float:
    """max sum n_i log p_i over distributions with the given mean, by a general optimiser."""
    n = np.asarray(counts, dtype=float)
    x = np.asarray(scores)
    constraints = (
        {"type": "eq", "fun": lambda p: p.sum() - 1},
        {"type": "eq", "fun": lambda p: p @ x - mean},
    )
    result = minimize(
        lambda p: -(n * np.log(p)).sum(),
        np.full(len(x), 1 / len(x)),
        method="SLSQP",
        bounds=[(1e-12, 1)] * len(x),
        constraints=constraints,
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return float(-result.fun)


@pytest.mark.parametrize(
    ("counts", "scores"),
    [
        ([30, 50, 40], TRINOMIAL_SCORES),
        ([5, 40, 120, 50, 9], PENTANOMIAL_SCORES),
        ([12, 30, 10], TRINOMIAL_SCORES),
    ],
)
def test_gsprt_llr_is_the_difference_of_constrained_maximum_likelihoods(counts, scores):
    elo0, elo1 = 0.0, 20.0
    direct = _constrained_max_loglik(counts, scores, expected_score(elo1)) - _constrained_max_loglik(
        counts, scores, expected_score(elo0)
    )
    assert gsprt_llr(counts, scores, elo0, elo1) == pytest.approx(direct, abs=1e-4)


def test_constrained_distribution_has_the_mean_asked_for():
    frequencies = [0.1, 0.2, 0.3, 0.25, 0.15]
    p = mle_with_mean(frequencies, PENTANOMIAL_SCORES, 0.56)
    assert sum(p) == pytest.approx(1)
    assert sum(pi * x for pi, x in zip(p, PENTANOMIAL_SCORES, strict=True)) == pytest.approx(0.56)
    with pytest.raises(ValueError, match="strictly between"):
        mle_with_mean(frequencies, PENTANOMIAL_SCORES, 1.0)


def test_normal_approximation_is_the_textbook_formula_and_close_to_the_gsprt():
    counts = [20, 60, 200, 70, 25]
    scores = PENTANOMIAL_SCORES
    samples = np.repeat(scores, counts)
    s0, s1 = expected_score(0), expected_score(10)
    direct = len(samples) * (s1 - s0) * (2 * samples.mean() - s0 - s1) / (2 * samples.var())
    assert normal_llr(counts, scores, 0, 10) == pytest.approx(direct)
    assert gsprt_llr(counts, scores, 0, 10) == pytest.approx(direct, rel=0.02)


@pytest.mark.parametrize(("elo0", "elo1"), [(-10.0, 15.0), (5.0, 30.0)])
def test_gsprt_llr_with_a_nonzero_lower_hypothesis(elo0, elo1):
    counts = [30, 50, 40]
    direct = _constrained_max_loglik(
        counts, TRINOMIAL_SCORES, expected_score(elo1)
    ) - _constrained_max_loglik(counts, TRINOMIAL_SCORES, expected_score(elo0))
    assert gsprt_llr(counts, TRINOMIAL_SCORES, elo0, elo1) == pytest.approx(direct, abs=1e-4)


def test_an_empty_cell_counts_next_to_nothing():
    # the regularised LLR stays within a hair of the constrained likelihoods of the counts as given
    counts = [0, 10, 30]
    direct = _constrained_max_loglik(counts, TRINOMIAL_SCORES, expected_score(20)) - _constrained_max_loglik(
        counts, TRINOMIAL_SCORES, expected_score(0)
    )
    assert gsprt_llr(counts, TRINOMIAL_SCORES, 0, 20) == pytest.approx(direct, abs=0.01)


def test_a_decision_is_taken_on_reaching_a_bound():
    estimate = elo_estimate([1, 1, 1], TRINOMIAL_SCORES)
    assert SprtState(math.log(19), -math.log(19), math.log(19), estimate, 3).decision == H1_ACCEPTED
    assert SprtState(-math.log(19), -math.log(19), math.log(19), estimate, 3).decision == H0_ACCEPTED


def test_llr_sign_follows_the_score():
    assert gsprt_llr([10, 20, 40], TRINOMIAL_SCORES, 0, 20) > 0  # 62.5 %: nearer elo1
    assert gsprt_llr([40, 20, 10], TRINOMIAL_SCORES, 0, 20) < 0
    assert gsprt_llr([0, 0, 0], TRINOMIAL_SCORES, 0, 20) == 0
    # one kind of result only: the empty cells are regularised, the LLR stays finite
    assert math.isfinite(gsprt_llr([0, 0, 30], TRINOMIAL_SCORES, 0, 20))
    assert gsprt_llr([0, 0, 30], TRINOMIAL_SCORES, 0, 20) > 0


def test_wald_bounds():
    lower, upper = llr_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19))
    assert upper == pytest.approx(math.log(19))
    assert llr_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    for alpha, beta in ((0.0, 0.05), (0.05, 0.0), (0.5, 0.05), (0.05, 0.5)):
        with pytest.raises(ValueError, match="alpha and beta"):
            llr_bounds(alpha, beta)
    for elo0, elo1 in ((10, 0), (10, 10)):
        with pytest.raises(ValueError, match="elo0 must be below elo1"):
            Sprt(elo0, elo1)


def test_elo_estimates():
    assert elo_estimate([10, 20, 10], TRINOMIAL_SCORES).elo == pytest.approx(0)
    assert elo_estimate([0, 0, 0, 1, 0], PENTANOMIAL_SCORES).elo == pytest.approx(190.85, abs=0.01)
    estimate = elo_estimate([25, 50, 25], TRINOMIAL_SCORES)
    # score 0.5 with standard deviation 0.5 / sqrt(2) per game, 100 games
    half = 1.959963984540054 * 0.5 / math.sqrt(2) / 10
    assert estimate.high == pytest.approx(400 * math.log10((0.5 + half) / (0.5 - half)))
    assert estimate.error == pytest.approx(estimate.high)
    assert "± " in estimate.text()
    assert elo_estimate([0, 0, 3], TRINOMIAL_SCORES).text() == "+inf (score 100.0%)"


def test_histograms():
    assert pair_counts([0, 0.5, 1, 1, 1.5, 2, 2]) == [1, 1, 2, 1, 2]
    assert game_counts([0, 0.5, 1, 1]) == [1, 1, 2]
    with pytest.raises(ValueError, match="pair of games"):
        pair_counts([2.5])
    with pytest.raises(ValueError, match="a game scores"):
        game_counts([0.25])


def test_decisions():
    test = Sprt(0, 20)
    assert test.pentanomial([2.0] * 80).decision == H1_ACCEPTED
    assert test.pentanomial([0.0] * 80).decision == H0_ACCEPTED
    assert test.pentanomial([1.0, 1.5, 0.5]).decision == CONTINUE
    state = test.trinomial([1, 0.5, 0, 1, 1])
    assert state.observations == 5
    assert test.pentanomial([1.0, 2.0]).observations == 2
    assert (state.lower, state.upper) == pytest.approx(test.bounds)


def _ab_sprt_script() -> Any:
    return load_script("benchmarks/ab_sprt.py")


def _game(index: int, new_wins: bool) -> GameRecord:
    new_first = index % 2 == 0
    winner = (0 if new_first else 1) if new_wins else (1 if new_first else 0)
    return GameRecord(
        tournament_id="ab",
        index=index,
        game="tictactoe",
        first_player=0 if new_first else 1,
        second_player=1 if new_first else 0,
        first_spec="new" if new_first else "old",
        second_spec="old" if new_first else "new",
        first_seed=1,
        second_seed=2,
        opening_index=index // 2,
        opening=(),
        moves=("b2",),
        outcome=Outcome(winner, Reason.RULE, "a line"),
        plies=1,
        move_times=(0.0,),
        started="2026-01-01T00:00:00+00:00",
        finished="2026-01-01T00:00:01+00:00",
    )


def test_a_tally_counts_a_pair_whichever_of_its_games_ends_last() -> None:
    # with several workers, game 2m + 1 may end before game 2m: the pair is complete all the same
    test = SprtTally(Sprt(0, 100))
    completed = []
    for index in (1, 0, 2, 3, 5, 4):
        record = _game(index, new_wins=True)
        test.add(record)
        completed.append(test.completes(record))
    assert completed == [False, True, False, True, False, True]
    assert test.pair_scores() == [2.0, 2.0, 2.0]


def test_the_ab_script_refuses_a_store_it_cannot_use_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_text("not a database")
    script = _ab_sprt_script()
    for db, message in ((tmp_path, "is a directory"), (garbage, "not a usable SQLite database")):
        argv = ["random", "greedy", "--game", "tictactoe", "--max-games", "4", "--db", str(db)]
        assert script.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("Error: store ") and message in err and len(err.strip().splitlines()) == 1
    assert garbage.read_text() == "not a database"


def test_the_ab_script_refuses_a_bad_agent_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "sub" / "ab.sqlite"
    argv = ["random", "nosuch", "--game", "tictactoe", "--max-games", "4", "--db", str(db)]
    assert _ab_sprt_script().main(argv) == 2
    captured = capsys.readouterr()
    assert (
        captured.err.startswith("Error: unknown agent 'nosuch'")
        and len(captured.err.strip().splitlines()) == 1
    )
    assert not captured.out and not db.parent.exists()


def test_the_ab_script_plays_a_suite_of_openings_and_refuses_a_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite, db = tmp_path / "suite.txt", tmp_path / "ab.sqlite"
    suite.write_text("b2\na1 b2\n")
    argv = ["greedy", "random", "--game", "tictactoe", "--max-games", "4", "--workers", "0", "--db", str(db)]
    assert _ab_sprt_script().main([*argv, "--openings", str(suite)]) == 0
    assert f"openings: 2 from {suite} in turn" in capsys.readouterr().out
    with Store(db) as store:
        [tournament] = store.tournaments()
        openings = [record.opening for record in store.games(tournament["id"])]
    assert openings == [("b2",), ("b2",), ("a1", "b2"), ("a1", "b2")]
    suite.write_text("b2 b2\n")
    assert _ab_sprt_script().main([*argv, "--openings", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"Error: {suite} line 1: move 2 (b2)") and len(err.strip().splitlines()) == 1
    # random plies and a suite together: one of them would be ignored, so neither is played
    assert _ab_sprt_script().main([*argv, "--openings", str(suite), "--opening-plies", "2"]) == 2
    assert capsys.readouterr().err == "Error: give either --openings or --opening-plies\n"


def test_the_ab_script_plays_on_a_game_clock_and_refuses_a_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "ab.sqlite"
    argv = ["greedy", "random", "--game", "tictactoe", "--max-games", "2", "--workers", "0", "--db", str(db)]
    assert _ab_sprt_script().main([*argv, "--tc", "5+0.05"]) == 0
    assert "on tictactoe, clock 5+0.05" in capsys.readouterr().out
    with Store(db) as store:
        assert [t["time_control"] for t in store.tournaments()] == ["5+0.05"]
    assert _ab_sprt_script().main([*argv, "--tc", "5+"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("Error: a time control is BASE, BASE+INCREMENT or MOVES/BASE")
        and len(err.splitlines()) == 1
    )


def test_a_tally_gives_a_sweep_a_finite_elo_with_the_ratings_prior() -> None:
    test = SprtTally(Sprt(0, 100))
    for index in range(4):
        test.add(_game(index, new_wins=True))
    diff, low, high = pair_elo(4, 0, 0)
    assert "inf" not in test.line()
    assert test.elo_text() == f"{diff:+.0f} [{low:+.0f}, {high:+.0f}] (score 100.0%; with the ratings' prior)"
    test.add(_game(4, new_wins=False))
    test.add(_game(5, new_wins=True))
    assert test.elo_text() == test.state().estimate.text()  # no sweep: the test's own estimate


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("trinomial", "played"), [(False, 4), (True, 3)])
def test_the_ab_script_plays_at_most_max_games_in_whole_pairs_unless_trinomial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], trinomial: bool, played: int
) -> None:
    db = tmp_path / "ab.sqlite"
    argv = ["greedy", "random", "--game", "tictactoe", "--max-games", "3", "--workers", "0", "--db", str(db)]
    assert _ab_sprt_script().main(argv + ["--trinomial"] * trinomial) == 0
    assert f"at most {played} games" in capsys.readouterr().out
    with Store(db) as store:
        [tournament] = store.tournaments()
        assert len(store.games(tournament["id"])) == played
    with pytest.raises(SystemExit):
        _ab_sprt_script().main(["--help"])
    assert "rounded up to whole game pairs unless --trinomial" in " ".join(capsys.readouterr().out.split())


def test_the_ab_script_tallies_as_the_arena_does_and_times_each_side() -> None:
    test, tally = _ab_sprt_script().AbTest(Sprt(0, 100), trinomial=False), SprtTally(Sprt(0, 100))
    for index in range(6):
        test.add(_game(index, new_wins=index != 3))
        tally.add(_game(index, new_wins=index != 3))
    assert test.line() == tally.line() and test.state() == tally.state()
    assert (len(test.seconds[0]), len(test.seconds[1]), test.plies) == (3, 3, [1] * 6)


def test_a_tally_decides_from_its_set_of_games_and_reports_the_test() -> None:
    games = [_game(index, new_wins=index not in (1, 6)) for index in range(16)]
    forward, backward = SprtTally(Sprt(0, 200)), SprtTally(Sprt(0, 200))
    forward.extend(games)
    backward.extend(reversed(games))
    assert forward.state() == backward.state()  # a resumed test stands where it stood
    backward.extend(games[:3])  # a game counted again is counted once
    assert backward.state() == forward.state() and backward.wdl() == forward.wdl() == (14, 0, 2)
    assert forward.pentanomial() == [0, 0, 2, 0, 6]
    assert forward.state() == Sprt(0, 200).pentanomial([1, 2, 2, 1, 2, 2, 2, 2])
    assert forward.decided and forward.decision(16) == H1_ACCEPTED
    result = forward.result(100)
    assert result["decision"] == H1_ACCEPTED and result["pentanomial"] == [0, 0, 2, 0, 6]
    assert (result["games"], result["max_games"], result["observations"]) == (16, 100, 8)
    assert (result["wins"], result["draws"], result["losses"]) == (14, 0, 2)
    assert result["llr"] == pytest.approx(forward.state().llr) and result["upper"] == pytest.approx(
        math.log(19)
    )
    assert result["elo"] == pytest.approx(forward.state().estimate.elo)
    lines = forward.report_lines(100)
    assert lines[0] == ("SPRT (pentanomial; H0 Elo <= 0, H1 Elo >= 200, alpha 0.05, beta 0.05): H1 accepted")
    assert "after 16 games, 8 complete pairs (at most 100)" in lines[1]
    assert lines[2].endswith("points: 0, 0, 2, 0, 6") and "W-D-L 14-0-2 for A;" in lines[2]
    assert forward.report_lines(100, ("new", "old"))[3].startswith("  Elo of new over old: +338")


@pytest.mark.parametrize("trinomial", [False, True])
def test_the_llr_path_follows_the_schedule_and_ends_at_the_tests_llr(trinomial: bool) -> None:
    games = [_game(index, new_wins=index % 5 != 1) for index in range(41)]  # a lone last game
    tally = SprtTally(Sprt(0, 100), trinomial)
    tally.extend(reversed(games))  # ended in any order: drawn over the schedule
    path = tally.llr_path()
    per = 1 if trinomial else 2
    last = 41 if trinomial else 40  # every game counts, or the 20 complete pairs
    assert [games_in for games_in, _ in path] == list(range(per, last + 1, per))
    assert path[-1][1] == pytest.approx(tally.state().llr)
    prefix = SprtTally(Sprt(0, 100), trinomial)
    prefix.extend(games[:10])
    assert dict(path)[10] == pytest.approx(prefix.state().llr)
    thinned = tally.llr_path(most=7)
    assert len(thinned) == 7 and thinned[-1] == path[-1] and set(thinned) <= set(path)


def test_an_sprt_plot_is_a_png_of_the_test(tmp_path: Path) -> None:
    from boardlab.arena.plots import plot_sprt, sprt_figure

    tally = SprtTally(Sprt(0, 200))
    tally.extend(_game(index, new_wins=index not in (1, 6)) for index in range(16))
    line = sprt_figure(tally, 100, ("new", "old")).axes[0].lines[0]
    assert list(line.get_xdata()) == [0, *range(2, 17, 2)]
    assert line.get_ydata()[-1] == pytest.approx(tally.state().llr)
    path = plot_sprt(tally, 100, ("new", "old"), tmp_path / "sprt.png")
    assert path.read_bytes().startswith(b"\x89PNG")


def test_a_tally_is_inconclusive_only_once_its_games_are_in() -> None:
    tally = SprtTally(Sprt(-200, 200), trinomial=True)
    tally.extend(_game(index, new_wins=index % 2 == 0) for index in range(4))  # 2 wins, 2 losses
    assert tally.state().decision == CONTINUE and not tally.decided
    assert tally.decision(5) == CONTINUE and tally.decision(4) == INCONCLUSIVE
    assert tally.result(4)["elo"] is not None and tally.sampling == "trinomial"
    sweep = SprtTally(Sprt(0, 200))
    sweep.extend(_game(index, new_wins=True) for index in range(2))
    assert sweep.result(2)["elo"] is None  # an infinite estimate is not written as a number


@pytest.mark.parametrize(("elo0", "elo1"), [(0, 10), (0, 200), (-5, 5), (-2000, 2000)])
@pytest.mark.parametrize("scores", [PENTANOMIAL_SCORES, TRINOMIAL_SCORES])
def test_the_fewest_observations_to_decide_are_those_of_a_sweep(
    elo0: float, elo1: float, scores: tuple[float, ...]
) -> None:
    test = Sprt(elo0, elo1)
    h1, h0 = test.fewest_to_decide(scores)

    def sweep(n: int, cell: int) -> str:
        counts = [0] * len(scores)
        counts[cell] = n
        return test.state(counts, scores).decision

    assert sweep(h1, -1) == H1_ACCEPTED and sweep(h1 - 1, -1) == CONTINUE
    assert sweep(h0, 0) == H0_ACCEPTED and sweep(h0 - 1, 0) == CONTINUE


@pytest.mark.parametrize(("elo0", "elo1"), [(0, 2001), (-3000, 0), (0, math.inf), (math.nan, 10)])
def test_a_test_of_an_elo_too_far_to_score_is_refused(elo0: float, elo1: float) -> None:
    with pytest.raises(ValueError, match="within ±2000"):
        Sprt(elo0, elo1)
