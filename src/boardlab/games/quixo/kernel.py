"""Quixo rules as numba kernels over bitboards.

Cell ``(x, y)`` (x the column, y the row, row 0 on top) is bit ``y * n + x`` of an ``int64``
mask. A move takes the border cube at its source cell and pushes it back in at one end of
its row or column; the cubes in between slide one step towards the hole. With the tables
built here a move is four masks and a shift:

    keep  = the cells that slide,  shift = +1/-1 (row) or +n/-n (column),
    board' = (board & ~(keep | source)) | shifted(board & keep),  mover' |= insert.

Everything the kernels need lives in the ``ctx`` tuple of int64 arrays built by
:func:`build_tables`, so the same compiled code serves 3x3, 4x4 and 5x5.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import numpy as np

from boardlab.games.base import LOSS, ONGOING, WIN, Kernel, symmetry_table_inverse
from boardlab.games.jit import cached_njit
from boardlab.games.quixo.layout import (
    BOTTOM,
    EVALUATIONS,
    LEFT,
    RULES,
    TOP,
    insert_cell,
    move_list,
)

# ctx[0] move table columns
SRC, KEEP, SHIFT, INSERT, END = 0, 1, 2, 3, 4
# ctx[1] scalars
N_IDX, NMOVES_IDX, NLINES_IDX, CORNERS_IDX, EDGES_IDX, RULES_IDX = 0, 1, 2, 3, 4, 5
OFFICIAL, COURSE = 0, 1

# n own cubes in a line -> n * 3^n (lines3), n * 2^n (lines2); 0..5 -> 0,1,10,..,10000 (density)
_LINES3_WEIGHT = np.array([n * 3.0**n for n in range(6)])
_LINES2_WEIGHT = np.array([n * 2.0**n for n in range(6)])
_DENSITY_WEIGHT = np.array([0.0] + [10.0 ** (n - 1) for n in range(1, 6)])

TUNED, LINES2, LINES3, DENSITY, LONGEST, WINLOSS, FULLEST, PATTERNS = range(len(EVALUATIONS))
TUNED_FILE = "quixo-tuned.json"
PATTERNS_FILE = "quixo-patterns.json"
TUNED_SCALE = 100.0
"""``tuned`` values are the fitted logit of winning times this: 100 is odds of e to 1."""
WEIGHT_UNIT = 1000
"""Tuned weights are held in ``ctx`` as integers, in thousandths of a logit."""
TUNED_SCALARS = ("interior", "corners", "cubes")
"""The cube-count features of ``tuned`` after the line table: own minus opponent's cubes off
the border, in the corners, and in all. The fit's intercept, the value of having the move,
follows them in the kernel's table and is added to every value."""


TRANSPOSE = 6
"""The main-diagonal transpose in :func:`symmetry_maps`: with the identity, the only symmetry
that keeps the course rules' results (rows map to columns in the same scan order)."""


def symmetry_maps(n: int) -> list[list[int]]:
    """The 8 symmetries of the square as cell permutations: ``perm[cell] = image cell``."""
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
    maps = []
    for t in transforms:
        perm = [0] * (n * n)
        for y in range(n):
            for x in range(n):
                tx, ty = t(x, y)
                perm[y * n + x] = ty * n + tx
        maps.append(perm)
    return maps


def _move_row(n: int, x: int, y: int, end: int) -> list[int]:
    bit = 1 << (y * n + x)
    if end == TOP:
        keep = sum(1 << (r * n + x) for r in range(y))
        shift = n
    elif end == BOTTOM:
        keep = sum(1 << (r * n + x) for r in range(y + 1, n))
        shift = -n
    elif end == LEFT:
        keep = sum(1 << (y * n + c) for c in range(x))
        shift = 1
    else:
        keep = sum(1 << (y * n + c) for c in range(x + 1, n))
        shift = -1
    ix, iy = insert_cell(n, x, y, end)
    return [bit, keep, shift, 1 << (iy * n + ix), end]


def line_masks(n: int) -> list[int]:
    """The masks of the rows (top first), columns (left first), main and anti-diagonal."""
    rows = [sum(1 << (y * n + x) for x in range(n)) for y in range(n)]
    cols = [sum(1 << (y * n + x) for y in range(n)) for x in range(n)]
    diag = sum(1 << (i * n + i) for i in range(n))
    anti = sum(1 << (i * n + n - 1 - i) for i in range(n))
    return rows + cols + [diag, anti]


