"""Set cover: generators, admissible heuristics, A* optimality against the HiGHS MILP, the
anytime search and the `boardlab setcover` command."""

from __future__ import annotations

import contextlib
import io
import math
import random
import re
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from boardlab.core import machine
from boardlab.labs.setcover import (
    ADMISSIBLE_HEURISTICS,
    HEURISTICS,
    InstanceTooLargeError,
    MilpResult,
    SetCoverProblem,
    UnknownHeuristicError,
    UnsolvableInstanceError,
    get_heuristic,
    greedy_cover,
    greedy_trap_problem,
    make_challenge_problem,
    make_lab_problem,
    point_weight_bound,
    solve_anytime,
    solve_astar,
    solve_milp,
    start_heuristic,
)
from boardlab.ui import setcover as setcover_cli
from boardlab.ui.cli import app

runner = CliRunner()


def _solvable_lab_problems(count: int, points: int, sets: int, density: float) -> list[SetCoverProblem]:
    problems: list[SetCoverProblem] = []
    seed = 0
    while len(problems) < count:
        with contextlib.suppress(UnsolvableInstanceError):
            problems.append(make_lab_problem(points, sets, density, seed))
        seed += 1
    return problems


def _brute_force_minimum(uncovered: int, allowed: list[int]) -> float:
    if uncovered == 0:
        return 0.0
    for size in range(1, len(allowed) + 1):
        for combination in combinations(allowed, size):
            union = 0
            for s in combination:
                union |= s
            if uncovered & ~union == 0:
                return float(size)
    return math.inf


# -- generators -------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [make_lab_problem, make_challenge_problem])
def test_generators_are_reproducible_from_the_seed(make) -> None:
    first = make(30, 50, 0.3, 123)
    again = make(30, 50, 0.3, 123)
    other = make(30, 50, 0.3, 124)
    assert first == again
    assert first.sets != other.sets
    assert (first.num_points, first.num_sets) == (30, 50)


def test_lab_generator_rejects_unsolvable_instances() -> None:
    with pytest.raises(UnsolvableInstanceError, match=r"31 points are in no set \(0, 1, 4,") as info:
        make_lab_problem(40, 3, 0.05, seed=0)
    assert isinstance(info.value, ValueError)


@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(1, 40))
@settings(max_examples=30)
def test_challenge_generator_always_covers_every_point(seed: int, points: int, sets: int) -> None:
    problem = make_challenge_problem(points, sets, 0.01, seed)
    assert problem.is_solvable
    assert problem.is_cover(range(problem.num_sets))


def test_challenge_generator_handles_5000_by_5000() -> None:
    problem = make_challenge_problem(5000, 5000, 0.3, seed=7)
    assert problem.is_solvable
    sizes = np.array([s.bit_count() for s in problem.sets])
    assert 0.28 < sizes.mean() / 5000 < 0.32


@pytest.mark.parametrize(("points", "sets", "density"), [(0, 5, 0.5), (5, 0, 0.5), (5, 5, 0.0), (5, 5, 1.5)])
def test_generators_validate_their_arguments(points: int, sets: int, density: float) -> None:
    with pytest.raises(ValueError):
        make_challenge_problem(points, sets, density, 0)


@given(st.lists(st.lists(st.booleans(), min_size=7, max_size=7), min_size=1, max_size=9))
def test_matrix_and_bitsets_round_trip(rows: list[list[bool]]) -> None:
    matrix = np.array(rows, dtype=bool)
    problem = SetCoverProblem.from_matrix(matrix)
    assert np.array_equal(problem.to_matrix(), matrix)
    for index, row in enumerate(rows):
        assert [bool(problem.sets[index] >> p & 1) for p in range(7)] == row


# -- heuristics ---------------------------------------------------------------------------------


def test_unknown_heuristic_names_are_rejected_with_the_accepted_names() -> None:
    problem = greedy_trap_problem()
    for call in (
        lambda: get_heuristic("manhattan"),
        lambda: solve_astar(problem, "manhattan"),
        lambda: solve_anytime(problem, "manhattan"),
    ):
        with pytest.raises(UnknownHeuristicError, match="accepted names: breadth_first") as info:
            call()
        assert all(name in str(info.value) for name in HEURISTICS)


