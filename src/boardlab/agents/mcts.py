"""The MCTS agent: UCT with random rollouts (:mod:`boardlab.search.mcts`) behind ``act``.

Its decision carries the visit shares of the root's moves as the policy, the mean result of
the simulations for the side to move as the value, and the most visited line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.spec import option

if TYPE_CHECKING:
    from boardlab.search.mcts import MctsResult, Search

# The search is compiled (numba): it is imported where it runs, so that naming and listing the
# agents loads no compiler.

DEFAULT_ITERATIONS = 1000  # when neither the call nor the spec sets a budget


def tree_budget(limit: Limit | None, default: Limit, state: Any, iterations: int) -> tuple[int, float]:
    """The simulations and seconds (0: no bound) a tree search from ``state`` may spend: the
    call's ``limit`` over the agent's ``default``, with ``iterations`` simulations when
    neither bounds anything."""
    budget = call_limit(limit, default, state)
    simulations = budget.iterations or 0
    seconds = budget.time or 0.0
    if not simulations and not seconds:
        simulations = iterations
    return simulations, seconds


def tree_decision(state: Any, search: Search, action: int, engine: str) -> Decision:
    """The decision to play ``action`` after ``search``: the root's visit shares as the
    policy, the search's mean result as the value, and the most visited line from ``action``."""
    value = search.value()
    line = search.principal_line(action)
    info = SearchInfo(
        depth=len(line),
        nodes=search.simulations,
        seconds=search.seconds,
        score=value,
        pv=state.line_notation(line),
        engine=engine,
    )
    return Decision(state.move_from_index(action), policy=search.policy(), value=value, info=info)


@dataclass(frozen=True)
class MctsSettings:
    """Options of the MCTS agent."""

    iters: int = option(0, "iterations per move (0: use the time budget)", minimum=0, maximum=10**9)
    time: float = option(
        0.0, "seconds per move (0: no limit; 1000 iterations if both are 0)", minimum=0, maximum=3600
    )
    c: float = option(1.4, "exploration constant of UCB1", minimum=0, maximum=100)
    rollout: int = option(
        200, "rollout length cap in plies (a capped rollout is a draw)", minimum=1, maximum=10**6
    )
    rollouts: int = option(
        1, "random rollouts per new leaf (their mean is backed up)", minimum=1, maximum=10**4
    )


class MctsAgent(Agent):
    """UCT Monte Carlo tree search with uniformly random rollouts."""

    name = "mcts"
    summary = "UCT Monte Carlo tree search with random rollouts"
    Settings: ClassVar[type] = MctsSettings
    settings: MctsSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self.np_rng = np.random.default_rng(seed)
        self.last: MctsResult | None = None

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(time=settings.time, iterations=settings.iters)

    def prepare(self, game: Any) -> None:
        from boardlab.search.mcts import compiled_mcts

        compiled_mcts(game.kernel)

    def search(self, state: Any, limit: Limit | None = None) -> Search:
        """The search tree grown from ``state`` within ``limit`` (over the default limit)."""
        from boardlab.search.mcts import UCT, Rollouts, Search, default_capacity

        iterations, seconds = tree_budget(limit, self.limit, state, DEFAULT_ITERATIONS)
        s = self.settings
        me, opp = state.words
        capacity = default_capacity(state.kernel, iterations, seconds, s.rollouts)
        search = Search(
            state.kernel,
            me,
            opp,
            Rollouts(s.rollout, s.rollouts),
            UCT,
            s.c,
            rng=self.np_rng,
            capacity=capacity,
        )
        search.run(iterations, seconds)
        return search

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        from boardlab.search.mcts import MctsResult

        search = self.search(state, limit)
        action, mean = search.best()
        self.last = MctsResult(action, search.simulations, search.seconds, mean)
        return tree_decision(state, search, action, "mcts")
