"""OpenSpiel's bots as a boardlab agent: ``openspiel:bot=mcts,sims=1000``.

The agent plays any boardlab game through :mod:`boardlab.interop.openspiel`: on the games
OpenSpiel has in C++ (:data:`~boardlab.interop.openspiel.NATIVE_GAMES`) its own game is set up
from each position, elsewhere the bot runs on boardlab's rules registered as an OpenSpiel Python
game. This module imports the bridge (and so OpenSpiel) only when an agent is made or checked,
so that listing the agents works where the ``bridges`` extra is absent; making the agent then
fails with one line naming the extra.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.spec import option

BOTS = ("mcts", "alphabeta", "random")
ENGINES = ("auto", "native", "python")
DEFAULT_SIMULATIONS = 1000
PROBE_SIMULATIONS = 16
"""Simulations of the first search under a time limit, which measures the bot's speed."""
TIME_SHARE = 0.8
"""Share of a time limit (MCTS) or of the time left (alpha-beta's next depth) a search is
planned to fill: its speed or cost is a guess."""

__all__ = [
    "BOTS",
    "ENGINES",
    "OpenSpielAgent",
    "OpenSpielSettings",
    "next_depth_cost",
]


def _bridge() -> ModuleType:
    """The OpenSpiel bridge module; AgentSpecError naming the extra if OpenSpiel is missing."""
    try:
        from boardlab.interop import openspiel
    except ImportError:
        raise AgentSpecError(
            "openspiel: the agent needs the bridges extra: pip install 'boardlab[bridges]'"
        ) from None
    return openspiel


@dataclass(frozen=True)
class OpenSpielSettings:
    """Options of the OpenSpiel agent."""

    bot: str = option(
        "mcts", "OpenSpiel's bot: mcts (UCT, random rollouts), alphabeta or random", choices=BOTS
    )
    sims: int = option(0, "MCTS simulations per move (0: use the time budget)", minimum=0, maximum=10**8)
    time: float = option(
        0.0, "seconds per move (0: no limit; 1000 simulations if both are 0)", minimum=0, maximum=3600
    )
    c: float = option(1.4, "MCTS exploration constant (UCT)", minimum=0, maximum=100)
    rollouts: int = option(1, "random rollouts per MCTS leaf", minimum=1, maximum=10**4)
    depth: int = option(
        5,
        "alpha-beta depth in plies (0: to the end of the game, only for small games as the search "
        "keeps no table of positions: under a second a move for Tic-Tac-Toe or Nim of up to 12 "
        "objects, half a minute for 14, a minute for the default 1-3-5-7, never ending on "
        "Connect Four or Quixo; with time= it deepens while time is left)",
        minimum=0,
        maximum=100,
    )
    engine: str = option(
        "auto",
        "the game the bot plays: native (OpenSpiel's C++ game), python (boardlab's rules "
        "registered in OpenSpiel) or auto (native where OpenSpiel has the game)",
        choices=ENGINES,
    )


