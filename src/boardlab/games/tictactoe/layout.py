"""What the Tic-Tac-Toe kernel shares with the Python face, in plain Python: the board's
cells and lines as bits (cell ``(x, y)`` is bit ``y * 3 + x``) and the names of the
evaluations.

Naming a game and listing its options and evaluations need nothing more, so they load no
compiler; :mod:`boardlab.games.tictactoe.kernel` re-exports all of it.
"""

from __future__ import annotations

SIDE = 3
CELLS = SIDE * SIDE
FULL = (1 << CELLS) - 1

EVALUATIONS = ("lines",)
"""Evaluation names by id; the first is the default."""


def line_masks() -> list[int]:
    """The 8 lines (3 rows, 3 columns, 2 diagonals) as cell masks."""
    rows = [sum(1 << (y * SIDE + x) for x in range(SIDE)) for y in range(SIDE)]
    cols = [sum(1 << (y * SIDE + x) for y in range(SIDE)) for x in range(SIDE)]
    diag = sum(1 << (i * SIDE + i) for i in range(SIDE))
    anti = sum(1 << (i * SIDE + SIDE - 1 - i) for i in range(SIDE))
    return rows + cols + [diag, anti]
