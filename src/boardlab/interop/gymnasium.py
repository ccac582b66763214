"""boardlab's games as single-agent Gymnasium environments against a fixed boardlab opponent.

    import gymnasium
    import boardlab.interop.gymnasium  # registers the boardlab/... environments

    env = gymnasium.make("boardlab/Quixo-v0", opponent="alphabeta:depth=2")
    observation, info = env.reset(seed=0)
    action = int(np.flatnonzero(info["action_mask"])[0])
    observation, reward, terminated, truncated, info = env.step(action)

Registered ids: ``boardlab/Quixo-v0``, ``boardlab/ConnectFour-v0``, ``boardlab/TicTacToe-v0``,
``boardlab/Nim-v0``; ``game=`` picks a variant of the id's game (``gymnasium.make("boardlab/Quixo-v0",
game="quixo:size=4,rules=course")``; another game is refused with GameOptionError). Any other
game, one of another package included, is played by ``BoardlabEnv(game="hexapawn")``. Without
importing this module first, name it in the id:
``gymnasium.make("boardlab.interop.gymnasium:boardlab/Quixo-v0")``.

- The learner plays one side (``side=0`` first, ``1`` second, None: drawn each episode from the
  environment's random generator); ``reset(options={"side": 0})`` sets it for one episode. The
  opponent is any boardlab agent spec, built with a seed drawn from that generator, so a seeded
  reset replays the same games (the opponent is given as its spec, not as an agent, for that
  reason).
- ``reset()`` always leaves the learner a move: a variant where some opening move of the
  opponent ends the game (``nim:piles=2,misere=false``, ``quixo:size=3,ply_cap=1``) is refused
  for the second side with :class:`UnplayableSideError` when the environment is made (or when
  ``reset(options=...)`` asks for that side).
- Observations are the game's float32 planes of ``kernel.obs_shape`` from the learner's view;
  ``info["action_mask"]`` (int8 over the action space) marks the legal actions, all zeros once
  the episode is over, and :meth:`BoardlabEnv.action_masks` gives the same as booleans (what
  sb3-contrib's MaskablePPO asks for); ``info["opponent_move"]`` is the opponent's last move in
  notation.
- Rewards come at the end: +1 a win, −1 a loss, 0 a draw. A game the rules end terminates the
  episode; Quixo's ply cap truncates it.
- An illegal action ends the episode with −1 and ``info["illegal_action"] = True``
  (``illegal="lose"``, the default, as in PettingZoo's classic games), or raises
  :class:`IllegalActionError` (``illegal="raise"``). An action outside the action space
  raises :class:`IllegalActionError` either way; an unknown opponent spec raises
  :class:`OpponentSpecError` when the environment is made, a bad ``side``, ``illegal`` or reset
  option :class:`EnvOptionError`.

Needs the ``bridges`` extra: ``pip install 'boardlab[bridges]'``.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError, make_agent
from boardlab.core.spec import shown_value
from boardlab.games import parse_game
from boardlab.games.base import Game, GameOptionError, GameOverError, Reason, State
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
RESET_OPTIONS = ("side",)
"""The keys ``reset(options=...)`` takes."""

__all__ = [
    "ENVIRONMENTS",
    "BoardlabEnv",
    "ConnectFourEnv",
    "EnvOptionError",
    "IllegalActionError",
    "NimEnv",
    "OpponentSpecError",
    "QuixoEnv",
    "RenderModeError",
    "TicTacToeEnv",
    "UnplayableSideError",
    "register_environments",
]


class OpponentSpecError(AgentSpecError):
    """An opponent spec that names no agent, has a bad option, or cannot play the game."""


class EnvOptionError(ValueError):
    """A ``side``, ``illegal`` or ``reset(options=...)`` value the environment does not take."""


class UnplayableSideError(EnvOptionError):
    """A side on which the learner could find the game over before its first move: the opponent
    moves first and one of its opening moves ends the game."""


class BoardlabEnv(gymnasium.Env):
    """One boardlab game (any spec; default ``plays``, else Tic-Tac-Toe) against a fixed boardlab
    opponent (any agent spec).

    The registered ids make the subclasses that play one game (:class:`QuixoEnv`, ...), whose
    ``game=`` picks a variant of that game only.
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012
    plays: ClassVar[str | None] = None
    """The game this environment plays, whose variants ``game=`` may pick (None: any game)."""

    def __init__(
        self,
        game: str | Game | None = None,
        opponent: str = "random",
        side: int | None = None,
        illegal: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        check_render_mode(render_mode)
        side = _checked_side(side, "side")
        if illegal not in ILLEGAL_ACTIONS:
            raise EnvOptionError(f"illegal must be one of {', '.join(ILLEGAL_ACTIONS)}, got {illegal!r}")
        self.game = self._game_of(game)
        self.ending_opening = _opening_that_ends(self.game)
        """An opening move that ends the game, in notation (None: none does): the learner cannot
        play second then, since reset() would hand it a finished game."""
        self._refuse_unplayable(side, "side")
        self.opponent_spec = _opponent_spec(opponent)
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

    def _game_of(self, game: str | Game | None) -> Game:
        """The game to play: ``game`` (default :attr:`plays`), which must be a variant of
        :attr:`plays` where the environment plays one game."""
        if game is not None and not isinstance(game, str | Game):
            raise GameOptionError(
                f"game= is a game spec, a string such as 'connect4:width=8', got {type(game).__name__}"
            )
        chosen = parse_game((self.plays or "tictactoe") if game is None else game)
        if self.plays is not None and chosen.name != self.plays:
            ids = [env_id for env_id, name in ENVIRONMENTS.items() if name == chosen.name]
            elsewhere = (
                f"; {ids[0]} plays {chosen.name}"
                if ids
                else f"; a game without an id of its own is played by "
                f"boardlab.interop.gymnasium.BoardlabEnv(game={chosen.spec!r}), or by an id registered "
                "with that entry point (docs/interop.md)"
            )
            raise GameOptionError(
                f"this environment plays {self.plays}: game= picks one of its variants, "
                f"not {chosen.spec}{elsewhere}"
            )
        return chosen

    def _refuse_unplayable(self, side: int | None, where: str) -> None:
        """UnplayableSideError if the learner may play second (``side`` 1 or None) where an
        opening move of the opponent ends the game."""
        if side == 0 or self.ending_opening is None:
            return
        drawn = " draws side 1 at times" if side is None else ""
        raise UnplayableSideError(
            f"{where}={side}{drawn}: the opponent moves first in {self.game.spec} and its opening move "
            f"{self.ending_opening} ends the game, so reset() would leave the learner no move; use side=0"
        )

    def _make_opponent(self, seed: int | None) -> Agent:
        try:
            return make_agent(self.opponent_spec, seed=seed, game=self.game)
        except AgentSpecError as err:
            raise OpponentSpecError(f"opponent {str(self.opponent_spec)[:60]!r}: {err}") from None

    # the episode ----------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """A new game; the opponent moves first when the learner plays the second side.

        ``options`` may hold ``side`` (0, 1 or None: drawn) for this episode only, overriding
        the environment's ``side``; any other key, or options that are not a dict, raise
        :class:`EnvOptionError`. The learner always has a move in the position returned.
        """
        side = self._episode_side(options)
        super().reset(seed=seed)
        self.learner = int(self.np_random.integers(2)) if side is None else side
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

    def _episode_side(self, options: Any) -> int | None:
        """The side of the coming episode: ``options["side"]`` where given, else :attr:`side`."""
        if options is None:
            return self.side
        if not isinstance(options, Mapping):
            raise EnvOptionError(
                f"reset options are a dict such as {{'side': 0}}, got {type(options).__name__}"
            )
        unknown = [key for key in options if key not in RESET_OPTIONS]
        if unknown:
            raise EnvOptionError(
                f"unknown reset option {str(unknown[0])[:40]!r}; accepted: {', '.join(RESET_OPTIONS)}"
            )
        if "side" not in options:
            return self.side
        side = _checked_side(options["side"], "options['side']")
        self._refuse_unplayable(side, "options['side']")
        return side

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

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans over the action space (all False once the episode
        is over): what sb3-contrib's MaskablePPO asks an environment for."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        mask = np.zeros(self.game.kernel.num_actions, dtype=np.int8)
        if not self.forfeited and not self.position.is_over:
            mask[self.position.legal_indices()] = 1
        return mask

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask(), "opponent_move": self.opponent_move, "side": self.learner}

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


def _checked_side(side: Any, where: str) -> int | None:
    """``side`` as 0, 1 or None; EnvOptionError for anything else (``True``, ``1.0``, ``"1"``)."""
    if side is None:
        return None
    if isinstance(side, bool | np.bool_) or not isinstance(side, numbers.Integral) or side not in (0, 1):
        shown = shown_value(side, 20)
        raise EnvOptionError(f"{where} must be 0 (the learner moves first), 1 or None (drawn), got {shown}")
    return int(side)


def _opening_that_ends(game: Game) -> str | None:
    """An opening move of ``game`` that ends it at once, in notation (None: none does); one ply,
    cheap for every game. GameOptionError for a game over at its start: nothing to play."""
    start = game.initial()
    if start.is_over:
        raise GameOptionError(f"{game.spec} is over at its start: there is no move to play")
    for index in start.legal_indices():
        if start.play_index(index).is_over:
            return str(start.move_from_index(index))
    return None


def _opponent_spec(opponent: Any) -> str:
    """The opponent's agent spec; OpponentSpecError for an agent object or anything else."""
    if isinstance(opponent, Agent):
        raise OpponentSpecError(
            "opponent is an agent spec, rebuilt with a fresh seed at each reset so that a seeded reset "
            f"replays the same games; got an agent: give its spec, opponent={opponent.spec!r}"
        )
    if not isinstance(opponent, str):
        raise OpponentSpecError(f"opponent is an agent spec such as 'greedy', got {type(opponent).__name__}")
    return opponent


def _action_index(action: Any, count: int) -> int:
    """The action as an int in ``0..count-1``; IllegalActionError for anything else."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    whole = isinstance(action, int | np.integer) and not isinstance(action, bool | np.bool_)
    if not whole or not 0 <= action < count:
        raise IllegalActionError(f"an action is a whole number in 0..{count - 1}, got {str(action)[:20]}")
    return int(action)


class QuixoEnv(BoardlabEnv):
    """``boardlab/Quixo-v0``: Quixo, any size and rulebook."""

    plays = "quixo"


class ConnectFourEnv(BoardlabEnv):
    """``boardlab/ConnectFour-v0``: Connect Four, any board."""

    plays = "connect4"


class TicTacToeEnv(BoardlabEnv):
    """``boardlab/TicTacToe-v0``: Tic-Tac-Toe."""

    plays = "tictactoe"


class NimEnv(BoardlabEnv):
    """``boardlab/Nim-v0``: Nim, any piles."""

    plays = "nim"


_CLASSES: dict[str, type[BoardlabEnv]] = {
    cls.plays: cls for cls in (QuixoEnv, ConnectFourEnv, TicTacToeEnv, NimEnv) if cls.plays is not None
}


def register_environments() -> None:
    """Register the ``boardlab/...-v0`` ids with Gymnasium (again: no harm)."""
    for env_id, game in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            entry_point = f"{__name__}:{_CLASSES[game].__name__}"
            gymnasium.register(id=env_id, entry_point=entry_point, kwargs={"game": game})


register_environments()