class OpenSpielAgent(Agent):
    """OpenSpiel's bots (MCTS, alpha-beta, random) playing boardlab games through the bridge.

    Limits: MCTS honours ``Limit.iterations`` (simulations) and alpha-beta ``Limit.depth``.
    OpenSpiel's bots have no clock, so ``Limit.time`` is kept from outside: MCTS runs as many
    simulations as the speed of its last search says fit in most of the time (a first, short
    search measures it), alpha-beta deepens one ply at a time while the next depth is expected
    to fit; with both a time and a count, whichever comes first. The decision carries
    MCTS's visit shares as the policy and the best move's mean result (MCTS) or the search's
    value (alpha-beta) as the value; its info says the simulations of MCTS and the depth
    alpha-beta reached, and leaves out what the bot does not say (alpha-beta counts no nodes).
    """

    name = "openspiel"
    summary = "OpenSpiel's bots (MCTS, alpha-beta, random) through the OpenSpiel bridge"
    Settings: ClassVar[type] = OpenSpielSettings
    settings: OpenSpielSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self.bridge = _bridge()
        self.np_rng = np.random.default_rng(seed)
        self.rate: float | None = None
        """Simulations a second of the last MCTS search, which paces the next under a time limit."""
        self.rate_at: tuple[Any, int] | None = None
        """The game and ply of the position :attr:`rate` was measured on."""

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        if settings.engine == "native" and not _bridge().has_native(game):
            raise AgentSpecError(
                "openspiel: engine=native plays only Connect Four 7x6, Tic-Tac-Toe and Nim with k=0, "
                f"not {game.spec}; use engine=auto or engine=python"
            )

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        iterations = settings.sims or (0 if settings.time else DEFAULT_SIMULATIONS)
        return Limit.from_options(time=settings.time, iterations=iterations, depth=settings.depth)

    def new_game(self) -> None:
        self.rate = self.rate_at = None

    def prepare(self, game: Any) -> None:
        self.bridge.spiel_state_for(game.initial(), self.settings.engine)

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        budget = call_limit(limit, self.limit, state)
        start = time.perf_counter()
        if budget.time is None or self.settings.bot == "random":
            answer = self._run(state, budget.iterations or DEFAULT_SIMULATIONS, budget.depth)
        elif self.settings.bot == "mcts":
            answer = self._timed_mcts(state, start + budget.time, budget.iterations or 10**8)
        else:
            answer = self._timed_alphabeta(state, start + budget.time, budget.depth)
        if answer.action not in state.legal_indices():
            raise self.bridge.OpenSpielBridgeError(
                f"OpenSpiel's {self.settings.bot} answered action {answer.action}, "
                f"not legal in {state.to_text()}"
            )
        move = state.move_from_index(answer.action)
        info = SearchInfo(
            depth=answer.depth,  # 0 (not said) but for alpha-beta
            nodes=answer.nodes,  # None (not said) but for MCTS: OpenSpiel's alpha-beta counts none
            seconds=time.perf_counter() - start,
            score=answer.value,
            pv=(str(move),),
            engine=f"openspiel-{self.settings.bot}",
        )
        return Decision(move, policy=answer.policy, value=answer.value, info=info)

    def _run(self, state: Any, simulations: int, depth: int | None) -> Any:
        """The bot's answer with ``simulations`` (MCTS) or to ``depth`` (alpha-beta); MCTS
        records its speed in :attr:`rate`."""
        s = self.settings
        start = time.perf_counter()
        answer = self.bridge.run_bot(
            state,
            s.bot,
            engine=s.engine,
            simulations=simulations,
            c=s.c,
            rollouts=s.rollouts,
            depth=depth,
            seed=int(self.np_rng.integers(2**31)),
        )
        if s.bot == "mcts" and answer.nodes >= simulations:
            # a search that stopped early (one legal move) says nothing of the speed
            self.rate = simulations / max(time.perf_counter() - start, 1e-6)
            self.rate_at = (state.game, state.ply)
        return answer

    def _timed_mcts(self, state: Any, deadline: float, most: int) -> Any:
        """MCTS of at most ``most`` simulations, as many as the speed of the last search says
        end by ``deadline`` (a ``time.perf_counter()`` reading); without a last search in this
        game at this ply or before (an earlier position's random games are longer, so slower),
        a short one measures the speed first, and answers if it stopped early (one legal move)
        or the time left holds no longer one."""
        if self.rate_at is not None and self.rate_at[0] == state.game and self.rate_at[1] <= state.ply:
            left = deadline - time.perf_counter()
            return self._run(state, max(1, min(most, int((self.rate or 0.0) * left * TIME_SHARE))), None)
        probe_size = min(PROBE_SIMULATIONS, most)
        probe = self._run(state, probe_size, None)
        simulations = min(most, int((self.rate or 0.0) * (deadline - time.perf_counter()) * TIME_SHARE))
        if self.rate_at != (state.game, state.ply) or simulations <= probe_size:
            return probe
        return self._run(state, simulations, None)

    def _timed_alphabeta(self, state: Any, deadline: float, depth_limit: int | None) -> Any:
        """Alpha-beta one ply deeper at a time, up to ``depth_limit`` (None: the longest game),
        while the next depth is expected to end by ``deadline`` (see :func:`next_depth_cost`),
        in :data:`TIME_SHARE` of the time left (the guess is rough)."""
        deepest = (
            depth_limit
            or self.bridge.spiel_state_for(state, self.settings.engine).get_game().max_game_length()
        )
        branching = len(state.legal_indices())
        answer = None
        costs: list[float] = []
        for depth in range(1, deepest + 1):
            expected = next_depth_cost(costs, branching) / TIME_SHARE if costs else 0.0
            if answer is not None and time.perf_counter() + expected > deadline:
                break
            began = time.perf_counter()
            answer = self._run(state, 0, depth)
            costs.append(time.perf_counter() - began)
        return answer


def next_depth_cost(costs: list[float], branching: int) -> float:
    """The expected time of alpha-beta's next depth, from the times of depths 1, 2, ... so far
    (``costs``, not empty) and the number of moves at the root (``branching``).

    Alpha-beta's cost grows unevenly: a ply that adds a level of the side to move's replies
    costs little more than the last, the next one many times more (Quixo 4x4: 5 ms, 10 ms,
    then 100 ms). So the guess is the largest of twice the last time, the last ply's growth
    again, and the growth over two plies applied to the depth two plies back, with the
    number of root moves standing in for that growth until three depths have been timed.
    """
    last = max(costs[-1], 1e-9)
    guess = 2.0 * last
    if len(costs) >= 2:
        before = max(costs[-2], 1e-9)
        two_ply = last / max(costs[-3], 1e-9) if len(costs) >= 3 else float(max(branching, 2))
        guess = max(guess, last * last / before, before * two_ply)
    return guess
