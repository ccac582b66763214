"""Monte Carlo tree search (UCT with random rollouts), generic over games, compiled with numba.

The tree lives in flat arrays (one row per node), so a search can run in slices of
iterations from Python, which checks the clock between slices. A node is expanded whole
on its second visit; unvisited children are tried first, in random order. Each simulation
plays ``rollouts`` uniformly random games from the new leaf (their mean result is backed up)
up to a cap; a capped rollout scores a draw. Values are stored from
the point of view of the player who moved into the node, so selection maximises
``value / visits + c * sqrt(ln(parent visits) / visits)`` everywhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numba import njit

from boardlab.agents.base import Agent
from boardlab.agents.decision import Limit
from boardlab.core.spec import option
from boardlab.games.base import ONGOING, Kernel, compiled_for

SLICE = 256  # iterations between clock checks
MAX_EXPANSIONS = 200_000  # bounds the tree's memory; past it, leaves are only rolled out


@dataclass
class Tree:
    """Flat arrays holding a search tree; node 0 is the root."""

    me: np.ndarray
    opp: np.ndarray
    move: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    visits: np.ndarray
    value: np.ndarray
    terminal: np.ndarray  # the kernel status of the node's position
    size: np.ndarray  # one-element array: nodes in use

    @classmethod
    def create(cls, capacity: int, me: int, opp: int, status: int = ONGOING) -> Tree:
        # rows are written when a node is created, so the arrays need no initial fill
        # (large budgets then cost no memory until the tree grows)
        ints = [np.empty(capacity, dtype=np.int64) for _ in range(8)]
        tree = cls(
            *ints[:7],
            value=np.empty(capacity, dtype=np.float64),
            terminal=ints[7],
            size=np.ones(1, dtype=np.int64),
        )
        tree.me[0], tree.opp[0], tree.move[0], tree.parent[0] = me, opp, -1, -1
        tree.first_child[0], tree.n_children[0], tree.visits[0], tree.value[0] = -1, 0, 0, 0.0
        tree.terminal[0] = status
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
            self.terminal,
            self.size,
        )

    def root_children(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Moves, visits and mean values (for the player to move at the root) of root children."""
        first, count = self.first_child[0], self.n_children[0]
        if first < 0:
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
        sl = slice(first, first + count)
        visits = self.visits[sl]
        means = np.where(visits > 0, self.value[sl] / np.maximum(visits, 1), 0.0)
        return self.move[sl], visits, means


def build_mcts(kernel: Kernel) -> Any:
    """A compiled ``run(ctx, *tree arrays, iterations, c, rollout_cap, rollouts, seed)`` for ``kernel``."""
    gen_moves = kernel.gen_moves
    play = kernel.play
    status = kernel.status
    max_moves = kernel.num_actions

    @njit
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

    @njit
    def select_child(first, count, visits, value, parent_visits, c):  # type: ignore[no-untyped-def]
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

    @njit
    def run(
        ctx,
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
        iterations,
        c,
        cap,
        rollouts,
        seed,
    ):  # type: ignore[no-untyped-def]
        np.random.seed(seed)
        buf = np.empty(max_moves, dtype=np.int64)
        capacity = me_a.shape[0]
        for _ in range(iterations):
            node = 0
            # selection
            while first_a[node] >= 0 and terminal_a[node] == ONGOING:
                node = select_child(first_a[node], count_a[node], visits_a, value_a, visits_a[node], c)
            # expansion on the second visit (the root is expanded at once)
            if terminal_a[node] == ONGOING and (visits_a[node] > 0 or node == 0):
                n = gen_moves(ctx, me_a[node], opp_a[node], buf)
                if n > 0 and size_a[0] + n <= capacity:
                    first = size_a[0]
                    size_a[0] += n
                    for k in range(n):
                        child = first + k
                        a, b = play(ctx, me_a[node], opp_a[node], buf[k])
                        me_a[child] = a
                        opp_a[child] = b
                        move_a[child] = buf[k]
                        parent_a[child] = node
                        first_a[child] = -1
                        count_a[child] = 0
                        visits_a[child] = 0
                        value_a[child] = 0.0
                        terminal_a[child] = status(ctx, a, b)
                    first_a[node] = first
                    count_a[node] = n
                    node = select_child(first, n, visits_a, value_a, 1, c)
            # simulation: result for the side to move at `node`
            if terminal_a[node] != ONGOING:
                result = float(terminal_a[node])
            else:
                total = 0
                for _ in range(rollouts):
                    total += rollout(ctx, me_a[node], opp_a[node], cap, buf)
                result = total / rollouts
            # backpropagation: a node's value is for the player who moved into it
            reward = -result
            while node >= 0:
                visits_a[node] += 1
                value_a[node] += reward
                reward = -reward
                node = parent_a[node]
        return size_a[0]

    return run


def _build_and_warm(kernel: Kernel) -> Any:
    run = build_mcts(kernel)
    # compile now, so that the first timed search is not charged for it
    run(kernel.ctx, *Tree.create(kernel.num_actions + 1, 0, 0).arrays(), 1, 1.4, 1, 1, 0)
    return run


def compiled_mcts(kernel: Kernel) -> Any:
    """The compiled MCTS for a kernel, built (and compiled) once per process."""
    return compiled_for(kernel, _build_and_warm)


@dataclass
class MctsResult:
    """The chosen move index, the iterations run and the time spent."""

    move: int
    iterations: int
    seconds: float
    value: float


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
    """Run UCT from ``(me, opp)`` for ``iterations`` (0: unlimited) or ``seconds`` (0: unlimited).

    The position must not be finished. ``rollouts`` random games are played from each new leaf.
    """
    status = int(kernel.status(kernel.ctx, np.int64(me), np.int64(opp)))
    if status != ONGOING:
        raise ValueError("MCTS was asked to search a finished position")
    if capacity <= 0:
        # every iteration expands at most one node; time budgets assume 200k iterations/s
        expected = iterations if iterations > 0 else int(200_000 * max(seconds, 0.01) / rollouts)
        capacity = min(max(expected, 1), MAX_EXPANSIONS) * kernel.num_actions + 1
    tree = Tree.create(capacity, me, opp, status)
    run = compiled_mcts(kernel)
    start = time.perf_counter()
    done = 0
    batch_size = max(1, SLICE // rollouts)
    while True:
        batch = batch_size if iterations <= 0 else min(batch_size, iterations - done)
        if batch <= 0:
            break
        run(kernel.ctx, *tree.arrays(), batch, c, rollout_cap, rollouts, int(rng.integers(2**31)))
        done += batch
        if seconds > 0 and time.perf_counter() - start >= seconds:
            break
    moves, visits, means = tree.root_children()
    most = visits.max()
    candidates = np.flatnonzero(visits == most)
    pick = int(candidates[rng.integers(len(candidates))])
    result = MctsResult(int(moves[pick]), done, time.perf_counter() - start, float(means[pick]))
    return result, tree


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
        compiled_mcts(game.kernel)

    def analyse(self, state: Any) -> MctsResult:
        """Search ``state`` within the budget."""
        s = self.settings
        iterations = s.iters if (s.iters or s.time) else 1000
        me, opp = state.words
        result, _ = mcts_search(
            state.kernel, me, opp, iterations, s.time, s.c, s.rollout, self.np_rng, rollouts=s.rollouts
        )
        return result

    def choose(self, state: Any) -> Any:
        self.last = self.analyse(state)
        return state.move_from_index(self.last.move)
