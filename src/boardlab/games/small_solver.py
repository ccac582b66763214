"""An exact solver for small acyclic games, generic over a game's kernel.

It walks every position reachable from a start (depth first, with an explicit stack) and
memoises each one on its state words: its value for the side to move (:data:`WIN`,
:data:`DRAW` or :data:`LOSS`) and the number of plies to the end under perfect play, where
the winner wins as fast as it can and the loser holds out as long as it can (a drawn
position counts the longest drawing line). Tic-Tac-Toe (5,478 positions) takes a fraction
of a second; Nim with ``piles`` has ``prod(p + 1)`` positions.

Games with a cycle (a position that can come back, e.g. Quixo) and games with more positions
than ``limit`` are refused with :class:`SolverError`. The walk runs in Python, about a million
moves a second; :func:`count_positions` counts the positions compiled, a hundred times faster,
so that a game too large is told so in a second or two rather than after the walk has filled
its table.

    solution = solve(state)
    solution.value(state), solution.depth(state), solution.best_actions(state)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.games.base import DRAW, LOSS, ONGOING, WIN, GameError, Kernel, compiled_for

DEFAULT_LIMIT = 2_000_000
"""Positions a solve may visit before it gives up (a Python dict entry each)."""

Key = tuple[int, int]
Result = tuple[int, int]  # (value for the side to move, plies to the end)


class SolverError(GameError):
    """A game this solver cannot handle (too many positions, or positions that repeat), or a
    position of another game than the solution's."""


class Solution:
    """Values and depths of the positions of one game, solved on demand and memoised.

    Every query solves what it needs first, so positions outside the first solve's reach
    are fine (they may raise :class:`SolverError` when they make the table too large).
    """

    def __init__(self, kernel: Kernel, limit: int = DEFAULT_LIMIT) -> None:
        self.kernel = kernel
        self.limit = limit
        self._table: dict[Key, Result] = {}
        self._buf = np.empty(kernel.num_actions, dtype=np.int64)

    def __len__(self) -> int:
        """How many positions are solved."""
        return len(self._table)

    # queries -------------------------------------------------------------------------------

    def result(self, state: Any) -> Result:
        """``(value, depth)`` of a position (a State, or its words ``(a, b)``) for the side to move."""
        key = self._key(state)
        if key not in self._table:
            self._solve_from(key)
        return self._table[key]

    def value(self, state: Any) -> int:
        """WIN, DRAW or LOSS for the side to move under perfect play."""
        return self.result(state)[0]

    def depth(self, state: Any) -> int:
        """Plies to the end of the game under perfect play (0 for a finished position)."""
        return self.result(state)[1]

    def move_values(self, state: Any) -> dict[int, Result]:
        """``action -> (value, depth)`` for every legal action, seen by the side to move now:
        the value it gets by playing the action and the plies to the end counting that move.
        Empty for a finished position."""
        key = self._key(state)
        if self.result(key)[1] == 0:  # finished: only positions the rules end have depth 0
            return {}
        return {action: _from_child(self._table[child]) for action, child in self._children(key)}

    def best_actions(self, state: Any) -> list[int]:
        """The optimal actions in kernel order: the fastest wins, else every drawing move,
        else the slowest losses. Empty for a finished position."""
        moves = self.move_values(state)
        if not moves:
            return []
        best = _combine(list(moves.values()))
        return [action for action, result in moves.items() if _rank(result) == _rank(best)]

    # the walk ------------------------------------------------------------------------------

    def _key(self, state: Any) -> Key:
        if isinstance(state, tuple):
            a, b = state
            return int(a), int(b)
        if state.kernel.name != self.kernel.name:
            raise SolverError(f"this solution is for {self.kernel.name}, not {state.kernel.name}")
        return int(state.a), int(state.b)

    def _children(self, key: Key) -> list[tuple[int, Key]]:
        kernel, buf = self.kernel, self._buf
        a, b = np.int64(key[0]), np.int64(key[1])
        count = kernel.gen_moves(kernel.ctx, a, b, buf)
        out = []
        for action in buf[:count].tolist():
            x, y = kernel.play(kernel.ctx, a, b, action)
            out.append((action, (int(x), int(y))))
        return out

    def _solve_from(self, root: Key) -> None:
        """Solve ``root`` and everything below it, depth first with an explicit stack.

        The stack holds the current path (expanded positions, with their children) and the
        children still to visit; a child already on the path means the game has a cycle.
        """
        table, kernel = self._table, self.kernel
        path: set[Key] = set()
        stack: list[tuple[Key, list[tuple[int, Key]] | None]] = [(root, None)]
        while stack:
            key, children = stack[-1]
            if children is not None:
                stack.pop()
                path.discard(key)
                table[key] = _combine([_from_child(table[child]) for _, child in children])
                continue
            if key in table:
                stack.pop()
                continue
            status = int(kernel.status(kernel.ctx, np.int64(key[0]), np.int64(key[1])))
            if status != ONGOING:
                stack.pop()
                table[key] = (status, 0)
                continue
            children = self._children(key)
            stack[-1] = (key, children)
            path.add(key)
            for _, child in children:
                if child in path:
                    raise SolverError(
                        f"{kernel.name} has positions that repeat; "
                        "the small solver handles acyclic games only"
                    )
                if child not in table:
                    stack.append((child, None))
            if len(table) + len(path) > self.limit:
                raise SolverError(
                    f"{kernel.name} has more than {self.limit:,} positions from here; "
                    "too many for the small solver"
                )


def _from_child(child: Result) -> Result:
    """A child's result seen by the side that moved there (one more ply)."""
    return -child[0], child[1] + 1


def _rank(result: Result) -> tuple[int, int]:
    """Larger is better for the mover: fast wins, then draws (all equal), then slow losses."""
    value, depth = result
    if value == WIN:
        return 2, -depth
    if value == DRAW:
        return 1, 0
    return 0, depth


def _combine(options: list[Result]) -> Result:
    """The result of a position from the results of its moves (seen by its mover)."""
    value = max(v for v, _ in options)
    depths = [d for v, d in options if v == value]
    return value, (min(depths) if value == WIN else max(depths))


def count_positions(kernel: Kernel, a: int, b: int, limit: int) -> int | None:
    """The distinct positions reachable from ``(a, b)`` (it and the finished ones included),
    or ``limit + 1`` as soon as there are more than ``limit``: the table a full solve from
    there fills, counted without solving. None for a kernel of plain Python functions, which
    numba cannot compile into the count (the solve alone then tells)."""
    from numba.core.errors import NumbaError  # numba: loaded at first use

    from boardlab.games.position_count import build_position_count

    try:
        count = compiled_for(kernel, build_position_count)
        return int(count(kernel.ctx, np.int64(a), np.int64(b), np.int64(limit)))
    except NumbaError:
        return None


def solve(state: Any, limit: int = DEFAULT_LIMIT) -> Solution:
    """Solve every position reachable from ``state``; SolverError if the game has a cycle or
    more than ``limit`` positions from there."""
    solution = Solution(state.kernel, limit)
    solution.result(state)
    return solution


__all__ = [
    "DEFAULT_LIMIT",
    "DRAW",
    "LOSS",
    "WIN",
    "Solution",
    "SolverError",
    "count_positions",
    "solve",
]
