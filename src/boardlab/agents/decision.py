"""What an agent is asked and what it answers: a :class:`Limit` in, a :class:`Decision` out.

As python-chess passes a ``Limit`` to an engine with each request, boardlab passes one to
:meth:`Agent.act <boardlab.agents.base.Agent.act>` with each position: the budget belongs to
the call, not to the agent. An agent's spec (``time=1``, ``depth=5``, ``iters=5000``) only
sets the limit it uses when a call gives none.

The answer is a :class:`Decision`: the move, and where the agent has them its policy over the
game's action space, its value for the side to move and what its search saw
(:class:`SearchInfo`). User interfaces, the oracle and trainers read these.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from boardlab.core.spec import shown_value, with_article


class LimitError(ValueError):
    """A limit that is not a positive budget (time in seconds, depth, nodes, iterations)."""


@dataclass(frozen=True)
class Limit:
    """A budget for one decision; None leaves that dimension open.

    ``time`` is in seconds, ``depth`` in plies, ``nodes`` counts searched positions and
    ``iterations`` counts tree-search simulations. An agent honours the dimensions it has
    (alpha-beta: time, depth and nodes; MCTS: time and iterations) and ignores the others.

    ``clock`` is what is left on the mover's game clock, in seconds, ``increment`` what each
    move adds to it and ``moves_to_go`` the moves it must last before more time comes (as
    UCI's ``wtime``, ``winc`` and ``movestogo``; None: the rest of the game): the agent then
    decides how long to think (:meth:`for_position`), at most ``time`` where the call sets
    that too.
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    iterations: int | None = None
    clock: float | None = None
    increment: float | None = None
    moves_to_go: int | None = None

    def __post_init__(self) -> None:
        # numpy's numbers are welcome (stored as Python's); True, "1" and 2.5 plies are not
        for name, what in (("time", "a time limit"), ("clock", "a clock")):
            if (seconds := getattr(self, name)) is not None:
                object.__setattr__(self, name, _seconds(seconds, what, positive=True))
        if self.increment is not None:
            object.__setattr__(self, "increment", _seconds(self.increment, "an increment", positive=False))
        for name in ("depth", "nodes", "iterations", "moves_to_go"):
            value = getattr(self, name)
            if value is None:
                continue
            if _is_bool(value) or not isinstance(value, numbers.Integral) or value <= 0:
                raise LimitError(
                    f"{with_article(name)} limit is a positive whole number, got {shown_value(value)}"
                )
            object.__setattr__(self, name, int(value))

    @classmethod
    def from_options(cls, time: float = 0.0, depth: int = 0, nodes: int = 0, iterations: int = 0) -> Limit:
        """A limit from an agent's spec options, where 0 leaves a dimension open."""
        return cls(
            time=float(time) if time else None,
            depth=int(depth) or None,
            nodes=int(nodes) or None,
            iterations=int(iterations) or None,
        )

    @property
    def is_open(self) -> bool:
        """True when no dimension is limited."""
        return all(value is None for value in vars(self).values())

    def for_position(self, state: Any) -> Limit:
        """This limit with the clock turned into the time to think on ``state`` (itself where it
        has no clock): :func:`clock_share` of what is left over the moves it must last (the
        fewer of ``moves_to_go`` and :func:`moves_left`), at most ``time`` if set."""
        if self.clock is None:
            return self
        moves = min(moves_left(state), self.moves_to_go or MOVES_TO_GO)
        share = clock_share(self.clock, self.increment or 0.0, moves)
        seconds = share if self.time is None else min(self.time, share)
        return replace(self, time=seconds, clock=None, increment=None, moves_to_go=None)

    def over(self, default: Limit) -> Limit:
        """This limit, with ``default``'s value wherever this one leaves a dimension open."""
        return replace(
            default,
            **{name: value for name, value in vars(self).items() if value is not None},
        )


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | np.bool_)


def _seconds(value: Any, what: str, *, positive: bool) -> float:
    number = isinstance(value, numbers.Real) and not _is_bool(value)
    if not number or not math.isfinite(value) or value < 0 or (positive and value == 0):
        kind = "positive" if positive else "non-negative"
        raise LimitError(f"{what} is a {kind} number of seconds, got {shown_value(value)}")
    return float(value)


MOVES_TO_GO = 20
"""The moves a game clock is shared over when the game gives no closer bound (as engines
that are told no ``movestogo`` assume a fixed horizon)."""
MOVE_OVERHEAD = 0.05
"""Seconds of a clock kept back from every move for what is not thinking (the call itself,
passing the move on), so that an agent does not lose on time by them; also the least base a
time control takes (:data:`boardlab.play.clock.MOVE_RESERVE`)."""
INCREMENT_SHARE = 0.8
"""The share of the increment a move may spend beyond its share of the clock."""