@given(st.integers(0, 10_000), st.data())
@settings(max_examples=60)
def test_admissible_heuristics_are_ordered_and_below_the_true_remaining_cost(
    seed: int, data: st.DataObject
) -> None:
    rng = random.Random(seed)
    num_points = rng.randint(1, 10)
    sets = [rng.getrandbits(num_points) for _ in range(rng.randint(1, 9))]
    problem = SetCoverProblem(num_points, tuple(sets))
    uncovered = data.draw(st.integers(0, problem.all_points))
    first = data.draw(st.integers(0, len(sets)))
    allowed = sets[first:]
    truth = _brute_force_minimum(uncovered, allowed)
    values = [HEURISTICS[name].function(problem, uncovered, allowed) for name in ADMISSIBLE_HEURISTICS]
    if math.isinf(truth):
        # the point weights see every point, so the strongest bound detects it
        assert math.isinf(values[-1])
        return
    assert values == sorted(values), dict(zip(ADMISSIBLE_HEURISTICS, values, strict=True))
    assert values[-1] <= truth
    # the simple bounds are exactly their formulas (rounded up, not down)
    size = uncovered.bit_count()
    useful = sorted(((s & uncovered).bit_count() for s in allowed), reverse=True)
    largest = max(s.bit_count() for s in sets)
    expected = 0 if size == 0 else math.inf if largest == 0 else math.ceil(size / largest)
    assert HEURISTICS["ceil_largest"].function(problem, uncovered, allowed) == expected
    expected = 0 if size == 0 else math.ceil(size / useful[0])
    assert HEURISTICS["ceil_largest_useful"].function(problem, uncovered, allowed) == expected
    expected = next(k for k in range(len(useful) + 1) if sum(useful[:k]) >= size)
    assert HEURISTICS["k_largest"].function(problem, uncovered, allowed) == expected
    assert point_weight_bound(uncovered, allowed) <= truth + 1e-9


@pytest.mark.parametrize("name", ["ceil_largest_useful", "k_largest", "dual_bound"])
def test_heuristics_that_see_the_allowed_sets_mark_a_dead_end(name: str) -> None:
    problem = SetCoverProblem.from_sets(4, [[0, 1], [2, 3]])
    heuristic = HEURISTICS[name].function
    assert heuristic(problem, 0b0011, [0b1100]) == math.inf  # no allowed set holds points 0 or 1
    assert heuristic(problem, 0b0011, []) == math.inf
    assert heuristic(problem, 0, [0b1100]) == 0.0
    assert heuristic(problem, 0b0011, [0b0011]) == 1.0


def test_astar_never_takes_a_set_that_adds_nothing_or_leaves_a_dead_end() -> None:
    # set 1 lies inside set 0; after set 0 it adds nothing, and sets 1 or 2 first leave points
    # that no later set holds: the one child of each node is the one that can still finish
    problem = SetCoverProblem.from_sets(3, [[0, 1], [0], [2]])
    result = solve_astar(problem, "breadth_first")
    assert result.chosen == (0, 2) and result.proven_optimal
    assert result.generated == 2


def test_weighted_astar_does_not_claim_a_larger_cover_optimal() -> None:
    problem = make_lab_problem(12, 10, 0.3, seed=7)
    optimum = solve_milp(problem).size
    weighted = solve_astar(problem, "ceil_largest", weight=3.0)
    assert optimum is not None and weighted.size is not None and weighted.size > optimum
    assert not weighted.proven_optimal
    assert weighted.lower_bound <= optimum


def test_start_heuristics_are_ordered_below_the_milp_optimum() -> None:
    for problem in _solvable_lab_problems(10, 20, 40, 0.2):
        optimum = solve_milp(problem).size
        assert optimum is not None
        values = [start_heuristic(problem, name) for name in ADMISSIBLE_HEURISTICS]
        assert values == sorted(values)
        assert values[-1] <= optimum


