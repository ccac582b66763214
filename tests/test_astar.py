"""The generic best-first search, on small graphs independent of set cover."""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterator
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardlab.labs.astar import (
    BudgetExhaustedError,
    SearchStatus,
    best_first_search,
)

Graph = dict[int, list[tuple[int, float]]]


def _dijkstra(graph: Graph, start: int, goal: int) -> float:
    distances = {start: 0.0}
    queue = [(0.0, start)]
    while queue:
        distance, node = heapq.heappop(queue)
        if node == goal:
            return distance
        if distance > distances[node]:
            continue
        for child, cost in graph.get(node, []):
            candidate = distance + cost
            if candidate < distances.get(child, math.inf):
                distances[child] = candidate
                heapq.heappush(queue, (candidate, child))
    return math.inf


def _search_graph(graph: Graph, start: int, goal: int, **options: object):
    return best_first_search(
        start,
        lambda node: iter(graph.get(node, [])),
        lambda node: node == goal,
        lambda node: 0.0,
        **options,  # type: ignore[arg-type]
    )


graphs = st.dictionaries(
    st.integers(0, 11),
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 9).map(float)), max_size=5),
    max_size=12,
)


@given(graphs, st.integers(0, 11))
def test_uniform_cost_matches_dijkstra(graph: Graph, goal: int) -> None:
    result = _search_graph(graph, 0, goal)
    expected = _dijkstra(graph, 0, goal)
    assert result.cost == expected
    if math.isinf(expected):
        assert result.status is SearchStatus.NO_SOLUTION
        assert result.path == []
    else:
        assert result.path[0] == 0 and result.path[-1] == goal
        steps = {(a, b): min(c for x, c in graph[a] if x == b) for a, b in pairwise(result.path)}
        assert sum(steps.values()) == result.cost


def _grid_successors(size: int, walls: set[tuple[int, int]]):
    def successors(cell: tuple[int, int]) -> Iterator[tuple[tuple[int, int], float]]:
        row, column = cell
        for d_row, d_column in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            nxt = (row + d_row, column + d_column)
            if 0 <= nxt[0] < size and 0 <= nxt[1] < size and nxt not in walls:
                yield nxt, 1.0

    return successors


@given(st.sets(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=20))
def test_manhattan_astar_is_optimal_and_expands_no_more_than_breadth_first(
    walls: set[tuple[int, int]],
) -> None:
    walls -= {(0, 0), (6, 6)}
    goal = (6, 6)
    successors = _grid_successors(7, walls)

    def manhattan(cell: tuple[int, int]) -> float:
        return float(abs(goal[0] - cell[0]) + abs(goal[1] - cell[1]))

    astar = best_first_search((0, 0), successors, lambda c: c == goal, manhattan)
    breadth = best_first_search((0, 0), successors, lambda c: c == goal, lambda c: 0.0)
    assert astar.cost == breadth.cost
    assert astar.status == breadth.status
    if astar.found:
        assert len(astar.path) == astar.cost + 1
        assert astar.lower_bound == astar.cost
        # consistent heuristic, same tie-breaking: A* never expands more than breadth-first
        assert astar.expansions <= breadth.expansions


def test_weighted_astar_cost_within_weight_of_optimum() -> None:
    goal = (9, 9)
    walls = {(r, 5) for r in range(9)} | {(5, c) for c in range(1, 5)}
    successors = _grid_successors(10, walls)

    def manhattan(cell: tuple[int, int]) -> float:
        return float(abs(goal[0] - cell[0]) + abs(goal[1] - cell[1]))

    optimal = best_first_search((0, 0), successors, lambda c: c == goal, manhattan)
    for weight in (1.5, 2.0, 5.0):
        weighted = best_first_search((0, 0), successors, lambda c: c == goal, manhattan, weight=weight)
        assert weighted.found
        assert optimal.cost <= weighted.cost <= weight * optimal.cost
        assert weighted.lower_bound <= optimal.cost


