"""Generic best-first search: A*, weighted A* and breadth-first search on any state space.

The search knows nothing about the problem it solves. A problem supplies a start state, a
successor function yielding ``(child, step_cost)`` pairs, a goal test and a heuristic. States
are identified in the closed set by ``key(state)`` (the state itself by default), so two paths
reaching the same key keep only the cheaper one.

Ordering of the frontier (a binary heap) is deterministic:

1. smallest priority ``f = g + weight * h`` first;
2. at equal ``f``, the larger ``g`` (the deeper node, closer to a goal) first;
3. at equal ``f`` and ``g``, the node generated first (insertion order).

With ``h = 0`` and unit step costs every node at depth ``d`` is expanded before any node at
depth ``d + 1`` and, inside one depth, in the order of generation: that is breadth-first search
(uniform-cost search in general).
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar

State = TypeVar("State")

Successors = Callable[[State], Iterable[tuple[State, float]]]
Heuristic = Callable[[State], float]


class SearchStatus(Enum):
    """How a search ended."""

    FOUND = "found"
    """A goal was reached; with an admissible heuristic and ``weight == 1`` it is optimal."""

    NO_SOLUTION = "no solution"
    """The frontier emptied without reaching a goal: no goal is reachable."""

    BUDGET_EXHAUSTED = "budget exhausted"
    """The expansion or time limit was reached before a goal was expanded."""


@dataclass(frozen=True)
class SearchResult(Generic[State]):
    """Outcome of :func:`best_first_search`.

    Attributes:
        status: how the search ended.
        path: states from the start to the goal (empty unless ``status`` is ``FOUND``).
        cost: cost of ``path`` (``math.inf`` when no goal was reached).
        expansions: nodes taken from the frontier and expanded (the goal node is counted).
        generated: child states produced by the successor function, duplicates included.
        lower_bound: a proven lower bound on the optimal cost when the heuristic is admissible:
            the smallest ``g + h`` on the frontier when the search stopped (equal to ``cost``
            for an optimal A* result, ``math.inf`` when the frontier is empty).
        seconds: wall-clock time of the search.
    """

    status: SearchStatus
    path: list[State] = field(default_factory=list)
    cost: float = math.inf
    expansions: int = 0
    generated: int = 0
    lower_bound: float = 0.0
    seconds: float = 0.0

    @property
    def found(self) -> bool:
        """Whether a goal was reached."""
        return self.status is SearchStatus.FOUND


class BudgetExhaustedError(RuntimeError):
    """Raised by :func:`best_first_search` when ``raise_on_budget`` is set and a limit is hit."""

    def __init__(self, result: SearchResult[Any]) -> None:
        super().__init__(
            f"search budget exhausted after {result.expansions} expansions "
            f"({result.seconds:.2f} s); proven lower bound {result.lower_bound:g}"
        )
        self.result = result


@dataclass
class _Node(Generic[State]):
    state: State
    g: float
    h: float
    parent: int  # index in the node table, -1 for the start node


def _path_to(nodes: list[_Node[State]], index: int) -> list[State]:
    path: list[State] = []
    while index >= 0:
        path.append(nodes[index].state)
        index = nodes[index].parent
    path.reverse()
    return path


def best_first_search(
    start: State,
    successors: Successors[State],
    is_goal: Callable[[State], bool],
    heuristic: Heuristic[State],
    *,
    key: Callable[[State], Hashable] | None = None,
    weight: float = 1.0,
    max_expansions: int | None = None,
    time_limit: float | None = None,
    raise_on_budget: bool = False,
) -> SearchResult[State]:
    """Run A* (``weight == 1``), weighted A* (``weight > 1``) or breadth-first search (``h = 0``).

    Args:
        start: the initial state.
        successors: yields ``(child, step_cost)`` for a state; costs must be non-negative.
        is_goal: goal test, applied when a node is taken from the frontier (so the first goal
            expanded is optimal under an admissible heuristic).
        heuristic: estimate of the remaining cost; ``math.inf`` marks a dead end, which is not
            put on the frontier. Admissible heuristics give optimal results; inconsistent ones
            are handled by reopening a state reached again with a smaller ``g``.
        key: maps a state to the hashable identity used by the closed set (default: the state).
        weight: factor on ``h``, a finite number >= 1; with an admissible heuristic the cost
            found is at most ``weight`` times the optimum.
        max_expansions: stop after this many expansions.
        time_limit: stop after this many seconds (checked once per expansion).
        raise_on_budget: raise :class:`BudgetExhaustedError` instead of returning a
            ``BUDGET_EXHAUSTED`` result.

    Returns:
        A :class:`SearchResult` with the path, its cost, the counters and a lower bound.

    Raises:
        ValueError: a weight below 1 or not finite, a negative limit, a NaN time limit.
    """
    if not 1.0 <= weight < math.inf:
        raise ValueError(f"weight must be a finite number >= 1, got {weight}")
    check_budget(max_expansions, time_limit)
    key_of = key if key is not None else _identity
    began = time.perf_counter()
    nodes: list[_Node[State]] = []
    best_g: dict[Hashable, float] = {}
    frontier: list[tuple[float, float, int]] = []  # (f, -g, node index)
    expansions = 0
    generated = 0

    def push(state: State, g: float, parent: int) -> None:
        h = heuristic(state)
        if math.isinf(h):
            return
        state_key = key_of(state)
        known = best_g.get(state_key)
        if known is not None and known <= g:
            return
        best_g[state_key] = g
        nodes.append(_Node(state, g, h, parent))
        heapq.heappush(frontier, (g + weight * h, -g, len(nodes) - 1))

    def finish(
        status: SearchStatus, goal_index: int = -1, open_bound: float = math.inf
    ) -> SearchResult[State]:
        live = [nodes[i] for _, _, i in frontier if nodes[i].g <= best_g[key_of(nodes[i].state)]]
        bound = min((node.g + node.h for node in live), default=math.inf)
        bound = min(bound, open_bound)
        path: list[State] = []
        cost = math.inf
        if goal_index >= 0:
            path = _path_to(nodes, goal_index)
            cost = nodes[goal_index].g
            bound = min(bound, cost)
        return SearchResult(
            status=status,
            path=path,
            cost=cost,
            expansions=expansions,
            generated=generated,
            lower_bound=bound,
            seconds=time.perf_counter() - began,
        )

    def stop(result: SearchResult[State]) -> SearchResult[State]:
        if raise_on_budget:
            raise BudgetExhaustedError(result)
        return result

    push(start, 0.0, -1)
    while frontier:
        if _over_budget(expansions, max_expansions, began, time_limit):
            return stop(finish(SearchStatus.BUDGET_EXHAUSTED))
        _, _, index = heapq.heappop(frontier)
        node = nodes[index]
        if node.g > best_g[key_of(node.state)]:
            continue  # stale entry: the state was reached again more cheaply
        expansions += 1
        if is_goal(node.state):
            return finish(SearchStatus.FOUND, index)
        for child, step_cost in successors(node.state):
            generated += 1
            push(child, node.g + step_cost, index)
            if _over_budget(expansions, None, began, time_limit):
                # children of this node may be missing from the frontier: its own g + h
                # still bounds them from below
                return stop(finish(SearchStatus.BUDGET_EXHAUSTED, open_bound=node.g + node.h))
    return finish(SearchStatus.NO_SOLUTION)


def check_budget(max_expansions: int | None, time_limit: float | None) -> None:
    """Refuse a negative expansion limit and a time limit that is negative or NaN (``ValueError``)."""
    if max_expansions is not None and max_expansions < 0:
        raise ValueError(f"max_expansions must be >= 0, got {max_expansions}")
    if time_limit is not None and not time_limit >= 0:
        raise ValueError(f"time_limit must be a number of seconds >= 0, got {time_limit}")


def _identity(state: State) -> Hashable:
    return state


def _over_budget(expansions: int, max_expansions: int | None, began: float, time_limit: float | None) -> bool:
    if max_expansions is not None and expansions >= max_expansions:
        return True
    return time_limit is not None and time.perf_counter() - began >= time_limit