def test_dual_bound_can_be_stronger_than_k_largest() -> None:
    # sizes 2 + 2 reach the 4 points, but point 1 is only in a singleton: weights
    # 1/2 + 1 + 1/2 + 1/2 = 2.5, so at least 3 sets are needed, and 3 suffice
    problem = SetCoverProblem.from_sets(4, [[0, 3], [1], [0, 2]])
    assert start_heuristic(problem, "k_largest") == 2.0
    assert point_weight_bound(problem.all_points, problem.sets) == pytest.approx(2.5)
    assert start_heuristic(problem, "dual_bound") == 3.0
    assert solve_milp(problem).size == 3


# -- A* against the MILP --------------------------------------------------------------------------


def _check_astar_against_milp(problem: SetCoverProblem, names: tuple[str, ...]) -> None:
    milp = solve_milp(problem)
    assert milp.proven_optimal
    assert problem.is_cover(milp.chosen)
    for name in names:
        result = solve_astar(problem, name)
        assert result.found, name
        assert problem.is_cover(result.chosen), name
        assert list(result.chosen) == sorted(set(result.chosen)), name
        assert result.size == milp.size, name
        assert result.proven_optimal and result.lower_bound == milp.size, name
        assert result.expansions >= 1 and result.generated >= result.expansions - 1


def test_every_admissible_heuristic_finds_the_milp_optimum_on_lab_instances() -> None:
    strong = tuple(name for name in ADMISSIBLE_HEURISTICS if name != "breadth_first")
    for problem in _solvable_lab_problems(15, 20, 40, 0.2):
        _check_astar_against_milp(problem, strong)
    for problem in _solvable_lab_problems(25, 12, 20, 0.25):
        _check_astar_against_milp(problem, ADMISSIBLE_HEURISTICS)


@given(st.integers(0, 100_000), st.integers(1, 14), st.integers(1, 14), st.floats(0.05, 0.6))
@settings(max_examples=40)
def test_astar_matches_the_milp_on_random_challenge_instances(
    seed: int, points: int, sets: int, density: float
) -> None:
    _check_astar_against_milp(make_challenge_problem(points, sets, density, seed), ADMISSIBLE_HEURISTICS)


def test_unsolvable_problems_are_rejected_by_every_solver() -> None:
    problem = SetCoverProblem.from_sets(3, [[0], [1]])
    for solve in (solve_astar, solve_anytime, solve_milp, greedy_cover):
        with pytest.raises(UnsolvableInstanceError, match="1 point is in no set"):
            solve(problem)


def test_uncovered_points_heuristic_is_not_admissible() -> None:
    trap = greedy_trap_problem()
    assert solve_milp(trap).size == 2
    assert solve_astar(trap, "dual_bound").size == 2
    result = solve_astar(trap, "uncovered")
    assert result.chosen == (0, 1, 2)
    assert not result.proven_optimal and result.lower_bound == 0
    # also on a lab instance of the reference size
    lab = make_lab_problem(20, 40, 0.2, seed=0)
    assert solve_astar(lab, "uncovered").size > solve_milp(lab).size == 5


def test_searches_are_deterministic() -> None:
    problem = make_lab_problem(16, 32, 0.2, seed=1)
    for name in HEURISTICS:
        first, again = solve_astar(problem, name), solve_astar(problem, name)
        assert (first.chosen, first.expansions, first.generated) == (
            again.chosen,
            again.expansions,
            again.generated,
        )


def test_expansion_limit_reports_budget_exhausted_and_a_valid_bound() -> None:
    problem = make_lab_problem(20, 40, 0.2, seed=0)
    optimum = solve_milp(problem).size
    result = solve_astar(problem, "breadth_first", max_expansions=5)
    assert result.budget_exhausted and not result.found and result.size is None
    assert result.expansions == 5
    assert 0 <= result.lower_bound <= optimum  # type: ignore[operator]