def test_a_large_weight_follows_the_heuristic_to_a_costlier_goal() -> None:
    # admissible h; the cheap path (0, 2, 4, 3: cost 3) starts where h looks worse
    graph: Graph = {0: [(1, 1.0), (2, 1.0)], 1: [(3, 10.0)], 2: [(4, 1.0)], 4: [(3, 1.0)]}
    heuristic = {0: 2.0, 1: 1.0, 2: 2.0, 4: 1.0, 3: 0.0}

    def search(weight: float):
        return best_first_search(
            0, lambda n: iter(graph.get(n, [])), lambda n: n == 3, heuristic.__getitem__, weight=weight
        )

    optimal, greedy = search(1.0), search(5.0)
    assert (optimal.path, optimal.cost, optimal.expansions) == ([0, 2, 4, 3], 3.0, 5)
    assert (greedy.path, greedy.cost, greedy.expansions) == ([0, 1, 3], 11.0, 3)
    assert greedy.cost <= 5.0 * optimal.cost


def test_the_cost_is_the_paths_cost_whatever_the_heuristic_says_at_the_goal() -> None:
    graph: Graph = {0: [(1, 2.0)], 1: [(2, 3.0)]}
    result = best_first_search(0, lambda n: iter(graph.get(n, [])), lambda n: n == 2, lambda n: 1.0)
    assert (result.path, result.cost) == ([0, 1, 2], 5.0)


