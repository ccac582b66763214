"""The hybrid agent: alpha-beta by default, Monte Carlo tree search where alpha-beta is blind.

Alpha-beta with a heuristic plays most moves. The move goes to MCTS when alpha-beta proves
every move lost (a minimax loss assumes a perfect opponent; random rollouts look for the
lines where an imperfect one may still go wrong) or, if asked, when few blank cubes are left.
By default alpha-beta keeps the move on a full board too: there the game turns on avoiding
repetitions, which alpha-beta tracks and random rollouts do not.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from boardlab.agents.alphabeta import MATE_ZONE, AlphaBetaAgent
from boardlab.agents.base import Agent, Param, register
from boardlab.agents.mcts import mcts_search

ALPHABETA_SHARE = 0.75  # of the time per move
MIN_MCTS_SHARE = 0.05  # MCTS is not started with less time than this share
SAFETY_MARGIN = 0.03  # kept back for the work around the searches


@register
class HybridAgent(Agent):
    """Alpha-beta that hands the move to MCTS when it only finds losses or blanks run out."""

    name = "hybrid"
    summary = "alpha-beta, handing over to MCTS on proven losses or when few blanks are left"
    params = (
        Param(
            "time",
            float,
            1.0,
            f"seconds per move (alpha-beta gets {ALPHABETA_SHARE:.0%}, MCTS the rest)",
            minimum=0.001,
        ),
        Param("depth", int, 8, "alpha-beta depth limit (0: as deep as time allows)", minimum=0),
        Param(
            "eval",
            str,
            "lines2",
            "alpha-beta evaluation",
            choices=("winloss", "longest", "density", "lines3", "lines2"),
        ),
        Param("contempt", float, 300.0, "how much worse than even a repeated position looks"),
        Param("blanks", int, 0, "hand to MCTS when fewer blanks than this are left (0: never)", minimum=0),
        Param("c", float, 1.4, "MCTS exploration constant", minimum=0),
    )

    time: float
    depth: int
    eval: str
    contempt: float
    blanks: int
    c: float

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        self.np_rng = np.random.default_rng(seed)
        self.searcher = AlphaBetaAgent(
            seed=seed,
            depth=self.depth,
            time=ALPHABETA_SHARE * self.time,
            eval=self.eval,
            contempt=self.contempt,
        )
        self.last_engine = ""

    def new_game(self) -> None:
        self.searcher.new_game()

    def choose(self, state: Any) -> Any:
        deadline = time.perf_counter() + (1.0 - SAFETY_MARGIN) * self.time
        fallback = -1
        if state.blanks >= self.blanks:
            result = self.searcher.last = self.searcher.analyse(state)
            fallback = result.move
            if result.score > -MATE_ZONE:
                self.last_engine = "alphabeta"
                return state.move_from_index(result.move)
        remaining = deadline - time.perf_counter()
        if fallback >= 0 and remaining < MIN_MCTS_SHARE * self.time:
            self.last_engine = "alphabeta"  # no time left to look for swindles
            return state.move_from_index(fallback)
        self.last_engine = "mcts"
        me, opp = state.sides
        outcome, _ = mcts_search(state.kernel, me, opp, 0, max(remaining, 1e-3), self.c, 200, self.np_rng)
        return state.move_from_index(outcome.move)
