"""boardlab's games as single-agent Gymnasium environments against a fixed boardlab opponent.

    import gymnasium
    import boardlab.interop.gymnasium  # registers the boardlab/... environments

    env = gymnasium.make("boardlab/Quixo-v0", opponent="alphabeta:depth=2")
    observation, info = env.reset(seed=0)
    action = int(np.flatnonzero(info["action_mask"])[0])
    observation, reward, terminated, truncated, info = env.step(action)

Registered ids: ``boardlab/Quixo-v0``, ``boardlab/ConnectFour-v0``, ``boardlab/TicTacToe-v0``,
``boardlab/Nim-v0``; ``game=`` picks a variant (``gymnasium.make("boardlab/Quixo-v0",
game="quixo:size=4,rules=course")``). Without importing this module first, name it in the id:
``gymnasium.make("boardlab.interop.gymnasium:boardlab/Quixo-v0")``.

- The learner plays one side (``side=0`` first, ``1`` second, None: drawn each episode from the
  environment's random generator); the opponent is any boardlab agent spec, built with a seed
  drawn from that generator, so a seeded reset replays the same games.
- Observations are the game's float32 planes of ``kernel.obs_shape`` from the learner's view;
  ``info["action_mask"]`` (int8 over the action space) marks the legal actions, all zeros once
  the episode is over; ``info["opponent_move"]`` is the opponent's last move in notation.
- Rewards come at the end: +1 a win, −1 a loss, 0 a draw. A game the rules end terminates the
  episode; Quixo's ply cap truncates it.
- An illegal action ends the episode with −1 and ``info["illegal_action"] = True``
  (``illegal="lose"``, the default, as in PettingZoo's classic games), or raises
  :class:`IllegalActionError` (``illegal="raise"``). An action outside the action space
  raises :class:`IllegalActionError` either way; an unknown opponent spec raises
  :class:`OpponentSpecError` when the environment is made.

Needs the ``bridges`` extra: ``pip install 'boardlab[bridges]'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError, make_agent
from boardlab.games import parse_game
from boardlab.games.base import Game, GameOverError, Reason, State
from boardlab.interop.pettingzoo import (
    RENDER_MODES,
    IllegalActionError,
    RenderModeError,
    board_caption,
    check_render_mode,
)
from boardlab.interop.views import planes_for, rgb_picture

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as err:  # pragma: no cover - the extra is installed in CI
    raise ImportError(
        "the Gymnasium bridge needs the bridges extra: pip install 'boardlab[bridges]'"
    ) from err

ENVIRONMENTS = {
    "boardlab/Quixo-v0": "quixo",
    "boardlab/ConnectFour-v0": "connect4",
    "boardlab/TicTacToe-v0": "tictactoe",
    "boardlab/Nim-v0": "nim",
}
"""The registered environment ids and the game each plays by default."""
ILLEGAL_ACTIONS = ("lose", "raise")

__all__ = [
    "ENVIRONMENTS",
    "BoardlabEnv",
    "IllegalActionError",
    "OpponentSpecError",
    "RenderModeError",
    "register_environments",
]


class OpponentSpecError(AgentSpecError):
    """An opponent spec that names no agent, has a bad option, or cannot play the game."""


class BoardlabEnv(gymnasium.Env):
    """One boardlab game (any spec) against a fixed boardlab opponent (any agent spec)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        game: str | Game = "tictactoe",
        opponent: str = "random",
        side: int | None = None,
        illegal: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        check_render_mode(render_mode)
        if side not in (None, 0, 1):
            raise ValueError(f"side must be 0 (the learner moves first), 1 or None (drawn), got {side!r}")
        if illegal not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL_ACTIONS)}, got {illegal!r}")
        self.game = parse_game(game)
        self.opponent_spec = opponent
        self.opponent: Agent = self._make_opponent(seed=None)
        self.side = side
        self.illegal = illegal
        self.render_mode = render_mode
        kernel = self.game.kernel
        self.observation_space = spaces.Box(0.0, 1.0, kernel.obs_shape, dtype=np.float32)
        self.action_space = spaces.Discrete(kernel.num_actions)
        self.position: State = self.game.initial()
        self.learner = 0
        self.last_move: Any = None
        self.opponent_move: str | None = None
        self.forfeited = False

    def _make_opponent(self, seed: int | None) -> Agent:
        try:
            return make_agent(self.opponent_spec, seed=seed, game=self.game)
        except AgentSpecError as err:
            raise OpponentSpecError(f"opponent {str(self.opponent_spec)[:60]!r}: {err}") from None

    # the episode ----------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """A new game; the opponent moves first when the learner plays the second side."""
        super().reset(seed=seed)
        self.learner = int(self.np_random.integers(2)) if self.side is None else self.side
        self.opponent = self._make_opponent(seed=int(self.np_random.integers(2**31)))
        self.opponent.new_game()
        self.position = self.game.initial()
        self.last_move = None
        self.opponent_move = None
        self.forfeited = False
        if self.position.to_move != self.learner:
            self._opponent_plays()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner plays ``action``, then the opponent answers unless the game is over."""
        if self.forfeited or self.position.is_over:
            raise GameOverError("the episode is over; call reset() first")
        index = _action_index(action, self.game.kernel.num_actions)
        if index not in self.position.legal_indices():
            if self.illegal == "raise":
                raise IllegalActionError(
                    f"action {index} is not legal here: legal are {self.position.legal_indices()}"
                )
            self.forfeited = True
            return self._observation(), -1.0, True, False, {**self._info(), "illegal_action": True}
        self._play(index)
        if not self.position.is_over:
            self._opponent_plays()
        if self.render_mode == "human":
            self.render()
        outcome = self.position.outcome
        if outcome is None:
            return self._observation(), 0.0, False, False, self._info()
        reward = 0.0 if outcome.winner is None else 1.0 if outcome.winner == self.learner else -1.0
        truncated = outcome.reason == Reason.PLY_CAP
        return self._observation(), reward, not truncated, truncated, self._info()

    def _play(self, index: int) -> None:
        self.last_move = self.position.move_from_index(index)
        self.position = self.position.play_index(index)

    def _opponent_plays(self) -> None:
        move = self.opponent.act(self.position).move
        self.opponent_move = str(move)
        self._play(self.position.move_index(move))

    def _observation(self) -> np.ndarray:
        return planes_for(self.position, self.learner).copy()

    def _info(self) -> dict[str, Any]:
        mask = np.zeros(self.game.kernel.num_actions, dtype=np.int8)
        if not self.forfeited and not self.position.is_over:
            mask[self.position.legal_indices()] = 1
        return {"action_mask": mask, "opponent_move": self.opponent_move, "side": self.learner}

    # pictures -------------------------------------------------------------------------------

    def render(self) -> Any:
        """The board: text (``ansi``), printed (``human``) or an RGB array (``rgb_array``)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return rgb_picture(self.position)
        if self.render_mode == "ansi":
            return board_caption(self.position)
        from rich.console import Console

        Console().print(self.position.render(self.last_move))
        return None


def _action_index(action: Any, count: int) -> int:
    """The action as an int in ``0..count-1``; IllegalActionError for anything else."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    whole = isinstance(action, int | np.integer) and not isinstance(action, bool | np.bool_)
    if not whole or not 0 <= action < count:
        raise IllegalActionError(f"an action is a whole number in 0..{count - 1}, got {str(action)[:20]}")
    return int(action)


def register_environments() -> None:
    """Register the ``boardlab/...-v0`` ids with Gymnasium (again: no harm)."""
    for env_id, game in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=f"{__name__}:BoardlabEnv", kwargs={"game": game})


register_environments()