@pytest.mark.parametrize("weight", [1.5, 2.0, 4.0])
def test_weighted_astar_stays_within_the_weight_of_the_optimum(weight: float) -> None:
    for problem in _solvable_lab_problems(8, 20, 40, 0.2):
        optimum = solve_milp(problem).size
        assert optimum is not None
        result = solve_astar(problem, "dual_bound", weight=weight)
        assert result.method == "weighted_astar"
        assert problem.is_cover(result.chosen)
        assert optimum <= result.size <= weight * optimum  # type: ignore[operator]
        assert result.lower_bound <= optimum


# -- greedy and anytime -------------------------------------------------------------------------


def test_greedy_cover_is_an_irredundant_cover() -> None:
    # greedy takes the largest set 0 first, then drops it once sets 1 and 2 are in
    assert greedy_cover(greedy_trap_problem()) == (1, 2)
    for problem in _solvable_lab_problems(5, 30, 30, 0.2):
        chosen = greedy_cover(problem)
        assert problem.is_cover(chosen)
        assert len(chosen) >= solve_milp(problem).size  # type: ignore[operator]
        for index in chosen:
            assert not problem.is_cover([i for i in chosen if i != index])


def test_anytime_search_proves_the_optimum_when_given_time() -> None:
    for problem in _solvable_lab_problems(10, 25, 50, 0.2):
        milp = solve_milp(problem)
        result = solve_anytime(problem, time_limit=30)
        assert not result.budget_exhausted
        assert problem.is_cover(result.chosen)
        assert result.size == milp.size
        assert result.proven_optimal and result.lower_bound == milp.size


def test_anytime_search_returns_a_cover_and_a_bound_when_stopped_early() -> None:
    problem = make_challenge_problem(200, 200, 0.1, seed=3)
    result = solve_anytime(problem, "k_largest", max_nodes=3)
    assert result.budget_exhausted
    assert problem.is_cover(result.chosen)
    assert 1 <= result.lower_bound <= len(result.chosen)
    assert result.lower_bound >= start_heuristic(problem, "k_largest")


def test_anytime_node_limit_counts_only_the_nodes_visited() -> None:
    problem = make_challenge_problem(200, 200, 0.1, seed=3)
    for max_nodes in (1, 3, 7):
        result = solve_anytime(problem, max_nodes=max_nodes)
        assert result.budget_exhausted
        assert result.expansions == max_nodes


def test_anytime_bounds_bracket_the_optimum_at_every_node_limit() -> None:
    for problem in _solvable_lab_problems(6, 25, 50, 0.2):
        optimum = solve_milp(problem).size
        assert optimum is not None
        for max_nodes in (1, 2, 5, 20, 100):
            result = solve_anytime(problem, max_nodes=max_nodes)
            assert problem.is_cover(result.chosen)
            assert result.lower_bound <= optimum <= len(result.chosen)


@pytest.mark.parametrize(
    ("solve", "message"),
    [
        (lambda p: solve_astar(p, weight=math.nan), "weight must be a finite number, got nan"),
        (lambda p: solve_astar(p, weight=0.5), "weight must be >= 1, got 0.5"),
        (lambda p: solve_astar(p, time_limit=-1.0), "time_limit must be > 0, got -1.0"),
        (lambda p: solve_astar(p, time_limit=0), "time_limit must be > 0, got 0"),
        (lambda p: solve_astar(p, max_expansions=0), "max_expansions must be >= 1, got 0"),
        (lambda p: solve_anytime(p, time_limit=math.nan), "time_limit must be a finite number, got nan"),
        (lambda p: solve_anytime(p, max_nodes=-1), "max_nodes must be >= 1, got -1"),
        (lambda p: solve_anytime(p, max_nodes=0), "max_nodes must be >= 1, got 0"),
        (lambda p: solve_milp(p, time_limit=-1.0), "time_limit must be > 0, got -1.0"),
        (lambda p: solve_milp(p, time_limit=0.0), "time_limit must be > 0, got 0.0"),
    ],
)
def test_solvers_refuse_bad_weights_and_limits_naming_the_parameter(solve, message: str) -> None:
    # a zero limit is refused, as the command line refuses it, rather than returning no cover
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        solve(greedy_trap_problem())


