"""Agents that play from a game's exact play (:mod:`boardlab.games.exact`).

``perfect`` wins as fast as it can, holds out as long as it can when lost, and picks at
random (from its seed) among equally good moves. It plays the games whose registered exact
play ranks moves by distance or score: small games solved in full (Tic-Tac-Toe, small Nim),
Quixo from its tables (3x3 at once, 4x4 once built, the 5x5 endgames: a game solved only in
part is not listed as one the agent plays, but the agent plays its covered positions), and
Connect Four from its solver, which searches within the move's time (default 10 s); when the
solver proves no move in time, the agent plays alpha-beta's move in what is left.

``optimal`` plays by a game's closed-form solution (Nim's nim-sum rule): a winning move
whenever there is one, else any move, for positions of any size.

Both answer a :class:`~boardlab.agents.decision.Decision` with the value of the position
(1, 0 or -1) and a policy spread evenly over the best moves.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError, NoSettings
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.spec import option
from boardlab.games import (
    ExactPlay,
    ExactPlayError,
    GameError,
    OutOfTime,
    available_games,
    exact_play,
    exact_providers,
)
from boardlab.games.exact import distance_under_cap, value_under_cap
from boardlab.games.small_solver import DEFAULT_LIMIT
from boardlab.search.settings import MAX_DEPTH

if TYPE_CHECKING:
    from boardlab.search.alphabeta import SearchRunner

SOLVE_SHARE = 0.85
"""Share of a move's time an exact play that searches may spend; alpha-beta gets the rest
when it proves no move."""
MIN_FALLBACK_SECONDS = 0.05
"""Least time alpha-beta gets when the exact play proves no move, if the move's time has it
(else what the exact play's share leaves: the whole move keeps to its time)."""


@dataclass(frozen=True)
class PerfectSettings:
    """Options of the perfect agent."""

    limit: int = option(
        DEFAULT_LIMIT, "most positions an exhaustive solve may hold", minimum=1, maximum=10**8
    )


def _games_with(accept: Callable[[type[ExactPlay]], bool]) -> tuple[str, ...]:
    """The games that load and have an exact play ``accept`` takes (one whose exact play does
    not import is left out here; using it says why)."""
    names = []
    for name in available_games():
        try:
            if any(accept(p) for p in exact_providers(name)):
                names.append(name)
        except (ExactPlayError, GameError):
            continue
    return tuple(names)


class _GamesWith:
    """A class attribute: the games with an exact play that ``accept`` takes, found each time
    it is read rather than once at import, so that importing the agents loads no game (one
    broken game package breaks nothing else) and games registered later are seen."""

    def __init__(self, accept: Callable[[type[ExactPlay]], bool]) -> None:
        self.accept = accept

    def __get__(self, instance: object, owner: type | None = None) -> tuple[str, ...]:
        return _games_with(self.accept)


def _ranks_moves(provider: type[ExactPlay]) -> bool:
    return provider.knows_depth


def _closed_form(provider: type[ExactPlay]) -> bool:
    return provider.closed_form


@functools.cache
def _runner(game: Any) -> SearchRunner:
    from boardlab.search.alphabeta import SearchRunner  # compiled code: loaded at its first use

    return SearchRunner(game.kernel, "", tt_log2=20)


class PerfectAgent(Agent):
    """Exact play from a solved game: fastest win, slowest loss, random among equals."""

    name = "perfect"
    summary = "exact play from a solved game: wins fastest, loses slowest (small games)"
    Settings: ClassVar[type] = PerfectSettings
    accept: ClassVar[Callable[[type[ExactPlay]], bool]] = staticmethod(_ranks_moves)
    games = _GamesWith(_ranks_moves)  # type: ignore[assignment]

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self._exact: dict[Any, ExactPlay] = {}

    @classmethod
    def exact_for(cls, game: Any, limit: int = DEFAULT_LIMIT) -> ExactPlay:
        """The exact play this agent plays ``game`` with; ExactPlayError when there is none."""
        return exact_play(game, limit=limit, accept=cls.accept)

    @classmethod
    def supports(cls, game: Any) -> bool:
        """True if the agent plays whole games of ``game``, from its first position."""
        try:
            exact = cls.exact_for(game)
        except ExactPlayError:
            return False
        return exact.covers(game.initial())

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        if not any(cls.accept(provider) for provider in cls._providers(game)):
            super().check_game(settings, game)  # "plays only ..., not <game>"
        try:
            cls.exact_for(game, getattr(settings, "limit", DEFAULT_LIMIT))
        except ExactPlayError as err:
            raise AgentSpecError(f"{cls.name}: {err}{cls._other_agent(game)}") from None

    @classmethod
    def _providers(cls, game: Any) -> list[type[ExactPlay]]:
        """The exact plays ``game`` names (only this game's: the others are not loaded);
        AgentSpecError when one of them cannot be imported."""
        try:
            return exact_providers(game)
        except ExactPlayError as err:
            raise AgentSpecError(f"{cls.name}: {err}") from None

    @classmethod
    def check_whole_game(cls, settings: Any, game: Any, start: Any = None) -> None:
        """Refused where the exact play does not cover the start (a game's first position is
        outside 5x5 Quixo's endgame tables, built or not): each move there would be a forfeit."""
        if start is None:
            for provider in cls._providers(game):
                if cls.accept(provider) and (part := provider.covers_only(game)) is not None:
                    raise AgentSpecError(
                        f"{cls.name} plays only the positions its exact play covers, and {part}; a "
                        f"whole game of {game.spec} needs another agent, such as hybrid, which plays "
                        "from the tables where they cover"
                    )
        cls.check_game(settings, game)
        exact = cls.exact_for(game, getattr(settings, "limit", DEFAULT_LIMIT))
        reason = exact.uncovered(game.initial() if start is None else start)
        if reason is not None:
            where = "the game's first position" if start is None else "that position"
            raise AgentSpecError(f"{cls.name} cannot play a whole game from {where}: {reason}")

    @classmethod
    def _other_agent(cls, game: Any) -> str:
        if cls.accept is not _closed_form and game.name in OptimalAgent.games:
            return "; play it with the optimal agent (its closed-form rule)"
        return ""

    def prepare(self, game: Any) -> None:
        exact = self._exact_play(game)
        # warming only saves the first move some time: a failure there is no failure to start,
        # since each move reads what it needs and says so if that fails
        with contextlib.suppress(Exception):
            exact.warm()
        if exact.default_seconds is not None:
            _runner(game)  # an exact play that searches may leave the move to alpha-beta

    def _exact_play(self, game: Any) -> ExactPlay:
        if game not in self._exact:
            self.check_game(self.settings, game)
            self._exact[game] = self.exact_for(game, getattr(self.settings, "limit", DEFAULT_LIMIT))
        return self._exact[game]

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        started = time.perf_counter()
        seconds = call_limit(limit, self.limit, state).time
        exact = self._exact_play(state.game)
        exact.check_covered(state)
        if seconds is None:
            seconds = exact.default_seconds
        try:
            actions = exact.best_actions(state, None if seconds is None else SOLVE_SHARE * seconds)
        except OutOfTime:
            assert seconds is not None  # only an exact play that searches runs out of time
            floor = min(MIN_FALLBACK_SECONDS, (1 - SOLVE_SHARE) * seconds)
            remaining = max(floor, started + seconds - time.perf_counter())
            return self._alphabeta(state, remaining)
        policy = np.zeros(state.kernel.num_actions)
        policy[actions] = 1.0 / len(actions)
        exact_value = exact.position_value(state)
        value = value_under_cap(state, exact_value)
        plies = distance_under_cap(state, exact_value)
        info = SearchInfo(seconds=time.perf_counter() - started, engine="exact", plies_to_end=plies)
        return Decision(state.move_from_index(self.rng.choice(actions)), policy, float(value), info)

    def _alphabeta(self, state: Any, seconds: float) -> Decision:
        """Alpha-beta's move, for a position the exact play could not solve in time."""
        rng = np.random.default_rng(self.rng.randrange(2**32))
        result = _runner(state.game).iterate(state.a, state.b, MAX_DEPTH, seconds, rng)
        info = SearchInfo(
            depth=int(result.depth), nodes=int(result.nodes), seconds=result.seconds, engine="alphabeta"
        )
        return Decision(state.move_from_index(int(result.move)), info=info)


class OptimalAgent(PerfectAgent):
    """Plays by a game's closed-form solution: a random winning move when there is one; in a
    lost position, a random legal move (the opponent must then find the winning reply)."""

    name = "optimal"
    summary = "plays by the game's closed-form rule (e.g. Nim's nim-sum): wins every won position"
    Settings: ClassVar[type] = NoSettings
    accept: ClassVar[Callable[[type[ExactPlay]], bool]] = staticmethod(_closed_form)
    games = _GamesWith(_closed_form)  # type: ignore[assignment]


__all__ = ["OptimalAgent", "PerfectAgent", "PerfectSettings"]
