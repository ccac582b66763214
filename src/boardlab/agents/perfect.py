"""The ``perfect`` agent: exact play read from a solved game.

It wins as fast as it can, holds out as long as it can when lost, and picks at random (from
its seed) among equally good moves. Each game it plays has a *back-end* in :data:`BACKENDS`:
a function giving the optimal actions of a position, and a check refusing variants the
back-end cannot solve (e.g. Nim with too many positions), and, for a game solved only in part
(5x5 Quixo: its endgame tables), a check refusing the positions it does not cover: such a
game is not listed as one the agent plays, but the agent plays its covered positions (from a
position given to ``boardlab play`` or an analysis script). Tic-Tac-Toe and small Nim use the
exhaustive :mod:`boardlab.games.small_solver` solver; the Quixo and Connect Four solvers plug in
with :func:`register_backend`.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.games.nim.theory import winning_moves
from boardlab.games.small_solver import DEFAULT_LIMIT, Solution
from boardlab.spec import option


@dataclass(frozen=True)
class Backend:
    """How the perfect agent plays one game.

    ``best_actions(state, limit)`` gives the optimal actions of a position (at least one
    while the game goes on); ``refusal(game, limit)`` says why a variant cannot be solved
    within ``limit`` positions, or gives None when it can; ``uncovered(state)`` says why a
    position of a variant solved in part is out of reach, or gives None.
    """

    best_actions: Callable[[Any, int], list[int]]
    refusal: Callable[[Any, int], str | None]
    uncovered: Callable[[Any], str | None] = lambda state: None


class UncoveredPosition(ValueError):
    """A position the perfect agent's solver does not cover (e.g. 5x5 Quixo with many blanks)."""


_SOLUTIONS: dict[tuple[str, int], Solution] = {}


def small_best_actions(state: Any, limit: int) -> list[int]:
    """The optimal actions from the exhaustive small solver (one shared table per game)."""
    key = (state.kernel.name, limit)
    if key not in _SOLUTIONS:
        _SOLUTIONS[key] = Solution(state.kernel, limit)
    return _SOLUTIONS[key].best_actions(state)


def _always(game: Any, limit: int) -> str | None:
    return None


def _nim_refusal(game: Any, limit: int) -> str | None:
    positions = math.prod(p + 1 for p in game.piles)
    if positions <= limit:
        return None
    return (
        f"perfect: Nim {'-'.join(map(str, game.piles))} has {positions:,} positions, more than the "
        f"limit of {limit:,}; play it with the optimal agent"
    )


def _lazy(module: str, name: str) -> Callable[..., Any]:
    # a solver module is imported on first use (its compiled code and tables load then)
    def call(*args: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args)

    return call


def _solver(module: str, prefix: str, partial: bool = False) -> Backend:
    uncovered = _lazy(module, f"{prefix}uncovered") if partial else (lambda state: None)
    return Backend(_lazy(module, f"{prefix}best_actions"), _lazy(module, f"{prefix}refusal"), uncovered)


BACKENDS: dict[str, Backend] = {
    "tictactoe": Backend(small_best_actions, _always),
    "nim": Backend(small_best_actions, _nim_refusal),
    "connect4": _solver("boardlab.games.connect4.solver", "perfect_"),
    "quixo": _solver("boardlab.games.quixo.exact", "quixo_", partial=True),
}
"""Game name -> the back-end the perfect agent plays it with."""


@dataclass(frozen=True)
class PerfectSettings:
    """Options of the perfect agent."""

    limit: int = option(
        DEFAULT_LIMIT, "most positions an exhaustive solve may hold", minimum=1, maximum=10**8
    )


class PerfectAgent(Agent):
    """Exact play from a solved game: fastest win, slowest loss, random among equals."""

    name = "perfect"
    summary = "exact play from a solved game: wins fastest, loses slowest (small games)"
    Settings: ClassVar[type] = PerfectSettings
    games: ClassVar[tuple[str, ...]] = tuple(BACKENDS)

    @classmethod
    def supports(cls, game: Any) -> bool:
        """True if the agent plays whole games of ``game``, from its first position."""
        backend = BACKENDS.get(game.name)
        return (
            backend is not None
            and backend.refusal(game, DEFAULT_LIMIT) is None
            and backend.uncovered(game.initial()) is None
        )

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        backend = BACKENDS.get(game.name)
        if backend is None:
            raise AgentSpecError(f"agent {cls.name} plays only {', '.join(BACKENDS)}, not {game.name}")
        reason = backend.refusal(game, settings.limit)
        if reason is not None:
            raise AgentSpecError(reason)

    def choose(self, state: Any) -> Any:
        self.check_game(self.settings, state.game)
        backend = BACKENDS[state.game.name]
        reason = backend.uncovered(state)
        if reason is not None:
            raise UncoveredPosition(reason)
        actions = backend.best_actions(state, self.settings.limit)
        return state.move_from_index(self.rng.choice(actions))


class OptimalNimAgent(Agent):
    """Plays Nim by the nim-sum rule, misère and move limits included.

    A random winning move when there is one; in a lost position, a random legal move (the
    opponent must then find the winning reply itself).
    """

    name = "optimal"
    summary = "Nim by the nim-sum rule (misère and move limit included): wins every won position"
    games = ("nim",)

    def choose(self, state: Any) -> Any:
        game = state.game
        won = winning_moves(state.piles, game.k, game.misere)
        if won:
            pile, count = self.rng.choice(won)
            return game.move_of(pile * game.max_take + count - 1)
        return state.move_from_index(self.rng.choice(state.legal_indices()))


def register_backend(game: str, backend: Backend) -> None:
    """Let the perfect agent play ``game`` (a registered game name) with ``backend``."""
    BACKENDS[game] = backend
    PerfectAgent.games = tuple(BACKENDS)


__all__ = [
    "BACKENDS",
    "Backend",
    "OptimalNimAgent",
    "PerfectAgent",
    "PerfectSettings",
    "UncoveredPosition",
    "register_backend",
    "small_best_actions",
]
