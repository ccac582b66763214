"""Tic-Tac-Toe rules as numba kernels over two 9-bit masks.

Cell ``(x, y)`` (x the column, y the row, row 0 on top) is bit ``y * 3 + x``. The state
words are ``(a, b)``: the cells of the side to move and of its opponent. An action is the
cell index 0..8; playing it adds the cell to the mover's mask and swaps the two masks.
"""

from __future__ import annotations

import numpy as np

from boardlab.games.base import DRAW, LOSS, ONGOING, Kernel, symmetry_table_inverse
from boardlab.games.jit import cached_njit
from boardlab.games.tictactoe.layout import CELLS, EVALUATIONS, FULL, SIDE, line_masks

# ctx indices
LINES, SYM_PERM, LINE_WEIGHT = 0, 1, 2

# an open line holding n stones of one side is worth n * 3^n to that side
_LINE_WEIGHT = np.array([n * 3.0**n for n in range(SIDE + 1)])


def symmetry_maps() -> np.ndarray:
    """The 8 symmetries of the square as cell permutations: ``perm[s, cell] = image cell``."""
    n = SIDE
    transforms = [
        lambda x, y: (x, y),
        lambda x, y: (n - 1 - y, x),  # rotate 90 degrees clockwise
        lambda x, y: (n - 1 - x, n - 1 - y),
        lambda x, y: (y, n - 1 - x),
        lambda x, y: (n - 1 - x, y),  # mirror left-right
        lambda x, y: (x, n - 1 - y),  # mirror top-bottom
        lambda x, y: (y, x),  # main-diagonal transpose
        lambda x, y: (n - 1 - y, n - 1 - x),  # anti-diagonal transpose
    ]
    perm = np.zeros((len(transforms), CELLS), dtype=np.int64)
    for s, t in enumerate(transforms):
        for y in range(n):
            for x in range(n):
                tx, ty = t(x, y)
                perm[s, y * n + x] = ty * n + tx
    return perm


def build_tables() -> tuple[np.ndarray, ...]:
    """The ``ctx`` tuple: line masks, symmetry permutations, line weights."""
    return np.array(line_masks(), dtype=np.int64), symmetry_maps(), _LINE_WEIGHT.copy()


@cached_njit(inline="always")
def _popcount9(x):  # type: ignore[no-untyped-def]
    count = 0
    for i in range(CELLS):
        count += (x >> i) & 1
    return count


@cached_njit
def has_line(ctx, bits):  # type: ignore[no-untyped-def]
    """True if ``bits`` holds a full row, column or diagonal."""
    lines = ctx[LINES]
    for i in range(lines.shape[0]):
        if bits & lines[i] == lines[i]:
            return True
    return False


@cached_njit
def status(ctx, me, opp):  # type: ignore[no-untyped-def]
    """LOSS if the opponent (who just moved) has a line, DRAW on a full board, else ONGOING."""
    if has_line(ctx, opp):
        return LOSS
    if (me | opp) == FULL:
        return DRAW
    return ONGOING


@cached_njit
def gen_moves(ctx, me, opp, out):  # type: ignore[no-untyped-def]
    """Write the empty cells into ``out`` in index order; return how many there are."""
    taken = me | opp
    count = 0
    for cell in range(CELLS):
        if (taken >> cell) & 1 == 0:
            out[count] = cell
            count += 1
    return count


@cached_njit
def play(ctx, me, opp, cell):  # type: ignore[no-untyped-def]
    """Put the mover's stone on ``cell``; return the masks of the side to move next."""
    return opp, me | (np.int64(1) << cell)


@cached_njit
def evaluate(ctx, me, opp, eval_id):  # type: ignore[no-untyped-def]
    """``lines``: own stones in lines the opponent has not blocked, minus the opponent's."""
    lines = ctx[LINES]
    weight = ctx[LINE_WEIGHT]
    total = 0.0
    for i in range(lines.shape[0]):
        mine = _popcount9(me & lines[i])
        theirs = _popcount9(opp & lines[i])
        if theirs == 0:
            total += weight[mine]
        if mine == 0:
            total -= weight[theirs]
    return total


@cached_njit(inline="always")
def transform(ctx, bits, sym):  # type: ignore[no-untyped-def]
    """The image of a mask under symmetry ``sym``."""
    perm = ctx[SYM_PERM]
    out = np.int64(0)
    for cell in range(CELLS):
        if (bits >> cell) & 1:
            out |= np.int64(1) << perm[sym, cell]
    return out


@cached_njit
def symmetry(ctx, me, opp, sym):  # type: ignore[no-untyped-def]
    """The position seen through symmetry ``sym`` (both masks transformed)."""
    return transform(ctx, me, sym), transform(ctx, opp, sym)


@cached_njit
def observe(ctx, me, opp, out):  # type: ignore[no-untyped-def]
    """Planes (mover's stones, opponent's stones), rows from the top, into float32 ``out``."""
    for y in range(SIDE):
        for x in range(SIDE):
            bit = y * SIDE + x
            out[0, y, x] = (me >> bit) & 1
            out[1, y, x] = (opp >> bit) & 1


def build_kernel() -> Kernel:
    """The compiled Tic-Tac-Toe kernel."""
    tables = build_tables()
    action_maps = tables[SYM_PERM]
    # cell_maps gathers: image[perm[c]] = plane[c], so image[d] = plane[inverse(perm)[d]]
    cell_maps = np.argsort(action_maps, axis=1)
    return Kernel(
        name="tictactoe",
        ctx=tables,
        num_actions=CELLS,
        obs_shape=(2, SIDE, SIDE),
        evaluations=EVALUATIONS,
        status=status,
        gen_moves=gen_moves,
        play=play,
        evaluate=evaluate,
        symmetry=symmetry,
        observe=observe,
        action_maps=action_maps,
        cell_maps=cell_maps,
        sym_inverse=symmetry_table_inverse(action_maps),
    )
