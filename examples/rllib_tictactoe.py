"""Train RLlib's PPO on Tic-Tac-Toe through the Gymnasium bridge, with action masking.

    .venv/bin/python examples/rllib_tictactoe.py [--iterations 25] [--seed 0] [--games 200]

The environment is ``boardlab/TicTacToe-v0`` against boardlab's ``random`` agent, the learner
playing a side drawn each episode. RLlib's action-masking module
(``ActionMaskingTorchRLModule``, PPO on RLlib's new API stack) reads the legal moves from the
observation, a dict of ``observations`` and ``action_mask``; boardlab's environment hands the
mask over in ``info`` instead, so :class:`MaskInObservation` moves it there (and flattens the
planes, which RLlib's default encoder takes as a vector). The environment raises on an illegal
action, so a single unmasked move in training or evaluation stops the script.

Why the Gymnasium bridge and not PettingZoo self-play: the goal is a policy that beats a given
boardlab agent, which is exactly what the single-agent environment trains against; RLlib's
single-agent stack needs no multi-agent policy mapping, and the same environment (with the
side fixed) measures the result from both sides.

Sampling and learning both run in the driver process (no remote env runners or learners): on
a small machine that is the fastest, and nothing has to be sent to Ray workers. Then the greedy
policy plays ``--games`` games against ``random``, half with each side, and the script prints
its score (win 1, draw 1/2, loss 0) beside a random player's. Needs the ``torch``, ``bridges``
and ``ray`` extras.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

ENV_NAME = "boardlab-tictactoe-masked"
"""The name the masked environment is registered under with RLlib."""


@dataclass(frozen=True)
class Settings:
    """Hyper-parameters of the example."""

    iterations: int = 25
    batch: int = 2000  # environment steps per training iteration (about 550 games)
    minibatch: int = 250
    epochs: int = 8
    learning_rate: float = 1e-3
    entropy: float = 0.01
    hidden: int = 64
    seed: int = 0


def _gymnasium() -> Any:
    try:
        import gymnasium

        import boardlab.interop.gymnasium  # noqa: F401 - registers boardlab/TicTacToe-v0
    except ImportError:
        raise SystemExit("this example needs the bridges extra: pip install 'boardlab[bridges]'") from None
    return gymnasium


def _ray() -> Any:
    try:
        import ray
        import ray.rllib  # fails without the RLlib packages of the ray extra
    except ImportError:
        raise SystemExit("this example needs the ray extra: pip install 'boardlab[ray]'") from None
    return ray


def masked_env_class() -> type:
    """The wrapper class (built here so that importing the script needs no gymnasium)."""
    gymnasium = _gymnasium()
    from gymnasium import spaces

    class MaskInObservation(gymnasium.Wrapper):
        """A boardlab environment whose observation is ``{"observations": flat planes,
        "action_mask": legal actions}``, as RLlib's action-masking module wants it."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            actions = env.action_space.n
            planes = env.observation_space
            self.observation_space = spaces.Dict(
                {
                    "action_mask": spaces.Box(0.0, 1.0, (actions,), dtype=np.float32),
                    "observations": spaces.Box(0.0, 1.0, (int(np.prod(planes.shape)),), dtype=np.float32),
                }
            )

        def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict]:
            observation, info = self.env.reset(**kwargs)
            return self._with_mask(observation, info), info

        def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
            observation, reward, terminated, truncated, info = self.env.step(action)
            return self._with_mask(observation, info), reward, terminated, truncated, info

        @staticmethod
        def _with_mask(observation: np.ndarray, info: dict) -> dict[str, np.ndarray]:
            # the mask is all zeros once the game is over: no action is taken from that state
            return {
                "action_mask": info["action_mask"].astype(np.float32),
                "observations": observation.reshape(-1).astype(np.float32),
            }

    return MaskInObservation


def make_env(opponent: str = "random", side: int | None = None) -> Any:
    """Tic-Tac-Toe against ``opponent`` (sides drawn each episode unless ``side`` is given),
    the mask in the observation; an illegal action raises."""
    gymnasium = _gymnasium()
    env = gymnasium.make("boardlab/TicTacToe-v0", opponent=opponent, side=side, illegal="raise")
    return masked_env_class()(env)


