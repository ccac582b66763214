"""Quixo's fitted ``patterns`` evaluation: a weight for every arrangement of cubes along a line.

The compiled evaluation is checked against the fit's sparse features and the shipped weights,
those features against a naive count over the board's lines, and the evaluation against the
board's symmetries and a swap of colours.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tuned_eval import compiled_and_model, random_masks

from boardlab.games.quixo.kernel import (
    TUNED_SCALE,
    kernel,
    line_class,
    line_masks,
    pattern_key,
    pattern_weights,
)
from boardlab.train.eval_fit import fit, pattern_features, pattern_names, self_play

SIZES = (3, 4, 5)


def _naive_line_text(size: int, mask: int, me: int, opp: int) -> str:
    cells = [c for c in range(size * size) if mask >> c & 1]  # either direction: keys mirror
    return "".join("X" if me >> c & 1 else "O" if opp >> c & 1 else "." for c in cells)


def _naive_features(size: int, me: int, opp: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line, mask in enumerate(line_masks(size)):
        key, sign = pattern_key(_naive_line_text(size, mask, me, opp))
        if not sign:
            continue  # its own colour swap: worth nothing to either side
        name = f"{line_class(size, line)} {key}"
        counts[name] = counts.get(name, 0) + sign
    return counts


def _weight_vector(size: int) -> np.ndarray:
    classes = pattern_weights(size)["classes"]
    return np.array([classes[n.rsplit(" ", 1)[0]].get(n.rsplit(" ", 1)[1], 0.0) for n in pattern_names(size)])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(SIZES))
def test_pattern_features_count_each_line_pattern_minus_its_colour_swap(seed, size):
    me, opp = random_masks(random.Random(seed), size)
    row = pattern_features(size, np.array([me]), np.array([opp])).toarray()[0]
    naive = _naive_features(size, me, opp)
    for name, value in zip(pattern_names(size), row, strict=True):
        assert value == naive.get(name, 0), name
    # only full lines, which end the game, have no feature
    unnamed = set(naive) - set(pattern_names(size))
    assert all(n.endswith(("X" * size, "O" * size)) for n in unnamed)


def test_pattern_keys_are_shared_by_mirror_images_and_negated_by_a_colour_swap():
    rng = random.Random(2)
    for _ in range(200):
        text = "".join(rng.choice(".XO") for _ in range(5))
        swapped = text.translate(str.maketrans("XO", "OX"))
        key, sign = pattern_key(text)
        assert pattern_key(text[::-1]) == (key, sign)
        assert pattern_key(swapped) == (key, -sign)
        assert key == min(text, text[::-1], swapped, swapped[::-1])
    assert pattern_key("XO.XO") == ("OX.OX", 0)  # its own swap, once mirrored


@pytest.mark.parametrize("size", SIZES)
def test_compiled_pattern_evaluation_is_the_fitted_model(size):
    tempo = pattern_weights(size)["fit"]["intercept"]
    got, expected = compiled_and_model(size, "patterns", pattern_features, _weight_vector(size), tempo)
    # weights are held in thousandths of a logit; a position has 2n + 2 lines
    assert got == pytest.approx(expected, abs=TUNED_SCALE * 0.0005 * (2 * size + 3))
    assert any(abs(v) > 10 for v in got)


@pytest.mark.parametrize("size", SIZES)
def test_pattern_evaluation_is_symmetric_and_antisymmetric_but_for_the_move(size):
    k = kernel(size)
    eval_id = k.evaluations.index("patterns")
    tempo = pattern_weights(size)["fit"]["intercept"] * TUNED_SCALE
    rng = random.Random(11 + size)
    for _ in range(100):
        me, opp = random_masks(rng, size)
        value = k.evaluate(k.ctx, np.int64(me), np.int64(opp), eval_id)
        swapped = k.evaluate(k.ctx, np.int64(opp), np.int64(me), eval_id)
        assert value + swapped == pytest.approx(2 * tempo, abs=0.1)
        for sym in range(8):
            image = k.symmetry(k.ctx, np.int64(me), np.int64(opp), sym)
            assert k.evaluate(k.ctx, image[0], image[1], eval_id) == pytest.approx(value)
    assert k.evaluate(k.ctx, np.int64(0), np.int64(0), eval_id) == pytest.approx(tempo, abs=0.1)


def test_shipped_pattern_weights_cover_every_class_and_predict_better_than_tuned():
    for size in SIZES:
        weights = pattern_weights(size)
        classes = weights["classes"]
        assert set(classes) == {line_class(size, line) for line in range(len(line_masks(size)))}
        names = set(pattern_names(size))
        assert all(f"{kind} {key}" in names for kind, known in classes.items() for key in known)
        fitted = weights["fit"]
        assert fitted["positions"] > 1000
        assert fitted["held_out_log_loss"] < min(fitted["baseline_log_loss"].values())


def test_pattern_fit_on_self_play_names_every_pattern_and_is_judged_against_tuned():
    positions = self_play(4, 30, seed=5, players=("alphabeta:depth=2,eval=lines2", "alphabeta:depth=1"))
    fitted = fit(4, positions, model="patterns")
    assert list(fitted.weights) == pattern_names(4)
    assert set(fitted.baselines) == {"lines2", "lines3", "tuned", "shipped"}
    document = fitted.to_json()
    assert set(document) == {"classes", "fit"}
    assert set(document["classes"]) == {"line 0", "line 1", "diagonal"}
    with pytest.raises(ValueError, match="unknown evaluation model"):
        fit(4, positions, model="network")