def test_weight_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="weight"):
        _search_graph({0: [(1, 1.0)]}, 0, 1, weight=0.5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"weight": math.nan}, "weight"),
        ({"weight": math.inf}, "weight"),
        ({"max_expansions": -1}, "max_expansions"),
        ({"time_limit": -1.0}, "time_limit"),
        ({"time_limit": math.nan}, "time_limit"),
    ],
)
def test_non_finite_weights_and_bad_limits_are_rejected(options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _search_graph({0: [(1, 1.0)]}, 0, 1, **options)


def test_breadth_first_order_is_fifo_by_depth_then_generation() -> None:
    tree: Graph = {0: [(1, 1.0), (2, 1.0)], 1: [(3, 1.0), (4, 1.0)], 2: [(5, 1.0)], 5: [(6, 1.0)]}
    expanded: list[int] = []

    def successors(node: int) -> Iterator[tuple[int, float]]:
        expanded.append(node)
        return iter(tree.get(node, []))

    result = best_first_search(0, successors, lambda n: n == 6, lambda n: 0.0)
    assert expanded == [0, 1, 2, 3, 4, 5]
    assert result.path == [0, 2, 5, 6]
    assert result.expansions == 7  # the goal counts as expanded
    assert result.generated == 6


def test_ties_on_f_prefer_deeper_nodes() -> None:
    # both children of 0 have f = 2; the deeper path through 1 reaches the goal without
    # expanding the shallow node 2 (which is generated first but has smaller g).
    graph: Graph = {0: [(2, 0.0), (1, 1.0)], 1: [(3, 1.0)], 2: [(3, 2.0)]}
    heuristic = {0: 2.0, 1: 1.0, 2: 2.0, 3: 0.0}
    expanded: list[int] = []

    def successors(node: int) -> Iterator[tuple[int, float]]:
        expanded.append(node)
        return iter(graph.get(node, []))

    result = best_first_search(0, successors, lambda n: n == 3, heuristic.__getitem__)
    assert result.path == [0, 1, 3]
    assert expanded == [0, 1]


def test_duplicate_states_are_merged_by_key() -> None:
    # states carry a label that the key ignores: the second path to "b" is discarded
    graph = {"a": [("b", 1.0), ("c", 1.0)], "b": [("d", 1.0)], "c": [("b", 1.0)], "d": []}
    result = best_first_search(
        ("a", 0),
        lambda state: (((name, state[1] + 1), cost) for name, cost in graph[state[0]]),
        lambda state: state[0] == "d",
        lambda state: 0.0,
        key=lambda state: state[0],
    )
    assert [name for name, _ in result.path] == ["a", "b", "d"]
    assert result.expansions == 4  # a, b, c, d: b is not expanded twice


def test_dead_ends_with_infinite_heuristic_are_pruned() -> None:
    graph: Graph = {0: [(1, 1.0), (2, 5.0)], 1: [(3, 1.0)], 2: [(3, 1.0)]}
    result = best_first_search(
        0, lambda n: iter(graph.get(n, [])), lambda n: n == 3, lambda n: math.inf if n == 1 else 0.0
    )
    assert result.path == [0, 2, 3]
    assert result.cost == 6.0


def test_a_goal_reached_only_through_a_dead_end_is_not_found() -> None:
    # the heuristic's verdict is trusted: the only way to the goal passes node 1, a dead end
    graph: Graph = {0: [(1, 1.0)], 1: [(2, 1.0)]}
    expanded: list[int] = []

    def successors(node: int) -> Iterator[tuple[int, float]]:
        expanded.append(node)
        return iter(graph.get(node, []))

    result = best_first_search(0, successors, lambda n: n == 2, lambda n: math.inf if n == 1 else 0.0)
    assert result.status is SearchStatus.NO_SOLUTION
    assert expanded == [0]
    assert result.lower_bound == math.inf


def test_a_state_reached_again_at_the_same_cost_is_expanded_once() -> None:
    # a diamond: d is reached through b and through c, both at cost 2
    graph = {"a": [("b", 1.0), ("c", 1.0)], "b": [("d", 1.0)], "c": [("d", 1.0)], "d": [("e", 1.0)], "e": []}
    expanded: list[str] = []

    def successors(node: str) -> Iterator[tuple[str, float]]:
        expanded.append(node)
        return iter(graph[node])

    result = best_first_search("a", successors, lambda n: n == "e", lambda n: 0.0)
    assert result.cost == 3.0
    assert sorted(expanded) == ["a", "b", "c", "d"]
    assert result.expansions == 5


def test_a_state_reached_again_more_cheaply_is_expanded_once_and_keeps_the_bound_exact() -> None:
    # 1 is first reached directly (g = 5), then through 2 (g = 2); 4 is unreachable
    graph: Graph = {0: [(1, 5.0), (2, 1.0)], 2: [(1, 1.0)], 1: [(3, 10.0)]}
    expanded: list[int] = []

    def successors(node: int) -> Iterator[tuple[int, float]]:
        expanded.append(node)
        return iter(graph.get(node, []))

    stopped = best_first_search(0, successors, lambda n: n == 4, lambda n: 0.0, max_expansions=3)
    assert expanded == [0, 2, 1]
    assert stopped.lower_bound == 12.0  # node 3; the dearer entry of 1 (g = 5) proves nothing
    expanded.clear()
    finished = best_first_search(0, successors, lambda n: n == 4, lambda n: 0.0)
    assert finished.status is SearchStatus.NO_SOLUTION
    assert sorted(expanded) == [0, 1, 2, 3]


def test_a_search_stopped_amid_a_nodes_children_keeps_a_valid_bound() -> None:
    # the time runs out once the dear child of 0 is pushed: the cheap one (cost 1) is not
    def successors(node: int) -> Iterator[tuple[int, float]]:
        if node == 0:
            time.sleep(0.1)
            yield 1, 5.0
            yield 2, 1.0

    result = best_first_search(0, successors, lambda n: n == 2, lambda n: 0.0, time_limit=0.05)
    assert result.status is SearchStatus.BUDGET_EXHAUSTED
    assert result.generated == 1  # stopped at once, not after the rest of the children
    assert result.lower_bound <= 1.0


def _counting_chain() -> tuple[object, object]:
    return (lambda n: iter([(n + 1, 1.0)])), (lambda n: n == 1_000_000)


def test_expansion_limit_returns_budget_exhausted_with_a_valid_bound() -> None:
    successors, is_goal = _counting_chain()
    result = best_first_search(0, successors, is_goal, lambda n: 0.0, max_expansions=50)  # type: ignore[arg-type]
    assert result.status is SearchStatus.BUDGET_EXHAUSTED
    assert not result.found
    assert result.path == []
    assert result.expansions == 50
    assert result.lower_bound == 50.0  # node 50 is on the frontier with g = 50


def test_a_zero_expansion_limit_expands_nothing() -> None:
    successors, is_goal = _counting_chain()
    result = best_first_search(0, successors, is_goal, lambda n: 0.0, max_expansions=0)  # type: ignore[arg-type]
    assert result.status is SearchStatus.BUDGET_EXHAUSTED
    assert (result.expansions, result.lower_bound) == (0, 0.0)


def test_expansion_limit_can_raise() -> None:
    successors, is_goal = _counting_chain()
    with pytest.raises(BudgetExhaustedError, match="budget exhausted after 10 expansions") as info:
        best_first_search(0, successors, is_goal, lambda n: 0.0, max_expansions=10, raise_on_budget=True)  # type: ignore[arg-type]
    assert info.value.result.expansions == 10


def test_time_limit_stops_the_search() -> None:
    successors, is_goal = _counting_chain()
    result = best_first_search(0, successors, is_goal, lambda n: 0.0, time_limit=0.0)  # type: ignore[arg-type]
    assert result.status is SearchStatus.BUDGET_EXHAUSTED
    assert result.expansions == 0
