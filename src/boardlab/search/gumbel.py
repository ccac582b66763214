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

Below the root the search is the ordinary PUCT of :mod:`boardlab.search.mcts`: each
considered action has its own :class:`~boardlab.search.mcts.Search` rooted at the position
after it, and *visiting* the action is one simulation there (the first one evaluates that
position itself). Everything goes through the batched ``collect``/``complete`` cycle, so the
leaves of many Gumbel searches (many self-play games) share one evaluator call:
:func:`run_gumbel_together`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from boardlab.games.base import ONGOING, Kernel, legal_mask
from boardlab.search.mcts import PUCT, Evaluator, Search, checked_answer


@dataclass(frozen=True)
class GumbelSettings:
    """The Gumbel root's constants: actions considered, the sigma scale, PUCT below the root."""

    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0
    c_puct: float = 1.25
    fpu: float = 0.0


class _Child:
    """One considered root action: its search (None for a finished position), the value of
    its position from the evaluator (for the player to move there) and its visits."""

    def __init__(
        self,
        kernel: Kernel,
        me: int,
        opp: int,
        settings: GumbelSettings,
        rng: np.random.Generator,
        capacity: int,
    ) -> None:
        status = int(kernel.status(kernel.ctx, np.int64(me), np.int64(opp)))
        self.exact = None if status == ONGOING else float(status)
        self.search = (
            None
            if self.exact is not None
            else Search(kernel, me, opp, None, PUCT, settings.c_puct, settings.fpu, rng, capacity)  # type: ignore[arg-type]
        )
        self.root_value: float | None = None
        self.visits = 0

    def q(self) -> float:
        """The mean result of the visits, for the player to move at the Gumbel root."""
        if self.exact is not None:
            return -self.exact
        assert self.search is not None and self.root_value is not None
        tree = self.search.tree
        # node 0's value sums the simulations for the player who moved into it: the root's mover
        return float((-self.root_value + tree.value[0]) / (1 + tree.visits[0]))