def line_cells(n: int) -> np.ndarray:
    """The cells of each line (as in :func:`line_masks`) in order along it."""
    out = []
    for y in range(n):
        out.append([y * n + x for x in range(n)])
    for x in range(n):
        out.append([y * n + x for y in range(n)])
    out.append([i * n + i for i in range(n)])
    out.append([i * n + n - 1 - i for i in range(n)])
    return np.array(out, dtype=np.int64)


def _sym_byte_tables(n: int, maps: list[list[int]]) -> np.ndarray:
    """``table[s, k, b]``: the image under symmetry s of byte value b placed at byte k."""
    nbytes = (n * n + 7) // 8
    table = np.zeros((8, nbytes, 256), dtype=np.int64)
    for s, perm in enumerate(maps):
        for k in range(nbytes):
            for b in range(256):
                image = 0
                for bit in range(8):
                    cell = 8 * k + bit
                    if b >> bit & 1 and cell < n * n:
                        image |= 1 << perm[cell]
                table[s, k, b] = image
    return table


def _move_sym_table(n: int, maps: list[list[int]]) -> np.ndarray:
    moves = move_list(n)
    index = {(y * n + x, insert_cell(n, x, y, e)): i for i, (x, y, e) in enumerate(moves)}
    table = np.zeros((8, len(moves)), dtype=np.int64)
    for s, perm in enumerate(maps):
        for i, (x, y, e) in enumerate(moves):
            src = perm[y * n + x]
            ix, iy = insert_cell(n, x, y, e)
            dst = perm[iy * n + ix]
            table[s, i] = index[(src, (dst % n, dst // n))]
    return table


def tuned_weights(n: int) -> dict[str, Any]:
    """The fitted weights of the ``tuned`` evaluation for an n x n board, as shipped.

    ``lines`` maps ``"a,b"`` (own and opponent cubes in one row, column or diagonal, a > b)
    to the weight of each such line (the mirrored ``"b,a"`` line counts minus it); the
    names of :data:`TUNED_SCALARS` give the weights of those counts, and ``fit.intercept`` the
    value of having the move. Weights are logits of the side to move winning, fitted by
    :mod:`boardlab.train.eval_fit`.
    """
    text = resources.files("boardlab.games.quixo").joinpath("data", TUNED_FILE).read_text()
    return json.loads(text)["sizes"][str(n)]  # type: ignore[no-any-return]


def tuned_table(n: int, weights: dict[str, Any] | None = None) -> np.ndarray:
    """The ``tuned`` weights (by default the shipped ones, else one size's entry of a weights
    file) as the kernel reads them: ``(n+1)**2`` line weights indexed ``own * (n+1) + opp``,
    then the :data:`TUNED_SCALARS`, then the fit's intercept (the value of having the move),
    in thousandths of a logit."""
    if weights is None:
        weights = tuned_weights(n)
    table = np.zeros((n + 1) ** 2 + len(TUNED_SCALARS) + 1, dtype=np.int64)
    for key, value in weights["lines"].items():
        own, opp = (int(part) for part in key.split(","))
        table[own * (n + 1) + opp] = round(value * WEIGHT_UNIT)
        table[opp * (n + 1) + own] = -round(value * WEIGHT_UNIT)
    for i, name in enumerate(TUNED_SCALARS):
        table[(n + 1) ** 2 + i] = round(float(weights[name]) * WEIGHT_UNIT)
    table[-1] = round(float(weights["fit"]["intercept"]) * WEIGHT_UNIT)
    return table


def line_class(n: int, line: int) -> str:
    """The name of a line's class under the board's symmetries (lines as in :func:`line_masks`):
    ``"line k"`` for the rows and columns k cells in from the border, ``"diagonal"``."""
    if line < 2 * n:
        return f"line {min(line % n, n - 1 - line % n)}"
    return "diagonal"


def pattern_text(n: int, index: int) -> str:
    """The cells of a line whose base-3 pattern index is ``index`` (cell j is digit j), from
    the side to move: ``X`` its cube, ``O`` the opponent's, ``.`` neutral."""
    return "".join(".XO"[index // 3**j % 3] for j in range(n))


def pattern_key(text: str) -> tuple[str, int]:
    """The shipped key of a line pattern and its sign: the least of the pattern and its mirror
    image with +1, or of the colour-swapped pattern and its image with -1 (a pattern equal
    to its own swap, up to the mirror, has sign 0)."""
    own = min(text, text[::-1])
    swapped = own.translate(str.maketrans("XO", "OX"))
    theirs = min(swapped, swapped[::-1])
    if own == theirs:
        return own, 0
    return (own, 1) if own < theirs else (theirs, -1)


def pattern_weights(n: int) -> dict[str, object]:
    """The fitted weights of the ``patterns`` evaluation for an n x n board, as shipped.

    ``classes`` maps each line class (:func:`line_class`) to the weights of its patterns, keyed
    by :func:`pattern_key` (``".O.XX"``: a neutral cube, one of the opponent's, a neutral one,
    two of the side to move); a pattern's mirror image has its weight and its colour swap
    minus it. ``fit.intercept`` is the value of having the move. Weights are logits
    of the side to move winning, fitted by :mod:`boardlab.train.eval_fit`.
    """
    text = resources.files("boardlab.games.quixo").joinpath("data", PATTERNS_FILE).read_text()
    return json.loads(text)["sizes"][str(n)]  # type: ignore[no-any-return]


def line_patterns(n: int) -> list[list[tuple[str, str, int]]]:
    """For each line (as in :func:`line_masks`) and base-3 pattern index along its cells: the
    line's class, the pattern's key and its sign (:func:`pattern_key`); sign 0 also for a full
    line, which ends the game and so is never evaluated."""
    full = ("X" * n, "O" * n)
    keys = [pattern_key(pattern_text(n, index)) for index in range(3**n)]
    keys = [(key, 0 if key in full else sign) for key, sign in keys]
    return [[(line_class(n, line), key, sign) for key, sign in keys] for line in range(len(line_masks(n)))]


def pattern_table(n: int) -> np.ndarray:
    """The ``patterns`` weights as the kernel reads them: ``3**n`` entries per line (in the
    order of :func:`line_masks`, indexed by the base-3 pattern along the line's cells), then the
    intercept, in thousandths of a logit."""
    weights = pattern_weights(n)
    classes: dict[str, dict[str, float]] = weights["classes"]  # type: ignore[assignment]
    entries = [entry for line in line_patterns(n) for entry in line]
    table = np.zeros(len(entries) + 1, dtype=np.int64)
    for i, (kind, key, sign) in enumerate(entries):
        table[i] = sign * round(classes[kind].get(key, 0.0) * WEIGHT_UNIT)
    table[-1] = round(float(weights["fit"]["intercept"]) * WEIGHT_UNIT)  # type: ignore[index]
    return table


def build_tables(n: int, rules: int = OFFICIAL) -> tuple[np.ndarray, ...]:
    """The ``ctx`` tuple of constant int64 arrays for an n x n board under a rulebook."""
    moves = move_list(n)
    move_table = np.array([_move_row(n, x, y, e) for x, y, e in moves], dtype=np.int64)
    lines = np.array(line_masks(n), dtype=np.int64)
    corners = sum(1 << (y * n + x) for x in (0, n - 1) for y in (0, n - 1))
    border = sum(1 << cell for cell in {y * n + x for x, y, _ in moves})
    scalars = np.array([n, len(moves), len(lines), corners, border & ~corners, rules], dtype=np.int64)
    maps = symmetry_maps(n)
    return (
        move_table,
        scalars,
        lines,
        line_cells(n),
        _sym_byte_tables(n, maps),
        _move_sym_table(n, maps),
        tuned_table(n),
        pattern_table(n),
    )


@cached_njit(inline="always")
def _shifted(bits: np.int64, shift: np.int64) -> np.int64:
    if shift > 0:
        return bits << shift
    return bits >> -shift


@cached_njit
def gen_moves(ctx, me, opp, out):  # type: ignore[no-untyped-def]
    """Write the legal move indices into ``out``; return how many there are."""
    table = ctx[0]
    count = 0
    for m in range(table.shape[0]):
        if opp & table[m, SRC] == 0:
            out[count] = m
            count += 1
    return count


@cached_njit
def count_moves(ctx, me, opp):  # type: ignore[no-untyped-def]
    """Number of legal moves, without listing them (corners give 2, edges 3)."""
    scalars = ctx[1]
    free = ~opp
    corners = free & scalars[CORNERS_IDX]
    edges = free & scalars[EDGES_IDX]
    return 2 * _popcount(corners) + 3 * _popcount(edges)


@cached_njit(inline="always")
def _popcount(x: np.int64) -> np.int64:
    # SWAR popcount; masks hold at most 25 bits, so 32-bit arithmetic suffices
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@cached_njit
def play(ctx, me, opp, m):  # type: ignore[no-untyped-def]
    """Play move ``m`` for the side to move; return ``(me, opp)`` of the side to move next."""
    row = ctx[0][m]
    keep = row[KEEP]
    clear = ~(keep | row[SRC])
    shift = row[SHIFT]
    new_me = (me & clear) | _shifted(me & keep, shift) | row[INSERT]
    new_opp = (opp & clear) | _shifted(opp & keep, shift)
    return new_opp, new_me


@cached_njit
def has_line(ctx, bits):  # type: ignore[no-untyped-def]
    """True if ``bits`` holds a full row, column or diagonal."""
    lines = ctx[2]
    for i in range(lines.shape[0]):
        if bits & lines[i] == lines[i]:
            return True
    return False


@cached_njit
def status(ctx, me, opp):  # type: ignore[no-untyped-def]
    """Result for the side to move, just after the opponent moved (WIN, LOSS or ONGOING).

    Official rules: the opponent (who just moved) loses if it completed a line of ours, even
    if it also completed one of its own; otherwise it wins with a line of its own. Course
    rules (the course template's referee): the owner of the first complete line in the scan
    order (rows from the top, columns from the left, the main diagonal, the anti-diagonal)
    wins, whoever moved. Quixo has no draw by rule, and a player always has a move while no
    line is complete.
    """
    if ctx[1][RULES_IDX] == COURSE:
        return _first_line_owner(ctx, me, opp)
    if has_line(ctx, me):
        return WIN
    if has_line(ctx, opp):
        return LOSS
    return ONGOING


@cached_njit
def _first_line_owner(ctx, me, opp):  # type: ignore[no-untyped-def]
    lines = ctx[2]
    for i in range(lines.shape[0]):
        if me & lines[i] == lines[i]:
            return WIN
        if opp & lines[i] == lines[i]:
            return LOSS
    return ONGOING


@cached_njit
def _longest_run(ctx, bits):  # type: ignore[no-untyped-def]
    cells = ctx[3]
    best = 0
    for i in range(cells.shape[0]):
        run = 0
        for j in range(cells.shape[1]):
            if bits >> cells[i, j] & 1:
                run += 1
                best = max(best, run)
            else:
                run = 0
    return best


@cached_njit
def _fullest_line(ctx, bits):  # type: ignore[no-untyped-def]
    """The most cubes of ``bits`` in one row, column or diagonal."""
    lines = ctx[2]
    best = 0
    for i in range(lines.shape[0]):
        best = max(best, _popcount(bits & lines[i]))
    return best


@cached_njit
def _density_side(ctx, bits):  # type: ignore[no-untyped-def]
    n = ctx[1][N_IDX]
    lines = ctx[2]
    max_row = 0
    max_col = 0
    for i in range(n):
        max_row = max(max_row, _popcount(bits & lines[i]))
        max_col = max(max_col, _popcount(bits & lines[n + i]))
    diag = _popcount(bits & lines[2 * n])
    anti = _popcount(bits & lines[2 * n + 1])
    return _DENSITY_WEIGHT[max_row] + _DENSITY_WEIGHT[max_col] + _DENSITY_WEIGHT[diag] + _DENSITY_WEIGHT[anti]


@cached_njit
def _lines_side(ctx, bits, weights):  # type: ignore[no-untyped-def]
    lines = ctx[2]
    total = 0.0
    for i in range(lines.shape[0]):
        total += weights[_popcount(bits & lines[i])]
    return total


@cached_njit
def evaluate(ctx, me, opp, eval_id):  # type: ignore[no-untyped-def]
    """Heuristic value of a non-final position for the side to move (see EVALUATIONS)."""
    if eval_id == TUNED:
        return _tuned(ctx, me, opp)
    if eval_id == LINES2:
        return _lines_side(ctx, me, _LINES2_WEIGHT) - _lines_side(ctx, opp, _LINES2_WEIGHT)
    if eval_id == LINES3:
        return _lines_side(ctx, me, _LINES3_WEIGHT) - _lines_side(ctx, opp, _LINES3_WEIGHT)
    if eval_id == DENSITY:
        return _density_side(ctx, me) - _density_side(ctx, opp)
    if eval_id == LONGEST:
        n = ctx[1][N_IDX]
        return _longest_run(ctx, me) / n - 0.5
    if eval_id == FULLEST:
        return (_fullest_line(ctx, me) - _fullest_line(ctx, opp)) / ctx[1][N_IDX]
    if eval_id == PATTERNS:
        return _patterns(ctx, me, opp)
    return 0.0  # winloss: nothing but the result


@cached_njit
def _tuned(ctx, me, opp):  # type: ignore[no-untyped-def]
    scalars = ctx[1]
    lines = ctx[2]
    weights = ctx[6]
    side = scalars[N_IDX] + 1
    total = 0
    for i in range(lines.shape[0]):
        total += weights[_popcount(me & lines[i]) * side + _popcount(opp & lines[i])]
    border = scalars[CORNERS_IDX] | scalars[EDGES_IDX]
    at = side * side
    total += weights[at] * (_popcount(me & ~border) - _popcount(opp & ~border))
    total += weights[at + 1] * (_popcount(me & scalars[CORNERS_IDX]) - _popcount(opp & scalars[CORNERS_IDX]))
    total += weights[at + 2] * (_popcount(me) - _popcount(opp))
    total += weights[at + 3]  # having the move
    return total * (TUNED_SCALE / WEIGHT_UNIT)


@cached_njit
def _patterns(ctx, me, opp):  # type: ignore[no-untyped-def]
    cells = ctx[3]
    weights = ctx[7]
    n = cells.shape[1]
    stride = (weights.shape[0] - 1) // cells.shape[0]
    total = weights[weights.shape[0] - 1]  # having the move
    for i in range(cells.shape[0]):
        index = 0
        for j in range(n - 1, -1, -1):
            cell = cells[i, j]
            index = index * 3 + ((me >> cell) & 1) + 2 * ((opp >> cell) & 1)
        total += weights[i * stride + index]
    return total * (TUNED_SCALE / WEIGHT_UNIT)


@cached_njit
def may_win_now(ctx, me, opp):  # type: ignore[no-untyped-def]
    """False when the side to move surely has no winning move: one move adds at most one own
    cube to any line, so a win needs a line one cube short."""
    lines = ctx[2]
    short = ctx[1][N_IDX] - 1
    for i in range(lines.shape[0]):
        if _popcount(me & lines[i]) >= short:
            return True
    return False


@cached_njit(inline="always")
def transform(ctx, bits, sym):  # type: ignore[no-untyped-def]
    """The image of a mask under symmetry ``sym``."""
    table = ctx[4]
    out = 0
    for k in range(table.shape[1]):
        out |= table[sym, k, (bits >> (8 * k)) & 255]
    return out


@cached_njit
def symmetry(ctx, me, opp, sym):  # type: ignore[no-untyped-def]
    """The position seen through symmetry ``sym`` (both masks transformed)."""
    return transform(ctx, me, sym), transform(ctx, opp, sym)


@cached_njit
def observe(ctx, me, opp, out):  # type: ignore[no-untyped-def]
    """Planes (mover's cubes, opponent's cubes), rows from the top, into float32 ``out``."""
    n = ctx[1][N_IDX]
    for y in range(n):
        for x in range(n):
            bit = y * n + x
            out[0, y, x] = (me >> bit) & 1
            out[1, y, x] = (opp >> bit) & 1


@cached_njit
def random_playout(ctx, me, opp, max_plies, seed):  # type: ignore[no-untyped-def]
    """Play uniformly random moves; return (result for the starting side, plies played).

    The result is +1 / -1 / 0 from the point of view of the side to move at the start; a
    playout that reaches ``max_plies`` without a winner is a draw.
    """
    np.random.seed(seed)
    buf = np.empty(ctx[0].shape[0], dtype=np.int64)
    sign = 1
    for ply in range(max_plies):
        s = status(ctx, me, opp)
        if s != ONGOING:
            return s * sign, ply
        n = gen_moves(ctx, me, opp, buf)
        me, opp = play(ctx, me, opp, buf[np.random.randint(n)])
        sign = -sign
    s = status(ctx, me, opp)
    return (0 if s == ONGOING else s * sign), max_plies


@cached_njit
def random_games(ctx, games, max_plies, seed):  # type: ignore[no-untyped-def]
    """Play ``games`` random games from the empty board; return total moves played."""
    np.random.seed(seed)
    buf = np.empty(ctx[0].shape[0], dtype=np.int64)
    total = 0
    for _ in range(games):
        me = np.int64(0)
        opp = np.int64(0)
        for _ply in range(max_plies):
            n = gen_moves(ctx, me, opp, buf)
            me, opp = play(ctx, me, opp, buf[np.random.randint(n)])
            total += 1
            if status(ctx, me, opp) != ONGOING:
                break
    return total


@cached_njit
def perft(ctx, me, opp, depth):  # type: ignore[no-untyped-def]
    """Leaf count of the game tree to ``depth``; finished games are leaves, not expanded.

    Iterative (explicit stack), since cached recursive numba functions are fragile.
    """
    if depth == 0 or status(ctx, me, opp) != ONGOING:
        return 1
    nmax = ctx[0].shape[0]
    moves = np.empty((depth, nmax), dtype=np.int64)
    counts = np.zeros(depth, dtype=np.int64)
    cursor = np.zeros(depth, dtype=np.int64)
    mes = np.empty(depth + 1, dtype=np.int64)
    opps = np.empty(depth + 1, dtype=np.int64)
    mes[0] = me
    opps[0] = opp
    counts[0] = gen_moves(ctx, me, opp, moves[0])
    total = 0
    level = 0
    while level >= 0:
        if cursor[level] == counts[level]:
            cursor[level] = 0
            level -= 1
            continue
        m = moves[level, cursor[level]]
        cursor[level] += 1
        a, b = play(ctx, mes[level], opps[level], m)
        if status(ctx, a, b) != ONGOING or level + 1 == depth:
            total += 1
        elif level + 2 == depth:
            total += count_moves(ctx, a, b)
            # children that end the game are leaves too, which count_moves already counts
        else:
            level += 1
            mes[level] = a
            opps[level] = b
            counts[level] = gen_moves(ctx, a, b, moves[level])
    return total


def reweighed(ctx: tuple[Any, ...], eval_name: str, document: Any) -> tuple[Any, ...]:
    """``ctx`` with the ``tuned`` weights of ``document`` (a weights file as
    ``benchmarks/fit_quixo_eval.py`` writes it, parsed) for the board size of ``ctx``."""
    if eval_name != "tuned":
        raise ValueError(f"only the tuned evaluation reads fitted weights, not {eval_name}")
    n = int(ctx[1][N_IDX])
    try:
        table = tuned_table(n, document["sizes"][str(n)])
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise ValueError(f"no tuned weights for a {n}x{n} board in it ({error!r})") from None
    return (*ctx[:6], table, *ctx[7:])


def build_kernel(n: int, rules: str = "official") -> Kernel:
    """The compiled Quixo kernel for an n x n board (n = 3, 4 or 5) under ``rules``."""
    if n not in (3, 4, 5):
        raise ValueError(f"Quixo board size must be 3, 4 or 5, got {n}")
    tables = build_tables(n, RULES.index(rules))
    action_maps = tables[5]
    # cell_maps gathers: image[perm[c]] = plane[c], so image[d] = plane[inverse(perm)[d]]
    cell_maps = np.argsort(np.array(symmetry_maps(n), dtype=np.int64), axis=1)
    return Kernel(
        name=f"quixo{n}" if rules == "official" else f"quixo{n}-{rules}",
        ctx=tables,
        num_actions=int(tables[0].shape[0]),
        obs_shape=(2, n, n),
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
        may_win=may_win_now,
        count_moves=count_moves,
        reweigh=lambda eval_name, document: reweighed(tables, eval_name, document),
        value_symmetries=None if rules == "official" else (0, TRANSPOSE),
    )


_KERNELS: dict[tuple[int, str], Kernel] = {}


def kernel(n: int = 5, rules: str = "official") -> Kernel:
    """The compiled Quixo kernel for an n x n board and rulebook, built once per process."""
    if (n, rules) not in _KERNELS:
        _KERNELS[n, rules] = build_kernel(n, rules)
    return _KERNELS[n, rules]
