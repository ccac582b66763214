"""The minimax agent: plain negamax without pruning (:mod:`boardlab.search.minimax`), for
teaching: it counts the positions alpha-beta's pruning and ordering save."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.alphabeta import check_evaluation, evaluation_id
from boardlab.agents.base import Agent
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.spec import option
from boardlab.search.settings import MINIMAX_MAX_DEPTH as MAX_DEPTH

# The search is compiled (numba): it is imported where it runs, so that naming and listing the
# agents loads no compiler.


@dataclass(frozen=True)
class MinimaxSettings:
    """Options of the minimax agent."""

    depth: int = option(3, "search depth in plies", minimum=1, maximum=MAX_DEPTH)
    eval: str = option("", "position evaluation (default: the game's first)")


@dataclass
class MinimaxResult:
    """The chosen action, its value, and the nodes visited."""

    move: int
    score: float
    nodes: int
    seconds: float


class MinimaxAgent(Agent):
    """Plain depth-limited negamax: every move searched to the full depth, no pruning."""

    name = "minimax"
    summary = "plain negamax without pruning (counts nodes; compare with alphabeta)"
    Settings: ClassVar[type] = MinimaxSettings
    settings: MinimaxSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self.last: MinimaxResult | None = None

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        check_evaluation(cls.name, settings.eval, game)

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit(depth=settings.depth)

    def prepare(self, game: Any) -> None:
        from boardlab.search.minimax import compiled_minimax

        compiled_minimax(game.kernel)

    def analyse(self, state: Any, depth: int | None = None) -> MinimaxResult:
        """Search ``state`` to ``depth`` (default: the set depth); ties are broken from the seed."""
        from boardlab.search.minimax import compiled_minimax

        kernel = state.kernel
        negamax = compiled_minimax(kernel)
        start = time.perf_counter()
        a, b = state.words
        values, moves, nodes = negamax(
            kernel.ctx,
            np.int64(a),
            np.int64(b),
            min(depth or self.settings.depth, MAX_DEPTH),
            evaluation_id(kernel, self.settings.eval),
        )
        top = values.max()
        pick = self.rng.choice(np.flatnonzero(values == top).tolist())
        return MinimaxResult(int(moves[pick]), float(top), int(nodes), time.perf_counter() - start)

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        depth = call_limit(limit, self.limit, state).depth
        self.last = result = self.analyse(state, depth)
        move = state.move_from_index(result.move)
        info = SearchInfo(
            depth=depth or 0,
            nodes=result.nodes,
            seconds=result.seconds,
            score=result.score,
            pv=(str(move),),
            engine="minimax",
        )
        return Decision(move, info=info)
