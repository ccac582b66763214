"""Nim's closed-form solution.

The theory (Bouton; the misère and bounded variants follow the same pattern):

- **Normal play** (the last object wins): the side to move wins exactly when the nim-sum
  (XOR) of the piles is not 0; a winning move makes it 0.
- **Misère** (the last object loses): the same, unless every pile is 0 or 1; then the side to
  move wins exactly when the number of 1-piles is even (a winning move leaves an odd number).
- **At most k per move**: a pile of ``p`` counts as ``p mod (k + 1)`` in both rules above,
  including the misère test "every pile is 0 or 1", which reads the reduced piles (a pile of
  ``k + 2`` counts as a 1-pile). Checked against the exhaustive solver in the tests.

:func:`mover_wins` is that rule; a move is winning exactly when it leaves a position the rule
says is lost for the opponent, which is how the agent finds its moves (the same moves as the
nim-sum construction, all of them).
"""

from __future__ import annotations

from collections.abc import Sequence


def reduced(piles: Sequence[int], k: int = 0) -> list[int]:
    """The piles as the rule sees them: modulo ``k + 1`` with a move limit, else unchanged."""
    return [p % (k + 1) for p in piles] if k else list(piles)


def mover_wins(piles: Sequence[int], k: int = 0, misere: bool = True) -> bool:
    """True if the side to move wins with perfect play (``k``: most objects per move, 0: no limit)."""
    heaps = reduced(piles, k)
    if misere and all(h <= 1 for h in heaps):
        return sum(heaps) % 2 == 0
    nim_sum = 0
    for h in heaps:
        nim_sum ^= h
    return nim_sum != 0


def winning_moves(piles: Sequence[int], k: int = 0, misere: bool = True) -> list[tuple[int, int]]:
    """Every ``(pile, count)`` move (0-based pile) that leaves the opponent lost; empty when
    the side to move is lost itself."""
    moves = []
    after = list(piles)
    for i, p in enumerate(piles):
        for count in range(1, (min(k, p) if k else p) + 1):
            after[i] = p - count
            if not mover_wins(after, k, misere):
                moves.append((i, count))
        after[i] = p
    return moves


__all__ = ["mover_wins", "reduced", "winning_moves"]
