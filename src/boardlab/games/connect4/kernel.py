"""Connect Four rules as numba kernels over bitboards, for any width, height and line length.

The layout is the one of the strongest C/C++ solvers: column ``c`` owns ``height + 1``
consecutive bits, row ``r`` (0 at the bottom) of column ``c`` is bit ``c * (height + 1) + r``
and the extra top bit of each column is a *sentinel* that always stays empty, so that a
shift never carries a line from one column into the next. A position is two ``int64``
state words ``(a, b)``: ``a`` the stones of the side to move, ``b`` the mask of all stones.

- A move in column ``c`` is ``b | (b + bottom[c])``: the addition carries up the column
  into its lowest empty cell. The side to move next owns ``a ^ b`` (the stones of the
  player who did not move), so ``play`` returns ``(a ^ b, b | (b + bottom[c]))``.
- A line of ``k`` stones in direction ``s`` (1 vertical, ``h + 1`` horizontal, ``h`` and
  ``h + 2`` diagonal) is a non-zero ``p & p >> s & ... & p >> (k - 1) s``.
- The sentinel of the last column of an 8 x 7 board is bit 63, the sign bit: it is never
  set in a state word, so both words stay non-negative and right shifts of them are
  exact. Intermediate values built with left shifts may wrap into the sign bit; they are
  never shifted right. Everything is ``int64`` (numba turns mixes of ``int64`` and
  ``uint64`` into ``float64``).

The constant tables live in the ``ctx`` tuple built by :func:`build_context`, so one
compiled set of functions serves every board size.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from boardlab.games.base import DRAW, LOSS, ONGOING, Kernel, symmetry_table_inverse
from boardlab.games.connect4.layout import EVALUATIONS, MAX_BITS, bit
from boardlab.games.jit import cached_njit

# ctx[0] scalars
W_IDX, H_IDX, K_IDX, H1_IDX, BOTTOM_IDX, BOARD_IDX, CENTRE_IDX, ODD_ROWS_IDX = range(8)
# ctx[3] pattern table columns: a pattern is a window of cells along one direction, each
# cell either the side's stone (OWN), an empty cell (EMPTY) or anything.
P_EVAL, P_GROUP, P_SHIFT, P_VALID, P_LENGTH, P_OWN, P_EMPTY, P_WEIGHT = range(8)

EVAL_THREATS, EVAL_THREES, EVAL_PATTERNS = 0, 1, 2

BIG = 10_000.0
"""Value of a position the evaluation sees as decided (a win next move, a double threat);
far below the mate scores of the searches, above any heuristic sum."""


def _to_int64(value: int) -> int:
    """A Python integer of at most 64 bits as the signed int64 with the same bits."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def directions(height: int) -> tuple[int, int, int, int]:
    """Bit shifts of the four line directions: vertical, horizontal, both diagonals."""
    return 1, height + 1, height + 2, height


def _steps(height: int) -> list[tuple[int, int, int]]:
    """``(shift, d_col, d_row)`` of each direction, in :func:`directions` order."""
    return [(1, 0, 1), (height + 1, 1, 0), (height + 2, 1, 1), (height, 1, -1)]


def _window_starts(width: int, height: int, d_col: int, d_row: int, length: int) -> int:
    """Cells where a window of ``length`` cells in direction ``(d_col, d_row)`` fits."""
    starts = 0
    for col in range(width):
        for row in range(height):
            end_col, end_row = col + d_col * (length - 1), row + d_row * (length - 1)
            if 0 <= end_col < width and 0 <= end_row < height:
                starts |= 1 << bit(width, height, col, row)
    return starts


def _pattern_rows(
    width: int, height: int, eval_id: int, patterns: list[tuple[int, str, int]]
) -> list[list[int]]:
    """Table rows for ``patterns`` of ``(group, text, weight)`` in every direction.

    ``text`` reads along the direction: ``X`` the side's stone, ``.`` an empty cell, ``?``
    anything. The patterns of one group and direction never match the same window twice
    (they are exclusive), so the kernel ORs their matches and counts once per group.
    """
    rows = []
    for direction, (shift, d_col, d_row) in enumerate(_steps(height)):
        for group, text, weight in patterns:
            valid = _window_starts(width, height, d_col, d_row, len(text))
            if not valid:
                continue
            own = sum(1 << i for i, ch in enumerate(text) if ch == "X")
            empty = sum(1 << i for i, ch in enumerate(text) if ch == ".")
            rows.append(
                [eval_id, 4 * group + direction, shift, _to_int64(valid), len(text), own, empty, weight]
            )
    return rows


