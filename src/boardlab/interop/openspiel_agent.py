"""OpenSpiel's bots as a boardlab agent: ``openspiel:bot=mcts,sims=1000``.

The agent plays any boardlab game through :mod:`boardlab.interop.openspiel`: on the games
OpenSpiel has in C++ (:data:`NATIVE_GAMES`) its own game is set up from each position, elsewhere
the bot runs on boardlab's rules registered as an OpenSpiel Python game. This module imports
without OpenSpiel, so that listing the agents works where the ``bridges`` extra is absent;
making the agent then fails with one line naming the extra.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.spec import option

NATIVE_GAMES = {"connect4": "connect_four", "tictactoe": "tic_tac_toe", "nim": "nim"}
"""boardlab games OpenSpiel has in C++, with OpenSpiel's name: Connect Four 7x6 and
Tic-Tac-Toe, and Nim without a move limit (any piles, misère or normal play)."""
BOTS = ("mcts", "alphabeta", "random")
ENGINES = ("auto", "native", "python")

__all__ = ["BOTS", "ENGINES", "NATIVE_GAMES", "OpenSpielAgent", "OpenSpielSettings", "has_native"]


def has_native(game: Any) -> bool:
    """True when OpenSpiel has ``game`` (a boardlab Game) in C++ (see :data:`NATIVE_GAMES`)."""
    if game.name == "nim":
        return getattr(game, "k", None) == 0
    return game.name in NATIVE_GAMES and game == type(game)()


@dataclass(frozen=True)
class OpenSpielSettings:
    """Options of the OpenSpiel agent."""

    bot: str = option(
        "mcts", "OpenSpiel's bot: mcts (UCT, random rollouts), alphabeta or random", choices=BOTS
    )
    sims: int = option(1000, "MCTS simulations per move", minimum=1, maximum=10**8)
    c: float = option(1.4, "MCTS exploration constant (UCT)", minimum=0, maximum=100)
    rollouts: int = option(1, "random rollouts per MCTS leaf", minimum=1, maximum=10**4)
    depth: int = option(
        5, "alpha-beta depth in plies (0: to the end of the game, for small games)", minimum=0, maximum=100
    )
    engine: str = option(
        "auto",
        "the game the bot plays: native (OpenSpiel's C++ game), python (boardlab's rules "
        "registered in OpenSpiel) or auto (native where OpenSpiel has the game)",
        choices=ENGINES,
    )


class OpenSpielAgent(Agent):
    """OpenSpiel's bots (MCTS, alpha-beta, random) playing boardlab games through the bridge.

    Limits: MCTS honours ``Limit.iterations`` (simulations) and alpha-beta ``Limit.depth``;
    OpenSpiel's bots have no clock, so a time limit is not honoured. The decision carries
    MCTS's visit shares as the policy and the best move's mean result (MCTS) or the search's
    value (alpha-beta) as the value.
    """

    name = "openspiel"
    summary = "OpenSpiel's bots (MCTS, alpha-beta, random) through the OpenSpiel bridge"
    Settings: ClassVar[type] = OpenSpielSettings
    settings: OpenSpielSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        try:
            from boardlab.interop import openspiel
        except ImportError:
            raise AgentSpecError(
                "openspiel: the agent needs the bridges extra: pip install 'boardlab[bridges]'"
            ) from None
        self.bridge = openspiel
        self.np_rng = np.random.default_rng(seed)

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        if settings.engine == "native" and not has_native(game):
            raise AgentSpecError(
                "openspiel: engine=native plays only Connect Four 7x6, Tic-Tac-Toe and Nim with k=0, "
                f"not {game.spec}; use engine=auto or engine=python"
            )

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(iterations=settings.sims, depth=settings.depth)

    def prepare(self, game: Any) -> None:
        self.bridge.spiel_state_for(game.initial(), self.settings.engine)

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        budget = call_limit(limit, self.limit)
        s = self.settings
        start = time.perf_counter()
        answer = self.bridge.run_bot(
            state,
            s.bot,
            engine=s.engine,
            simulations=budget.iterations or s.sims,
            c=s.c,
            rollouts=s.rollouts,
            depth=budget.depth,
            seed=int(self.np_rng.integers(2**31)),
        )
        if answer.action not in state.legal_indices():
            raise self.bridge.OpenSpielBridgeError(
                f"OpenSpiel's {s.bot} answered action {answer.action}, not legal in {state.to_text()}"
            )
        move = state.move_from_index(answer.action)
        info = SearchInfo(
            nodes=answer.nodes,
            seconds=time.perf_counter() - start,
            score=answer.value,
            pv=(str(move),),
            engine=f"openspiel-{s.bot}",
        )
        return Decision(move, policy=answer.policy, value=answer.value, info=info)
