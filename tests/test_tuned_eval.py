"""Quixo's fitted ``tuned`` evaluation, the fit behind it, and the search's look for wins at the leaves.

The compiled evaluation is checked against the fit's own numpy features and shipped weights,
the fit against data drawn from a known logistic model, and the leaf probe against a naive
negamax that looks for the same wins.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_agents import naive_negamax, random_position

from boardlab.agents import make_agent
from boardlab.agents.base import AgentSpecError
from boardlab.core.inputs import InputFileError
from boardlab.games import parse_game
from boardlab.games.base import ONGOING
from boardlab.games.quixo import State
from boardlab.games.quixo.kernel import TUNED_SCALARS, TUNED_SCALE, kernel, may_win_now, tuned_weights
from boardlab.search.alphabeta import WIN, SearchRunner
from boardlab.train import eval_fit
from boardlab.train.eval_fit import (
    Positions,
    _hand_picked,
    feature_names,
    features,
    fit,
    log_loss,
    logistic_fit,
    self_play,
    shipped_tuned,
)
from scripts import load_script

SIZES = (3, 4, 5)


def random_masks(rng: random.Random, size: int) -> tuple[int, int]:
    me = opp = 0
    for cell in range(size * size):
        roll = rng.random()
        if roll < 0.35:
            me |= 1 << cell
        elif roll < 0.7:
            opp |= 1 << cell
    return me, opp


def compiled_and_model(
    size: int, eval_name: str, features_of: Callable[..., Any], weights: np.ndarray, intercept: float
) -> tuple[list[float], np.ndarray]:
    """The compiled evaluation ``eval_name`` and the fitted model it should equal (features
    times weights plus the intercept, scaled) on 300 random boards."""
    k = kernel(size)
    eval_id = k.evaluations.index(eval_name)
    rng = random.Random(size)
    boards = [random_masks(rng, size) for _ in range(300)]
    me = np.array([b[0] for b in boards], dtype=np.int64)
    opp = np.array([b[1] for b in boards], dtype=np.int64)
    expected = (features_of(size, me, opp) @ weights + intercept) * TUNED_SCALE
    got = [k.evaluate(k.ctx, np.int64(a), np.int64(b), eval_id) for a, b in boards]
    return got, expected


@pytest.mark.parametrize("size", SIZES)
def test_compiled_tuned_evaluation_is_the_fitted_linear_model(size):
    shipped = shipped_tuned(size)
    got, expected = compiled_and_model(size, "tuned", features, shipped[:-1], shipped[-1])
    # weights are held in thousandths of a logit
    assert got == pytest.approx(expected, abs=TUNED_SCALE * 0.0005 * 40)
    assert any(abs(v) > 10 for v in got)


@pytest.mark.parametrize("size", SIZES)
def test_tuned_evaluation_is_antisymmetric_but_for_the_move_and_prefers_more_cubes_in_lines(size):
    k = kernel(size)
    eval_id = k.evaluations.index("tuned")
    tempo = k.evaluate(k.ctx, np.int64(0), np.int64(0), eval_id)  # the empty board: the move only
    assert tempo == pytest.approx(tuned_weights(size)["fit"]["intercept"] * TUNED_SCALE, abs=0.1)
    rng = random.Random(7 + size)
    for _ in range(100):
        me, opp = random_masks(rng, size)
        value = k.evaluate(k.ctx, np.int64(me), np.int64(opp), eval_id)
        assert value + k.evaluate(k.ctx, np.int64(opp), np.int64(me), eval_id) == pytest.approx(2 * tempo)
    row = sum(1 << x for x in range(size - 1))  # a row one cube short, nothing else
    assert k.evaluate(k.ctx, np.int64(row), np.int64(0), eval_id) > tempo


def test_shipped_weights_have_every_feature_and_record_their_fit():
    for size in SIZES:
        weights = tuned_weights(size)
        assert set(weights["lines"]) == {
            n.split(" ")[1] for n in feature_names(size) if n.startswith("lines ")
        }
        assert all(name in weights for name in TUNED_SCALARS)
        fitted = weights["fit"]
        assert fitted["positions"] > 1000
        # the fitted features predict results better than either hand-picked evaluation
        assert fitted["held_out_log_loss"] < min(fitted["baseline_log_loss"].values())


def test_logistic_fit_recovers_the_weights_of_known_data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(20000, 3))
    truth = np.array([1.5, -0.7, 0.0, 0.3])  # intercept last
    p = 1 / (1 + np.exp(-(x @ truth[:-1] + truth[-1])))
    y = (rng.random(len(p)) < p).astype(float)
    w = logistic_fit(x, y, l2=0.0)
    assert w == pytest.approx(truth, abs=0.08)


def test_fit_on_self_play_reports_each_feature_and_beats_nothing_known():
    positions = self_play(4, 30, seed=5, players=("alphabeta:depth=2,eval=lines2", "alphabeta:depth=1"))
    assert len(positions) > 100
    assert set(np.unique(positions.result)) <= {0.0, 0.5, 1.0}
    fitted = fit(4, positions)
    assert list(fitted.weights) == feature_names(4)
    assert fitted.positions == len(positions)
    assert 0 < fitted.log_loss < 1.0
    assert set(fitted.to_json()) == {"lines", *TUNED_SCALARS, "fit"}
    assert set(fitted.baselines) == {"lines2", "lines3", "shipped"}


def test_log_loss_is_the_mean_cross_entropy_and_the_penalty_spares_the_intercept():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4000, 2))
    y = rng.choice([0.0, 0.5, 1.0], size=4000, p=[0.15, 0.1, 0.75])
    w = np.array([0.4, -1.1, 0.3])
    p = 1 / (1 + np.exp(-(x @ w[:-1] + w[-1])))
    assert log_loss(x, y, w) == pytest.approx(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    # the results do not depend on x: a heavy penalty takes the weights to 0, while the
    # intercept (the value of having the move) stays the log-odds of the mean result
    fitted = logistic_fit(x, y, l2=10.0)
    assert np.abs(fitted[:-1]).max() < 0.01
    assert fitted[-1] == pytest.approx(np.log(y.mean() / (1 - y.mean())), abs=0.01)


@pytest.mark.parametrize("size", SIZES)
def test_the_hand_picked_baselines_are_the_kernels_lines_evaluations(size):
    k = kernel(size)
    rng = random.Random(size)
    boards = [random_masks(rng, size) for _ in range(100)]
    me = np.array([b[0] for b in boards], dtype=np.int64)
    opp = np.array([b[1] for b in boards], dtype=np.int64)
    for name, base in (("lines2", 2.0), ("lines3", 3.0)):
        eval_id = k.evaluations.index(name)
        compiled = np.array([k.evaluate(k.ctx, np.int64(a), np.int64(b), eval_id) for a, b in boards])
        mine = _hand_picked(size, me, opp, base)[:, 0]
        # the fit rescales the evaluation: the two agree up to a positive factor
        scale = np.dot(compiled, mine) / np.dot(mine, mine)
        assert scale > 0
        np.testing.assert_allclose(compiled, scale * mine, atol=1e-6 * np.abs(compiled).max())


def test_a_game_cut_at_the_ply_cap_is_drawn_for_both_sides(monkeypatch):
    monkeypatch.setattr(eval_fit, "GAME_PLIES", 12)  # most random openings end near the cap
    positions = self_play(4, 12, seed=3, players=("alphabeta:depth=1", "greedy"))
    outcomes = set()
    for number in np.unique(positions.game):
        results = positions.result[positions.game == number]
        # the sides move in turn: a won game alternates 1 and 0, a drawn one is 0.5 throughout
        assert np.all(results[1:] + results[:-1] == 1.0), results
        outcomes.add(float(results[0]) == 0.5)
    assert outcomes == {True, False}


def test_the_reported_weights_and_intercept_are_the_model_judged():
    """Games that all repeat the same positions: whichever are held out, the reported
    held-out log-loss is that of the weights and intercept as reported (to their rounding)."""
    rng = random.Random(1)
    boards = [random_masks(rng, 4) for _ in range(50)]
    me = np.array([b[0] for b in boards], dtype=np.int64)
    opp = np.array([b[1] for b in boards], dtype=np.int64)
    x = features(4, me, opp)
    won = np.array([rng.random() for _ in boards]) < 1 / (1 + np.exp(-0.3 * x[:, -1] - 0.2))
    result = won.astype(float)
    games = 5
    repeated = (np.tile(array, games) for array in (me, opp, result))
    positions = Positions(*repeated, np.repeat(np.arange(games), len(boards)))
    fitted = fit(4, positions)
    reported = np.array([*fitted.weights.values(), fitted.intercept])
    assert log_loss(x, result, reported) == pytest.approx(fitted.log_loss, abs=1e-5)
    assert fitted.to_json()["fit"]["intercept"] == pytest.approx(fitted.intercept, abs=1e-4)
    # the baselines are judged on the same positions: the shipped weights as they stand, and
    # beside the patterns, this very fit of the tuned features
    assert fitted.baselines["shipped"] == pytest.approx(log_loss(x, result, shipped_tuned(4)))
    patterns = fit(4, positions, model="patterns")
    assert patterns.baselines["tuned"] == pytest.approx(fitted.log_loss)
    assert patterns.baselines["shipped"] == pytest.approx(fitted.baselines["shipped"])
    # written as a weights file, they are the tuned evaluation the search plays with
    k = kernel(4)
    document = json.loads(json.dumps({"sizes": {"4": fitted.to_json()}}))
    ctx = k.reweigh("tuned", document)
    eval_id = k.evaluations.index("tuned")
    got = [k.evaluate(ctx, np.int64(a), np.int64(b), eval_id) for a, b in boards]
    expected = (x @ reported[:-1] + reported[-1]) * TUNED_SCALE
    assert got == pytest.approx(expected, abs=TUNED_SCALE * 0.0005 * 40)  # thousandths of a logit


def test_the_held_out_games_are_not_fitted():
    """Results that are coin flips: a fit that saw the held-out games would predict them (the
    patterns model has more weights than there are positions); one that did not cannot."""
    rng = random.Random(2)
    boards = [random_masks(rng, 5) for _ in range(150)]
    me = np.array([b[0] for b in boards], dtype=np.int64)
    opp = np.array([b[1] for b in boards], dtype=np.int64)
    result = np.array([float(rng.random() < 0.5) for _ in boards])
    fitted = fit(5, Positions(me, opp, result, np.arange(len(boards))), model="patterns")
    assert fitted.log_loss > 0.6  # no better than a coin (log 2 = 0.69)


def test_fit_refuses_too_few_games_to_hold_one_out():
    rng = np.random.default_rng(0)
    me, opp = rng.integers(0, 1 << 9, 40), rng.integers(0, 1 << 9, 40)
    positions = Positions(me & ~opp, opp, rng.integers(0, 2, 40) / 1.0, np.arange(40) % 4)  # 4 games
    with pytest.raises(ValueError, match="at least 5 games"):
        fit(3, positions)


def test_positions_survive_saving_and_joined_files_keep_their_games_apart(tmp_path):
    players = ("alphabeta:depth=1", "alphabeta:depth=2,eval=lines3")
    first = self_play(3, 4, seed=1, players=players)
    second = self_play(3, 3, seed=2, players=players[::-1])
    first.save(tmp_path / "a.npz")
    second.save(tmp_path / "b.npz")
    again = Positions.load(tmp_path / "a.npz")
    for name in ("me", "opp", "result", "game"):
        assert np.array_equal(getattr(again, name), getattr(first, name))
    assert again.players == players
    both = Positions.load(tmp_path / "a.npz", tmp_path / "b.npz")
    assert len(both) == len(first) + len(second)
    assert len(np.unique(both.game)) == 7  # no game of the second file merges with one of the first
    assert np.array_equal(both.result[len(first) :], second.result)
    assert set(both.players) == set(players)


def test_a_file_that_holds_no_positions_is_a_clear_error(tmp_path):
    (tmp_path / "junk.npz").write_bytes(b"not a numpy file")
    np.savez(tmp_path / "other.npz", weights=np.zeros(3))
    np.savez(
        tmp_path / "nan.npz",
        me=np.zeros(2, np.int64),
        opp=np.zeros(2, np.int64),
        result=np.array([np.nan, 1.0]),
        game=np.zeros(2, np.int64),
    )
    good = {"me": np.array([1, 2]), "opp": np.array([6, 1]), "result": np.ones(2), "game": np.zeros(2, int)}
    np.savez(tmp_path / "overlap.npz", **{**good, "opp": np.array([3, 1])})  # a cell of both sides
    np.savez(tmp_path / "result.npz", **{**good, "result": np.array([2.0, 1.0])})
    np.savez(tmp_path / "game.npz", **{**good, "game": np.array([0, -1])})
    np.savez(tmp_path / "good.npz", **good)
    assert len(Positions.load(tmp_path / "good.npz")) == 2
    for name in ("junk.npz", "other.npz", "missing.npz", "nan.npz", "overlap.npz", "result.npz", "game.npz"):
        with pytest.raises(InputFileError, match=name):
            Positions.load(tmp_path / name)


def test_joined_files_name_the_players_of_each(tmp_path):
    masks = np.array([1, 2]), np.array([2, 4])
    for name, players in (("a", ("greedy", "random")), ("b", ("random", "alphabeta:depth=1"))):
        Positions(*masks, np.ones(2), np.zeros(2, np.int64), players).save(tmp_path / f"{name}.npz")
    joined = Positions.load(tmp_path / "a.npz", tmp_path / "b.npz")
    assert joined.players == ("greedy", "random", "alphabeta:depth=1")
    assert joined.game.tolist() == [0, 0, 1, 1]


def test_self_play_results_belong_to_the_side_to_move():
    positions = self_play(3, 20, seed=1, players=("alphabeta:depth=2", "alphabeta:depth=2,eval=lines3"))
    k = kernel(3)
    winning_now = 0
    for me, opp, result in zip(positions.me, positions.opp, positions.result, strict=True):
        state = State.from_masks(int(me), int(opp), 0, 0, 3)
        if any(state.play_index(m).winner == 0 for m in state.legal_indices()):
            # alpha-beta always takes a win at once, so the side to move there won the game
            assert result == 1.0
            winning_now += 1
        assert k.status(k.ctx, me, opp) == ONGOING
    assert winning_now > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(SIZES))
def test_may_win_now_is_false_only_when_no_move_wins(seed, size):
    state = random_position(seed, random.Random(seed).randrange(0, 30), size)
    if state.is_over:
        return
    me, opp = state.words
    k = state.kernel
    wins = any(state.play_index(m).winner == state.to_move for m in state.legal_indices())
    if not may_win_now(k.ctx, np.int64(me), np.int64(opp)):
        assert not wins


@pytest.mark.parametrize(("size", "positions"), [(4, 40), (5, 12)])  # 5x5: the reference is slow
def test_leaf_probe_scores_wins_one_ply_past_the_depth_exactly(size, positions):
    k = kernel(size)
    eval_id = k.evaluations.index("tuned")
    jitter = np.zeros(k.num_actions)
    found = 0
    for seed in range(positions):
        state = random_position(300 + seed, 8 + seed % 12, size)
        if state.is_over:
            continue
        runner = SearchRunner(k, "tuned", tt_log2=12, contempt=0.0, win_probe=True)
        _, score, _, aborted = runner.search(*state.words, 2, jitter)
        assert not aborted
        assert score == pytest.approx(naive_negamax(state, 2, eval_id, (), probe=True)), state.to_text()
        found += abs(score) > WIN / 2
    assert found > 0  # some positions had a win or loss within reach of the probe


def test_leaf_probe_defaults_and_is_inert_where_a_game_has_no_may_win_test():
    # on: it won its A/B tests in alpha-beta, and in hybrid it was level on 5x5 and kept more
    # 4x4 values (BENCHMARKS.md)
    assert make_agent("alphabeta").settings.probe and make_agent("hybrid").searcher.settings.probe
    game = parse_game("connect4")
    state = game.initial()
    for move in (3, 3, 2, 4, 2):
        state = state.play_index(move)
    jitter = np.zeros(game.kernel.num_actions)
    plain = SearchRunner(game.kernel, "", tt_log2=12).search(*state.words, 4, jitter)
    probed = SearchRunner(game.kernel, "", tt_log2=12, win_probe=True).search(*state.words, 4, jitter)
    assert probed == plain


def _weights_file(path, scale: float) -> str:
    document = json.loads(json.dumps({"sizes": {"5": tuned_weights(5)}}))
    weights = document["sizes"]["5"]
    weights["lines"] = {key: value * scale for key, value in weights["lines"].items()}
    for name in TUNED_SCALARS:
        weights[name] *= scale
    weights["fit"]["intercept"] *= scale
    path.write_text(json.dumps(document))
    return str(path)


def test_weights_from_a_file_replace_the_shipped_ones_in_the_search(tmp_path):
    game = parse_game("quixo")
    same = _weights_file(tmp_path / "same.json", 1.0)
    double = _weights_file(tmp_path / "double.json", 2.0)
    found = 0
    for seed in range(6):
        state = random_position(40 + seed, 10 + 3 * seed, 5)
        if state.is_over:
            continue
        results = [
            make_agent(f"alphabeta:depth=3{weights}", seed=1, game=game).analyse(state)
            for weights in ("", f",weights={same}", f",weights={double}")
        ]
        shipped, again, doubled = ((r.move, r.score) for r in results)
        assert again == shipped
        if abs(shipped[1]) < WIN / 2:  # an evaluated line, not a win or a loss
            assert doubled[1] == pytest.approx(2 * shipped[1], abs=1.0)
            found += 1
    assert found > 0


@pytest.mark.parametrize(
    ("text", "spec", "message"),
    [
        (None, "alphabeta:weights={}", "does not exist"),
        ("not json", "alphabeta:weights={}", "cannot be used"),
        ('{"sizes": {"4": {}}}', "hybrid:search=(alphabeta:weights={})", "no tuned weights for a 5x5 board"),
        ('{"sizes": {"5": {"lines": "x"}}}', "alphabeta:weights={}", "no tuned weights"),
        ("{}", "alphabeta:eval=lines2,weights={}", "only the tuned evaluation"),
    ],
)
def test_a_weights_file_that_does_not_fit_is_refused_when_the_agent_is_built(tmp_path, text, spec, message):
    path = tmp_path / "weights.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec.format(path), game=parse_game("quixo"))


def test_weights_need_a_game_with_fitted_weights(tmp_path):
    path = _weights_file(tmp_path / "w.json", 1.0)
    with pytest.raises(AgentSpecError, match="has none"):
        make_agent(f"alphabeta:weights={path}", game=parse_game("connect4"))


def _fit_script() -> Any:
    return load_script("benchmarks/fit_quixo_eval.py")


@pytest.mark.parametrize("flags", [["--games", "4"], ["--games", "-1"], ["--workers", "0"]])
def test_fit_script_refuses_too_few_games_or_workers_before_playing(
    flags: list[str], tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """benchmarks/fit_quixo_eval.py (games.md) refuses a count it cannot fit with before it
    plays any game: one game in five is held out, so fewer than five games is no fit."""
    script = _fit_script()

    def no_games(*args: object) -> None:
        raise AssertionError("games were played")

    monkeypatch.setattr(script, "positions_for", no_games)
    with pytest.raises(SystemExit) as stopped:
        script.main(["--sizes", "5", "--out", str(tmp_path / "w.json"), *flags])
    assert stopped.value.code == 2
    assert flags[0] in capsys.readouterr().err
    assert not (tmp_path / "w.json").exists()


@pytest.mark.parametrize("model", ["tuned", "patterns"])
def test_fit_script_with_shipped_rewrites_the_file_the_kernel_reads(
    model: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """benchmarks/fit_quixo_eval.py (games.md) writes the shipped weights only when told to
    with --shipped: the very file Quixo's kernel loads, keeping the sizes this run does not fit.
    Given neither --out nor --shipped it refuses before any game."""
    from importlib import resources
    from pathlib import Path
    from types import SimpleNamespace

    script = _fit_script()
    shipped = resources.files("boardlab.games.quixo").joinpath("data", f"quixo-{model}.json")
    fitted = SimpleNamespace(size=5, to_json=lambda: {"fit": {}, "new": True})
    monkeypatch.setattr(
        script, "positions_for", lambda *args: SimpleNamespace(game=np.arange(5), players=("p",))
    )
    monkeypatch.setattr(script, "fit", lambda size, positions, model: fitted)
    monkeypatch.setattr(script, "report", lambda console, fitted: None)
    written: dict[Path, str] = {}
    monkeypatch.setattr(script, "atomic_write_text", lambda path, text: written.update({Path(path): text}))
    with pytest.raises(SystemExit) as stopped:
        script.main(["--model", model, "--sizes", "5", "--games", "5"])
    assert stopped.value.code == 2 and "--out" in capsys.readouterr().err and not written
    assert script.main(["--model", model, "--sizes", "5", "--games", "5", "--shipped"]) == 0
    [(path, text)] = written.items()
    assert path.resolve() == Path(str(shipped)).resolve()
    sizes = json.loads(text)["sizes"]
    assert sizes["5"]["new"] is True
    assert {"3", "4"} <= set(sizes) and sizes["4"] == json.loads(shipped.read_text())["sizes"]["4"]