def _windows(k: int, stones: int) -> list[str]:
    """Every window of ``k`` cells holding ``stones`` own stones and empty elsewhere."""
    return [
        "".join("X" if i in chosen else "." for i in range(k)) for chosen in combinations(range(k), stones)
    ]


def pattern_table(width: int, height: int, k: int) -> np.ndarray:
    """The window patterns of the ``threes``, ``patterns`` and ``threats`` evaluations.

    Weights are per side (the kernel subtracts the opponent's sum). ``threes``: a window of
    ``k`` cells with ``k - 1`` own stones and the rest empty scores 100, with ``k - 2`` own
    stones 1 (for Connect Four: threes and twos). ``patterns``: open threes ``.XXX.`` 60,
    split threes ``X.XX``/``XX.X`` 30, end threes ``XXX.``/``.XXX`` 20 (an open three also
    holds two of them), twos 4. ``threats`` adds the twos, 6 each, to its threat count.
    """
    threes = _windows(k, k - 1)
    twos = _windows(k, k - 2) if k >= 3 else []
    rows = _pattern_rows(width, height, EVAL_THREES, [(0, t, 100) for t in threes])
    rows += _pattern_rows(width, height, EVAL_THREES, [(1, t, 1) for t in twos])
    split = [t for t in threes if t[0] == "X" and t[-1] == "X"]
    ends = [t for t in threes if t not in split]
    rows += _pattern_rows(width, height, EVAL_PATTERNS, [(0, "." + "X" * (k - 1) + ".", 60)])
    rows += _pattern_rows(width, height, EVAL_PATTERNS, [(1, t, 30) for t in split])
    rows += _pattern_rows(width, height, EVAL_PATTERNS, [(2, t, 20) for t in ends])
    rows += _pattern_rows(width, height, EVAL_PATTERNS, [(3, t, 4) for t in twos])
    rows += _pattern_rows(width, height, EVAL_THREATS, [(0, t, 6) for t in twos])
    return np.array(rows, dtype=np.int64).reshape(len(rows), 8)


