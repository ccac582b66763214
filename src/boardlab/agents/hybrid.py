"""The hybrid agent: alpha-beta by default, Monte Carlo tree search where alpha-beta gives up,
solved tables where they exist.

Alpha-beta with the game's evaluation plays most moves. When it proves every move lost, the
move goes to MCTS: a minimax loss assumes a perfect opponent, and random rollouts look for
the lines where an imperfect one may still go wrong. Where solved endgame tables cover the
position (:mod:`boardlab.solvers.endgame`: Quixo's 3x3 and 4x4 tables, and the 5x5 tables of
full boards and boards with one blank once built), the move comes from them: the fastest
win, the slowest loss, or a draw, chosen at random among equals from the agent's seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.alphabeta import (
    DEFAULT_DEEPEN,
    MATE_ZONE,
    MAX_CONTEMPT,
    MAX_THREADS,
    AlphaBetaAgent,
    AlphaBetaSettings,
    check_evaluation,
    evaluation_weights,
)
from boardlab.agents.base import Agent
from boardlab.agents.decision import Limit
from boardlab.agents.mcts import compiled_mcts, mcts_search
from boardlab.solvers.endgame import Endgame, endgame_for
from boardlab.spec import option

ALPHABETA_SHARE = 0.75  # of the time per move
MIN_MCTS_SHARE = 0.05  # MCTS is not started with less time than this share
SAFETY_MARGIN = 0.03  # kept back for the work around the searches
ROLLOUT_CAP = 200
DEFAULT_CONTEMPT = 20.0
"""A fifth of a logit of Quixo's `tuned`: enough to walk out of a repetition of a position a
little below level, too little to give up a better position for it (see BENCHMARKS.md)."""


@dataclass(frozen=True)
class HybridSettings:
    """Options of the hybrid agent."""

    time: float = option(
        1.0,
        "seconds per move (alpha-beta gets its share, MCTS what alpha-beta leaves)",
        minimum=0.001,
        maximum=3600,
    )
    share: float = option(
        ALPHABETA_SHARE, "alpha-beta's share of the time per move", minimum=0.05, maximum=1 - SAFETY_MARGIN
    )
    depth: int = option(0, "alpha-beta depth limit (0: as deep as time allows)", minimum=0, maximum=64)
    eval: str = option("", "alpha-beta evaluation (default: the game's first)")
    contempt: float = option(
        DEFAULT_CONTEMPT,
        "how much worse than even a repeated position looks, in evaluation units",
        minimum=-MAX_CONTEMPT,
        maximum=MAX_CONTEMPT,
    )
    c: float = option(1.4, "MCTS exploration constant", minimum=0, maximum=100)
    tables: bool = option(True, "play perfectly where solved endgame tables cover the position")
    probe: bool = option(True, "alpha-beta looks for a win at once at its leaves (see BENCHMARKS.md)")
    deepen: float = option(
        DEFAULT_DEEPEN,
        "alpha-beta starts a new depth only while less than this share of its time is spent",
        minimum=0,
        maximum=1,
    )
    weights: str = option(
        "", "a JSON file of fitted evaluation weights for alpha-beta instead of the shipped ones"
    )
    threads: int = option(
        1, "alpha-beta's search threads (lazy SMP; 1: one thread)", minimum=1, maximum=MAX_THREADS
    )


class HybridAgent(Agent):
    """Alpha-beta that hands the move to MCTS when it only finds losses."""

    name = "hybrid"
    summary = "alpha-beta, handing over to MCTS when every move is proven lost"
    Settings: ClassVar[type] = HybridSettings
    settings: HybridSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        s = self.settings
        self.np_rng = np.random.default_rng(seed)
        searcher_settings = AlphaBetaSettings(
            depth=s.depth,
            time=s.share * s.time,
            eval=s.eval,
            contempt=s.contempt,
            probe=s.probe,
            deepen=s.deepen,
            weights=s.weights,
            threads=s.threads,
        )
        self.searcher = AlphaBetaAgent(seed=seed, settings=searcher_settings)
        self.last_engine = ""
        self._endgames: dict[Any, Endgame | None] = {}

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        check_evaluation(cls.name, settings.eval, game)
        evaluation_weights(cls.name, settings.weights, settings.eval, game.kernel)

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(time=settings.time, depth=settings.depth)

    def new_game(self) -> None:
        self.searcher.new_game()

    def prepare(self, game: Any) -> None:
        self.searcher.prepare(game)
        compiled_mcts(game.kernel)  # the first hand-over must not pay for a compile
        self._endgame(game)

    def _endgame(self, game: Any) -> Endgame | None:
        """The game's endgame tables, looked for once per game variant."""
        if not self.settings.tables:
            return None
        if game not in self._endgames:
            self._endgames[game] = endgame_for(game)
        return self._endgames[game]

    def choose(self, state: Any) -> Any:
        endgame = self._endgame(state.game)
        if endgame is not None and endgame.covers(state):
            self.last_engine = "tables"
            best = endgame.best_actions(state)
            return state.move_from_index(best[int(self.np_rng.integers(len(best)))])
        budget = self.settings.time
        deadline = time.perf_counter() + (1.0 - SAFETY_MARGIN) * budget
        result = self.searcher.last = self.searcher.analyse(state)
        if result.score > -MATE_ZONE:
            self.last_engine = "alphabeta"
            return state.move_from_index(result.move)
        remaining = deadline - time.perf_counter()
        if remaining < MIN_MCTS_SHARE * budget:
            self.last_engine = "alphabeta"  # no time left to look for swindles
            return state.move_from_index(result.move)
        self.last_engine = "mcts"
        me, opp = state.words
        outcome, _ = mcts_search(
            state.kernel, me, opp, 0, max(remaining, 1e-3), self.settings.c, ROLLOUT_CAP, self.np_rng
        )
        return state.move_from_index(outcome.move)
