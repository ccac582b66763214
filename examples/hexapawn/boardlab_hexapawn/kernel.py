"""Hexapawn's rules as numba kernels over two cell masks.

Cell ``(x, y)`` (x the column from the left, y the row from the top) is bit ``y * n + x``.
White starts on the bottom row and moves up, Black starts on the top row and moves down. The
state words are ``(me, opp)``: the pawns of the side to move and of its opponent; ``me`` also
holds :data:`DOWN` when the side to move is Black, so that every kernel knows which way the
mover's pawns go without being told whose turn it is.

An action is ``from_cell * 6 + direction * 3 + (dx + 1)``: the pawn's cell, the way it goes
(0 up, 1 down) and the column step (-1, 0, +1). Only half of the actions can ever be legal for
one side; the mask of legal moves says which.
"""

from __future__ import annotations

import numba
import numpy as np

from boardlab.games.base import LOSS, ONGOING, Kernel, symmetry_table_inverse

DOWN = np.int64(1) << np.int64(62)
"""The flag in ``me`` that says the side to move is Black, whose pawns go down."""
PAWNS = DOWN - np.int64(1)
"""The bits that hold pawns."""
ACTIONS_PER_CELL = 6
EVALUATIONS = ("advance",)
"""Evaluation names by id; the first is the default."""

# ctx indices
SIZE, MIRROR = 0, 1


def mirror_cells(n: int) -> np.ndarray:
    """The identity and the left-right mirror as cell permutations: ``perm[s, cell]``."""
    perm = np.zeros((2, n * n), dtype=np.int64)
    for y in range(n):
        for x in range(n):
            perm[0, y * n + x] = y * n + x
            perm[1, y * n + x] = y * n + n - 1 - x
    return perm


def mirror_actions(n: int) -> np.ndarray:
    """The symmetries as action permutations: the mirror takes the pawn's cell to its image and
    turns a step to the left into a step to the right."""
    cells = mirror_cells(n)
    maps = np.zeros((2, n * n * ACTIONS_PER_CELL), dtype=np.int64)
    for s in range(2):
        for cell in range(n * n):
            for way in range(2):
                for step in range(3):
                    image_step = step if s == 0 else 2 - step
                    action = cell * ACTIONS_PER_CELL + way * 3 + step
                    maps[s, action] = cells[s, cell] * ACTIONS_PER_CELL + way * 3 + image_step
    return maps


def build_tables(n: int) -> tuple[np.ndarray, ...]:
    """The ``ctx`` tuple: the board side and the mirror's cell permutation."""
    return np.array([n], dtype=np.int64), mirror_cells(n)


@numba.njit(cache=True)
def _bit(cell):  # type: ignore[no-untyped-def]
    return np.int64(1) << np.int64(cell)


@numba.njit(cache=True)
def gen_moves(ctx, me, opp, out):  # type: ignore[no-untyped-def]
    """Write the mover's legal actions into ``out``; return how many there are. A pawn steps
    forward onto an empty cell, or diagonally forward onto an opponent's pawn, taking it."""
    n = ctx[SIZE][0]
    way = 1 if me & DOWN else 0
    forward = 1 if way else -1
    pawns = me & PAWNS
    count = 0
    for cell in range(n * n):
        if not pawns & _bit(cell):
            continue
        x, y = cell % n, cell // n
        ahead = y + forward
        if ahead < 0 or ahead >= n:
            continue
        for step in range(3):
            to_x = x + step - 1
            if to_x < 0 or to_x >= n:
                continue
            target = _bit(ahead * n + to_x)
            if (step == 1 and not (pawns | opp) & target) or (step != 1 and opp & target):
                out[count] = cell * 6 + way * 3 + step
                count += 1
    return count


@numba.njit(cache=True)
def play(ctx, me, opp, action):  # type: ignore[no-untyped-def]
    """Move the pawn (taking what stands on its target); return the words of the side to move next."""
    n = ctx[SIZE][0]
    cell = action // 6
    way = (action // 3) % 2
    step = action % 3
    to = (cell // n + (1 if way else -1)) * n + cell % n + step - 1
    moved = (me & PAWNS & ~_bit(cell)) | _bit(to)
    taken = opp & ~_bit(to)
    return taken | (np.int64(0) if me & DOWN else DOWN), moved


@numba.njit(cache=True)
def status(ctx, me, opp):  # type: ignore[no-untyped-def]
    """LOSS when the opponent (who just moved) has a pawn on its far row, when the mover has no
    pawn left or no move; else ONGOING. Hexapawn has no draws."""
    n = ctx[SIZE][0]
    row = np.int64((1 << n) - 1)
    far_row_of_opponent = row if me & DOWN else row << np.int64(n * (n - 1))
    if opp & far_row_of_opponent or not me & PAWNS:
        return LOSS
    out = np.empty(n * n * 3, dtype=np.int64)
    if gen_moves(ctx, me, opp, out) == 0:
        return LOSS
    return ONGOING


@numba.njit(cache=True)
def evaluate(ctx, me, opp, eval_id):  # type: ignore[no-untyped-def]
    """``advance``: each pawn counts 4 plus the rows it has gone forward, the mover's minus
    the opponent's."""
    n = ctx[SIZE][0]
    down = 1 if me & DOWN else 0
    total = 0.0
    for cell in range(n * n):
        y = cell // n
        if me & _bit(cell):
            total += 4 + (y if down else n - 1 - y)
        if opp & _bit(cell):
            total -= 4 + (n - 1 - y if down else y)
    return total


@numba.njit(cache=True)
def _mirror(ctx, bits, sym):  # type: ignore[no-untyped-def]
    perm = ctx[MIRROR]
    n = ctx[SIZE][0]
    out = bits & ~PAWNS
    for cell in range(n * n):
        if bits & _bit(cell):
            out |= _bit(perm[sym, cell])
    return out


@numba.njit(cache=True)
def symmetry(ctx, me, opp, sym):  # type: ignore[no-untyped-def]
    """The position seen through symmetry ``sym`` (0: itself, 1: mirrored left to right)."""
    return _mirror(ctx, me, sym), _mirror(ctx, opp, sym)


@numba.njit(cache=True)
def observe(ctx, me, opp, out):  # type: ignore[no-untyped-def]
    """Planes (mover's pawns, opponent's pawns) seen from the mover's side: the mover's pawns
    always go up the planes, so a learner sees White and Black alike."""
    n = ctx[SIZE][0]
    flip = me & DOWN
    for y in range(n):
        row = n - 1 - y if flip else y
        for x in range(n):
            cell = _bit(y * n + x)
            out[0, row, x] = 1.0 if me & cell else 0.0
            out[1, row, x] = 1.0 if opp & cell else 0.0


def build_kernel(n: int) -> Kernel:
    """The compiled rules of Hexapawn on an ``n`` x ``n`` board."""
    tables = build_tables(n)
    action_maps = mirror_actions(n)
    cells = tables[MIRROR]
    return Kernel(
        name=f"hexapawn-{n}",
        ctx=tables,
        num_actions=n * n * ACTIONS_PER_CELL,
        obs_shape=(2, n, n),
        evaluations=EVALUATIONS,
        status=status,
        gen_moves=gen_moves,
        play=play,
        evaluate=evaluate,
        symmetry=symmetry,
        observe=observe,
        action_maps=action_maps,
        cell_maps=np.argsort(cells, axis=1),
        sym_inverse=symmetry_table_inverse(action_maps),
    )
