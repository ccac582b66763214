"""Flat Monte Carlo for boardlab: an agent added from outside its package.

For each legal move the agent plays random games to the end from the position after it
("playouts"), taking the moves in turn so that each gets its share, and plays the move whose
playouts scored best on average. It knows nothing of any game: it sees a position only through
boardlab's State API (``legal_moves``, ``play``, ``is_over``, ``winner``, ``to_move``, and
``move_index`` with ``kernel.num_actions`` for its policy), so it plays Quixo, Connect Four,
Tic-Tac-Toe, Nim and every game a package adds.

``pyproject.toml`` names the class in the ``boardlab.agents`` entry points; once the package is
installed, ``flatmc:playouts=500`` is a spec of every boardlab command.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.spec import option
from boardlab.games.base import State


@dataclass(frozen=True)
class FlatMonteCarloSettings:
    """The options of a ``flatmc:...`` spec: each field is one option, with its default, its help
    (shown by ``boardlab agents flatmc``) and the values it accepts (anything else is refused)."""

    playouts: int = option(
        1000, "random playouts per move, shared out over the legal moves", minimum=1, maximum=10**9
    )
    time: float = option(
        0.0, "seconds per move (0: no limit; the playouts still bound it)", minimum=0, maximum=3600
    )
    horizon: int = option(
        200, "plies a playout may last (one still going counts as a draw)", minimum=1, maximum=10**6
    )


class FlatMonteCarlo(Agent):
    """Random playouts after each legal move; the move with the best mean result is played.

    The decision's policy gives each move its mean score over its playouts (a win 1, a draw ½,
    a loss 0), normalised to sum to 1 (a move no playout reached before the time ran out gets
    0); its value is the chosen move's mean result in [-1, 1].
    All randomness (the playouts, ties between equal moves) comes from ``self.rng``, seeded by
    the spec's seed. The agent keeps nothing from one move to the next, so it needs no
    ``new_game``.
    """

    name = "flatmc"
    summary = "flat Monte Carlo: plays the move whose random playouts score best"
    Settings: ClassVar[type] = FlatMonteCarloSettings
    settings: FlatMonteCarloSettings

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        """The budget a call without a limit gets: the spec's playouts, and its time if set."""
        return Limit.from_options(time=settings.time, iterations=settings.playouts)

    def prepare(self, game: Any) -> None:
        """Play one move, so that the game's rules are compiled before the first move's clock."""
        start = game.initial()
        start.play(start.legal_moves()[0])

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        """The move whose playouts score best, within ``limit`` over the spec's budget.

        ``state`` is a State of a game still going: the base class refuses anything else before
        this runs. ``call_limit`` merges the call's limit with the spec's and turns a game clock
        (``Limit(clock=..., increment=...)``) into a time for this move. Playouts stop at the
        playout count (``iterations``) or the time, whichever comes first; at least one is played.
        """
        started = time.perf_counter()
        budget = call_limit(limit, self.limit, state)
        playouts = budget.iterations or self.settings.playouts
        deadline = started + budget.time if budget.time else math.inf
        me, moves = state.to_move, state.legal_moves()
        after = [state.play(move) for move in moves]
        for move, child in zip(moves, after, strict=True):
            if child.winner == me:  # a win at once: no playout can do better
                return self.decision(state, move, {state.move_index(move): 1.0}, 1.0, 0, started)
        totals, counts = [0.0] * len(moves), [0] * len(moves)
        played = 0
        while played < playouts and (played == 0 or time.perf_counter() < deadline):
            turn = played % len(moves)  # round-robin: the counts differ by one at most
            totals[turn] += self.playout(after[turn], me)
            counts[turn] += 1
            played += 1
        means = {i: totals[i] / counts[i] for i in range(len(moves)) if counts[i]}
        best = max(means.values())
        chosen = self.rng.choice([i for i, mean in means.items() if mean == best])
        scores = {state.move_index(moves[i]): (mean + 1) / 2 for i, mean in means.items()}
        return self.decision(state, moves[chosen], scores, best, played, started)

    def playout(self, state: State, me: int) -> float:
        """One game from ``state`` on, random move after random move: 1 if ``me`` wins it, 0 for a
        draw (also a game still going after ``horizon`` plies), -1 if ``me`` loses it."""
        for _ in range(self.settings.horizon):
            if state.is_over:
                break
            state = state.play(self.rng.choice(state.legal_moves()))
        winner = state.winner
        return 0.0 if winner is None else 1.0 if winner == me else -1.0

    def decision(
        self, state: State, move: Any, scores: dict[int, float], value: float, played: int, started: float
    ) -> Decision:
        """A Decision for ``move``, with ``value``: the policy is ``scores`` (by action) normalised
        over the game's whole action space, zero elsewhere (alike where every score is 0); the
        search info counts the ``played`` playouts and the seconds since ``started``."""
        policy = np.zeros(state.kernel.num_actions)
        for action, score in scores.items():
            policy[action] = score
        if policy.sum() == 0:  # every move tried lost every playout: none is worse than another
            policy[list(scores)] = 1.0
        seconds = time.perf_counter() - started
        info = SearchInfo(1, played, seconds, score=value, pv=(str(move),), engine="flatmc")
        return Decision(move, policy=policy / policy.sum(), value=value, info=info)
