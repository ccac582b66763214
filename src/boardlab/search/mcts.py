"""Monte Carlo tree search generic over games, with a pluggable evaluator and selection rule.

The tree lives in flat arrays (one row per node, node 0 the root), so a search runs in
compiled slices that Python drives: between slices it checks the clock, or hands a batch of
leaves to an evaluator. A node's ``value`` sums the results backed up through it, seen by the
player who moved into it, so both selection rules maximise a child's mean everywhere:

- ``uct``: unvisited children first, in random order, then UCB1,
  ``Q + c * sqrt(ln N / n)`` (priors unused);
- ``puct``: ``Q + c * P * sqrt(N) / (1 + n)`` as in AlphaZero, where an unvisited child's
  ``Q`` is the *first-play urgency* ``fpu`` (0: as good as a draw; -1: try it last).

An evaluator answers, for a position and the side to move, priors over the legal actions
and a value in [-1, 1]. It comes in two kinds:

- a :class:`CompiledEvaluator` (:class:`Rollouts`: the mean result of uniformly random games)
  is called inside the compiled loop, one leaf at a time. A leaf gets its value at its first
  visit and its children (with their priors) at its second, since a rollout costs less than
  an expansion;
- an :class:`Evaluator` (a neural network, an exact table) is called from Python on a batch
  of positions. One cycle of the search *collects* up to ``batch`` leaves, descending with a
  virtual loss on every node of each path so that the next descent looks elsewhere, hands
  their positions to the evaluator in one call, then *completes* them: each leaf is expanded
  with the priors and its value is backed up in place of the virtual losses. Leaves of many
  searches can share one call (:func:`evaluate_together`). The root is evaluated by the first
  cycle and that evaluation counts as no simulation, so the root's visits always equal the
  simulations run and the sum of its children's visits.

A finished position reached in the tree backs up its exact result and needs no evaluator.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
from numba import objmode

from boardlab.games.base import ONGOING, Kernel, compiled_for
from boardlab.games.jit import cached_njit

UCT = "uct"
PUCT = "puct"
RULES = (UCT, PUCT)

SLICE = 256  # compiled simulations between clock checks (divided by the rollouts per leaf)
CLOCK_EVERY = 1024
"""Rollouts of one leaf between clock checks under a time budget: a check costs some 4 us, a
rollout 0.35 us (Tic-Tac-Toe) to 5 us (5x5 Quixo), so at most about 1 % of the time."""
MAX_EXPANSIONS = 200_000  # bounds the tree's memory; past it, leaves are only evaluated
EXPECTED_RATE = 200_000  # simulations per second assumed when sizing a tree for a time budget
PENDING = -1  # ``n_children`` of a leaf collected for the evaluator and not completed yet


@cached_njit
def clock() -> float:
    """``time.perf_counter()``, read from compiled code."""
    with objmode(now="float64"):
        now = time.perf_counter()
    return now


class EvaluatorError(ValueError):
    """An evaluator's answer that is not priors and values of the right shapes and ranges, or
    an evaluator built for another kernel than the search's."""


class Evaluator(Protocol):
    """Priors and values of a batch of positions, each for its side to move.

    ``words`` is an int64 array of shape (B, 2): the state words of B positions, none
    finished; ``legal`` a bool array (B, num_actions), True at each position's legal actions.
    The answer is ``(priors, values)``: priors of shape (B, num_actions), non-negative (the
    search keeps the legal actions' and normalises them; all zero means uniform), and values
    of shape (B,) in [-1, 1]. A network evaluator turns the words into observations with
    :func:`boardlab.games.base.observe_batch`; an evaluator with a ``kernel`` attribute (the
    kernel it observes positions with) is used only by searches over that kernel.
    """

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


class CompiledEvaluator:
    """An evaluator called inside the compiled search loop.

    :meth:`build` gives two numba functions for a kernel, both for the side to move:
    ``value(ctx, a, b, buf, params) -> float`` in [-1, 1] (``buf`` is scratch room for
    ``num_actions`` int64) and ``priors(ctx, a, b, moves, n, out, offset, params)``, which
    writes the priors of the ``n`` legal ``moves`` into ``out[offset : offset + n]``.
    ``params`` is this evaluator's :attr:`params` tuple, passed through unchanged, so that one
    compile serves every setting (a subclass gives every field a default: the search compiles
    once per subclass, with a default instance).
    """

    @property
    def params(self) -> tuple[Any, ...]:
        raise NotImplementedError

    @staticmethod
    def build(kernel: Kernel) -> tuple[Any, Any]:
        raise NotImplementedError