@pytest.mark.parametrize(
    "solve",
    [
        lambda: solve_astar("hello"),  # type: ignore[arg-type]
        lambda: solve_anytime([[0, 1]]),  # type: ignore[arg-type]
        lambda: solve_milp(None),  # type: ignore[arg-type]
        lambda: greedy_cover("hello"),  # type: ignore[arg-type]
    ],
)
def test_solvers_refuse_what_is_not_a_problem_with_a_type_error(solve) -> None:
    with pytest.raises(TypeError, match=r"^problem must be a SetCoverProblem, got \w+$"):
        solve()


@pytest.mark.parametrize(
    ("solve", "message"),
    [
        (lambda p: solve_astar(p, max_expansions=2.5), "max_expansions must be a whole number, got float"),
        (lambda p: solve_astar(p, weight="2"), "weight must be a number, got str"),
        (lambda p: solve_astar(p, time_limit=True), "time_limit must be a number, got bool"),
        (lambda p: solve_astar(p, ["dual_bound"]), "heuristic must be a name (str), got list"),
        (lambda p: solve_anytime(p, time_limit=None), "time_limit must be a number, got NoneType"),
    ],
)
def test_solvers_refuse_limits_of_the_wrong_type(solve, message: str) -> None:
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        solve(greedy_trap_problem())


@pytest.mark.parametrize("make", [make_lab_problem, make_challenge_problem])
@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((20, 40, 0.2, -1), ValueError, "seed must be >= 0, got -1"),
        ((20.5, 40, 0.2, 0), TypeError, "num_points must be a whole number, got float"),
        ((20, "40", 0.2, 0), TypeError, "num_sets must be a whole number, got str"),
        ((20, 40, None, 0), TypeError, "density must be a number, got NoneType"),
        ((20, 40, 0.2, 1.5), TypeError, "seed must be a whole number, got float"),
        ((0, 40, 0.2, 0), ValueError, "num_points must be >= 1, got 0"),
        ((20, 1_000_001, 0.2, 0), ValueError, "num_sets must be <= 1000000, got 1000001"),
        ((20, 40, 1.5, 0), ValueError, "density must be in (0, 1], got 1.5"),
    ],
)
def test_generators_name_the_parameter_that_is_wrong(make, args: tuple, error: type, message: str) -> None:
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        make(*args)


def test_generators_refuse_an_instance_too_large_for_the_memory_before_building_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(machine, "available_memory", lambda: 1 << 30)  # 1 GiB
    with pytest.raises(InstanceTooLargeError) as refused:
        make_lab_problem(10**6, 10**6, 0.5, seed=0)  # numpy would try 7.3 TiB of random numbers
    assert str(refused.value) == (
        "an instance of 1000000 points and 1000000 sets needs 8.2 TiB of memory; "
        "this machine has 1.0 GiB available"
    )
    assert isinstance(refused.value, ValueError)
    with pytest.raises(InstanceTooLargeError, match="an instance of 20000 points and 20000 sets needs"):
        make_challenge_problem(20_000, 20_000, 0.5, seed=0)
    assert make_lab_problem(20, 40, 0.2, seed=0).num_points == 20  # a small one is built


def test_from_sets_names_a_point_outside_the_range() -> None:
    with pytest.raises(ValueError, match=r"set 1 holds point -1, not in range\(3\)"):
        SetCoverProblem.from_sets(3, [[0, 1], [-1, 2]])
    with pytest.raises(ValueError, match=r"set 0 holds point 3, not in range\(3\)"):
        SetCoverProblem.from_sets(3, [[0, 3], [1, 2]])


