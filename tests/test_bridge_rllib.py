"""The RLlib example, small: PPO with RLlib's action-masking module trains on boardlab's
Tic-Tac-Toe environment and only ever plays legal moves, and its evaluation plays both sides.
On a local 2-CPU Ray instance (one per session)."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from scripts import load_script

# Ray starts in the first test that needs it (about 10 s), RLlib builds PPO in the next
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def example() -> ModuleType:
    return load_script("examples/rllib_tictactoe.py")


@pytest.fixture(scope="module")
def trained(ray_instance: Any, example: ModuleType) -> Iterator[Any]:
    """The example's algorithm after one short iteration (about 55 games; the environment
    raises on an illegal action, so sampling too must respect the mask)."""
    lines: list[str] = []
    algo = example.train(
        example.Settings(iterations=1, batch=200, minibatch=50, epochs=1, seed=3), report=lines.append
    )
    try:
        assert len(lines) == 1 and lines[0].startswith("iteration 1/1: mean return"), lines
        yield algo
    finally:
        algo.stop()


def test_the_environment_puts_the_legal_moves_in_the_observation(example: ModuleType) -> None:
    env = example.make_env(side=1)
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    # the opponent has played one stone: eight empty cells are legal, the planes show its stone
    np.testing.assert_array_equal(observation["action_mask"], info["action_mask"])
    assert observation["action_mask"].sum() == 8
    assert observation["observations"].shape == (18,) and observation["observations"].sum() == 1
    taken = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    assert observation["observations"][9 + taken] == 1  # the second plane: the opponent's stones


def test_the_masked_policy_plays_only_legal_moves_from_both_sides(trained: Any, example: ModuleType) -> None:
    policy = example.greedy_policy(trained)
    results = example.evaluate(policy, games=60, seed=11)  # raises on any illegal move
    assert results.games == 60
    assert 0 <= results.score <= 1


def test_without_the_mask_the_network_would_pick_illegal_moves(trained: Any, example: ModuleType) -> None:
    # the check above means something: the bare network's favourite is often an occupied cell
    import torch
    from ray.rllib.core.columns import Columns

    module = trained.get_module()
    policy = example.greedy_policy(trained)
    env = example.make_env(side=1)
    rng = np.random.default_rng(5)
    moves, legal_choices, occupied_favourites = 0, 0, 0
    for game in range(30):
        observation, _ = env.reset(seed=game)
        done = False
        while not done:
            legal = np.flatnonzero(observation["action_mask"])
            unmasked = {**observation, "action_mask": np.ones_like(observation["action_mask"])}
            batch = {Columns.OBS: {key: torch.as_tensor(value[None]) for key, value in unmasked.items()}}
            with torch.no_grad():
                favourite = int(module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].argmax())
            occupied_favourites += favourite not in legal
            legal_choices += policy(observation) in legal
            moves += 1
            observation, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            done = terminated or truncated
    assert occupied_favourites > 0
    assert legal_choices == moves


def test_random_play_scores_about_half_against_random(example: ModuleType) -> None:
    results = example.evaluate(None, games=200, seed=2)
    assert results.games == 200
    assert 0.35 < results.score < 0.65, results  # X wins about 58 %, O about 29 %, draws the rest


@pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-single-agent-env-v0")
def test_the_script_trains_evaluates_and_prints_the_score(
    ray_instance: Any, example: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    example.main(["--iterations", "1", "--games", "10", "--seed", "4"])
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("iteration 1/1: mean return")
    assert printed[-1].startswith("score against random over 10 games (half each side): trained ")
    assert "; random " in printed[-1]
    assert ray_instance.is_initialized()  # the script leaves an instance it did not start


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "1"], "--games: must be at least 2, got 1"),
        (["--seed", "-1"], "--seed: must be at least 0, got -1"),
        (["--iterations", "0"], "--iterations: must be at least 1, got 0"),
        (["--iterations", "many"], "--iterations: expected a whole number, got 'many'"),
    ],
)
def test_bad_arguments_are_refused_before_ray_starts(
    args: list[str], message: str, example: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        example.main(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