@dataclass(frozen=True)
class Rollouts(CompiledEvaluator):
    """The mean result of ``count`` uniformly random games from the leaf, each cut after
    ``cap`` plies (a cut game scores a draw); uniform priors."""

    cap: int = 200
    count: int = 1
    deadline: float = 0.0
    """A ``time.perf_counter()`` reading past which a leaf's rollouts stop, read every
    :data:`CLOCK_EVERY` rollouts, the value then the mean of those played (0: none). A
    search with a time budget sets it, so that one leaf of many rollouts cannot overrun it."""

    def __post_init__(self) -> None:
        if self.cap < 1 or self.count < 1:
            raise ValueError(
                f"rollouts need a positive cap and count, not cap={self.cap}, count={self.count}"
            )

    @property
    def params(self) -> tuple[int, int, float]:
        return (self.cap, self.count, float(self.deadline))

    @staticmethod
    def build(kernel: Kernel) -> tuple[Any, Any]:
        gen_moves, play, status = kernel.gen_moves, kernel.play, kernel.status

        @cached_njit
        def rollout(ctx, me, opp, cap, buf):  # type: ignore[no-untyped-def]
            # result for the side to move at the start of the rollout (0: draw or capped)
            sign = 1
            for _ in range(cap):
                st = status(ctx, me, opp)
                if st != ONGOING:
                    return st * sign
                n = gen_moves(ctx, me, opp, buf)
                me, opp = play(ctx, me, opp, buf[np.random.randint(n)])
                sign = -sign
            st = status(ctx, me, opp)
            return 0 if st == ONGOING else st * sign

        @cached_njit
        def value(ctx, me, opp, buf, params):  # type: ignore[no-untyped-def]
            cap, count, deadline = params
            total = 0
            if deadline <= 0:
                for _ in range(count):
                    total += rollout(ctx, me, opp, cap, buf)
                return total / count
            played = 0
            while played < count:
                total += rollout(ctx, me, opp, cap, buf)
                played += 1
                if played % CLOCK_EVERY == 0 and played < count and clock() >= deadline:
                    break
            return total / played

        @cached_njit
        def priors(ctx, me, opp, moves, n, out, offset, params):  # type: ignore[no-untyped-def]
            share = 1.0 / n
            for k in range(offset, offset + n):
                out[k] = share

        return value, priors


