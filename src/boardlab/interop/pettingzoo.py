"""boardlab's games as PettingZoo AEC environments, following PettingZoo's classic games.

    from boardlab.interop.pettingzoo import env

    board = env("connect4")                 # any game spec: "quixo:size=4,rules=course", "nim:piles=3-4-5"
    board.reset(seed=42)
    for agent in board.agent_iter():
        observation, reward, termination, truncation, info = board.last()
        if termination or truncation:
            action = None
        else:
            action = int(np.flatnonzero(observation["action_mask"])[0])
        board.step(action)

Conventions, as in PettingZoo's classic environments (Connect Four, Tic-Tac-Toe, chess):

- agents ``player_0`` (moves first) and ``player_1``; the action space is the game's fixed
  action space (``Discrete(kernel.num_actions)``);
- ``observe(agent)`` gives a dict: ``observation``, the game's float32 planes of shape
  ``kernel.obs_shape`` (planes, rows, columns) from that agent's view, and ``action_mask``,
  int8 over the action space: the legal actions for the agent to move, all zeros for the
  other one and once the game is over;
- rewards come at the end: +1 for the winner, −1 for the loser, 0 each for a draw;
- a game the rules end is a termination; a game cut by the variant's ply cap (Quixo's
  ``ply_cap``) is a truncation with rewards 0, since the position itself is not final;
- :func:`env` wraps :class:`raw_env` as the classic environments do: an illegal move ends the
  game with −1 for the mover and 0 for the other player (``TerminateIllegalWrapper``), an
  action outside the action space is refused, and the call order is enforced. The bare
  :class:`raw_env` raises :class:`IllegalActionError` for an illegal action instead;
- ``render_mode``: ``"ansi"`` (``render()`` returns the board as text), ``"human"`` (prints
  the coloured board after each move) or ``"rgb_array"`` (an image of the board as a numpy
  array); see :mod:`boardlab.interop.views`.

Needs the ``bridges`` extra: ``pip install 'boardlab[bridges]'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.games import parse_game
from boardlab.games.base import Game, GameOptionError, IllegalMoveError, Reason, State
from boardlab.interop.views import planes_for, rgb_picture

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as err:  # pragma: no cover - the extra is installed in CI
    raise ImportError(
        "the PettingZoo bridge needs the bridges extra: pip install 'boardlab[bridges]'"
    ) from err

AGENTS = ("player_0", "player_1")
RENDER_MODES = ("human", "ansi", "rgb_array")

__all__ = ["AGENTS", "IllegalActionError", "RenderModeError", "UnknownAgentError", "env", "raw_env"]


class IllegalActionError(IllegalMoveError):
    """An action that is not legal for the agent to move (raised by :class:`raw_env`)."""


class RenderModeError(ValueError):
    """A render mode the environments do not have."""


class UnknownAgentError(ValueError):
    """An agent name that is not ``player_0`` or ``player_1``."""


def check_render_mode(render_mode: str | None) -> None:
    """RenderModeError unless ``render_mode`` is None or one of :data:`RENDER_MODES`."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        accepted = ", ".join(RENDER_MODES)
        raise RenderModeError(f"unknown render_mode {render_mode!r}; expected one of {accepted}")


def env(game: str | Game = "quixo", render_mode: str | None = None) -> AECEnv:
    """The AEC environment of a game spec, wrapped as PettingZoo's classic environments are
    (illegal moves lose, out-of-range actions refused, call order enforced)."""
    environment: AECEnv = raw_env(game, render_mode=render_mode)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class raw_env(AECEnv):
    """One boardlab game (any spec, e.g. ``quixo:size=4``) as an AEC environment.

    Unknown games and bad options raise :class:`boardlab.games.GameOptionError`; an unknown
    render mode :class:`RenderModeError`.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": list(RENDER_MODES),
        "name": "boardlab_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, game: str | Game = "quixo", render_mode: str | None = None) -> None:
        super().__init__()
        check_render_mode(render_mode)
        if not isinstance(game, str | Game):
            raise GameOptionError(
                f"a game spec is a string such as 'connect4:width=8', got {type(game).__name__}"
            )
        self.game = parse_game(game)
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "name": f"boardlab_{self.game.name}_v0"}
        kernel = self.game.kernel
        self.possible_agents = list(AGENTS)
        self.action_spaces = {agent: spaces.Discrete(kernel.num_actions) for agent in AGENTS}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, kernel.obs_shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (kernel.num_actions,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.state_now: State = self.game.initial()
        self.last_move: Any = None
        self._start()

    # spaces -------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent``; UnknownAgentError for a name not in :data:`AGENTS`."""
        return self.observation_spaces[_known_agent(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent``; UnknownAgentError for a name not in :data:`AGENTS`."""
        return self.action_spaces[_known_agent(agent)]

    # the game -----------------------------------------------------------------------------

    def _start(self) -> None:
        self.state_now = self.game.initial()
        self.last_move = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[0]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game from the start (the games have no chance, so ``seed`` changes nothing)."""
        self._start()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The planes from ``agent``'s view and its action mask (zeros unless it is to move);
        UnknownAgentError for a name that is not one of :data:`AGENTS`."""
        colour = AGENTS.index(_known_agent(agent))
        mask = np.zeros(self.game.kernel.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.state_now.is_over:
            mask[self.state_now.legal_indices()] = 1
        return {"observation": planes_for(self.state_now, colour), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to move (None once that agent is done)."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        agent = self.agent_selection
        index = _action_index(action)
        if index is None or index not in self.state_now.legal_indices():
            raise IllegalActionError(
                f"{agent} cannot play action {str(action)[:20]}: legal are {self.state_now.legal_indices()}"
            )
        self._cumulative_rewards[agent] = 0.0
        self.last_move = self.state_now.move_from_index(index)
        self.state_now = self.state_now.play_index(index)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        outcome = self.state_now.outcome
        if outcome is not None:
            if outcome.winner is not None:
                self.rewards[AGENTS[outcome.winner]] = 1.0
                self.rewards[AGENTS[1 - outcome.winner]] = -1.0
            ended = self.truncations if outcome.reason == Reason.PLY_CAP else self.terminations
            for name in self.agents:
                ended[name] = True
        self.agent_selection = AGENTS[self.state_now.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # pictures -----------------------------------------------------------------------------

    def render(self) -> Any:
        """The board: text (``ansi``), printed (``human``) or an RGB array (``rgb_array``)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return rgb_picture(self.state_now)
        text = board_caption(self.state_now)
        if self.render_mode == "ansi":
            return text
        from rich.console import Console

        Console().print(self.state_now.render(self.last_move))
        return None

    def close(self) -> None:
        """Nothing to release."""


def board_caption(state: State) -> str:
    """The plain board and a line saying whose turn it is or how the game ended."""
    symbols = state.game.symbols
    outcome = state.outcome
    status = f"{symbols[state.to_move]} to move" if outcome is None else outcome.text(symbols)
    return f"{state.game.board_text(state)}\n{status}"


def _known_agent(agent: Any) -> str:
    """``agent`` if it is one of :data:`AGENTS`; UnknownAgentError naming it otherwise."""
    if not isinstance(agent, str) or agent not in AGENTS:
        raise UnknownAgentError(f"unknown agent {str(agent)[:40]!r}; the agents are {', '.join(AGENTS)}")
    return agent


def _action_index(action: Any) -> int | None:
    """The action as a Python int, or None for anything that is not a whole number."""
    if isinstance(action, bool | np.bool_):
        return None
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, int | np.integer):
        return int(action)
    return None
