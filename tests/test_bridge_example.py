"""The Gymnasium example, small: a masked policy trained with plain PyTorch on Tic-Tac-Toe
beats a random player's score against the same random opponent."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from scripts import load_script

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tictactoe_masked_policy.py"


def _example() -> ModuleType:
    return load_script("examples/tictactoe_masked_policy.py")


def test_the_trained_masked_policy_beats_random_play() -> None:
    example = _example()
    policy = example.train(example.Settings(episodes=800, learning_rate=1e-2, seed=1))
    trained = example.evaluate(policy, games=200, seed=7)
    random_player = example.evaluate(None, games=200, seed=7)
    assert trained >= random_player + 0.1, (trained, random_player)
    assert trained > 0.6


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "--games: must be at least 1, got 0"),
        (["--seed", "-1"], "--seed: must be at least 0, got -1"),
        (["--episodes", "-5"], "--episodes: must be at least 16, got -5"),
        (["--episodes", "many"], "--episodes: expected a whole number, got 'many'"),
    ],
)
def test_bad_arguments_are_refused_before_training(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _example().main(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
