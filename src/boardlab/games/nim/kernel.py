"""Nim rules as numba kernels over piles packed in bit fields.

Pile ``i`` is a field of ``bits`` bits in word ``i // per_word`` (``a`` then ``b``) at bit
``(i % per_word) * bits``, where ``bits`` fits the largest starting pile and ``per_word =
63 // bits`` keeps both words non-negative. Nim is impartial: the words hold only the piles,
and the side to move is implied by the State.

An action takes ``t`` objects (1..``max_take``) from pile ``i``: ``action = i * max_take + t - 1``,
with ``max_take`` the move limit ``k`` (or the largest starting pile when there is none).
"""

from __future__ import annotations

import numpy as np

from boardlab.games.base import LOSS, ONGOING, WIN, Kernel
from boardlab.games.jit import cached_njit
from boardlab.games.nim.layout import EVALUATIONS, layout

# ctx[0] scalars
N_PILES, BITS, PER_WORD, MAX_TAKE, MISERE, LIMIT, MAX_PILE = range(7)


def build_tables(piles: tuple[int, ...], k: int, misere: bool) -> tuple[np.ndarray, ...]:
    """The ``ctx`` tuple: one int64 array of scalars (see the ``N_PILES``.. indices)."""
    max_pile = max(piles)
    bits, per_word = layout(max_pile)
    if len(piles) > 2 * per_word:
        raise ValueError(f"{len(piles)} piles of up to {max_pile} do not fit in two words")
    max_take = min(k, max_pile) if k else max_pile
    scalars = np.array([len(piles), bits, per_word, max_take, int(misere), k, max_pile], dtype=np.int64)
    return (scalars,)


@cached_njit(inline="always")
def _shift(ctx, i):  # type: ignore[no-untyped-def]
    s = ctx[0]
    return (i % s[PER_WORD]) * s[BITS]


@cached_njit
def pile(ctx, a, b, i):  # type: ignore[no-untyped-def]
    """The number of objects in pile ``i``."""
    s = ctx[0]
    word = a if i < s[PER_WORD] else b
    return (word >> _shift(ctx, i)) & ((np.int64(1) << s[BITS]) - 1)


@cached_njit
def status(ctx, a, b):  # type: ignore[no-untyped-def]
    """With every pile empty: LOSS under normal play (the opponent took the last object),
    WIN under misère (the opponent was left the last object and had to take it); else ONGOING."""
    if a != 0 or b != 0:
        return ONGOING
    return WIN if ctx[0][MISERE] else LOSS


@cached_njit
def gen_moves(ctx, a, b, out):  # type: ignore[no-untyped-def]
    """Write the legal actions (pile by pile, smallest take first) into ``out``; return the count."""
    s = ctx[0]
    max_take = s[MAX_TAKE]
    count = 0
    for i in range(s[N_PILES]):
        p = pile(ctx, a, b, i)
        for t in range(1, min(p, max_take) + 1):
            out[count] = i * max_take + t - 1
            count += 1
    return count


@cached_njit
def play(ctx, a, b, action):  # type: ignore[no-untyped-def]
    """Take ``action % max_take + 1`` objects from pile ``action // max_take``."""
    s = ctx[0]
    i = action // s[MAX_TAKE]
    taken = np.int64(action % s[MAX_TAKE] + 1) << _shift(ctx, i)
    if i < s[PER_WORD]:
        return a - taken, b
    return a, b - taken


@cached_njit
def mover_wins(ctx, a, b):  # type: ignore[no-untyped-def]
    """The closed-form result for the side to move: True if it wins with perfect play.

    Each pile counts modulo ``k + 1`` when at most ``k`` objects may be taken. Normal play:
    the mover wins when the nim-sum is not 0. Misère: the same, unless every (reduced) pile
    is 0 or 1; then the mover wins when the number of 1-piles is even.
    """
    s = ctx[0]
    nim_sum = 0
    ones = 0
    big = False
    for i in range(s[N_PILES]):
        p = pile(ctx, a, b, i)
        if s[LIMIT] > 0:
            p = p % (s[LIMIT] + 1)
        nim_sum ^= p
        if p == 1:
            ones += 1
        elif p > 1:
            big = True
    if s[MISERE] and not big:
        return ones % 2 == 0
    return nim_sum != 0


@cached_njit
def evaluate(ctx, a, b, eval_id):  # type: ignore[no-untyped-def]
    """``nimsum``: +1 if the nim-sum rule says the side to move wins, else -1."""
    return 1.0 if mover_wins(ctx, a, b) else -1.0


@cached_njit
def symmetry(ctx, a, b, sym):  # type: ignore[no-untyped-def]
    """Only the identity: piles keep their numbers (moves name them)."""
    return a, b


@cached_njit
def observe(ctx, a, b, out):  # type: ignore[no-untyped-def]
    """One unary plane: ``out[0, i, j] = 1`` if pile ``i`` holds more than ``j`` objects."""
    s = ctx[0]
    for i in range(s[N_PILES]):
        p = pile(ctx, a, b, i)
        for j in range(s[MAX_PILE]):
            out[0, i, j] = 1.0 if p > j else 0.0


def build_kernel(piles: tuple[int, ...], k: int, misere: bool) -> Kernel:
    """The compiled Nim kernel for these starting piles, move limit and play convention."""
    tables = build_tables(piles, k, misere)
    scalars = tables[0]
    num_actions = int(scalars[N_PILES] * scalars[MAX_TAKE])
    cells = len(piles) * int(scalars[MAX_PILE])
    name = f"nim_{'-'.join(map(str, piles))}_k{k}_{'misere' if misere else 'normal'}"
    return Kernel(
        name=name,
        ctx=tables,
        num_actions=num_actions,
        obs_shape=(1, len(piles), int(scalars[MAX_PILE])),
        evaluations=EVALUATIONS,
        status=status,
        gen_moves=gen_moves,
        play=play,
        evaluate=evaluate,
        symmetry=symmetry,
        observe=observe,
        action_maps=np.arange(num_actions, dtype=np.int64).reshape(1, num_actions),
        cell_maps=np.arange(cells, dtype=np.int64).reshape(1, cells),
        sym_inverse=np.zeros(1, dtype=np.int64),
    )
