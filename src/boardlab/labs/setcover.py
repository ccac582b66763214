"""Minimum set cover: instance generators, A* with admissible heuristics, anytime search, MILP.

A problem has ``num_points`` points and a list of sets; a cover is a collection of sets whose
union holds every point, and the goal is a cover with as few sets as possible.

Sets are stored as Python ``int`` bitsets (bit ``p`` set when the set holds point ``p``), so a
union is ``|``, the points still uncovered are ``uncovered & ~s`` and a size is
``int.bit_count``; 5000 x 5000 instances fit easily.

State space searched by A* (:func:`solve_astar`): a state is ``(uncovered points, index of the
last set taken)``; its children take one more set whose index is larger than the last one, so
each collection of sets is built in exactly one order (no symmetric duplicates). Two
optimality-preserving prunings are applied:

* a set that covers none of the uncovered points is never taken (in a minimum cover, listed by
  increasing index, every set adds a point: otherwise dropping it gives a smaller cover);
* a child is dropped when the sets of larger index cannot cover what is left (dead end).

Heuristics (all see only the sets still allowed: index larger than the last taken), from weak to
strong; each is admissible (never above the true remaining number of sets):

* ``breadth_first``: ``h = 0``; with the frontier order of :mod:`boardlab.labs.astar` this is
  breadth-first search.
* ``ceil_largest``: ``ceil(|U| / L)`` with ``L`` the size of the largest set of the instance.
* ``ceil_largest_useful``: the same with ``L`` the largest number of *uncovered* points in one
  allowed set.
* ``k_largest``: the smallest ``k`` such that the ``k`` allowed sets covering the most uncovered
  points together reach ``|U|``.
* ``dual_bound``: ``max(k_largest, ceil(sum over uncovered p of 1 / m_p))`` where ``m_p`` is the
  largest number of uncovered points in an allowed set holding ``p`` (a feasible solution of the
  dual of the LP relaxation; see :func:`dual_bound`).

``uncovered`` (``h = |U|``, the number of uncovered points) is *not* admissible: one set can
cover many points, so A* with it can return a cover that is not minimum
(:func:`greedy_trap_problem` is a 6-point instance where it does).
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from boardlab.core.console import counted
from boardlab.core.machine import memory_problem
from boardlab.core.spec import number_problem, shorten
from boardlab.labs.astar import SearchStatus, best_first_search


class UnsolvableInstanceError(ValueError):
    """The instance has points that no set holds, so no cover exists."""


class UnknownHeuristicError(ValueError):
    """A heuristic name that is not in :data:`HEURISTICS`."""


class InstanceTooLargeError(ValueError):
    """An instance that would not fit in the memory available (refused before it is built)."""


# --------------------------------------------------------------------------------------------
# Instances


@dataclass(frozen=True)
class SetCoverProblem:
    """A set cover instance: ``sets[i]`` is a bitset over ``range(num_points)``."""

    num_points: int
    sets: tuple[int, ...]
    largest_size: int = field(init=False, repr=False)
    suffix_unions: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.num_points < 1:
            raise ValueError(f"num_points must be >= 1, got {self.num_points}")
        if not self.sets:
            raise ValueError("a set cover problem needs at least one set")
        if any(s < 0 or s >> self.num_points for s in self.sets):
            raise ValueError("every set must be a bitset over range(num_points)")
        object.__setattr__(self, "largest_size", max(s.bit_count() for s in self.sets))
        unions = [0] * (len(self.sets) + 1)
        for index in range(len(self.sets) - 1, -1, -1):
            unions[index] = unions[index + 1] | self.sets[index]
        object.__setattr__(self, "suffix_unions", tuple(unions))

    @property
    def num_sets(self) -> int:
        """Number of sets."""
        return len(self.sets)

    @property
    def all_points(self) -> int:
        """Bitset holding every point."""
        return (1 << self.num_points) - 1

    @property
    def is_solvable(self) -> bool:
        """Whether the union of all sets holds every point."""
        return self.suffix_unions[0] == self.all_points

    def uncovered_by(self, chosen: Sequence[int]) -> int:
        """Bitset of the points that the sets ``chosen`` (indices) leave uncovered."""
        covered = 0
        for index in chosen:
            covered |= self.sets[index]
        return self.all_points & ~covered

    def is_cover(self, chosen: Sequence[int]) -> bool:
        """Whether the sets ``chosen`` (indices) cover every point."""
        return self.uncovered_by(chosen) == 0

    def to_matrix(self) -> NDArray[np.bool_]:
        """Boolean matrix of shape ``(num_sets, num_points)``; row ``i`` is set ``i``."""
        num_bytes = (self.num_points + 7) // 8
        raw = b"".join(s.to_bytes(num_bytes, "little") for s in self.sets)
        packed = np.frombuffer(raw, dtype=np.uint8).reshape(self.num_sets, num_bytes)
        bits = np.unpackbits(packed, axis=1, bitorder="little")[:, : self.num_points]
        return bits.astype(bool)

    @classmethod
    def from_matrix(cls, matrix: NDArray[np.bool_] | Sequence[Sequence[bool]]) -> SetCoverProblem:
        """Build a problem from a boolean matrix of shape ``(num_sets, num_points)``."""
        array = np.asarray(matrix, dtype=bool)
        if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
            raise ValueError(f"expected a non-empty 2-D (sets x points) matrix, got {array.shape}")
        packed = np.packbits(array, axis=1, bitorder="little")
        sets = tuple(int.from_bytes(row.tobytes(), "little") for row in packed)
        return cls(num_points=int(array.shape[1]), sets=sets)

    @classmethod
    def from_sets(cls, num_points: int, sets: Sequence[Sequence[int]]) -> SetCoverProblem:
        """Build a problem from lists of point indices (each in ``range(num_points)``)."""
        for index, points in enumerate(sets):
            outside = [p for p in points if not 0 <= p < num_points]
            if outside:
                raise ValueError(f"set {index} holds point {outside[0]}, not in range({num_points})")
        return cls(num_points=num_points, sets=tuple(_bitset(points) for points in sets))


def _bitset(points: Sequence[int]) -> int:
    mask = 0
    for point in points:
        mask |= 1 << point
    return mask


# --------------------------------------------------------------------------------------------
# Checks of the parameters, shared with `boardlab setcover` (which names its options instead)

MAX_POINTS = 1_000_000
MAX_SETS = 1_000_000
MAX_WEIGHT = 1e6
MAX_SECONDS = 1e6
MAX_EXPANSIONS = 10**12

INSTANCE_BYTES_PER_CELL = 9
"""Memory a generator needs for each (set, point) cell: a matrix of random numbers (8 bytes),
then of booleans (1 byte)."""
MILP_BYTES_PER_POINT_IN_A_SET = 96
"""Memory of the integer programme for each point a set holds: the copies of the constraint
matrix that scipy and HiGHS make (measured: about 85 bytes)."""

Names = Mapping[str, str]
"""How the messages name each parameter (``{"num_points": "--points"}``); the parameter's own
name where it is not given. The key ``"milp"`` names the integer programme in the memory check."""


def _name(names: Names | None, parameter: str) -> str:
    return parameter if names is None else names.get(parameter, parameter)


def _check_whole(name: str, value: object, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a whole number, got {type(value).__name__}")
    problem = number_problem(name, int(value), low, high)
    if problem is not None:
        raise ValueError(problem)


def _check_real(name: str, value: object, low: float | None = None, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    number = float(value)
    problem = number_problem(name, number, low, high)
    if problem is not None:
        raise ValueError(problem)
    return number


def memory_needed(num_points: int, num_sets: int, density: float, *, milp: bool = False) -> int:
    """Bytes needed at the peak to build an instance (a ``num_sets x num_points`` matrix of
    random numbers, then of booleans) and, with ``milp``, to solve its integer programme too
    (the copies of the covered cells that scipy and HiGHS make)."""
    per_cell = INSTANCE_BYTES_PER_CELL + (MILP_BYTES_PER_POINT_IN_A_SET * density if milp else 0)
    return int(num_points * num_sets * per_cell)


def check_instance(
    num_points: int,
    num_sets: int,
    density: float,
    seed: int | None = None,
    *,
    milp: bool = False,
    names: Names | None = None,
) -> None:
    """Refuse the parameters of an instance that the generators cannot build.

    ``milp`` counts the memory of :func:`solve_milp` too; ``names`` says how the messages name
    the parameters (the command line passes its options).

    Raises:
        TypeError: a count or seed that is not a whole number, a density that is not a number.
        ValueError: a count outside ``1..MAX_POINTS`` or ``1..MAX_SETS``, a density outside
            ``(0, 1]``, a negative seed.
        InstanceTooLargeError: an instance that would not fit in the memory available.
    """
    _check_whole(_name(names, "num_points"), num_points, 1, MAX_POINTS)
    _check_whole(_name(names, "num_sets"), num_sets, 1, MAX_SETS)
    if seed is not None:
        _check_whole(_name(names, "seed"), seed, 0)
    density_name = _name(names, "density")
    if not 0.0 < _check_real(density_name, density) <= 1.0:
        raise ValueError(f"{density_name} must be in (0, 1], got {density}")
    what = f"an instance of {num_points} points and {num_sets} sets"
    if milp:
        what += " with " + (names or {}).get("milp", "the MILP")
    too_large = memory_problem(memory_needed(num_points, num_sets, density, milp=milp), what)
    if too_large is not None:
        raise InstanceTooLargeError(too_large)


def check_limits(
    *,
    weight: float = 1.0,
    max_expansions: int | None = None,
    time_limit: float | None = None,
    names: Names | None = None,
) -> None:
    """Refuse the limits of a search: a weight outside ``1..MAX_WEIGHT``, an expansion limit
    outside ``1..MAX_EXPANSIONS``, a time limit that is not a number of seconds in
    ``(0, MAX_SECONDS]`` (``None`` is no limit). ``names`` as for :func:`check_instance`.

    Raises:
        TypeError: a value that is not a number (not a whole number for ``max_expansions``).
        ValueError: a value out of its range, NaN or infinite.
    """
    _check_real(_name(names, "weight"), weight, 1.0, MAX_WEIGHT)
    if max_expansions is not None:
        _check_whole(_name(names, "max_expansions"), max_expansions, 1, MAX_EXPANSIONS)
    if time_limit is not None:
        time_name = _name(names, "time_limit")
        if not _check_real(time_name, time_limit, None, MAX_SECONDS) > 0:
            raise ValueError(f"{time_name} must be > 0, got {shorten(str(time_limit), 24)}")


def _require_problem(problem: object) -> None:
    if not isinstance(problem, SetCoverProblem):
        raise TypeError(f"problem must be a SetCoverProblem, got {type(problem).__name__}")


def make_lab_problem(
    num_points: int, num_sets: int, density: float, seed: int | None = None
) -> SetCoverProblem:
    """Lab instance: each of ``num_sets`` sets holds each point independently with ``density``.

    Raises:
        UnsolvableInstanceError: when some point is in no set (no cover exists); try another
            seed or a larger density.
        TypeError, ValueError, InstanceTooLargeError: bad parameters (see :func:`check_instance`).
    """
    check_instance(num_points, num_sets, density, seed)
    rng = np.random.default_rng(seed)
    matrix = rng.random((num_sets, num_points)) < density
    missing = np.flatnonzero(~matrix.any(axis=0))
    if missing.size:
        shown = ", ".join(str(p) for p in missing[:10]) + (", ..." if missing.size > 10 else "")
        raise UnsolvableInstanceError(
            f"unsolvable instance (seed={seed}): {_points_in_no_set(int(missing.size))} "
            f"({shown}); use another seed, more sets or a larger density"
        )
    return SetCoverProblem.from_matrix(matrix)


def make_challenge_problem(
    num_points: int, num_sets: int, density: float, seed: int | None = None
) -> SetCoverProblem:
    """Challenge instance: random sets of the given density, then each point is added to one
    uniformly chosen set, so every point is covered and the instance is always solvable.

    Raises:
        TypeError, ValueError, InstanceTooLargeError: bad parameters (see :func:`check_instance`).
    """
    check_instance(num_points, num_sets, density, seed)
    rng = np.random.default_rng(seed)
    matrix = rng.random((num_sets, num_points)) < density
    owners = rng.integers(0, num_sets, size=num_points)
    matrix[owners, np.arange(num_points)] = True
    return SetCoverProblem.from_matrix(matrix)


def greedy_trap_problem() -> SetCoverProblem:
    """Six points where the set holding the most points is not in the minimum cover.

    Set 0 = {0, 1, 3, 4} is the largest, but the minimum cover is {1, 2} = {0, 1, 2} and
    {3, 4, 5}. A* with the inadmissible ``uncovered`` heuristic takes set 0 first and returns a
    cover of three sets.
    """
    return SetCoverProblem.from_sets(6, [[0, 1, 3, 4], [0, 1, 2], [3, 4, 5]])


# --------------------------------------------------------------------------------------------
# Heuristics: h(problem, uncovered, allowed sets) -> lower bound on the sets still needed


HeuristicFunction = Callable[[SetCoverProblem, int, Sequence[int]], float]


def _useful_sizes(uncovered: int, allowed: Sequence[int]) -> list[int]:
    return [(s & uncovered).bit_count() for s in allowed]


def zero_heuristic(problem: SetCoverProblem, uncovered: int, allowed: Sequence[int]) -> float:
    """``h = 0`` (breadth-first search)."""
    del problem, uncovered, allowed
    return 0.0


def ceil_largest(problem: SetCoverProblem, uncovered: int, allowed: Sequence[int]) -> float:
    """``ceil(|U| / L)``, ``L`` = size of the largest set of the instance.

    Admissible: no set covers more than ``L`` points, so ``k`` sets cover at most ``k * L``.
    """
    del allowed
    if problem.largest_size == 0:
        return math.inf if uncovered else 0.0
    return float(-(-uncovered.bit_count() // problem.largest_size))


def ceil_largest_useful(problem: SetCoverProblem, uncovered: int, allowed: Sequence[int]) -> float:
    """``ceil(|U| / M)``, ``M`` = most uncovered points held by one allowed set.

    Admissible for the same reason as :func:`ceil_largest`, with sizes counted on ``U`` only.
    """
    del problem
    if uncovered == 0:
        return 0.0
    largest = max(_useful_sizes(uncovered, allowed), default=0)
    if largest == 0:
        return math.inf
    return float(-(-uncovered.bit_count() // largest))


def k_largest(problem: SetCoverProblem, uncovered: int, allowed: Sequence[int]) -> float:
    """Smallest ``k`` whose ``k`` allowed sets covering most of ``U`` together reach ``|U|``.

    Admissible: any ``k`` sets cover at most the sum of the ``k`` largest useful sizes, so
    fewer than this ``k`` sets cannot cover ``U``.
    """
    del problem
    remaining = uncovered.bit_count()
    if remaining == 0:
        return 0.0
    for count, size in enumerate(sorted(_useful_sizes(uncovered, allowed), reverse=True), 1):
        remaining -= size
        if remaining <= 0:
            return float(count)
    return math.inf


def point_weight_bound(uncovered: int, allowed: Sequence[int]) -> float:
    """``sum over p in U of 1 / m_p`` with ``m_p`` the most uncovered points of an allowed set
    holding ``p`` (``math.inf`` when some point of ``U`` is in no allowed set).

    Proof that it is a lower bound: take any cover ``C`` of ``U`` by allowed sets and charge
    each point ``p`` to one set ``S`` of ``C`` holding it. A set receives at most ``|S & U|``
    points, so ``|C| >= sum over S in C of charged(S) / |S & U| = sum over p of 1 / |S_p & U|
    >= sum over p of 1 / m_p`` because ``|S_p & U| <= m_p``. (Equivalently ``y_p = 1 / m_p``
    is feasible for the dual of the LP relaxation: each set ``S`` has
    ``sum over p in S & U of y_p <= |S & U| / |S & U| = 1``.)
    """
    sized = sorted(
        ((size, s) for s in allowed if (size := (s & uncovered).bit_count())),
        key=lambda pair: pair[0],
        reverse=True,
    )
    remaining = uncovered
    total = 0.0
    for size, points in sized:  # largest first: the first set holding p gives m_p
        newly = (remaining & points).bit_count()
        if newly:
            total += newly / size
            remaining &= ~points
            if not remaining:
                return total
    return 0.0 if uncovered == 0 else math.inf


def dual_bound(problem: SetCoverProblem, uncovered: int, allowed: Sequence[int]) -> float:
    """``max(k_largest, ceil(point_weight_bound))``: both are lower bounds, so is their max.

    The point-weight part dominates ``ceil_largest_useful`` (each ``m_p <= M``) and is much
    stronger when some uncovered points are only in small sets. A tiny tolerance is removed
    before rounding up so that floating-point error can only lower the bound.
    """
    by_size = k_largest(problem, uncovered, allowed)
    if math.isinf(by_size):
        return by_size
    weights = point_weight_bound(uncovered, allowed)
    if math.isinf(weights):
        return weights
    return max(by_size, float(math.ceil(weights - 1e-9)))


def uncovered_points(problem: SetCoverProblem, uncovered: int, allowed: Sequence[int]) -> float:
    """``|U|``: NOT admissible (one set may cover many points); kept to show why it fails."""
    del problem, allowed
    return float(uncovered.bit_count())


@dataclass(frozen=True)
class HeuristicSpec:
    """A named heuristic and whether it is admissible."""

    name: str
    function: HeuristicFunction
    admissible: bool
    summary: str


HEURISTICS: dict[str, HeuristicSpec] = {
    spec.name: spec
    for spec in (
        HeuristicSpec("breadth_first", zero_heuristic, True, "h = 0 (breadth-first search)"),
        HeuristicSpec("ceil_largest", ceil_largest, True, "ceil(|U| / largest set)"),
        HeuristicSpec("ceil_largest_useful", ceil_largest_useful, True, "ceil(|U| / largest useful set)"),
        HeuristicSpec("k_largest", k_largest, True, "fewest largest useful sets reaching |U|"),
        HeuristicSpec("dual_bound", dual_bound, True, "max(k_largest, LP-dual point weights)"),
        HeuristicSpec("uncovered", uncovered_points, False, "|U| (inadmissible)"),
    )
}
"""Heuristics by name; the admissible ones are listed from weak to strong."""

ADMISSIBLE_HEURISTICS: tuple[str, ...] = tuple(n for n, s in HEURISTICS.items() if s.admissible)
"""Names of the admissible heuristics, from weak to strong."""


def get_heuristic(name: str) -> HeuristicSpec:
    """The heuristic called ``name``.

    Raises:
        UnknownHeuristicError: for any other name; the message lists the accepted names.
        TypeError: a name that is not a string.
    """
    if not isinstance(name, str):
        raise TypeError(f"heuristic must be a name (str), got {type(name).__name__}")
    try:
        return HEURISTICS[name]
    except KeyError:
        accepted = ", ".join(HEURISTICS)
        raise UnknownHeuristicError(f"unknown heuristic {name!r}; accepted names: {accepted}") from None


def start_heuristic(problem: SetCoverProblem, name: str) -> float:
    """Value of heuristic ``name`` at the start (nothing covered, every set allowed)."""
    return get_heuristic(name).function(problem, problem.all_points, problem.sets)


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class CoverResult:
    """Outcome of a set cover search.

    Attributes:
        method: ``"astar"``, ``"weighted_astar"`` or ``"anytime"``.
        heuristic: name of the heuristic used.
        chosen: indices of the chosen sets, increasing (empty when no cover was found).
        proven_optimal: whether ``chosen`` is proven to be a minimum cover.
        lower_bound: proven lower bound on the minimum cover size (0 when nothing is proven,
            e.g. with an inadmissible heuristic).
        expansions: nodes expanded (A*) or visited (anytime depth-first search).
        generated: child nodes generated.
        seconds: wall-clock time.
        budget_exhausted: whether the search stopped on its expansion or time limit.
    """

    method: str
    heuristic: str
    chosen: tuple[int, ...]
    proven_optimal: bool
    lower_bound: int
    expansions: int
    generated: int
    seconds: float
    budget_exhausted: bool

    @property
    def found(self) -> bool:
        """Whether a cover was found."""
        return bool(self.chosen)

    @property
    def size(self) -> int | None:
        """Number of sets in the cover (``None`` when none was found)."""
        return len(self.chosen) if self.chosen else None


def _points_in_no_set(n: int) -> str:
    return f"{counted(n, 'point')} {'is' if n == 1 else 'are'} in no set"


def _require_solvable(problem: SetCoverProblem) -> None:
    if not problem.is_solvable:
        missing = problem.all_points & ~problem.suffix_unions[0]
        raise UnsolvableInstanceError(f"unsolvable instance: {_points_in_no_set(missing.bit_count())}")


# --------------------------------------------------------------------------------------------
# A*


class CoverState(NamedTuple):
    """A* state: points still uncovered and index of the last set taken (-1 at the start)."""

    uncovered: int
    last: int


def _successors(problem: SetCoverProblem) -> Callable[[CoverState], Iterator[tuple[CoverState, float]]]:
    sets = problem.sets
    suffix = problem.suffix_unions

    def successors(state: CoverState) -> Iterator[tuple[CoverState, float]]:
        for index in range(state.last + 1, len(sets)):
            if not state.uncovered & sets[index]:
                continue  # covers nothing new
            rest = state.uncovered & ~sets[index]
            if rest & ~suffix[index + 1]:
                continue  # the later sets cannot cover what is left
            yield CoverState(rest, index), 1.0

    return successors


def solve_astar(
    problem: SetCoverProblem,
    heuristic: str = "dual_bound",
    *,
    weight: float = 1.0,
    max_expansions: int | None = None,
    time_limit: float | None = None,
) -> CoverResult:
    """Minimum set cover by A* (weighted A* when ``weight > 1``).

    With an admissible heuristic and ``weight == 1`` the cover is minimum; with ``weight > 1``
    its size is at most ``weight`` times the minimum. When a limit stops the search the result
    has no cover, ``budget_exhausted`` is set and ``lower_bound`` is the proven bound.

    Raises:
        TypeError: a problem that is not a :class:`SetCoverProblem`, a limit that is not a number.
        UnknownHeuristicError: unknown heuristic name.
        UnsolvableInstanceError: some point is in no set.
        ValueError: a weight or limit out of range (see :func:`check_limits`).
    """
    _require_problem(problem)
    check_limits(weight=weight, max_expansions=max_expansions, time_limit=time_limit)
    spec = get_heuristic(heuristic)
    _require_solvable(problem)
    sets = problem.sets

    def h(state: CoverState) -> float:
        return spec.function(problem, state.uncovered, sets[state.last + 1 :])

    result = best_first_search(
        CoverState(problem.all_points, -1),
        _successors(problem),
        lambda state: state.uncovered == 0,
        h,
        weight=weight,
        max_expansions=max_expansions,
        time_limit=time_limit,
    )
    chosen = tuple(state.last for state in result.path[1:])
    bound = math.ceil(result.lower_bound - 1e-9) if spec.admissible else 0
    if math.isinf(result.lower_bound):
        bound = 0
    return CoverResult(
        method="astar" if weight == 1.0 else "weighted_astar",
        heuristic=heuristic,
        chosen=chosen,
        proven_optimal=result.found and spec.admissible and bound >= len(chosen),
        lower_bound=bound,
        expansions=result.expansions,
        generated=result.generated,
        seconds=result.seconds,
        budget_exhausted=result.status is SearchStatus.BUDGET_EXHAUSTED,
    )


# --------------------------------------------------------------------------------------------
# Greedy and anytime depth-first branch and bound


def greedy_cover(problem: SetCoverProblem) -> tuple[int, ...]:
    """Classic greedy cover: repeatedly take the set holding the most uncovered points
    (lowest index on ties), then drop sets that became redundant."""
    _require_problem(problem)
    _require_solvable(problem)
    uncovered = problem.all_points
    chosen: list[int] = []
    while uncovered:
        sizes = _useful_sizes(uncovered, problem.sets)
        best = max(range(problem.num_sets), key=sizes.__getitem__)
        chosen.append(best)
        uncovered &= ~problem.sets[best]
    return tuple(sorted(_drop_redundant(problem, chosen)))


def _drop_redundant(problem: SetCoverProblem, chosen: list[int]) -> list[int]:
    kept = list(chosen)
    for index in reversed(chosen):
        trial = [i for i in kept if i != index]
        if problem.is_cover(trial):
            kept = trial
    return kept


class _OutOfBudget(Exception):
    pass


def _mask_indices(mask: int, width: int) -> NDArray[np.intp]:
    raw = np.frombuffer(mask.to_bytes((width + 7) // 8, "little"), dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little")[:width])


class _Child(NamedTuple):
    bound: float  # sets taken so far + 1 + admissible bound of what is left
    set_index: int  # the set this child takes
    uncovered: int
    allowed: list[int]


@dataclass
class _Frame:
    """Children of one node on the current path; those from ``position`` on are unexplored."""

    bounds: list[float]
    position: int = 0

    def pending_bound(self) -> float:
        return min(self.bounds[self.position :], default=math.inf)


@dataclass
class _BranchAndBound:
    """Depth-first branch and bound that branches on the uncovered point held by the fewest
    allowed sets: child ``j`` takes the ``j``-th set holding that point (most uncovered points
    first) and forbids the sets tried before it, so every cover is reached once and the search
    is complete. The bounds of all children are computed before descending: children that
    cannot beat the incumbent are skipped, and the bounds of the unexplored children give the
    proven lower bound when the search is stopped."""

    problem: SetCoverProblem
    heuristic: HeuristicFunction
    matrix: NDArray[np.bool_]
    deadline: float
    max_nodes: int | None
    best: list[int]
    nodes: int = 0
    generated: int = 0
    root_bound: float = 0.0
    frames: list[_Frame] = field(default_factory=list)

    def run(self) -> bool:
        """Search; ``True`` when it finished (the incumbent is then optimal)."""
        everything = self.problem.all_points
        self.root_bound = self.heuristic(self.problem, everything, self.problem.sets)
        try:
            self._visit(everything, list(range(self.problem.num_sets)), [], self.root_bound)
        except _OutOfBudget:
            return False
        return True

    def _check_time(self) -> None:
        if time.perf_counter() >= self.deadline:
            raise _OutOfBudget

    def _visit(self, uncovered: int, allowed: list[int], taken: list[int], bound: float) -> None:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise _OutOfBudget
        self._check_time()
        self.nodes += 1
        if not uncovered:
            if len(taken) < len(self.best):
                self.best = sorted(taken)
            return
        if bound >= len(self.best):
            return
        children = self._children(uncovered, allowed, len(taken))
        frame = _Frame([child.bound for child in children])
        self.frames.append(frame)
        for position, child in enumerate(children):
            frame.position = position
            if child.bound >= len(self.best):
                continue
            taken.append(child.set_index)
            self._visit(child.uncovered, child.allowed, taken, child.bound)
            taken.pop()
        self.frames.pop()

    def _children(self, uncovered: int, allowed: list[int], depth: int) -> list[_Child]:
        sets = self.problem.sets
        forbidden: set[int] = set()
        children: list[_Child] = []
        for index in self._branching_sets(uncovered, allowed):
            self._check_time()
            forbidden.add(index)
            rest = uncovered & ~sets[index]
            child_allowed = [i for i in allowed if i not in forbidden and sets[i] & rest]
            remaining = self.heuristic(self.problem, rest, [sets[i] for i in child_allowed])
            children.append(_Child(depth + 1 + remaining, index, rest, child_allowed))
            self.generated += 1
        return children

    def _branching_sets(self, uncovered: int, allowed: list[int]) -> list[int]:
        points = _mask_indices(uncovered, self.problem.num_points)
        rows = np.asarray(allowed, dtype=np.intp)
        holders = self.matrix[np.ix_(rows, points)]
        point = int(np.argmin(holders.sum(axis=0)))
        options = rows[holders[:, point]].tolist()
        sets = self.problem.sets
        return sorted(options, key=lambda i: (-(sets[i] & uncovered).bit_count(), i))

    def proven_lower_bound(self, finished: bool) -> int:
        """The incumbent size when finished; otherwise the smallest bound of an unexplored
        child on the current path (the root bound before any child was bounded)."""
        if finished:
            return len(self.best)
        if self.frames:
            low = min(frame.pending_bound() for frame in self.frames)
        else:
            low = self.root_bound
        return min(len(self.best), math.ceil(low - 1e-9))


def solve_anytime(
    problem: SetCoverProblem,
    heuristic: str = "dual_bound",
    *,
    time_limit: float = 10.0,
    max_nodes: int | None = None,
) -> CoverResult:
    """Anytime minimum set cover: greedy cover, then depth-first branch and bound.

    The incumbent starts as :func:`greedy_cover` and improves whenever a smaller cover is
    found; subtrees whose admissible bound reaches the incumbent size are pruned. When the
    time or node limit stops the search, the best cover so far is returned together with a
    proven lower bound: the smallest bound of a child, on the current path, that is not fully
    explored yet (every cover not yet examined lies below such a child, and the explored ones
    are no smaller than the incumbent). When the search finishes, the cover is proven minimum.
    ``expansions`` counts the nodes visited, ``generated`` the children bounded.

    Raises:
        TypeError: a problem that is not a :class:`SetCoverProblem`, a limit that is not a number.
        UnknownHeuristicError: unknown heuristic name.
        ValueError: the heuristic is not admissible (bounds would not be proofs), a limit out of
            range (see :func:`check_limits`: ``max_nodes`` as ``max_expansions``).
        UnsolvableInstanceError: some point is in no set.
    """
    _require_problem(problem)
    if time_limit is None:
        raise TypeError("time_limit must be a number, got NoneType")
    check_limits(max_expansions=max_nodes, time_limit=time_limit, names={"max_expansions": "max_nodes"})
    spec = get_heuristic(heuristic)
    if not spec.admissible:
        raise ValueError(f"the anytime search needs an admissible heuristic, not {heuristic!r}")
    began = time.perf_counter()
    search = _BranchAndBound(
        problem=problem,
        heuristic=spec.function,
        matrix=problem.to_matrix(),
        deadline=began + time_limit,
        max_nodes=max_nodes,
        best=list(greedy_cover(problem)),
    )
    finished = search.run()
    bound = search.proven_lower_bound(finished)
    return CoverResult(
        method="anytime",
        heuristic=heuristic,
        chosen=tuple(search.best),
        proven_optimal=bound >= len(search.best),
        lower_bound=bound,
        expansions=search.nodes,
        generated=search.generated,
        seconds=time.perf_counter() - began,
        budget_exhausted=not finished,
    )


# --------------------------------------------------------------------------------------------
# Exact integer programme (HiGHS through scipy)


@dataclass(frozen=True)
class MilpResult:
    """Outcome of :func:`solve_milp`.

    Attributes:
        chosen: indices of the sets of the best cover found (empty if none).
        proven_optimal: whether HiGHS proved ``chosen`` minimum.
        lower_bound: HiGHS's proven lower bound on the minimum (rounded up).
        gap: relative gap ``(size - bound) / size`` (0 when optimal, ``math.inf`` without a
            cover).
        seconds: wall-clock time.
        message: HiGHS's status message.
    """

    chosen: tuple[int, ...]
    proven_optimal: bool
    lower_bound: int
    gap: float
    seconds: float
    message: str

    @property
    def size(self) -> int | None:
        """Number of sets in the cover (``None`` when none was found)."""
        return len(self.chosen) if self.chosen else None


def solve_milp(problem: SetCoverProblem, time_limit: float | None = None) -> MilpResult:
    """Minimum set cover as the integer programme ``min sum x_s`` s.t. every point is covered,
    ``x`` binary, solved by HiGHS (``scipy.optimize.milp``) with an optional time limit.

    Raises:
        TypeError: a problem that is not a :class:`SetCoverProblem`, a time limit that is not a
            number.
        ValueError: a time limit out of range (see :func:`check_limits`; HiGHS would ignore a
            negative or NaN one).
        UnsolvableInstanceError: some point is in no set.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_array

    _require_problem(problem)
    check_limits(time_limit=time_limit)
    _require_solvable(problem)
    began = time.perf_counter()
    coverage = csr_array(problem.to_matrix().T.astype(np.float64))
    options: dict[str, float | bool] = {"disp": False}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    result = milp(
        c=np.ones(problem.num_sets),
        constraints=LinearConstraint(coverage, lb=np.ones(problem.num_points), ub=np.inf),
        integrality=np.ones(problem.num_sets),
        bounds=Bounds(0, 1),
        options=options,
    )
    seconds = time.perf_counter() - began
    chosen: tuple[int, ...] = ()
    if result.x is not None:
        chosen = tuple(int(i) for i in np.flatnonzero(result.x > 0.5))
    optimal = result.status == 0 and bool(chosen)
    dual = getattr(result, "mip_dual_bound", None)
    if optimal:
        bound = len(chosen)
    elif dual is not None and np.isfinite(dual):
        bound = math.ceil(float(dual) - 1e-6)
    else:
        bound = 0
    if optimal:
        gap = 0.0
    elif chosen:
        gap = (len(chosen) - bound) / len(chosen)
    else:
        gap = math.inf
    return MilpResult(
        chosen=chosen,
        proven_optimal=optimal,
        lower_bound=bound,
        gap=gap,
        seconds=seconds,
        message=str(result.message),
    )