def moves_left(state: Any) -> int:
    """The mover's moves still to come that a clock is shared over: :data:`MOVES_TO_GO`, or
    fewer where the game's bound on its length (``max_plies``) says the game ends sooner."""
    bound = getattr(state.game, "max_plies", None)
    if bound is None:
        return MOVES_TO_GO
    return max(1, min(MOVES_TO_GO, (bound - int(state.ply) + 1) // 2))


def clock_share(clock: float, increment: float, moves: int) -> float:
    """Seconds to think on one move with ``clock`` seconds left, ``increment`` added after each
    move and at most ``moves`` moves still to play: the clock shared evenly over those moves
    plus most of the increment, never more than half of what is left (all of it on the last
    move) and always leaving :data:`MOVE_OVERHEAD`; at least a millisecond."""
    spare = max(0.0, clock - MOVE_OVERHEAD)
    share = spare / moves + INCREMENT_SHARE * increment
    most = spare if moves == 1 else spare / 2
    return max(0.001, min(share, most))


def check_limit(limit: Any) -> Limit | None:
    """``limit`` itself if it is a :class:`Limit` or None; LimitError for anything else (a
    bare number of seconds, say)."""
    if limit is not None and not isinstance(limit, Limit):
        raise LimitError(f"a limit is a Limit or None (5 seconds: Limit(time=5)), got {shown_value(limit)}")
    return limit


def call_limit(limit: Any, default: Limit, state: Any = None) -> Limit:
    """The budget of one call: ``limit`` (a Limit or None, see :func:`check_limit`) over the
    agent's ``default`` in the dimensions it sets. A limit with a clock replaces the default's
    time per move (the clock decides it, see :meth:`Limit.for_position` for ``state``)."""
    checked = check_limit(limit)
    if checked is None:
        return default
    if checked.clock is None:
        return checked.over(default)
    if state is None:
        raise LimitError("a limit with a clock needs the position to share the clock over")
    return checked.over(replace(default, time=None)).for_position(state)


@dataclass(frozen=True)
class SearchInfo:
    """What a search saw: depth reached, positions or simulations, time, best line, score.

    ``score`` is in the search's own units (an evaluation, or a mean result for MCTS);
    ``pv`` holds the principal variation as moves in the game's notation; ``engine`` names
    the search that decided: the agent's own (``"minimax"``, ``"alphabeta"``, ``"mcts"``...)
    or the part of a composite agent that decided (``"tables"``, ``"alphabeta"``, ``"mcts"``).
    ``nodes`` is None where the search does not say (an engine that sent no count).
    ``plies_to_end``: where the decision's value is an exact win or loss whose distance is known
    (a solver's or tables' answer), the plies to the end under perfect play; else None.
    """

    depth: int = 0
    nodes: int | None = 0
    seconds: float = 0.0
    score: float | None = None
    pv: tuple[str, ...] = ()
    engine: str = ""
    plies_to_end: int | None = None


@dataclass(frozen=True)
class Decision:
    """An agent's answer for one position.

    ``move`` is the move chosen (a move object of the game, not its notation). ``policy``, where
    the agent has one, is a probability over the game's whole action space: a 1-D array of
    ``kernel.num_actions`` finite, non-negative numbers (zero on illegal actions); a policy of
    another form is refused here (ValueError), and one of another length by the referee, which
    forfeits the agent's game (:func:`policy_problem`). ``value`` is
    the expected result for the side to move in [-1, 1] (1: a win, 0: a draw), where the agent
    has one. ``info`` describes the search behind it (None for agents that do not search).
    """

    move: Any
    policy: np.ndarray | None = field(default=None, compare=False)
    value: float | None = None
    info: SearchInfo | None = None

    def __post_init__(self) -> None:
        if self.value is not None and not -1.0 <= self.value <= 1.0:
            raise ValueError(f"a decision's value lies in [-1, 1], got {self.value!r}")
        if self.policy is not None and (problem := policy_problem(self.policy)) is not None:
            raise ValueError(problem)

    def to_json(self) -> dict[str, Any]:
        """The decision as plain JSON values (the move in notation)."""
        data: dict[str, Any] = {"move": str(self.move)}
        if self.policy is not None:
            data["policy"] = [round(float(p), 6) for p in self.policy]
        if self.value is not None:
            data["value"] = self.value
        if self.info is not None:
            data["info"] = {**vars(self.info), "pv": list(self.info.pv)}
        return data


def policy_problem(policy: Any, actions: int | None = None) -> str | None:
    """Why ``policy`` is not a decision's policy, in one line; None if it is: a 1-D array of
    finite, non-negative numbers, with ``actions`` entries where that is given (the game's
    ``kernel.num_actions``)."""
    try:
        values = np.asarray(policy, dtype=np.float64)
    except (TypeError, ValueError):
        return f"a policy is an array of numbers, got {shown_value(policy)}"
    if values.ndim != 1:
        return f"a policy is a 1-D array, got one of shape {values.shape}"
    if actions is not None and len(values) != actions:
        return f"a policy has one entry per action of the game ({actions}), got {len(values)}"
    if not np.isfinite(values).all():
        return "a policy's entries are finite numbers, got NaN or infinity"
    if (values < 0).any():
        return f"a policy's entries are non-negative, got {float(values.min()):g}"
    return None
