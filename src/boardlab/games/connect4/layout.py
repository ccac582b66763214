"""What the Connect Four kernel shares with the Python face, in plain Python: where a cell
sits in the bitboard words (see :mod:`boardlab.games.connect4.kernel`), how many bits they
hold, and the names of the evaluations.

Naming a game and listing its options and evaluations need nothing more, so they load no
compiler; the kernel re-exports all of it.
"""

from __future__ import annotations

EVALUATIONS = ("threats", "threes", "patterns")
"""Names of the heuristic evaluations, the default first (ids index this tuple)."""

MAX_BITS = 64
"""Bits of a state word: ``(height + 1) * width`` may not exceed it."""


def bit(width: int, height: int, col: int, row: int) -> int:
    """The bit index of cell ``(col, row)``, row 0 at the bottom (no bounds check)."""
    return col * (height + 1) + row