@pytest.mark.parametrize(
    ("num_points", "sets", "message"),
    [
        (0, (0,), "num_points must be >= 1"),
        (3, (), "at least one set"),
        (3, (0b1000,), "bitset over range"),
        (3, (-1,), "bitset over range"),
    ],
)
def test_a_problem_refuses_no_points_no_sets_and_points_out_of_range(
    num_points: int, sets: tuple[int, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        SetCoverProblem(num_points, sets)


@pytest.mark.parametrize(
    "matrix", [np.zeros((0, 3), dtype=bool), np.zeros((2, 0), dtype=bool), np.zeros(3, dtype=bool)]
)
def test_from_matrix_refuses_an_empty_or_flat_matrix(matrix: np.ndarray) -> None:
    with pytest.raises(ValueError, match="non-empty 2-D"):
        SetCoverProblem.from_matrix(matrix)


def test_anytime_search_stopped_before_any_node_keeps_the_root_bound() -> None:
    problem = make_lab_problem(12, 10, 0.3, seed=7)
    # a nanosecond is spent before the first node (the greedy cover, the root bound)
    result = solve_anytime(problem, "dual_bound", time_limit=1e-9)
    assert result.budget_exhausted and result.expansions == 0
    assert result.lower_bound == math.ceil(start_heuristic(problem, "dual_bound") - 1e-9) > 0
    # the greedy cover of the trap already meets the root bound: proven without a node searched
    trap = solve_anytime(greedy_trap_problem(), "dual_bound", time_limit=1e-9)
    assert trap.budget_exhausted and trap.chosen == (1, 2) and trap.lower_bound == 2
    assert trap.proven_optimal


def test_anytime_search_refuses_inadmissible_heuristics() -> None:
    with pytest.raises(ValueError, match="admissible"):
        solve_anytime(greedy_trap_problem(), "uncovered")


def test_milp_time_limit_gives_a_cover_or_an_honest_bound() -> None:
    problem = make_challenge_problem(300, 300, 0.05, seed=1)
    result = solve_milp(problem, time_limit=0.5)
    if result.chosen:
        assert problem.is_cover(result.chosen)
        assert result.lower_bound <= len(result.chosen)
    if not result.proven_optimal:
        assert result.gap > 0 or not result.chosen


# -- command line ---------------------------------------------------------------------------------


def _run(*args: str):
    return runner.invoke(app, ["setcover", *args])


def test_cli_solves_and_compares_with_the_milp() -> None:
    result = _run("--points", "20", "--sets", "40", "--density", "0.2", "--seed", "0")
    assert result.exit_code == 0, result.output
    assert "proven optimal" in result.output
    assert "MILP optimum (HiGHS): 5 sets" in result.output
    assert "sets chosen by astar (dual_bound):" in result.output


def test_cli_table_right_aligns_the_sizes_and_bounds() -> None:
    result = _run("--points", "12", "--sets", "20", "--density", "0.2", "--seed", "0")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("│ astar"))
    cells = row.split("│")[1:-1]
    assert cells[2] == "    4 " and cells[3] == "     4 "  # size, bound: not "│ 4    │"


def test_cli_counts_a_single_set_in_the_singular() -> None:
    result = _run("--points", "1", "--sets", "1", "--density", "1")
    assert result.exit_code == 0, result.output
    assert "MILP optimum (HiGHS): 1 set in" in result.output


def test_cli_table_over_all_heuristics() -> None:
    result = _run("--heuristic", "all", "--seed", "0", "--anytime", "--time-limit", "20")
    assert result.exit_code == 0, result.output
    for name in HEURISTICS:
        assert name in result.output
    assert "anytime" in result.output
    assert "NOT optimal (+2)" in result.output  # the uncovered-points heuristic on seed 0


@pytest.mark.parametrize(
    "args",
    [
        ("--generator", "challenge", "--points", "60", "--sets", "60", "--density", "0.3"),
        ("--weight", "2", "--seed", "4"),
        ("--anytime", "--time-limit", "5", "--heuristic", "k_largest", "--no-milp"),
    ],
)
def test_cli_variants_run(args: tuple[str, ...]) -> None:
    result = _run(*args)
    assert result.exit_code == 0, result.output
    assert "set cover" in result.output


def test_cli_max_expansions_also_bounds_the_anytime_search() -> None:
    args = ("--points", "30", "--sets", "30", "--density", "0.1", "--generator", "challenge", "--no-milp")
    assert "proven optimal" in _run(*args, "--anytime").output  # 11 nodes without a limit
    result = _run(*args, "--anytime", "--max-expansions", "3")
    assert result.exit_code == 0, result.output
    assert "not proven" in result.output and "proven optimal" not in result.output


def test_cli_says_which_search_is_running_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(
        setcover_cli, "make_console", lambda **_: Console(file=screen, force_terminal=True, width=120)
    )
    result = _run("--heuristic", "all", "--anytime", "--time-limit", "5")
    assert result.exit_code == 0, result.output
    shown = screen.getvalue()
    for name in HEURISTICS:
        assert f"A* with {name}, up to 5 s..." in shown
    assert "anytime search with dual_bound, up to 5 s..." in shown
    assert "the integer programme (HiGHS), up to 60 s..." in shown


def test_cli_counts_the_milp_in_the_memory_an_instance_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine, "available_memory", lambda: 200 << 20)  # 200 MiB
    args = ("--points", "2000", "--sets", "2000", "--density", "0.9", "--generator", "challenge")
    quick = ("--time-limit", "0.2", "--milp-time-limit", "0.2", "--max-expansions", "1")
    refused = _run(*args, *quick)  # 36 MB of instance, but HiGHS needs over 300 MB
    assert refused.exit_code == 2, refused.output
    lines = refused.output.strip().splitlines()
    assert len(lines) == 1 and "with the MILP (--no-milp needs less) needs" in lines[0], lines
    assert _run(*args, *quick, "--no-milp").exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--heuristic", "manhattan"), "unknown heuristic 'manhattan'; accepted: breadth_first"),
        (("--density", "0"), "--density must be in (0, 1]"),
        (("--points", "0"), "--points must be >= 1"),
        (("--weight", "0.5"), "--weight must be >= 1"),
        (("--generator", "grid"), "unknown generator 'grid'"),
        (("--anytime", "--heuristic", "uncovered"), "admissible"),
        (("--time-limit", "-1"), "--time-limit must be > 0"),
        (("--points", "40", "--sets", "3", "--density", "0.05"), "unsolvable instance"),
    ],
)
def test_cli_bad_arguments_give_one_line_and_exit_code_2(args: tuple[str, ...], message: str) -> None:
    result = _run(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def _stopped_milp(size: int) -> MilpResult:
    return MilpResult(
        chosen=tuple(range(size)),
        proven_optimal=False,
        lower_bound=4,
        gap=(size - 4) / size,
        seconds=60.0,
        message="Time limit reached",
    )


def test_cli_says_plainly_that_highs_did_not_finish_and_that_a_search_did_better(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(setcover_cli, "solve_milp", lambda problem, time_limit: _stopped_milp(298))
    result = _run(
        "--generator", "challenge", "--points", "30", "--sets", "30", "--density", "0.1", "--anytime"
    )
    assert result.exit_code == 0, result.output
    words = " ".join(result.output.split())  # the line is wrapped at the console's width
    assert words.endswith(
        "MILP (HiGHS) did not finish: stopped by its time limit after 60.00 s; its best cover, 298 sets, "
        "is not proven minimum (lower bound 4, gap 98.7%) and is worse than the 9 sets found by "
        "anytime (dual_bound)"
    )
    assert "MILP optimum" not in result.output and "optimal (per MILP)" not in result.output


def test_cli_says_when_highs_found_no_cover_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    nothing = MilpResult((), False, 3, math.inf, 1.5, "Time limit reached")
    monkeypatch.setattr(setcover_cli, "solve_milp", lambda problem, time_limit: nothing)
    result = _run("--seed", "0")
    assert result.exit_code == 0, result.output
    assert " ".join(result.output.split()).endswith(
        "MILP (HiGHS) did not finish: stopped by its time limit after 1.50 s without a cover (lower bound 3)"
    )