def ppo_config(settings: Settings) -> Any:
    """RLlib's PPO with the action-masking module on the masked environment."""
    _ray()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV_NAME, lambda config: make_env(**config))
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"opponent": "random"})
        # sampling and learning in this process: no env runner or learner actors
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=settings.batch,
            minibatch_size=settings.minibatch,
            num_epochs=settings.epochs,
            lr=settings.learning_rate,
            entropy_coeff=settings.entropy,
            gamma=0.99,
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                model_config={
                    "fcnet_hiddens": [settings.hidden, settings.hidden],
                    "head_fcnet_hiddens": [settings.hidden],
                },
            )
        )
        .debugging(seed=settings.seed)
    )


def start_ray() -> bool:
    """Start a local Ray instance for the example (two CPUs, no dashboard) unless this process
    has one already; whether it was started here (and so is to be shut down here)."""
    ray = _ray()
    if ray.is_initialized():
        return False
    # "local" always starts a fresh instance: never join someone else's cluster by accident
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    return True


def train(settings: Settings, report: Callable[[str], None] = print) -> Any:
    """PPO against the random player for ``settings.iterations`` iterations; the algorithm
    (stop it with ``algo.stop()``). Ray must be running (:func:`start_ray`)."""
    algo = ppo_config(settings).build_algo()
    started = time.perf_counter()
    for iteration in range(1, settings.iterations + 1):
        result = algo.train()
        runners = result.get("env_runners", {})
        report(
            f"iteration {iteration}/{settings.iterations}: "
            f"mean return {runners.get('episode_return_mean', float('nan')):+.3f}, "
            f"{int(runners.get('num_episodes_lifetime', 0)):,} games, "
            f"{time.perf_counter() - started:.0f} s"
        )
    return algo


def greedy_policy(algo: Any) -> Callable[[dict[str, np.ndarray]], int]:
    """The trained module's most likely action for one masked observation."""
    import torch
    from ray.rllib.core.columns import Columns

    module = algo.get_module()

    def act(observation: dict[str, np.ndarray]) -> int:
        batch = {Columns.OBS: {key: torch.as_tensor(value[None]) for key, value in observation.items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        return int(logits.argmax())

    return act


@dataclass(frozen=True)
class Results:
    """Games against the opponent: wins, draws and losses of the evaluated player."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game: a win 1, a draw 1/2."""
        return (self.wins + self.draws / 2) / self.games


def evaluate(policy: Callable[[dict[str, np.ndarray]], int] | None, games: int, seed: int) -> Results:
    """``policy`` (None: uniformly random legal moves) against ``random``, the first half of
    the games moving first, the rest second. Every move is checked against the mask."""
    rng = np.random.default_rng(seed)
    counts = {1.0: 0, 0.0: 0, -1.0: 0}
    for side, count in ((0, (games + 1) // 2), (1, games // 2)):
        env = make_env(side=side)
        observation, _ = env.reset(seed=seed + side)
        for _ in range(count):
            done, reward = False, 0.0
            while not done:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(rng.choice(legal)) if policy is None else policy(observation)
                if action not in legal:
                    raise AssertionError(f"illegal action {action}: legal are {legal.tolist()}")
                observation, reward, terminated, truncated, _ = env.step(action)
                done = terminated or truncated
            counts[float(reward)] += 1
            observation, _ = env.reset()
    return Results(wins=counts[1.0], draws=counts[0.0], losses=counts[-1.0])


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


def _described(name: str, results: Results) -> str:
    return f"{name} {results.score:.1%} ({results.wins} won, {results.draws} drawn, {results.losses} lost)"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=_whole_number(1), default=Settings.iterations)
    parser.add_argument("--seed", type=_whole_number(0), default=Settings.seed)
    parser.add_argument("--games", type=_whole_number(2), default=200, help="evaluation games")
    args = parser.parse_args(argv)
    started_ray = start_ray()
    started = time.perf_counter()
    try:
        algo = train(Settings(iterations=args.iterations, seed=args.seed))
        try:
            trained = evaluate(greedy_policy(algo), args.games, seed=args.seed + 1)
        finally:
            algo.stop()
    finally:
        if started_ray:
            _ray().shutdown()
    baseline = evaluate(None, args.games, seed=args.seed + 1)
    print(f"trained and evaluated in {time.perf_counter() - started:.0f} s")
    print(
        f"score against random over {args.games} games (half each side): "
        f"{_described('trained', trained)}; {_described('random', baseline)}"
    )


if __name__ == "__main__":
    main()