@dataclass
class Tree:
    """Flat arrays holding a search tree; node 0 is the root."""

    me: np.ndarray
    opp: np.ndarray
    move: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray  # PENDING while the node waits for a batched evaluator
    visits: np.ndarray
    value: np.ndarray
    prior: np.ndarray
    terminal: np.ndarray  # the kernel status of the node's position
    size: np.ndarray  # one-element array: nodes in use

    @classmethod
    def create(cls, capacity: int, me: int, opp: int, status: int = ONGOING) -> Tree:
        # rows are written when a node is created, so the arrays need no initial fill
        # (large budgets then cost no memory until the tree grows)
        me_, opp_, move, parent, first_child, n_children, visits, terminal = (
            np.empty(capacity, dtype=np.int64) for _ in range(8)
        )
        tree = cls(
            me_,
            opp_,
            move,
            parent,
            first_child,
            n_children,
            visits,
            value=np.empty(capacity, dtype=np.float64),
            prior=np.empty(capacity, dtype=np.float64),
            terminal=terminal,
            size=np.ones(1, dtype=np.int64),
        )
        tree.me[0], tree.opp[0], tree.move[0], tree.parent[0] = me, opp, -1, -1
        tree.first_child[0], tree.n_children[0], tree.visits[0], tree.value[0] = -1, 0, 0, 0.0
        tree.prior[0], tree.terminal[0] = 1.0, status
        return tree

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self.me,
            self.opp,
            self.move,
            self.parent,
            self.first_child,
            self.n_children,
            self.visits,
            self.value,
            self.prior,
            self.terminal,
            self.size,
        )

    def children(self, node: int = 0) -> slice:
        """The rows of a node's children (empty while it is unexpanded)."""
        first, count = int(self.first_child[node]), int(self.n_children[node])
        return slice(0, 0) if first < 0 else slice(first, first + count)

    def root_children(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Moves, visits and mean values (for the player to move at the root) of root children."""
        rows = self.children(0)
        visits = self.visits[rows]
        means = np.where(visits > 0, self.value[rows] / np.maximum(visits, 1), 0.0)
        return self.move[rows], visits, means


# --- selection rules ---------------------------------------------------------------------------


@cached_njit
def select_uct(first, count, visits, value, prior, parent_visits, c, fpu):  # type: ignore[no-untyped-def]
    """UCB1 over a node's children, unvisited ones first in random order."""
    unvisited = 0
    for i in range(first, first + count):
        if visits[i] == 0:
            unvisited += 1
    if unvisited > 0:
        pick = np.random.randint(unvisited)
        for i in range(first, first + count):
            if visits[i] == 0:
                if pick == 0:
                    return i
                pick -= 1
    log_n = np.log(parent_visits)
    best = first
    best_score = -1e300
    for i in range(first, first + count):
        score = value[i] / visits[i] + c * np.sqrt(log_n / visits[i])
        if score > best_score:
            best_score = score
            best = i
    return best


@cached_njit
def select_puct(first, count, visits, value, prior, parent_visits, c, fpu):  # type: ignore[no-untyped-def]
    """AlphaZero's PUCT; an unvisited child counts as worth ``fpu`` (ties: the first child)."""
    # sqrt(max(N, 1)), so that the priors order the first descents from a fresh node too
    scale = c * np.sqrt(max(parent_visits, 1))
    best = first
    best_score = -1e300
    for i in range(first, first + count):
        n = visits[i]
        q = value[i] / n if n > 0 else fpu
        score = q + scale * prior[i] / (1 + n)
        if score > best_score:
            best_score = score
            best = i
    return best


SELECTORS = {UCT: select_uct, PUCT: select_puct}


def check_rule(rule: str) -> str:
    """``rule`` if it names a selection rule, else ValueError naming the accepted ones."""
    if rule not in SELECTORS:
        raise ValueError(f"unknown selection rule {rule!r}; accepted: {', '.join(RULES)}")
    return rule


def build_add_children(kernel: Kernel) -> Any:
    """A compiled ``add_children(ctx, node, moves, n, *tree arrays) -> first row``: the ``n``
    children of ``node`` reached by ``moves``, written as fresh rows at the end of the tree
    (priors are left to the caller). Inlined into both search loops."""
    play, status = kernel.play, kernel.status

    @cached_njit(inline="always")
    def add_children(  # type: ignore[no-untyped-def]
        ctx,
        node,
        moves,
        n,
        me_a,
        opp_a,
        move_a,
        parent_a,
        first_a,
        count_a,
        visits_a,
        value_a,
        terminal_a,
        size_a,
    ):
        first = size_a[0]
        size_a[0] += n
        for k in range(n):
            child = first + k
            a, b = play(ctx, me_a[node], opp_a[node], moves[k])
            me_a[child] = a
            opp_a[child] = b
            move_a[child] = moves[k]
            parent_a[child] = node
            first_a[child] = -1
            count_a[child] = 0
            visits_a[child] = 0
            value_a[child] = 0.0
            terminal_a[child] = status(ctx, a, b)
        return first

    return add_children


# --- the compiled loop (compiled evaluators) -----------------------------------------------------


def build_compiled_search(kernel: Kernel, evaluator: type[CompiledEvaluator], rule: str) -> Any:
    """A compiled ``run(ctx, *tree arrays, iterations, c, fpu, params, seed) -> tree size``:
    ``iterations`` simulations that evaluate leaves with ``evaluator`` and select by ``rule``."""
    gen_moves = kernel.gen_moves
    max_moves = kernel.num_actions
    select = SELECTORS[rule]
    leaf_value, leaf_priors = evaluator.build(kernel)
    add_children = build_add_children(kernel)

    @cached_njit
    def run(  # type: ignore[no-untyped-def]
        ctx,
        me_a,
        opp_a,
        move_a,
        parent_a,
        first_a,
        count_a,
        visits_a,
        value_a,
        prior_a,
        terminal_a,
        size_a,
        iterations,
        c,
        fpu,
        params,
        seed,
    ):
        np.random.seed(seed)
        buf = np.empty(max_moves, dtype=np.int64)
        capacity = me_a.shape[0]
        for _ in range(iterations):
            node = 0
            while first_a[node] >= 0 and terminal_a[node] == ONGOING:
                parent = node
                node = select(
                    first_a[parent], count_a[parent], visits_a, value_a, prior_a, visits_a[parent], c, fpu
                )
            # expansion on the second visit (the root is expanded at once)
            if terminal_a[node] == ONGOING and (visits_a[node] > 0 or node == 0):
                n = gen_moves(ctx, me_a[node], opp_a[node], buf)
                if n > 0 and size_a[0] + n <= capacity:
                    first = add_children(
                        ctx,
                        node,
                        buf,
                        n,
                        me_a,
                        opp_a,
                        move_a,
                        parent_a,
                        first_a,
                        count_a,
                        visits_a,
                        value_a,
                        terminal_a,
                        size_a,
                    )
                    leaf_priors(ctx, me_a[node], opp_a[node], buf, n, prior_a, first, params)
                    first_a[node] = first
                    count_a[node] = n
                    node = select(first, n, visits_a, value_a, prior_a, visits_a[node], c, fpu)
            # evaluation: the result for the side to move at `node`
            if terminal_a[node] != ONGOING:
                result = float(terminal_a[node])
            else:
                result = leaf_value(ctx, me_a[node], opp_a[node], buf, params)
            # backup: a node's value is for the player who moved into it
            reward = -result
            while node >= 0:
                visits_a[node] += 1
                value_a[node] += reward
                reward = -reward
                node = parent_a[node]
        return size_a[0]

    return run


# --- the batched cycle (Python evaluators) -------------------------------------------------------


@cached_njit
def replace_virtual_losses(node, reward, visits_a, value_a, parent_a, keep):  # type: ignore[no-untyped-def]
    """Undo the virtual losses on the path from ``node`` up to the root: each node of the path
    holds one virtual visit scored as a loss (-1) for the player who moved into it; ``keep``
    turns it into a real visit worth ``reward`` (for the player who moved into ``node``), else
    the visit goes."""
    while node >= 0:
        if keep:
            value_a[node] += reward + 1.0
        else:
            visits_a[node] -= 1
            value_a[node] += 1.0
        reward = -reward
        node = parent_a[node]


def build_batched_search(kernel: Kernel, rule: str) -> tuple[Any, Any]:
    """Compiled ``collect`` and ``complete``, the two halves of a batched cycle (see the module
    docstring) selecting by ``rule``.

    ``collect(ctx, *tree arrays, starts, counts, c, fpu, seed, leaves, words, legal, gained)
    -> (leaves, done)`` runs, for each ``j``, ``counts[j]`` descents forced through the node
    ``starts[j]`` (the root for a plain search; a root child for the Gumbel root's visits),
    which with every node above it takes each descent's virtual loss. It writes each new leaf's
    node, state words and legal mask, backs up at once a descent that ends on a finished
    position (``done`` counts those), and adds to ``gained[j]`` the descents of ``j`` that did
    either. A descent that meets a leaf already collected ends the descents of ``j`` for this
    call. A negative ``seed`` leaves the compiled random generator as it is (PUCT draws nothing
    from it).
    ``complete(ctx, *tree arrays, leaves, n, priors, values) -> simulations`` expands the
    ``n`` leaves and backs up their values.
    """
    gen_moves = kernel.gen_moves
    max_moves = kernel.num_actions
    select = SELECTORS[rule]
    add_children = build_add_children(kernel)

    @cached_njit
    def collect(  # type: ignore[no-untyped-def]
        ctx,
        me_a,
        opp_a,
        move_a,
        parent_a,
        first_a,
        count_a,
        visits_a,
        value_a,
        prior_a,
        terminal_a,
        size_a,
        starts,
        counts,
        c,
        fpu,
        seed,
        leaves,
        words,
        legal,
        gained,
    ):
        if seed >= 0:
            np.random.seed(seed)
        buf = np.empty(max_moves, dtype=np.int64)
        found = 0
        done = 0
        for j in range(len(starts)):
            for _ in range(counts[j]):
                node = starts[j]
                while node >= 0:
                    visits_a[node] += 1
                    value_a[node] -= 1.0
                    node = parent_a[node]
                node = starts[j]
                while first_a[node] >= 0 and terminal_a[node] == ONGOING:
                    parent = node
                    node = select(
                        first_a[parent], count_a[parent], visits_a, value_a, prior_a, visits_a[parent], c, fpu
                    )
                    visits_a[node] += 1
                    value_a[node] -= 1.0
                if terminal_a[node] != ONGOING:
                    replace_virtual_losses(node, -float(terminal_a[node]), visits_a, value_a, parent_a, True)
                    gained[j] += 1
                    done += 1
                    continue
                if count_a[node] == PENDING:
                    # the same leaf again: send the batch as it is rather than evaluate it twice
                    replace_virtual_losses(node, 0.0, visits_a, value_a, parent_a, False)
                    break
                count_a[node] = PENDING
                leaves[found] = node
                words[found, 0] = me_a[node]
                words[found, 1] = opp_a[node]
                legal[found, :] = False
                for k in range(gen_moves(ctx, me_a[node], opp_a[node], buf)):
                    legal[found, buf[k]] = True
                found += 1
                gained[j] += 1
        return found, done

    @cached_njit
    def complete(  # type: ignore[no-untyped-def]
        ctx,
        me_a,
        opp_a,
        move_a,
        parent_a,
        first_a,
        count_a,
        visits_a,
        value_a,
        prior_a,
        terminal_a,
        size_a,
        leaves,
        n_leaves,
        priors,
        values,
    ):
        buf = np.empty(max_moves, dtype=np.int64)
        capacity = me_a.shape[0]
        simulations = 0
        for j in range(n_leaves):
            node = leaves[j]
            count_a[node] = 0
            n = gen_moves(ctx, me_a[node], opp_a[node], buf)
            if size_a[0] + n <= capacity:
                total = 0.0
                for k in range(n):
                    total += priors[j, buf[k]]
                first = add_children(
                    ctx,
                    node,
                    buf,
                    n,
                    me_a,
                    opp_a,
                    move_a,
                    parent_a,
                    first_a,
                    count_a,
                    visits_a,
                    value_a,
                    terminal_a,
                    size_a,
                )
                for k in range(n):
                    prior_a[first + k] = priors[j, buf[k]] / total if total > 0 else 1.0 / n
                first_a[node] = first
                count_a[node] = n
            if node == 0:
                # the root's own evaluation only opens the tree: it is no simulation
                replace_virtual_losses(0, 0.0, visits_a, value_a, parent_a, False)
            else:
                replace_virtual_losses(node, -values[j], visits_a, value_a, parent_a, True)
                simulations += 1
        return simulations

    return collect, complete


# --- compile caches ------------------------------------------------------------------------------

_BUILDERS: dict[tuple[Any, ...], Callable[[Kernel], Any]] = {}


def _builder(*key: Any) -> Callable[[Kernel], Any]:
    """One builder per (kind, evaluator, rule), so that ``compiled_for`` caches by kernel."""
    if key not in _BUILDERS:
        kind, *rest = key
        _BUILDERS[key] = (
            (lambda kernel: _warm_compiled(kernel, *rest))
            if kind == "compiled"
            else (lambda kernel: _warm_batched(kernel, *rest))
        )
    return _BUILDERS[key]


def _warm_compiled(kernel: Kernel, evaluator: CompiledEvaluator, rule: str) -> Any:
    run = build_compiled_search(kernel, type(evaluator), rule)
    # compile now, so that the first timed search is not charged for it
    run(kernel.ctx, *Tree.create(kernel.num_actions + 1, 0, 0).arrays(), 1, 1.0, 0.0, evaluator.params, 1)
    return run


def _warm_batched(kernel: Kernel, rule: str) -> tuple[Any, Any]:
    collect, complete = build_batched_search(kernel, rule)
    tree = Tree.create(kernel.num_actions + 1, 0, 0)
    leaves, words = np.zeros(1, np.int64), np.zeros((1, 2), np.int64)
    legal = np.zeros((1, kernel.num_actions), np.bool_)
    root, none = np.zeros(1, np.int64), np.zeros(1, np.int64)
    collect(kernel.ctx, *tree.arrays(), root, none, 1.0, 0.0, 1, leaves, words, legal, np.zeros(1, np.int64))
    complete(kernel.ctx, *tree.arrays(), leaves, 0, np.zeros((1, kernel.num_actions)), np.zeros(1))
    return collect, complete


def compiled_search(kernel: Kernel, evaluator: CompiledEvaluator, rule: str = UCT) -> Any:
    """The compiled loop for a kernel, an evaluator kind and a rule, built once per process."""
    return compiled_for(kernel, _builder("compiled", _kind_of(evaluator), check_rule(rule)))


def batched_search(kernel: Kernel, rule: str = PUCT) -> tuple[Any, Any]:
    """The compiled ``collect`` and ``complete`` for a kernel and a rule, built once per process."""
    return compiled_for(kernel, _builder("batched", check_rule(rule)))


def _kind_of(evaluator: CompiledEvaluator) -> CompiledEvaluator:
    # one compile per evaluator class: settings travel in `params`, not in the closure
    return type(evaluator)()


def check_evaluator(evaluator: Any, kernel: Kernel) -> None:
    """EvaluatorError if ``evaluator`` says it was built for another kernel (its ``kernel``
    attribute) than ``kernel``: it would read the search's positions as another game's."""
    built_for = getattr(evaluator, "kernel", None)
    if isinstance(built_for, Kernel) and built_for.name != kernel.name:
        raise EvaluatorError(
            f"the evaluator was built for the kernel {built_for.name}, not for {kernel.name} "
            "that the search plays: build it with the search's game (e.g. network.evaluator(game.kernel))"
        )


def compiled_mcts(kernel: Kernel) -> Any:
    """The compiled UCT search with random rollouts for a kernel, built once per process."""
    return compiled_search(kernel, Rollouts(), UCT)


# --- searches driven from Python -----------------------------------------------------------------


@dataclass
class LeafBatch:
    """Leaves collected from one tree for a batched evaluator: their nodes, state words
    (shape (n, 2)) and legal masks (shape (n, num_actions))."""

    nodes: np.ndarray
    words: np.ndarray
    legal: np.ndarray

    def __len__(self) -> int:
        return len(self.nodes)


@dataclass
class MctsResult:
    """The chosen move index, the iterations run, the time spent and the move's mean value."""

    move: int
    iterations: int
    seconds: float
    value: float


def default_capacity(kernel: Kernel, iterations: int, seconds: float, rollouts: int = 1) -> int:
    """Tree rows for a budget: each simulation expands at most one node."""
    expected = iterations if iterations > 0 else int(EXPECTED_RATE * max(seconds, 0.01) / rollouts)
    return min(max(expected, 1), MAX_EXPANSIONS) * kernel.num_actions + 1


class Search:
    """One search tree over a position, grown by simulations.

    ``evaluator`` is a :class:`CompiledEvaluator` (run with :meth:`run`) or a batched
    :class:`Evaluator` (run with :meth:`run`, or cycle by cycle with :meth:`collect` and
    :meth:`complete`, e.g. by :func:`evaluate_together`; :meth:`collect_below` descends
    through chosen nodes, as the Gumbel root visits its considered actions); an evaluator built
    for another kernel is refused with EvaluatorError. ``rule`` is ``"uct"`` or ``"puct"``,
    ``c`` its exploration constant (finite, at least 0) and ``fpu`` PUCT's value of an
    unvisited child. Random choices come from ``rng``, so the same seed gives the same search.
    ``capacity`` bounds the tree's rows (an expansion takes one per legal move; past it leaves
    are only evaluated); the arrays cost memory only as the tree grows.
    """

    def __init__(
        self,
        kernel: Kernel,
        me: int,
        opp: int,
        evaluator: CompiledEvaluator | Evaluator,
        rule: str = UCT,
        c: float = 1.4,
        fpu: float = 0.0,
        rng: np.random.Generator | None = None,
        capacity: int = 1_000_001,
    ) -> None:
        status = int(kernel.status(kernel.ctx, np.int64(me), np.int64(opp)))
        if status != ONGOING:
            raise ValueError("MCTS was asked to search a finished position")
        if not math.isfinite(c) or c < 0:
            raise ValueError(f"the exploration constant c must be a finite number at least 0, got {c}")
        check_evaluator(evaluator, kernel)
        self.kernel = kernel
        self.evaluator = evaluator
        self.rule = check_rule(rule)
        self.c = float(c)
        self.fpu = float(fpu)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.tree = Tree.create(capacity, me, opp, status)
        self.simulations = 0
        self.seconds = 0.0
        self._root = np.zeros(1, np.int64)  # plain descents start at the root
        self._limit = np.zeros(1, np.int64)
        self._gained = np.zeros(1, np.int64)
        if isinstance(evaluator, CompiledEvaluator):
            self._run = compiled_search(kernel, evaluator, self.rule)
        else:
            self._collect, self._complete = batched_search(kernel, self.rule)

    def run(self, iterations: int = 0, seconds: float = 0.0, batch: int = 16) -> int:
        """Add ``iterations`` simulations (0: unlimited) or stop after ``seconds`` (0: unlimited),
        the clock read between slices (and within a leaf of many rollouts, see
        :attr:`Rollouts.deadline`); a batched evaluator gets up to ``batch`` (at least 1)
        leaves a call. Returns the simulations added."""
        if iterations <= 0 and seconds <= 0:
            raise ValueError("a search needs a number of iterations or a time budget")
        if isinstance(batch, bool) or not isinstance(batch, int | np.integer) or batch < 1:
            raise ValueError(f"batch must be a whole number of leaves, at least 1, got {batch!r}")
        start = time.perf_counter()
        before = self.simulations
        compiled = isinstance(self.evaluator, CompiledEvaluator)
        step = max(1, SLICE // self._rollouts()) if compiled else int(batch)
        while True:
            done = self.simulations - before
            size = step if iterations <= 0 else min(step, iterations - done)
            if size <= 0:
                break
            if compiled:
                self._run_compiled(size, start + seconds if seconds > 0 else 0.0)
            else:
                self._run_cycle(size)
            if seconds > 0 and time.perf_counter() - start >= seconds:
                break
        self.seconds += time.perf_counter() - start
        return self.simulations - before

    def _rollouts(self) -> int:
        return self.evaluator.count if isinstance(self.evaluator, Rollouts) else 1

    def _run_compiled(self, size: int, deadline: float = 0.0) -> None:
        """``size`` compiled simulations; rollouts stop at ``deadline`` (0: none)."""
        evaluator: Any = self.evaluator
        if isinstance(evaluator, Rollouts) and evaluator.count > CLOCK_EVERY:
            evaluator = replace(evaluator, deadline=deadline)
        seed = int(self.rng.integers(2**31))
        self._run(self.kernel.ctx, *self.tree.arrays(), size, self.c, self.fpu, evaluator.params, seed)
        self.simulations += size

    def _run_cycle(self, size: int) -> None:
        leaves = self.collect(size)
        if len(leaves):
            evaluator: Any = self.evaluator
            priors, values = evaluator.evaluate(leaves.words, leaves.legal)
            self.complete(leaves, priors, values)

    def collect(self, limit: int) -> LeafBatch:
        """Up to ``limit`` descents with virtual losses: the new leaves they reached (descents
        that reached a finished position are backed up at once and counted as simulations)."""
        self._check_batched()
        seed = int(self.rng.integers(2**31))
        # one count, through the root: arrays kept from call to call (a cycle may be short)
        self._limit[0], self._gained[0] = limit, 0
        return self._descend(self._root, self._limit, limit, seed, self._gained)

    def collect_below(self, starts: np.ndarray, counts: np.ndarray) -> tuple[LeafBatch, np.ndarray]:
        """``counts[j]`` descents forced through the node ``starts[j]`` for each ``j`` (the
        Gumbel root's visits to chosen root children), as :meth:`collect`; the new leaves and,
        for each ``j``, the descents that reached a leaf or a finished position (those of a
        ``j`` stop at a leaf already collected). Draws a seed from ``rng`` only for UCT, the
        rule that makes random choices."""
        self._check_batched()
        seed = int(self.rng.integers(2**31)) if self.rule == UCT else -1
        starts, counts = np.asarray(starts, np.int64), np.asarray(counts, np.int64)
        gained = np.zeros(len(starts), np.int64)
        return self._descend(starts, counts, int(counts.sum()), seed, gained), gained

    def _check_batched(self) -> None:
        if isinstance(self.evaluator, CompiledEvaluator):
            raise TypeError("a search with a compiled evaluator runs whole; collect() is for batched ones")

    def _descend(
        self, starts: np.ndarray, counts: np.ndarray, total: int, seed: int, gained: np.ndarray
    ) -> LeafBatch:
        leaves = np.empty(total, np.int64)
        words = np.empty((total, 2), np.int64)
        legal = np.empty((total, self.kernel.num_actions), np.bool_)
        tree = self.tree.arrays()
        found, done = self._collect(
            self.kernel.ctx, *tree, starts, counts, self.c, self.fpu, seed, leaves, words, legal, gained
        )
        self.simulations += done
        return LeafBatch(leaves[:found], words[:found], legal[:found])

    def complete(self, leaves: LeafBatch, priors: Any, values: Any, checked: bool = False) -> None:
        """Expand the collected ``leaves`` with the evaluator's ``priors`` and back up its
        ``values`` (see :class:`Evaluator`); EvaluatorError for a malformed answer. ``checked``:
        the caller has already passed the answer through :func:`checked_answer`."""
        if not checked:
            priors, values = checked_answer(priors, values, len(leaves), self.kernel.num_actions)
        self.simulations += self._complete(
            self.kernel.ctx, *self.tree.arrays(), leaves.nodes, len(leaves), priors, values
        )

    # what the tree says ----------------------------------------------------------------------

    def policy(self) -> np.ndarray:
        """Visit shares of the root's children over the whole action space (zero elsewhere)."""
        moves, visits, _ = self.tree.root_children()
        policy = np.zeros(self.kernel.num_actions)
        total = visits.sum()
        if total > 0:
            policy[moves] = visits / total
        return policy

    def value(self) -> float:
        """The mean result of the simulations for the side to move at the root, in [-1, 1]."""
        rows = self.tree.children(0)
        visits = self.tree.visits[rows].sum()
        return 0.0 if visits == 0 else float(np.clip(self.tree.value[rows].sum() / visits, -1.0, 1.0))

    def best(self) -> tuple[int, float]:
        """The most visited root action (ties broken from ``rng``) and its mean value."""
        moves, visits, means = self.tree.root_children()
        if len(moves) == 0:
            raise ValueError("the search has not run: no root move has been tried")
        candidates = np.flatnonzero(visits == visits.max())
        pick = int(candidates[self.rng.integers(len(candidates))])
        return int(moves[pick]), float(means[pick])

    def principal_line(self, action: int | None = None) -> list[int]:
        """The actions of the most visited line from the root (first of equals), or from the
        root's ``action`` when given."""
        tree, line, node = self.tree, [], 0
        if action is not None:
            rows = tree.children(0)
            node = rows.start + int(np.flatnonzero(tree.move[rows] == action)[0])
            line.append(action)
        while tree.first_child[node] >= 0:
            rows = tree.children(node)
            visits = tree.visits[rows]
            if visits.max() <= 0:
                break
            node = rows.start + int(np.argmax(visits))
            line.append(int(tree.move[node]))
        return line


def checked_answer(priors: Any, values: Any, n: int, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """An evaluator's answer as float64 arrays (n, num_actions) and (n,); EvaluatorError if it
    has another shape, a negative or non-finite prior, or a value outside [-1, 1]."""
    priors = np.asarray(priors, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if priors.shape != (n, num_actions):
        raise EvaluatorError(f"an evaluator's priors must have shape {(n, num_actions)}, got {priors.shape}")
    if values.size != n:
        raise EvaluatorError(f"an evaluator must give {n} values, got shape {values.shape}")
    values = values.reshape(n)
    if not np.all(np.isfinite(priors)) or np.any(priors < 0):
        raise EvaluatorError("an evaluator's priors must be finite and non-negative")
    if not np.all(np.abs(values) <= 1.0):
        raise EvaluatorError("an evaluator's values must lie in [-1, 1]")
    return priors, values


def evaluate_together(searches: Sequence[Search], evaluator: Evaluator, leaves_per_search: int) -> None:
    """One cycle of many searches sharing ``evaluator``: up to ``leaves_per_search`` leaves from
    each, evaluated in a single call (as self-play of many games feeds one network). The
    searches play one game (their leaves go in one batch), so the evaluator is checked once."""
    if searches:
        check_evaluator(evaluator, searches[0].kernel)
    batches = [search.collect(leaves_per_search) for search in searches]
    total = sum(len(batch) for batch in batches)
    if total == 0:
        return
    words = np.concatenate([batch.words for batch in batches])
    legal = np.concatenate([batch.legal for batch in batches])
    priors, values = checked_answer(*evaluator.evaluate(words, legal), total, searches[0].kernel.num_actions)
    offset = 0
    for search, batch in zip(searches, batches, strict=True):
        end = offset + len(batch)
        search.complete(batch, priors[offset:end], values[offset:end])
        offset = end


def mcts_search(
    kernel: Kernel,
    me: int,
    opp: int,
    iterations: int,
    seconds: float,
    c: float,
    rollout_cap: int,
    rng: np.random.Generator,
    capacity: int = 0,
    rollouts: int = 1,
) -> tuple[MctsResult, Tree]:
    """Run UCT with random rollouts from ``(me, opp)`` for ``iterations`` (0: unlimited) or
    ``seconds`` (0: unlimited).

    The position must not be finished. ``rollouts`` random games are played from each new leaf.
    """
    search = Search(
        kernel,
        me,
        opp,
        Rollouts(rollout_cap, rollouts),
        UCT,
        c,
        rng=rng,
        capacity=capacity if capacity > 0 else default_capacity(kernel, iterations, seconds, rollouts),
    )
    search.run(iterations, seconds)
    move, value = search.best()
    return MctsResult(move, search.simulations, search.seconds, value), search.tree


__all__ = [
    "PUCT",
    "RULES",
    "UCT",
    "CompiledEvaluator",
    "Evaluator",
    "EvaluatorError",
    "LeafBatch",
    "MctsResult",
    "Rollouts",
    "Search",
    "Tree",
    "check_evaluator",
    "compiled_mcts",
    "default_capacity",
    "evaluate_together",
    "mcts_search",
]
