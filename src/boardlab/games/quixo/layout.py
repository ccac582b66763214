"""What the Quixo kernel shares with the Python face, in plain Python: the push ends, the
move shapes in kernel index order, the rulebooks and the names of the evaluations.

Naming a game, listing its options and evaluations and reading its moves need nothing more,
so they load no compiler; :mod:`boardlab.games.quixo.kernel` re-exports all of it.
"""

from __future__ import annotations

TOP, BOTTOM, LEFT, RIGHT = 0, 1, 2, 3
"""The end of its row or column where a cube is pushed back in (the course's ``Move``)."""

RULES = ("official", "course")
"""Rulebooks by id: who wins when a move completes lines of both colours (see the kernel's
:func:`~boardlab.games.quixo.kernel.status`)."""

EVALUATIONS = ("tuned", "lines2", "lines3", "density", "longest", "winloss", "fullest", "patterns")
"""Evaluation names by id; the first is the default. ``tuned`` is a weighted sum of features
whose weights were fitted to game outcomes, plus the fitted value of having the move (see
:func:`~boardlab.games.quixo.kernel.tuned_weights`). ``fullest`` (own cubes in the fullest
own line minus the opponent's in its fullest line, over n; in [-1, 1]) is meant as the
potential of reward shaping in the tabular learners. ``patterns`` is a fitted weight for
every arrangement of cubes along a line (see
:func:`~boardlab.games.quixo.kernel.pattern_weights`), plus the fitted value of having the move."""


def move_list(n: int) -> list[tuple[int, int, int]]:
    """Every ``(x, y, end)`` move shape on an n x n board, in kernel index order."""
    moves = []
    for y in range(n):
        for x in range(n):
            if 0 < x < n - 1 and 0 < y < n - 1:
                continue
            for end, allowed in (
                (TOP, y != 0),
                (BOTTOM, y != n - 1),
                (LEFT, x != 0),
                (RIGHT, x != n - 1),
            ):
                if allowed:
                    moves.append((x, y, end))
    return moves


def insert_cell(n: int, x: int, y: int, end: int) -> tuple[int, int]:
    """The cell where a cube taken at ``(x, y)`` re-enters the board for a push end."""
    return {TOP: (x, 0), BOTTOM: (x, n - 1), LEFT: (0, y), RIGHT: (n - 1, y)}[end]
