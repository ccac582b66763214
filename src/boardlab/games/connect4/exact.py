"""Exact play of Connect Four: any position, from the solver (:mod:`.solver`), within a budget.

A move's value carries the exact score (a win scores more the sooner it comes, a loss less
the sooner), which ranks the moves. Best moves are found with one solve of the position and a
null-window search per column, centre first (the order they are returned in), and the search
stops at the budget: the best moves proved by then are returned, and
:class:`~boardlab.games.exact.OutOfTime` when none is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from boardlab.games.base import Game
from boardlab.games.exact import DRAW, LOSS, WIN, ExactPlay, ExactPlayError, MoveValue, OutOfTime, Value
from boardlab.games.small_solver import DEFAULT_LIMIT

if TYPE_CHECKING:
    from boardlab.games.connect4.solver import Solver

# The solver is compiled (numba): it is imported when a game is solved, so that asking what
# the exact play offers (its class) loads no compiler.

PERFECT_SECONDS = 10.0
"""The budget of a best-move search when the caller gives none."""

CHUNK_NODES = 2_000_000
"""Most nodes between two looks at the clock in a solve under a budget (~0.3 s)."""


def _sign(score: int) -> int:
    return WIN if score > 0 else LOSS if score < 0 else DRAW


T = TypeVar("T")


def _within(attempt: Callable[[int], T | None], deadline: float, chunk: int) -> T | None:
    # repeat a node-limited attempt (the table keeps its progress) until it answers or the
    # clock passes the deadline
    while True:
        result = attempt(chunk)
        if result is not None or time.perf_counter() >= deadline:
            return result


class ConnectFourSolverPlay(ExactPlay):
    """Connect Four (lines of four, any board of at most 64 bits) from its exact solver."""

    default_seconds: ClassVar[float | None] = PERFECT_SECONDS
    title = "the Connect Four solver"
    pieces_label = "stones"

    def __init__(self, game: Game, solver: Solver) -> None:
        super().__init__(game)
        self.solver = solver

    def warm(self) -> None:
        from boardlab.games.connect4.solver import column_order

        first = self.game.initial()
        self.solver.solve(first, node_limit=1)
        self.solver.move_scores_at_least(first, column_order(self.solver.width)[0], 0, node_limit=1)

    @classmethod
    def open(cls, game: Game, *, tables: Path | str | None = None, limit: int = DEFAULT_LIMIT) -> ExactPlay:
        from boardlab.games.connect4.solver import Solver, SolverError

        try:
            return cls(game, Solver.for_game(game))
        except SolverError as err:
            raise ExactPlayError(str(err)) from None

    def move_values(self, state: Any) -> list[MoveValue]:
        self.check_game(state)
        if state.is_over:
            return []
        scores = self.solver.analyze(state)
        out = []
        for action in state.legal_indices():
            score = scores[action]
            if score is None:
                raise ExactPlayError(f"the Connect Four solver gave no score for column {action + 1}")
            out.append(MoveValue(action, _sign(score), self._plies(score, state), score))
        return out

    def position_value(self, state: Any) -> Value:
        self.check_game(state)
        score = self.solver.final_score(state) if state.is_over else self.solver.solve(state)
        assert score is not None
        return Value(_sign(score), 0 if state.is_over else self._plies(score, state), score)

    def _plies(self, score: int, state: Any) -> int | None:
        """The plies to the end under perfect play from ``state`` where its mover has ``score``."""
        from boardlab.games.connect4.solver import plies_to_end

        return plies_to_end(score, state.ply, self.solver.width, self.solver.height)

    def best_actions(self, state: Any, seconds: float | None = None) -> list[int]:
        from boardlab.games.connect4.solver import column_order

        self.check_game(state)
        if state.is_over:  # no move to prove (not a search that ran out of time)
            return []
        seconds = PERFECT_SECONDS if seconds is None else seconds
        solver = self.solver
        deadline = time.perf_counter() + seconds
        chunk = int(min(CHUNK_NODES, max(20_000, 300_000 * seconds)))  # ~1/10 of the budget or less
        score = _within(lambda n: solver.solve(state, node_limit=n), deadline, chunk)
        if score is None:
            raise OutOfTime(f"the solver found no score within {seconds:g} s")
        best: list[int] = []
        playable = set(solver.playable(state))
        for col in column_order(solver.width):
            if col not in playable:
                continue
            keeps = _within(partial(solver.move_scores_at_least, state, col, score), deadline, chunk)
            if keeps is None:
                break
            if keeps:
                best.append(col)
        if not best:
            raise OutOfTime(f"the solver proved no best move within {seconds:g} s (score {score} known)")
        return best


__all__ = ["PERFECT_SECONDS", "ConnectFourSolverPlay"]
