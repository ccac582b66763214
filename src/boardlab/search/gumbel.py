"""A Gumbel root over the batched MCTS: Gumbel AlphaZero's policy improvement at small budgets.

Danihelka, Guez, Schrittwieser and Silver, *Policy improvement by planning with Gumbel*
(ICLR 2022). With ``n`` simulations and the root's prior logits ``l``:

1. **Gumbel-top-k**: draw ``g(a)`` ~ Gumbel(0, 1) for every legal action and consider the
   ``k`` actions of largest ``g(a) + l(a)`` (without noise, ``g = 0``: the ``k`` likeliest);
2. **sequential halving**: in ``ceil(log2 k)`` phases, visit each action still considered
   ``max(1, n // (phases * considered))`` more times, then keep the better half by
   ``g(a) + l(a) + sigma(q(a))``; the action played is the best one left;
3. **completed-Q policy target**: ``softmax(l + sigma(completed q))`` over the legal actions,
   where an unvisited action's q is the *mixed value* (the root's value mixed with the
   prior-weighted mean q of the visited actions) and
   ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` on q rescaled to [0, 1] by the
   min and max of the completed values (as in DeepMind's mctx).

Below the root the search is the ordinary PUCT of :mod:`boardlab.search.mcts`, in one tree:
*visiting* a considered action is one descent forced through that root child (its first visit
evaluates the child's own position), collected by the tree's own compiled descent
(:meth:`~boardlab.search.mcts.Search.collect_below`, the visits owed to every considered
action at once) and completed by its batched ``complete``. So the leaves of many Gumbel
searches (many self-play games) share one evaluator call: :func:`run_gumbel_together`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from boardlab.games.base import ONGOING, Kernel, legal_mask
from boardlab.search.mcts import PUCT, Evaluator, LeafBatch, Search, check_evaluator, checked_answer


@dataclass(frozen=True)
class GumbelSettings:
    """The Gumbel root's constants: actions considered, the sigma scale, PUCT below the root."""

    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0
    c_puct: float = 1.25
    fpu: float = 0.0


