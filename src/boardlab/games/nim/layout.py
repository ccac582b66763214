"""What the Nim kernel shares with the Python face, in plain Python: how piles are packed
in the two state words (see :mod:`boardlab.games.nim.kernel`) and the names of the
evaluations.

Naming a game and listing its options and evaluations need nothing more, so they load no
compiler.
"""

from __future__ import annotations

WORD_BITS = 63
EVALUATIONS = ("nimsum",)
"""Evaluation names by id; the first is the default."""


def layout(max_pile: int) -> tuple[int, int]:
    """``(bits, per_word)``: the field width for piles up to ``max_pile`` and fields per word."""
    bits = max(1, int(max_pile).bit_length())
    return bits, WORD_BITS // bits


def max_piles(max_pile: int) -> int:
    """How many piles of up to ``max_pile`` objects fit in the two state words."""
    return 2 * layout(max_pile)[1]


def pack(piles: tuple[int, ...] | list[int], max_pile: int) -> tuple[int, int]:
    """The state words holding ``piles`` (each at most ``max_pile``)."""
    bits, per_word = layout(max_pile)
    words = [0, 0]
    for i, p in enumerate(piles):
        words[i // per_word] |= int(p) << ((i % per_word) * bits)
    return words[0], words[1]


def unpack(a: int, b: int, n_piles: int, max_pile: int) -> list[int]:
    """The piles held in the state words."""
    bits, per_word = layout(max_pile)
    mask = (1 << bits) - 1
    words = (int(a), int(b))
    return [words[i // per_word] >> ((i % per_word) * bits) & mask for i in range(n_piles)]