class GumbelSearch:
    """One Gumbel root (see the module docstring), driven cycle by cycle.

    :meth:`requests` says which searches need leaves evaluated next (and how many each);
    :meth:`answer` hands back their evaluations; :attr:`done` says when the budget is spent.
    :func:`run_gumbel_together` drives many of them over one evaluator. ``noise=False`` drops
    the Gumbel noise (play rather than self-play).
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
        self.root_value = 0.0
        self.gumbel = np.zeros(kernel.num_actions)
        self.children: dict[int, _Child] = {}
        self.considered: list[int] = []
        self.used = 0
        self._phase = -1  # -1: the root waits for its evaluation
        self._phases = 0
        self._wanted: dict[int, int] = {}

    # --- the cycle ----------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once the simulations are spent (or the root has one legal action left)."""
        return self._phase >= 0 and not self._wanted

    def requests(self) -> list[tuple[_Child | None, int]]:
        """What the next evaluator call needs from this search: ``(None, 1)`` for the root's own
        evaluation, else ``(child, leaves)`` for each considered action still owed visits."""
        if self._phase < 0:
            return [(None, 1)]
        return [(self.children[a], n) for a, n in self._wanted.items()]

    def root_words(self) -> tuple[np.ndarray, np.ndarray]:
        """The root's words (1, 2) and legal mask (1, num_actions), for its evaluation."""
        return np.array([[self.me, self.opp]], np.int64), self.legal[None, :]

    def start(self, priors: np.ndarray, value: float) -> None:
        """Take the root's evaluation (priors over the action space, value for its mover) and
        choose the considered actions."""
        legal = self.legal
        with np.errstate(divide="ignore"):
            self.logits = np.where(legal, np.log(np.maximum(priors, 1e-30)), -np.inf)
        self.root_value = float(value)
        if self.noise:
            self.gumbel = np.where(legal, self.rng.gumbel(size=legal.shape), 0.0)
        m = min(self.settings.considered, int(legal.sum()), self.simulations)
        score = np.where(legal, self.gumbel + self.logits, -np.inf)
        order = np.argsort(-score, kind="stable")
        self.considered = [int(a) for a in order[:m]]
        capacity = self.simulations * self.kernel.num_actions + 1
        for a in self.considered:
            x, y = self.kernel.play(self.kernel.ctx, np.int64(self.me), np.int64(self.opp), a)
            self.children[a] = _Child(self.kernel, int(x), int(y), self.settings, self.rng, capacity)
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
        self._wanted = {}
        for a, count in zip(self.considered, counts, strict=True):
            self._visit_exact(a, count)
            if self.children[a].exact is None:
                self._wanted[a] = count
        if not self._wanted:
            self._halve()

    def _visit_exact(self, action: int, count: int) -> None:
        child = self.children[action]
        if child.exact is not None:
            child.visits += count
            self.used += count

    def answered(self, child: _Child, action: int, before: int, root_value: float | None) -> None:
        """After a child's cycle: its visits so far, and the phase moves on when every
        considered action has had its visits."""
        assert child.search is not None
        if root_value is not None:
            child.root_value = root_value
        visits = (1 if child.root_value is not None else 0) + child.search.simulations
        gained = visits - before
        child.visits = visits
        self.used += gained
        owed = self._wanted.get(action, 0) - gained
        if owed > 0:
            self._wanted[action] = owed
        else:
            self._wanted.pop(action, None)
        if not self._wanted:
            self._halve()

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
        """Visits of each action (zero for the actions not considered)."""
        counts = np.zeros(self.kernel.num_actions)
        for a, child in self.children.items():
            counts[a] = child.visits
        return counts

    def completed_q(self) -> np.ndarray:
        """q of the visited actions, the mixed value elsewhere (root mover's view, in [-1, 1])."""
        visits = self.visit_counts()
        q = np.zeros(self.kernel.num_actions)
        for a, child in self.children.items():
            if child.visits > 0:
                q[a] = child.q()
        visited = visits > 0
        priors = np.where(self.legal, np.exp(self.logits - np.max(self.logits[self.legal])), 0.0)
        priors /= priors.sum()
        total = visits.sum()
        if total > 0 and priors[visited].sum() > 0:
            mean_q = float((priors[visited] * q[visited]).sum() / priors[visited].sum())
            mixed = (self.root_value + total * mean_q) / (1 + total)
        else:
            mixed = self.root_value
        return np.where(visited, q, np.where(self.legal, mixed, 0.0))

    def _sigma(self, q: np.ndarray) -> np.ndarray:
        legal_q = q[self.legal]
        low, high = float(legal_q.min()), float(legal_q.max())
        scaled = (q - low) / (high - low) if high > low else np.zeros_like(q)
        max_visits = self.visit_counts().max()
        return (self.settings.c_visit + max_visits) * self.settings.c_scale * scaled

    def _scores(self, actions: Sequence[int]) -> np.ndarray:
        sigma = self._sigma(self.completed_q())
        return np.array([self.gumbel[a] + self.logits[a] + sigma[a] for a in actions])

    def improved_policy(self) -> np.ndarray:
        """The completed-Q policy target ``softmax(logits + sigma(completed q))`` (legal actions)."""
        z = np.where(self.legal, self.logits + self._sigma(self.completed_q()), -np.inf)
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
        child = self.children.get(self.best())
        if child is None or child.visits == 0:
            return float(np.clip(self.root_value, -1, 1))
        return float(np.clip(child.q(), -1, 1))


def run_gumbel_together(searches: Sequence[GumbelSearch], evaluator: Evaluator) -> int:
    """Run every search to its end, each cycle's leaves of all of them evaluated in one call.
    Returns the number of evaluator calls."""
    calls = 0
    while True:
        pending = [s for s in searches if not s.done]
        if not pending:
            return calls
        words, legal, owners = [], [], []
        for search in pending:
            for child, count in search.requests():
                if child is None:
                    w, m = search.root_words()
                    owners.append((search, None, None, -1, 1))
                    words.append(w)
                    legal.append(m)
                    continue
                assert child.search is not None
                action = next(a for a, c in search.children.items() if c is child)
                before = (1 if child.root_value is not None else 0) + child.search.simulations
                # a fresh child's first cycle evaluates its own position (one visit)
                batch = child.search.collect(1 if child.root_value is None else count)
                owners.append((search, child, batch, action, before))
                words.append(batch.words)
                legal.append(batch.legal)
        all_words = np.concatenate(words)
        total = len(all_words)
        priors = values = np.zeros((0,))
        if total:
            priors, values = checked_answer(
                *evaluator.evaluate(all_words, np.concatenate(legal)), total, searches[0].kernel.num_actions
            )
            calls += 1
        offset = 0
        for search, child, batch, action, before in owners:
            if child is None:
                search.start(priors[offset], float(values[offset]))
                offset += 1
                continue
            n = len(batch)
            root_value = None
            if n:
                part = slice(offset, offset + n)
                if child.root_value is None and batch.nodes[0] == 0:
                    root_value = float(values[offset])
                child.search.complete(batch, priors[part], values[part], checked=True)
            offset += n
            search.answered(child, action, before, root_value)


__all__ = ["GumbelSearch", "GumbelSettings", "run_gumbel_together"]