class GumbelSearch:
    """One Gumbel root (see the module docstring), driven cycle by cycle.

    :func:`run_gumbel_together` drives many of them over one evaluator: it asks each for its
    leaves (:meth:`collect`), evaluates them all in one call and hands each its answers
    (:meth:`complete`); :attr:`done` says when the budget is spent. ``noise=False`` drops the
    Gumbel noise (play rather than self-play).
    """

    def __init__(
        self,
        kernel: Kernel,
        me: int,
        opp: int,
        simulations: int,
        settings: GumbelSettings | None = None,
        rng: np.random.Generator | None = None,
        noise: bool = True,
    ) -> None:
        if simulations < 1:
            raise ValueError("a Gumbel search needs at least one simulation")
        if kernel.status(kernel.ctx, np.int64(me), np.int64(opp)) != ONGOING:
            raise ValueError("a Gumbel search was asked to search a finished position")
        self.kernel, self.me, self.opp = kernel, int(me), int(opp)
        self.simulations = int(simulations)
        self.settings = settings or GumbelSettings()
        self.rng = rng if rng is not None else np.random.default_rng()
        self.noise = noise
        self.legal = legal_mask(kernel, me, opp)
        self.logits = np.zeros(kernel.num_actions)
        self.priors = np.zeros(kernel.num_actions)
        self.root_value = 0.0
        self.gumbel = np.zeros(kernel.num_actions)
        capacity = (self.simulations + 1) * kernel.num_actions + 1
        s = self.settings
        self.search = Search(kernel, me, opp, None, PUCT, s.c_puct, s.fpu, self.rng, capacity)  # type: ignore[arg-type]
        self.node: dict[int, int] = {}  # root action -> its row in the tree
        self.considered: list[int] = []
        self._phase = -1  # -1: the root waits for its evaluation
        self._phases = 0
        self._wanted: dict[int, int] = {}
        self._asked: list[int] = []
        self._gained = np.zeros(0, np.int64)

    @property
    def used(self) -> int:
        """Visits given to root actions so far."""
        return int(self.search.tree.visits[0])

    # --- the cycle ----------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once the simulations are spent (or the root has one legal action left)."""
        return self._phase >= 0 and not self._wanted

    def collect(self) -> LeafBatch:
        """The leaves this search needs evaluated next: the root itself first, then the leaves
        of the visits owed to each considered action in this phase."""
        if self._phase < 0:
            return self.search.collect(1)
        self._asked = list(self._wanted)
        starts = np.array([self.node[a] for a in self._asked], np.int64)
        counts = np.array([self._wanted[a] for a in self._asked], np.int64)
        batch, self._gained = self.search.collect_below(starts, counts)
        return batch

    def complete(self, batch: LeafBatch, priors: np.ndarray, values: np.ndarray) -> None:
        """Take the evaluations of the leaves :meth:`collect` gave (checked answers)."""
        if self._phase < 0:
            self.search.complete(batch, priors, values, checked=True)
            self.start(priors[0], float(values[0]))
            return
        if len(batch):
            self.search.complete(batch, priors, values, checked=True)
        for action, gained in zip(self._asked, self._gained.tolist(), strict=True):
            owed = self._wanted[action] - gained
            if owed > 0:
                self._wanted[action] = owed
            else:
                del self._wanted[action]
        if not self._wanted:
            self._halve()

    def start(self, priors: np.ndarray, value: float) -> None:
        """Take the root's evaluation (priors over the action space, value for its mover) and
        choose the considered actions."""
        legal = self.legal
        with np.errstate(divide="ignore"):
            self.logits = np.where(legal, np.log(np.maximum(priors, 1e-30)), -np.inf)
        self.priors = np.where(legal, np.exp(self.logits - np.max(self.logits[legal])), 0.0)
        self.priors /= self.priors.sum()
        self.root_value = float(value)
        tree = self.search.tree
        rows = tree.children(0)
        self.node = {int(tree.move[r]): r for r in range(rows.start, rows.stop)}
        if self.noise:
            self.gumbel = np.where(legal, self.rng.gumbel(size=legal.shape), 0.0)
        m = min(self.settings.considered, int(legal.sum()), self.simulations)
        score = np.where(legal, self.gumbel + self.logits, -np.inf)
        order = np.argsort(-score, kind="stable")
        self.considered = [int(a) for a in order[:m]]
        self._phases = max(1, math.ceil(math.log2(m))) if m > 1 else 0
        self._phase = 0
        self._plan_phase()

    def _plan_phase(self) -> None:
        """Owe each considered action its visits of the current phase, or finish."""
        self._wanted = {}
        m = len(self.considered)
        if m <= 1 or self._phase >= self._phases or self.used >= self.simulations:
            return
        left = self.simulations - self.used
        per = max(1, self.simulations // (self._phases * m))
        counts = [min(per, max(1, left // m))] * m
        if self._phase == self._phases - 1 and left >= m:
            # the last phase spends what is left, the remainder to the best-placed actions
            counts = [left // m + (1 if i < left % m else 0) for i in range(m)]
        self._wanted = dict(zip(self.considered, counts, strict=True))

    def _halve(self) -> None:
        """Keep the better half of the considered actions, then plan the next phase."""
        self._phase += 1
        if self._phase >= self._phases:
            self._wanted = {}
            return
        keep = max(1, math.ceil(len(self.considered) / 2))
        scores = self._scores(self.considered)
        order = np.argsort(-scores, kind="stable")
        self.considered = [self.considered[i] for i in order[:keep]]
        self._plan_phase()

    # --- what the search says -------------------------------------------------------------------

    def visit_counts(self) -> np.ndarray:
        """Visits of each root action (zero for the actions never visited)."""
        tree = self.search.tree
        counts = np.zeros(self.kernel.num_actions)
        rows = tree.children(0)
        counts[tree.move[rows]] = tree.visits[rows]
        return counts

    def q_values(self) -> np.ndarray:
        """The mean result of each visited action's visits, for the root's mover (0 elsewhere)."""
        tree = self.search.tree
        q = np.zeros(self.kernel.num_actions)
        rows = tree.children(0)
        visits = tree.visits[rows]
        q[tree.move[rows]] = np.where(visits > 0, tree.value[rows] / np.maximum(visits, 1), 0.0)
        return q

    def completed_q(self) -> np.ndarray:
        """q of the visited actions, the mixed value elsewhere (root mover's view, in [-1, 1])."""
        visits = self.visit_counts()
        q = self.q_values()
        visited = visits > 0
        priors = self.priors
        total = visits.sum()
        if total > 0 and priors[visited].sum() > 0:
            mean_q = float((priors[visited] * q[visited]).sum() / priors[visited].sum())
            mixed = (self.root_value + total * mean_q) / (1 + total)
        else:
            mixed = self.root_value
        return np.where(visited, q, np.where(self.legal, mixed, 0.0))

    def _sigma(self, q: np.ndarray, max_visits: float) -> np.ndarray:
        legal_q = q[self.legal]
        low, high = float(legal_q.min()), float(legal_q.max())
        scaled = (q - low) / (high - low) if high > low else np.zeros_like(q)
        return (self.settings.c_visit + max_visits) * self.settings.c_scale * scaled

    def _scores(self, actions: Sequence[int]) -> np.ndarray:
        sigma = self._sigma(self.completed_q(), self.visit_counts().max())
        return np.array([self.gumbel[a] + self.logits[a] + sigma[a] for a in actions])

    def improved_policy(self) -> np.ndarray:
        """The completed-Q policy target ``softmax(logits + sigma(completed q))`` (legal actions)."""
        sigma = self._sigma(self.completed_q(), self.visit_counts().max())
        z = np.where(self.legal, self.logits + sigma, -np.inf)
        z = np.exp(z - z[self.legal].max())
        return z / z.sum()

    def best(self) -> int:
        """The action chosen: the best considered action left by the halving."""
        if len(self.considered) == 1:
            return self.considered[0]
        scores = self._scores(self.considered)
        return self.considered[int(np.argmax(scores))]

    def value(self) -> float:
        """The search's value for the root's mover: the chosen action's q (the root's own value
        when nothing was visited), in [-1, 1]."""
        action = self.best()
        if self.visit_counts()[action] == 0:
            return float(np.clip(self.root_value, -1, 1))
        return float(np.clip(self.q_values()[action], -1, 1))


def run_gumbel_together(searches: Sequence[GumbelSearch], evaluator: Evaluator) -> int:
    """Run every search to its end, each cycle's leaves of all of them evaluated in one call.
    Returns the number of evaluator calls."""
    for search in searches:
        check_evaluator(evaluator, search.kernel)
    calls = 0
    num_actions = searches[0].kernel.num_actions if searches else 0
    while True:
        pending = [s for s in searches if not s.done]
        if not pending:
            return calls
        batches = [search.collect() for search in pending]
        total = sum(len(b) for b in batches)
        priors = values = np.zeros((0, num_actions))
        if total:
            words = np.concatenate([b.words for b in batches])
            legal = np.concatenate([b.legal for b in batches])
            priors, values = checked_answer(*evaluator.evaluate(words, legal), total, num_actions)
            calls += 1
        offset = 0
        for search, batch in zip(pending, batches, strict=True):
            end = offset + len(batch)
            search.complete(batch, priors[offset:end], values[offset:end])
            offset = end


__all__ = ["GumbelSearch", "GumbelSettings", "run_gumbel_together"]