def build_context(width: int, height: int, k: int) -> tuple[np.ndarray, ...]:
    """The ``ctx`` tuple of constant int64 arrays for a ``width`` x ``height`` board."""
    if (height + 1) * width > MAX_BITS:
        raise ValueError(f"(height + 1) * width must be at most {MAX_BITS}, got {(height + 1) * width}")
    h1 = height + 1
    bottom = sum(1 << (c * h1) for c in range(width))
    board = bottom * ((1 << height) - 1)
    centre = 0
    for col in {(width - 1) // 2, width // 2}:
        centre |= ((1 << height) - 1) << (col * h1)
    odd_rows = sum(1 << bit(width, height, c, r) for c in range(width) for r in range(0, height, 2))
    scalars = np.array(
        [width, height, k, h1, _to_int64(bottom), _to_int64(board), _to_int64(centre), _to_int64(odd_rows)],
        dtype=np.int64,
    )
    columns = np.array(
        [[1 << (c * h1), 1 << bit(width, height, c, height - 1)] for c in range(width)], dtype=np.int64
    )
    shifts = np.array(directions(height), dtype=np.int64)
    return scalars, columns, shifts, pattern_table(width, height, k)


# --- bit helpers ------------------------------------------------------------------------------


@cached_njit(inline="always")
def _shr(x, n):  # type: ignore[no-untyped-def]
    # shifts of 64 or more are undefined in LLVM; on the board they mean "nothing left"
    return x >> n if n < 64 else np.int64(0)


@cached_njit(inline="always")
def _shl(x, n):  # type: ignore[no-untyped-def]
    return x << n if n < 64 else np.int64(0)


@cached_njit(inline="always")
def popcount(x):  # type: ignore[no-untyped-def]
    """Number of set bits of an int64 (all 64 bits, the sign bit included)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    # the top byte of the product is the sum of the bytes; >> may smear the sign: mask it
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@cached_njit(inline="always")
def _runs(p, shift, k):  # type: ignore[no-untyped-def]
    """Cells starting a run of ``k`` stones of ``p`` in direction ``shift`` (p >= 0)."""
    # run(2n) = run(n) & run(n) >> n*s; run(n+1) = run(n) & p >> n*s; walk k's bits
    top = 0
    while (k >> (top + 1)) > 0:
        top += 1
    run = p
    n = 1
    for i in range(top - 1, -1, -1):
        run = run & _shr(run, n * shift)
        n *= 2
        if (k >> i) & 1:
            run = run & _shr(p, n * shift)
            n += 1
    return run


ORDER_MEMO_BITS = 1 << 28
"""Column-height combinations up to which :func:`drop_order_exists` remembers dead ends
(one bit each, 32 MB at most); past it the search runs on a step budget."""


@cached_njit
def drop_order_exists(colours, heights, first_columns, budget):  # type: ignore[no-untyped-def]
    """1 if the stones can be dropped in turn, the first player first, to build the board, 0
    if not, -1 if the step budget ran out (only on boards past ``ORDER_MEMO_BITS``).

    ``colours[c]`` has bit ``r`` set when the stone in row ``r`` of column ``c`` is the second
    player's, ``heights[c]`` counts the column's stones. The search takes the stones back
    from the top, last mover first; ``first_columns`` is a bit mask of the columns whose top
    stone may be the last one dropped. A board from which no stone can be taken back is
    remembered by its column heights, so the search visits each combination at most once.
    """
    width = heights.shape[0]
    strides = np.empty(width, np.int64)
    product = 1
    for c in range(width):
        strides[c] = product
        product *= heights[c] + 1
        if product > ORDER_MEMO_BITS:
            product = ORDER_MEMO_BITS + 1
    memo = product <= ORDER_MEMO_BITS
    dead = np.zeros((product >> 3) + 1 if memo else 1, np.uint8)
    h = heights.copy()
    total = 0
    for c in range(width):
        total += h[c]
    code = 0
    for c in range(width):
        code += h[c] * strides[c]
    tried = np.zeros(total + 1, np.int64)  # tried[d]: the next column to try at depth d
    taken = np.zeros(total + 1, np.int64)  # taken[d]: the column taken back at depth d
    depth = 0
    steps = 0
    while True:
        if depth == total:
            return 1
        steps += 1
        if not memo and steps > budget:
            return -1
        mover = (total - depth - 1) & 1  # the player who dropped the stone on top now
        moved = False
        if tried[depth] == 0 and memo and (dead[code >> 3] >> (code & 7)) & 1:
            tried[depth] = width
        while tried[depth] < width:
            c = tried[depth]
            tried[depth] += 1
            if depth == 0 and not (first_columns >> c) & 1:
                continue
            if h[c] > 0 and ((colours[c] >> (h[c] - 1)) & 1) == mover:
                h[c] -= 1
                code -= strides[c]
                taken[depth] = c
                depth += 1
                tried[depth] = 0
                moved = True
                break
        if moved:
            continue
        if memo:
            dead[code >> 3] |= np.uint8(1 << (code & 7))
        if depth == 0:
            return 0
        depth -= 1
        c = taken[depth]
        h[c] += 1
        code += strides[c]


@cached_njit
def has_line(ctx, p):  # type: ignore[no-untyped-def]
    """True if the stones ``p`` hold ``connect`` in a row in some direction."""
    k = ctx[0][K_IDX]
    shifts = ctx[2]
    for d in range(4):
        if _runs(p, shifts[d], k) != 0:
            return True
    return False


@cached_njit
def winning_cells(ctx, p, mask):  # type: ignore[no-untyped-def]
    """Empty cells where a stone added to ``p`` completes ``connect`` in a row.

    For each direction ``s``, a cell wins when its ``i`` neighbours on one side and
    ``k - 1 - i`` on the other are stones of ``p``, for some ``i``.
    """
    k = ctx[0][K_IDX]
    shifts = ctx[2]
    wins = np.int64(0)
    for d in range(4):
        s = shifts[d]
        below = np.int64(-1)  # cells whose i previous neighbours are stones
        for i in range(k):
            if i > 0:
                below = below & _shl(p, i * s)
            above = np.int64(-1)  # cells whose k - 1 - i next neighbours are stones
            for j in range(1, k - i):
                above = above & _shr(p, j * s)
            wins |= below & above
    return wins & (ctx[0][BOARD_IDX] ^ mask)


# --- the rules --------------------------------------------------------------------------------


@cached_njit
def status(ctx, a, b):  # type: ignore[no-untyped-def]
    """LOSS if the opponent (who just moved) has a line, DRAW on a full board, else ONGOING."""
    if has_line(ctx, a ^ b):
        return LOSS
    if b == ctx[0][BOARD_IDX]:
        return DRAW
    return ONGOING


@cached_njit
def gen_moves(ctx, a, b, out):  # type: ignore[no-untyped-def]
    """Write the columns that are not full, left to right, into ``out``; return how many."""
    columns = ctx[1]
    count = 0
    for c in range(columns.shape[0]):
        if b & columns[c, 1] == 0:
            out[count] = c
            count += 1
    return count


@cached_njit
def play(ctx, a, b, col):  # type: ignore[no-untyped-def]
    """Drop a stone in column ``col`` (not full); return the words of the side to move next."""
    return a ^ b, b | (b + ctx[1][col, 0])


@cached_njit
def mirror(ctx, x):  # type: ignore[no-untyped-def]
    """The word ``x`` with its columns in reverse order."""
    width = ctx[0][W_IDX]
    h1 = ctx[0][H1_IDX]
    column = (np.int64(1) << h1) - 1
    out = np.int64(0)
    for c in range(width):
        out |= ((x >> (c * h1)) & column) << ((width - 1 - c) * h1)
    return out


@cached_njit
def symmetry(ctx, a, b, sym):  # type: ignore[no-untyped-def]
    """The position mirrored left-right (``sym`` 1) or as it is (0)."""
    if sym == 0:
        return a, b
    return mirror(ctx, a), mirror(ctx, b)


@cached_njit
def observe(ctx, a, b, out):  # type: ignore[no-untyped-def]
    """Fill ``out`` (2, height, width): the mover's stones, the opponent's; row 0 on top."""
    width = ctx[0][W_IDX]
    height = ctx[0][H_IDX]
    h1 = ctx[0][H1_IDX]
    opp = a ^ b
    for c in range(width):
        for r in range(height):
            cell = c * h1 + r
            out[0, height - 1 - r, c] = np.float32((a >> cell) & 1)
            out[1, height - 1 - r, c] = np.float32((opp >> cell) & 1)


# --- evaluations ------------------------------------------------------------------------------


@cached_njit
def _pattern_sum(ctx, eval_id, own, empty):  # type: ignore[no-untyped-def]
    """Weighted count of the pattern windows of ``eval_id`` matched by ``own`` stones."""
    table = ctx[3]
    total = 0.0
    group = -1
    matched = np.int64(0)
    weight = 0.0
    for i in range(table.shape[0]):
        if table[i, P_EVAL] != eval_id:
            continue
        if table[i, P_GROUP] != group:
            total += weight * popcount(matched)
            group = table[i, P_GROUP]
            matched = np.int64(0)
            weight = float(table[i, P_WEIGHT])
        s = table[i, P_SHIFT]
        m = table[i, P_VALID]
        own_bits = table[i, P_OWN]
        empty_bits = table[i, P_EMPTY]
        for j in range(table[i, P_LENGTH]):
            if (own_bits >> j) & 1:
                m &= _shr(own, j * s)
            elif (empty_bits >> j) & 1:
                m &= _shr(empty, j * s)
        matched |= m
    return total + weight * popcount(matched)


@cached_njit
def _patterns_both(ctx, a, b, eval_id):  # type: ignore[no-untyped-def]
    empty = ctx[0][BOARD_IDX] ^ b
    return _pattern_sum(ctx, eval_id, a, empty) - _pattern_sum(ctx, eval_id, a ^ b, empty)


@cached_njit
def _threat_score(threats, good_rows, useless):  # type: ignore[no-untyped-def]
    # a threat on a row of the side's parity (Allis: odd rows for the first player, even for
    # the second) tends to win the zugzwang at the end; one right above an opponent's threat
    # never comes into play; two stacked threats of one side win the column
    live = threats & ~useless
    stacked = live & (live >> 1)
    return 16.0 * popcount(live) + 16.0 * popcount(live & good_rows) + 48.0 * popcount(stacked)


@cached_njit
def _threats(ctx, a, b):  # type: ignore[no-untyped-def]
    scalars = ctx[0]
    board = scalars[BOARD_IDX]
    opp = a ^ b
    playable = (b + scalars[BOTTOM_IDX]) & board
    mine = winning_cells(ctx, a, b)
    if mine & playable:
        return BIG  # a win next move
    theirs = winning_cells(ctx, opp, b)
    forced = theirs & playable
    if forced & (forced - 1):
        return -BIG  # two wins for the opponent: only one can be blocked
    odd_rows = scalars[ODD_ROWS_IDX]
    even_rows = board ^ odd_rows
    first_to_move = popcount(b) % 2 == 0
    my_rows = odd_rows if first_to_move else even_rows
    their_rows = even_rows if first_to_move else odd_rows
    score = _threat_score(mine, my_rows, theirs << 1) - _threat_score(theirs, their_rows, mine << 1)
    centre = scalars[CENTRE_IDX]
    score += 6.0 * (popcount(a & centre) - popcount(opp & centre))
    return score + _patterns_both(ctx, a, b, EVAL_THREATS)


@cached_njit
def _patterns(ctx, a, b):  # type: ignore[no-untyped-def]
    centre = ctx[0][CENTRE_IDX]
    bonus = 4.0 * (popcount(a & centre) - popcount((a ^ b) & centre))
    return _patterns_both(ctx, a, b, EVAL_PATTERNS) + bonus


@cached_njit
def evaluate(ctx, a, b, eval_id):  # type: ignore[no-untyped-def]
    """Heuristic value of an ongoing position for the side to move (ids index EVALUATIONS)."""
    if eval_id == EVAL_THREATS:
        return _threats(ctx, a, b)
    if eval_id == EVAL_THREES:
        return _patterns_both(ctx, a, b, EVAL_THREES)
    return _patterns(ctx, a, b)


# --- benchmarks and counts --------------------------------------------------------------------


@cached_njit
def random_games(ctx, games, seed):  # type: ignore[no-untyped-def]
    """Play ``games`` uniformly random games from the empty board; return the moves played."""
    np.random.seed(seed)
    buf = np.empty(ctx[1].shape[0], dtype=np.int64)
    total = 0
    for _ in range(games):
        a = np.int64(0)
        b = np.int64(0)
        while status(ctx, a, b) == ONGOING:
            n = gen_moves(ctx, a, b, buf)
            a, b = play(ctx, a, b, buf[np.random.randint(n)])
            total += 1
    return total


@cached_njit
def position_key(ctx, a, b):  # type: ignore[no-untyped-def]
    """One int64 naming the position: ``a + b + bottom`` (a 1 marks each column's height).

    The sum never carries from one column into the next; on an 8 x 7 board it may set the
    sign bit, which keeps keys distinct all the same.
    """
    return a + b + ctx[0][BOTTOM_IDX]


@cached_njit
def words_of_key(ctx, key):  # type: ignore[no-untyped-def]
    """The state words of a :func:`position_key`."""
    width = ctx[0][W_IDX]
    h1 = ctx[0][H1_IDX]
    column = (np.int64(1) << h1) - 1
    a = np.int64(0)
    b = np.int64(0)
    for c in range(width):
        v = (key >> (c * h1)) & column
        top = 0
        while (v >> (top + 1)) > 0:
            top += 1
        stones = (np.int64(1) << top) - 1
        a |= (v ^ (np.int64(1) << top)) << (c * h1)
        b |= stones << (c * h1)
    return a, b


@cached_njit
def count_positions(ctx, depth):  # type: ignore[no-untyped-def]
    """Distinct positions after 0..depth plies from the empty board (won games not expanded)."""
    counts = np.zeros(depth + 1, dtype=np.int64)
    counts[0] = 1
    width = ctx[1].shape[0]
    level = np.zeros(1, dtype=np.int64)
    level[0] = position_key(ctx, np.int64(0), np.int64(0))
    buf = np.empty(width, dtype=np.int64)
    for ply in range(1, depth + 1):
        children = np.empty(level.shape[0] * width, dtype=np.int64)
        n = 0
        for i in range(level.shape[0]):
            a, b = words_of_key(ctx, level[i])
            if status(ctx, a, b) != ONGOING:
                continue
            for j in range(gen_moves(ctx, a, b, buf)):
                x, y = play(ctx, a, b, buf[j])
                children[n] = position_key(ctx, x, y)
                n += 1
        level = np.unique(children[:n])
        counts[ply] = level.shape[0]
    return counts


# --- the kernel ---------------------------------------------------------------------------------


def action_maps(width: int) -> np.ndarray:
    """``maps[sym, column]``: the image of a column under the identity (0) and the mirror (1)."""
    return np.array([list(range(width)), list(range(width - 1, -1, -1))], dtype=np.int64)


def cell_maps(width: int, height: int) -> np.ndarray:
    """``maps[sym, cell]``: the observation cell (row-major, row 0 on top) gathered into ``cell``."""
    identity = list(range(width * height))
    mirrored = [row * width + (width - 1 - col) for row in range(height) for col in range(width)]
    return np.array([identity, mirrored], dtype=np.int64)


def build_kernel(width: int, height: int, k: int) -> Kernel:
    """The compiled Connect Four kernel for a ``width`` x ``height`` board and lines of ``k``."""
    maps = action_maps(width)
    return Kernel(
        name=f"connect4-{width}x{height}-{k}",
        ctx=build_context(width, height, k),
        num_actions=width,
        obs_shape=(2, height, width),
        evaluations=EVALUATIONS,
        status=status,
        gen_moves=gen_moves,
        play=play,
        evaluate=evaluate,
        symmetry=symmetry,
        observe=observe,
        action_maps=maps,
        cell_maps=cell_maps(width, height),
        sym_inverse=symmetry_table_inverse(maps),
    )
