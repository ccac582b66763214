"""Train a masked policy on Tic-Tac-Toe through the Gymnasium bridge, with plain PyTorch.

    .venv/bin/python examples/tictactoe_masked_policy.py [--episodes 4000] [--seed 0]

The environment is ``boardlab/TicTacToe-v0`` against boardlab's ``random`` agent, the learner
playing a side drawn each episode. The policy is a small network over the observation planes
whose logits are masked with ``info["action_mask"]``, so it only ever plays legal moves; it is
trained with REINFORCE (the episode's result as the return, the batch mean as baseline, a
little entropy to keep exploring). Then it plays greedily against ``random`` and the script
prints its score beside a random player's. Needs the ``torch`` and ``bridges`` extras.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Settings:
    """Hyper-parameters of the example."""

    episodes: int = 4000
    batch: int = 16
    learning_rate: float = 3e-3
    entropy: float = 0.01
    hidden: int = 64
    seed: int = 0


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SystemExit("this example needs the torch extra: pip install 'boardlab[torch]'") from None
    return torch


def make_env(seed: int) -> Any:
    """The Tic-Tac-Toe environment against a random player (sides drawn each episode)."""
    import gymnasium

    import boardlab.interop.gymnasium  # noqa: F401 - registers boardlab/TicTacToe-v0

    env = gymnasium.make("boardlab/TicTacToe-v0", opponent="random")
    env.reset(seed=seed)
    return env


def make_policy(hidden: int) -> Any:
    """Logits over the 9 cells from the 2 x 3 x 3 planes."""
    torch = _torch()
    return torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(18, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 9)
    )


def masked_logits(policy: Any, observation: np.ndarray, mask: np.ndarray) -> Any:
    """The policy's logits with the illegal actions set to minus infinity."""
    torch = _torch()
    logits = policy(torch.as_tensor(observation[None]))[0]
    return logits.masked_fill(torch.as_tensor(mask == 0), float("-inf"))


def play_batch(
    env: Any, policy: Any, episodes: int
) -> tuple[list[np.ndarray], list[np.ndarray], list[int], list[float]]:
    """Episodes sampled from the policy: every learner move's planes, mask and action, and the
    result of the episode it belongs to."""
    torch = _torch()
    observations, masks, actions, returns = [], [], [], []
    with torch.no_grad():
        for _ in range(episodes):
            observation, info = env.reset()
            moves, done, reward = 0, False, 0.0
            while not done:
                logits = masked_logits(policy, observation, info["action_mask"])
                action = int(torch.distributions.Categorical(logits=logits).sample())
                observations.append(observation)
                masks.append(info["action_mask"])
                actions.append(action)
                moves += 1
                observation, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            returns.extend([float(reward)] * moves)
    return observations, masks, actions, returns


def train(settings: Settings) -> Any:
    """REINFORCE against the random player; the trained policy."""
    torch = _torch()
    torch.manual_seed(settings.seed)
    env = make_env(settings.seed)
    policy = make_policy(settings.hidden)
    optimiser = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate)
    for _ in range(settings.episodes // settings.batch):
        observations, masks, actions, returns = play_batch(env, policy, settings.batch)
        # one forward pass over every move of the batch, the illegal actions masked out
        logits = policy(torch.as_tensor(np.stack(observations)))
        logits = logits.masked_fill(torch.as_tensor(np.stack(masks) == 0), float("-inf"))
        dist = torch.distributions.Categorical(logits=logits)
        advantages = torch.tensor(returns) - float(np.mean(returns))
        # the entropy of a masked distribution: the illegal actions carry no probability
        probs = dist.probs.clamp_min(1e-12)
        entropy = -(probs * probs.log()).sum(dim=1).mean()
        log_probs = dist.log_prob(torch.as_tensor(actions))
        loss = -(log_probs * advantages).mean() - settings.entropy * entropy
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return policy


def evaluate(policy: Any, games: int, seed: int) -> float:
    """The greedy policy's score (win 1, draw 1/2) against the random player over ``games``
    games, sides drawn; ``policy=None`` plays uniformly random legal moves instead."""
    torch = _torch()
    env = make_env(seed)
    rng = np.random.default_rng(seed)
    points = 0.0
    with torch.no_grad():
        for _ in range(games):
            observation, info = env.reset()
            done, reward = False, 0.0
            while not done:
                if policy is None:
                    action = int(rng.choice(np.flatnonzero(info["action_mask"])))
                else:
                    action = int(masked_logits(policy, observation, info["action_mask"]).argmax())
                observation, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            points += (reward + 1) / 2
    return points / games


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--episodes",
        type=_whole_number(Settings.batch),
        default=Settings.episodes,
        help=f"training episodes (at least one batch of {Settings.batch})",
    )
    parser.add_argument("--seed", type=_whole_number(0), default=Settings.seed)
    parser.add_argument("--games", type=_whole_number(1), default=1000, help="evaluation games")
    args = parser.parse_args(argv)
    policy = train(Settings(episodes=args.episodes, seed=args.seed))
    trained = evaluate(policy, args.games, seed=args.seed + 1)
    baseline = evaluate(None, args.games, seed=args.seed + 1)
    print(f"score against random over {args.games} games: trained {trained:.1%}, random {baseline:.1%}")


if __name__ == "__main__":
    main()
