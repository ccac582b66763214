"""An exact Connect Four solver: the score of any position under perfect play, on any board.

The score is for the side to move: a win scores ``(W * H + 1) // 2 + 1`` minus the stones
the winner has played when it wins (22 minus the stones on 7 x 6), a loss the negative, a
draw 0; the public benchmark sets use this convention. A *weak* solve only tells win (1),
draw (0) or loss (-1), and is faster.

The search is the one of the strongest C/C++ solvers (John Tromp's Fhourstones, Pascal
Pons's solver), compiled with numba over the game's bitboards (state words ``(a, b)``: the
stones of the side to move and all stones, ``height + 1`` bits per column):

- negamax with alpha-beta (fail-soft), iterative with an explicit stack (cached recursive
  numba functions crashed the interpreter), driven by null-window searches that narrow the
  score range from both ends, nearer zero first (:func:`solve_words`);
- a node only plays moves that do not hand the opponent an immediate win: it must block a
  single threat and is lost against two; bounds from the stones left close windows early;
- a transposition table of one ``int64`` per entry, keyed on the position, with a lower and
  an upper bound of its score and its best move in the last search there. The key is
  spread by a multiplication that is a bijection on the key's bits, so the slot and the
  stored check bits together *are* the key (no false hits). A solve can start from a cold
  table in O(1): entries carry an epoch, and entries of older epochs read as empty;
- move ordering: the table's move first, then the moves that make the most threats (empty
  cells where one more stone wins), ties from the centre outwards;
- enhanced transposition cut-offs: a node with many empty cells first looks its children up
  in the table, and stops when one of them already refutes the window;
- an optional opening book (:class:`Book`, built by :func:`build_book`, stored as ``.npz``):
  exact scores of the positions with few stones, up to mirror symmetry.

Only lines of four are supported (``connect=4``); boards need ``(height + 1) * width <= 64``.

    solver = Solver.for_game(game)
    solver.solve(game.parse_position("4453"))   # exact score for the side to move
    solver.analyze(state)                       # each column's score (None: full column)
    solver.principal_variation(state)           # the columns of a perfect game from here
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numba import types
from numba.extending import intrinsic

from boardlab.core.files import atomic_write, tables_root
from boardlab.core.inputs import InputFileError, check_array, load_npz
from boardlab.core.processes import STOP_POLL_SECONDS, raise_if_stopping, stoppable_call
from boardlab.core.spec import with_article
from boardlab.games.jit import cached_njit

CONNECT = 4
"""The only line length this solver handles."""

DEFAULT_TT_LOG2 = 23
"""log2 of the transposition-table entries (8 bytes each: 2**23 entries is 64 MiB)."""

ETC_EMPTY = 18
"""Enhanced transposition cut-offs at nodes with more empty cells than this (measured on
7 x 6: about 8% less time on Middle-Medium and Begin-Medium than without; looking children
up nearer the leaves costs more than it saves)."""

BOOK_FILE = "connect4-book-7x6.npz"
MAX_BOOK_BYTES = 1 << 30
"""Largest book file read (the 7 x 6 book of 8-stone positions is a few MB)."""

MULT = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15, odd: a bijection mod 2**k

# prm: the constants of one board and table, passed to the compiled code
(
    P_W,
    P_H1,
    P_BOTTOM,
    P_BOARD,
    P_CELLS,
    P_KMASK,
    P_SLOT_SHIFT,
    P_SLOT_MASK,
    P_CHECK_MASK,
    P_DATA_BITS,
    P_EPOCH_MASK,
    P_ETC_STONES,
    P_BOOK_STONES,
) = range(13)

# meta: what the compiled code reads and updates: nodes searched, the table's epoch, the
# node count at which to give up, and whether the last search gave up
M_NODES, M_EPOCH, M_LIMIT, M_ABORTED, M_STOP = range(5)
STOP_EVERY = 4096
"""Nodes between two looks at the stop word ``meta[M_STOP]`` (set from another thread)."""
QUICK_NODES = 200_000
"""Nodes a search runs in the calling thread before it moves to a helper that a signal can stop."""
BUDGET_CHUNK_NODES = 2_000_000
"""Most nodes between two looks at the clock in a solve within a time (a few tenths of a second)."""

# rows of the work array: one value per ply of the search stack
R_CUR, R_MASK, R_HASH, R_ALPHA, R_BETA, R_ALPHA0, R_NEXT, R_BEST, R_SCORE = range(9)

# a table entry: the check bits (the hash bits that the slot does not imply) above
# P_DATA_BITS bits of data: upper bound + 64 (7 bits), lower bound + 64 (7 bits), the best
# move + 1 (5 bits), the epoch (the rest)
UPPER_SHIFT, LOWER_SHIFT, MOVE_SHIFT, EPOCH_SHIFT = 0, 7, 14, 19
LOW_DATA = (1 << EPOCH_SHIFT) - 1
NO_BOUND = 64  # every score is inside (-64, 64)
NO_LIMIT = 1 << 62
NOT_FOUND = 1 << 20  # what a book lookup returns for a position it does not hold


class SolverError(ValueError):
    """A board this solver cannot handle (a line length other than four, a board larger
    than one bitboard word) or a book that does not fit the board."""


# --- bit helpers ----------------------------------------------------------------------------


@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Set bits of an int64 (the CPU's popcount instruction)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


@cached_njit(inline="always")
def _line_ends(p, s):  # type: ignore[no-untyped-def]
    # cells completing four stones of p along shift s: three on one side, or two on one side
    # and one on the other; every shift is below 64 and p >= 0, so chained shifts are exact
    l1 = p << s
    l2 = l1 << s
    r1 = p >> s
    r2 = r1 >> s
    return (l1 & l2 & ((l2 << s) | r1)) | (r1 & r2 & (l1 | (r2 >> s)))


@cached_njit(inline="always")
def winning_cells(p, mask, h1, board):  # type: ignore[no-untyped-def]
    """Empty cells where a stone of ``p`` makes four in a row (``mask``: all stones)."""
    r = (p << 1) & (p << 2) & (p << 3)  # vertical: three below
    r |= _line_ends(p, h1)  # horizontal
    r |= _line_ends(p, h1 - 1)  # diagonal, down to the right
    r |= _line_ends(p, h1 + 1)  # diagonal, up to the right
    return r & (board ^ mask)


@cached_njit(inline="always")
def _win_score(half, ply):  # type: ignore[no-untyped-def]
    # the score of a win by the stone played at ``ply`` (0-based), for the one who plays it
    return half - ply // 2


@cached_njit
def _trunc_half(x):  # type: ignore[no-untyped-def]
    # C's x / 2: towards zero
    return x // 2 if x >= 0 else -((-x) // 2)


@cached_njit
def mirror_word(prm, x):  # type: ignore[no-untyped-def]
    """A state word with its columns in reverse order."""
    width = prm[P_W]
    h1 = prm[P_H1]
    column = (np.int64(1) << h1) - 1
    out = np.int64(0)
    for c in range(width):
        out |= ((x >> (c * h1)) & column) << ((width - 1 - c) * h1)
    return out


@cached_njit
def position_key(prm, cur, mask):  # type: ignore[no-untyped-def]
    """One int64 naming the position: the stones to move plus a marker above each column."""
    return cur + mask + prm[P_BOTTOM]


@cached_njit
def canonical_key(prm, cur, mask):  # type: ignore[no-untyped-def]
    """The smaller key of the position and its mirror image (the book's key)."""
    key = cur + mask + prm[P_BOTTOM]
    other = mirror_word(prm, cur) + mirror_word(prm, mask) + prm[P_BOTTOM]
    return min(key, other)


@cached_njit
def can_win_next(prm, cur, mask):  # type: ignore[no-untyped-def]
    """True if the side to move has a move that makes four in a row."""
    board = prm[P_BOARD]
    playable = (mask + prm[P_BOTTOM]) & board
    return winning_cells(cur, mask, prm[P_H1], board) & playable != 0


# --- the transposition table and the book ---------------------------------------------------


@cached_njit(inline="always")
def _hash(prm, cur, mask):  # type: ignore[no-untyped-def]
    return ((cur + mask + prm[P_BOTTOM]) * MULT) & prm[P_KMASK]


@cached_njit(inline="always")
def _probe(prm, tt, epoch, h):  # type: ignore[no-untyped-def]
    # the entry of hash h if it was stored in this epoch, else 0
    entry = tt[(h >> prm[P_SLOT_SHIFT]) & prm[P_SLOT_MASK]]
    expect = ((h & prm[P_CHECK_MASK]) << prm[P_DATA_BITS]) | (epoch << EPOCH_SHIFT)
    return entry if (entry & ~LOW_DATA) == expect else 0


@cached_njit(inline="always")
def _store(prm, tt, epoch, h, lower, upper, move):  # type: ignore[no-untyped-def]
    # record bounds (and a move, -1: none) of hash h, merged with what the entry knows;
    # another position in the slot is replaced
    slot = (h >> prm[P_SLOT_SHIFT]) & prm[P_SLOT_MASK]
    entry = tt[slot]
    expect = ((h & prm[P_CHECK_MASK]) << prm[P_DATA_BITS]) | (epoch << EPOCH_SHIFT)
    if (entry & ~LOW_DATA) == expect:
        upper = min(upper, ((entry >> UPPER_SHIFT) & 127) - NO_BOUND)
        lower = max(lower, ((entry >> LOWER_SHIFT) & 127) - NO_BOUND)
        if move < 0:
            move = ((entry >> MOVE_SHIFT) & 31) - 1
    tt[slot] = (
        expect
        | ((upper + NO_BOUND) << UPPER_SHIFT)
        | ((lower + NO_BOUND) << LOWER_SHIFT)
        | ((move + 1) << MOVE_SHIFT)
    )


@cached_njit
def book_score(prm, book_keys, book_scores, cur, mask):  # type: ignore[no-untyped-def]
    """The book's exact score of a position, or NOT_FOUND."""
    if book_keys.shape[0] == 0:
        return NOT_FOUND
    key = canonical_key(prm, cur, mask)
    i = np.searchsorted(book_keys, key)
    if i < book_keys.shape[0] and book_keys[i] == key:
        return np.int64(book_scores[i])
    return NOT_FOUND


# --- the search -----------------------------------------------------------------------------


@cached_njit(nogil=True)
def negamax(prm, cols, book_keys, book_scores, tt, meta, work, moves, cur0, mask0, alpha0, beta0):  # type: ignore[no-untyped-def]
    """The score of a position within the window ``(alpha0, beta0)``: a result ``<= alpha0``
    is an upper bound of the score, one ``>= beta0`` a lower bound, others are exact.

    The game must go on and the side to move must not be able to win at once (the callers
    check both first). ``cols`` holds the column order (row 0) and each column's cells
    (row 1); ``work`` and ``moves`` are the search stack. Gives up (``meta[M_ABORTED] = 1``,
    result 0) when the node count passes ``meta[M_LIMIT]`` or ``meta[M_STOP]`` is set (by
    another thread: the search releases the GIL).
    """
    width = prm[P_W]
    h1 = prm[P_H1]
    bottom = prm[P_BOTTOM]
    board = prm[P_BOARD]
    cells = prm[P_CELLS]
    etc_stones = prm[P_ETC_STONES]
    book_stones = prm[P_BOOK_STONES]
    half = (cells + 1) // 2
    order = cols[0]
    col_cells = cols[1]
    epoch = meta[M_EPOCH]
    limit = meta[M_LIMIT]
    nodes = meta[M_NODES]
    stones0 = popcount(mask0)
    scores = np.empty(width, dtype=np.int64)
    move_bits = moves[0]
    move_cols = moves[1]
    st_cur = work[R_CUR]
    st_mask = work[R_MASK]
    st_hash = work[R_HASH]
    st_alpha = work[R_ALPHA]
    st_beta = work[R_BETA]
    st_alpha0 = work[R_ALPHA0]
    st_next = work[R_NEXT]
    st_best = work[R_BEST]
    st_score = work[R_SCORE]

    st_cur[0] = cur0
    st_mask[0] = mask0
    st_alpha[0] = alpha0
    st_beta[0] = beta0
    ply = 0
    phase = 0  # 0: enter the node at ply; 1: search its next move; 2: return ret to the parent
    ret = 0
    while True:
        if phase == 0:
            nodes += 1
            if nodes > limit or (nodes & (STOP_EVERY - 1) == 0 and meta[M_STOP] != 0):
                meta[M_ABORTED] = 1
                meta[M_NODES] = nodes
                return 0
            phase = 2  # unless the node is searched below
            cur = st_cur[ply]
            mask = st_mask[ply]
            stones = stones0 + ply
            if stones <= book_stones:
                ret = book_score(prm, book_keys, book_scores, cur, mask)
                if ret != NOT_FOUND:
                    continue
            possible = (mask + bottom) & board
            opp_win = winning_cells(cur ^ mask, mask, h1, board)
            forced = possible & opp_win
            if forced != 0:
                if forced & (forced - 1) != 0:  # two threats: one of them gets through
                    ret = -_win_score(half, stones + 1)
                    continue
                possible = forced
            possible &= ~(opp_win >> 1)  # never play right under an opponent's winning cell
            if possible == 0:
                ret = -_win_score(half, stones + 1)
                continue
            if stones >= cells - 2:  # nobody can win any more
                ret = 0
                continue
            alpha = st_alpha[ply]
            beta = st_beta[ply]
            lower = -_win_score(half, stones + 3)  # the opponent cannot win at its next move
            if alpha < lower:
                alpha = lower
                if alpha >= beta:
                    ret = alpha
                    continue
            upper = _win_score(half, stones + 2)  # nor can we at this one
            if beta > upper:
                beta = upper
                if alpha >= beta:
                    ret = beta
                    continue
            h = _hash(prm, cur, mask)
            st_hash[ply] = h
            entry = _probe(prm, tt, epoch, h)
            tt_move = -1
            if entry != 0:
                tt_move = ((entry >> MOVE_SHIFT) & 31) - 1
                lower = ((entry >> LOWER_SHIFT) & 127) - NO_BOUND
                if alpha < lower:
                    alpha = lower
                    if alpha >= beta:
                        ret = alpha
                        continue
                upper = ((entry >> UPPER_SHIFT) & 127) - NO_BOUND
                if beta > upper:
                    beta = upper
                    if alpha >= beta:
                        ret = beta
                        continue
            # the moves sorted by score, taken from the end: the table's move, then the most
            # threats, ties from the centre out (the centre is inserted last)
            count = 0
            opp = cur ^ mask
            cut = False
            for i in range(width - 1, -1, -1):
                c = order[i]
                move = possible & col_cells[c]
                if move == 0:
                    continue
                if stones < etc_stones:
                    child = _probe(prm, tt, epoch, _hash(prm, opp, mask | move))
                    if child != 0:
                        refuted = NO_BOUND - ((child >> UPPER_SHIFT) & 127)  # -(child's upper bound)
                        if refuted >= beta:
                            _store(prm, tt, epoch, h, refuted, NO_BOUND - 1, c)
                            ret = refuted
                            cut = True
                            break
                score = popcount(winning_cells(cur | move, mask, h1, board))
                if c == tt_move:
                    score = 1 << 20
                j = count
                while j > 0 and scores[j - 1] > score:
                    scores[j] = scores[j - 1]
                    move_bits[ply, j] = move_bits[ply, j - 1]
                    move_cols[ply, j] = move_cols[ply, j - 1]
                    j -= 1
                scores[j] = score
                move_bits[ply, j] = move
                move_cols[ply, j] = c
                count += 1
            if cut:
                continue
            st_alpha[ply] = alpha
            st_beta[ply] = beta
            st_alpha0[ply] = alpha
            st_next[ply] = count
            st_best[ply] = tt_move
            st_score[ply] = -NO_BOUND
            phase = 1
        elif phase == 1:
            i = st_next[ply]
            if i > 0:
                i -= 1
                st_next[ply] = i
                mask = st_mask[ply]
                st_cur[ply + 1] = st_cur[ply] ^ mask
                st_mask[ply + 1] = mask | move_bits[ply, i]
                st_alpha[ply + 1] = -st_beta[ply]
                st_beta[ply + 1] = -st_alpha[ply]
                ply += 1
                phase = 0
            else:
                # every move scores at most best (fail-soft); exact if one of them raised alpha
                best = st_score[ply]
                lower = best if best > st_alpha0[ply] else -NO_BOUND
                _store(prm, tt, epoch, st_hash[ply], lower, best, st_best[ply])
                ret = best
                phase = 2
        else:
            if ply == 0:
                break
            ply -= 1
            score = -ret
            col = move_cols[ply, st_next[ply]]
            if score >= st_beta[ply]:
                _store(prm, tt, epoch, st_hash[ply], score, NO_BOUND - 1, col)
                ret = score
                continue
            if score > st_score[ply]:
                st_score[ply] = score
                st_best[ply] = col
            if score > st_alpha[ply]:
                st_alpha[ply] = score
            phase = 1
    meta[M_NODES] = nodes
    return ret


@cached_njit(nogil=True)
def solve_words(prm, cols, book_keys, book_scores, tt, meta, work, moves, cur, mask, weak):  # type: ignore[no-untyped-def]
    """The score of an ongoing position for the side to move, or its sign if ``weak``.

    Null-window searches narrow ``[lower, upper]`` until it closes, each probe nearer zero
    than the middle, where most scores are. Bounds the table already holds for the position
    are used (a solve that gave up can be resumed). Check ``meta[M_ABORTED]`` afterwards.
    """
    cells = prm[P_CELLS]
    half = (cells + 1) // 2
    stones = popcount(mask)
    meta[M_ABORTED] = 0
    if can_win_next(prm, cur, mask):
        return 1 if weak else _win_score(half, stones)
    if stones >= cells - 1:
        return 0
    lower = -_win_score(half, stones + 1)
    upper = _win_score(half, stones + 2)
    if stones <= prm[P_BOOK_STONES]:
        known = book_score(prm, book_keys, book_scores, cur, mask)
        if known != NOT_FOUND:
            lower = known
            upper = known
    entry = _probe(prm, tt, meta[M_EPOCH], _hash(prm, cur, mask))
    if entry != 0:
        lower = max(lower, ((entry >> LOWER_SHIFT) & 127) - NO_BOUND)
        upper = min(upper, ((entry >> UPPER_SHIFT) & 127) - NO_BOUND)
    # a weak solve probes like a strong one (the first, far probes are cheap and often
    # settle the sign of a quick win or loss), then narrows to [-1, 1]
    probes = 0
    while lower < upper:
        if weak:
            if lower > 0 or upper < 0:
                break
            if probes == 2:
                lower = max(lower, -1)
                upper = min(upper, 1)
                if lower >= upper:
                    break
        probes += 1
        med = lower + (upper - lower) // 2
        if med <= 0 and _trunc_half(lower) < med:
            med = _trunc_half(lower)
        elif med >= 0 and _trunc_half(upper) > med:
            med = _trunc_half(upper)
        r = negamax(prm, cols, book_keys, book_scores, tt, meta, work, moves, cur, mask, med, med + 1)
        if meta[M_ABORTED]:
            return 0
        if r <= med:
            upper = r
        else:
            lower = r
    if weak:
        return 1 if lower > 0 else (-1 if lower < 0 else 0)
    return lower


@cached_njit
def has_four(prm, p):  # type: ignore[no-untyped-def]
    """True if the stones ``p`` hold four in a row."""
    h1 = prm[P_H1]
    if p & (p >> 1) & ((p & (p >> 1)) >> 2):
        return True
    for s in (h1, h1 - 1, h1 + 1):
        m = p & (p >> s)
        if m & ((m >> s) >> s):
            return True
    return False


@cached_njit
def final_score(prm, cur, mask):  # type: ignore[no-untyped-def]
    """The score of a finished game for the side to move (a line by the player who just
    moved, or a full board), or NOT_FOUND while the game goes on."""
    if has_four(prm, cur ^ mask):
        return -_win_score((prm[P_CELLS] + 1) // 2, popcount(mask) - 1)
    if mask == prm[P_BOARD]:
        return 0
    return NOT_FOUND


@cached_njit(nogil=True)
def solve_position(prm, cols, book_keys, book_scores, tt, meta, work, moves, cur, mask, weak, limit):  # type: ignore[no-untyped-def]
    """:func:`solve_words` for any position, finished games included, giving up after
    ``limit`` more nodes (``meta[M_ABORTED]`` says so)."""
    meta[M_ABORTED] = 0
    over = final_score(prm, cur, mask)
    if over != NOT_FOUND:
        return (1 if over > 0 else (-1 if over < 0 else 0)) if weak else over
    meta[M_LIMIT] = min(meta[M_NODES] + limit, NO_LIMIT)
    score = solve_words(prm, cols, book_keys, book_scores, tt, meta, work, moves, cur, mask, weak)
    meta[M_LIMIT] = NO_LIMIT
    return score


@cached_njit(nogil=True)
def move_at_least(prm, cols, book_keys, book_scores, tt, meta, work, moves, cur, mask, col, target):  # type: ignore[no-untyped-def]
    """True if playing column ``col`` (not full) scores at least ``target`` for the mover.

    One null-window search of the position after the move; check ``meta[M_ABORTED]``.
    """
    cells = prm[P_CELLS]
    half = (cells + 1) // 2
    stones = popcount(mask)
    meta[M_ABORTED] = 0
    move = (mask + (np.int64(1) << (col * prm[P_H1]))) & cols[1][col]
    if winning_cells(cur, mask, prm[P_H1], prm[P_BOARD]) & move:
        return _win_score(half, stones) >= target
    child_cur = cur ^ mask
    child_mask = mask | move
    if stones + 1 == cells:
        return target <= 0
    if can_win_next(prm, child_cur, child_mask):
        return -_win_score(half, stones + 1) >= target
    # the move scores >= target iff the child's score is <= -target
    r = negamax(
        prm, cols, book_keys, book_scores, tt, meta, work, moves, child_cur, child_mask, -target, -target + 1
    )
    return r <= -target


# --- the Python face ------------------------------------------------------------------------


def column_order(width: int) -> list[int]:
    """Columns from the centre outwards, the left one first on ties: 3 2 4 1 5 0 6."""
    return sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))


def score_text(score: int, stones: int, width: int = 7, height: int = 6) -> str:
    """What a score means for the side to move, e.g. ``win with its 11th stone``."""
    if score == 0:
        return "draw"
    winner_stones = (width * height + 1) // 2 + 1 - abs(score)
    mover_stones = stones // 2  # the side to move has played this many
    if score > 0:
        return f"win with its {_ordinal(winner_stones)} stone ({winner_stones - mover_stones} more)"
    return f"loss to the opponent's {_ordinal(winner_stones)} stone"


def plies_to_end(score: int, stones: int, width: int = 7, height: int = 6) -> int | None:
    """The plies from a position of ``stones`` stones to the end of the game when both sides
    play perfectly and the side to move has ``score``: to the winner's last stone (see
    :func:`score_text`); None for a draw. The start of 7x6 (+1) is 41: X wins with its 21st."""
    if score == 0:
        return None
    winner_stones = (width * height + 1) // 2 + 1 - abs(score)
    first_player_wins = (stones % 2 == 0) == (score > 0)
    return 2 * winner_stones - (1 if first_player_wins else 0) - stones


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Book:
    """Exact scores of positions with at most ``stones`` stones, keyed by
    :func:`canonical_key` (sorted ``keys``, ``scores`` beside them)."""

    width: int
    height: int
    stones: int
    keys: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def save(self, path: str | Path) -> None:
        """Write the book as ``.npz`` (atomically: a temporary file, then a rename)."""
        atomic_write(
            path,
            lambda handle: np.savez_compressed(
                handle,
                size=np.array([self.width, self.height, self.stones], dtype=np.int64),
                keys=self.keys,
                scores=self.scores,
            ),
        )

    @classmethod
    def load(cls, path: str | Path) -> Book:
        """Read a book written by :meth:`save`; InputFileError naming the file and the problem
        when it is not one (checked before use: shapes, dtypes, sorted keys, scores in range)."""
        data = load_npz(path, "Connect Four book", MAX_BOOK_BYTES, ("size", "keys", "scores"))
        size = check_array(data["size"], f"{path}: size", dtype=np.int64, shape=(3,), low=0, high=64)
        width, height, stones = (int(v) for v in size)
        if width * (height + 1) > 64 or stones > width * height:
            raise InputFileError(
                f"{path}: {with_article(f'{width}x{height}')} board with {stones} stones is not a book's"
            )
        keys, scores = _checked_book_entries(path, data, width * height)
        return cls(width, height, stones, keys, scores)


def _checked_book_entries(
    path: str | Path, data: dict[str, np.ndarray], cells: int
) -> tuple[np.ndarray, np.ndarray]:
    keys = check_array(data["keys"], f"{path}: keys", dtype=np.int64, ndim=1)
    bound = (cells + 1) // 2 + 1  # no score is larger than the moves one side has left
    scores = check_array(
        data["scores"], f"{path}: scores", dtype=np.int8, shape=(len(keys),), low=-bound, high=bound
    )
    if np.any(np.diff(keys) <= 0):
        raise InputFileError(f"{path}: keys must be sorted and distinct")
    return np.ascontiguousarray(keys), np.ascontiguousarray(scores)


def benchmark_sets_folder() -> Path:
    """The folder of the published Connect Four benchmark sets (``Test_L1_R1`` ...):
    ``shared/data/connect4`` beside the checkout, or ``BOARDLAB_CONNECT4_DATA``."""
    default = Path(__file__).resolve().parents[5] / "shared" / "data" / "connect4"
    return Path(os.environ.get("BOARDLAB_CONNECT4_DATA", default))


def default_book_path() -> Path:
    """Where :func:`default_book` looks for the 7 x 6 opening book and :func:`build_book` puts
    it: beside Quixo's tables (``$BOARDLAB_TABLES`` or ``~/.cache/boardlab/tables``)."""
    return tables_root() / BOOK_FILE


SHIPPED_BOOK = Path(__file__).with_name("data") / BOOK_FILE
"""The small 7 x 6 book that ships with the package: every position of five stones or fewer,
so that the first six moves are answered at once."""


@functools.cache
def default_book() -> Book | None:
    """The deeper of the 7 x 6 book built at :func:`default_book_path` and the one that ships
    (:data:`SHIPPED_BOOK`), the built one where they are as deep; None when neither is there."""
    books = [Book.load(path) for path in (default_book_path(), SHIPPED_BOOK) if path.exists()]
    return max(books, key=lambda book: book.stones, default=None)


_EMPTY_KEYS = np.zeros(0, dtype=np.int64)
_EMPTY_SCORES = np.zeros(0, dtype=np.int8)


class Solver:
    """Solves positions of one board size; holds the transposition table between solves.

    Scores are exact game-theoretic facts, so the table may be kept from one solve to the
    next (later solves get faster); :meth:`reset` empties it in O(1) for cold-table timings.
    Positions are :class:`~boardlab.games.connect4.ConnectFourState` objects or their state
    words ``(a, b)``. ``book`` None uses :func:`default_book` on 7 x 6; pass False for none
    (anything else but a :class:`Book` raises SolverError).
    """

    def __init__(
        self,
        width: int = 7,
        height: int = 6,
        connect: int = CONNECT,
        *,
        tt_log2: int = DEFAULT_TT_LOG2,
        book: Book | Literal[False] | None = None,
        etc_empty: int = ETC_EMPTY,
    ) -> None:
        if connect != CONNECT:
            raise SolverError(
                f"the Connect Four solver handles lines of {CONNECT} only, not connect={connect}"
            )
        h1 = height + 1
        bits = width * h1
        if bits > 64 or width < 1 or height < 1:
            raise SolverError(f"board {width}x{height} needs (height + 1) * width = {bits} bits; at most 64")
        if book is None:
            book = default_book() if (width, height) == (7, 6) else False
        elif book is not False and not isinstance(book, Book):
            raise SolverError(f"book must be a Book, None or False (no book), not {book!r}")
        if book and (book.width, book.height) != (width, height):
            sizes = with_article(f"{book.width}x{book.height}"), with_article(f"{width}x{height}")
            raise SolverError(f"{sizes[0]} book cannot serve {sizes[1]} board")
        self.width, self.height = width, height
        self.book: Book | None = book or None
        # the check bits and the data share a word: at least 4 epoch bits are left over
        log2 = max(1, bits - (64 - EPOCH_SHIFT - 4), min(tt_log2, bits - 1))
        check_bits = bits - log2
        data_bits = 64 - check_bits
        epoch_bits = min(data_bits - EPOCH_SHIFT, 40)
        bottom = sum(1 << (c * h1) for c in range(width))
        self.prm = np.array(
            [
                width,
                h1,
                bottom,
                bottom * ((1 << height) - 1),
                width * height,
                -1 if bits == 64 else (1 << bits) - 1,
                check_bits,
                (1 << log2) - 1,
                (1 << check_bits) - 1,
                data_bits,
                (1 << epoch_bits) - 1,
                width * height - etc_empty,
                self.book.stones if self.book else -1,
            ],
            dtype=np.int64,
        )
        order = column_order(width)
        cells = [((1 << height) - 1) << (c * h1) for c in range(width)]
        self.cols = np.array([order, cells], dtype=np.int64)
        self.book_keys = self.book.keys if self.book else _EMPTY_KEYS
        self.book_scores = self.book.scores if self.book else _EMPTY_SCORES
        self.tt = np.zeros(1 << log2, dtype=np.int64)
        self.tt.fill(0)  # touch every page now rather than inside the first solves
        self.meta = np.array([0, 1, NO_LIMIT, 0, 0], dtype=np.int64)
        depth = width * height + 2
        self.work = np.zeros((9, depth), dtype=np.int64)
        self.moves = np.zeros((2, depth, width), dtype=np.int64)

    @classmethod
    def for_game(cls, game: Any) -> Solver:
        """The shared solver of a Connect Four game's board (one per process and size)."""
        if getattr(game, "name", None) != "connect4":
            raise SolverError(f"the Connect Four solver cannot solve {getattr(game, 'name', game)!r}")
        if game.connect != CONNECT:
            raise SolverError(
                f"the Connect Four solver handles lines of {CONNECT} only, not connect={game.connect}"
            )
        return _shared_solver(game.width, game.height)

    # the table ------------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget every stored bound (a cold table) and zero the node count."""
        epoch = int(self.meta[M_EPOCH]) + 1
        if epoch > int(self.prm[P_EPOCH_MASK]):
            self.tt[:] = 0
            epoch = 1
        self.meta[M_EPOCH] = epoch
        self.meta[M_NODES] = 0

    @property
    def nodes(self) -> int:
        """Nodes searched since the last :meth:`reset` (or :meth:`count_from_zero`)."""
        return int(self.meta[M_NODES])

    def count_from_zero(self) -> None:
        """Zero the node count, keeping the table."""
        self.meta[M_NODES] = 0

    # solving ----------------------------------------------------------------------------------

    def words(self, position: Any) -> tuple[int, int]:
        """The state words of a position (a state or ``(a, b)``), checked for this board."""
        if isinstance(position, tuple):
            return int(position[0]), int(position[1])
        game = position.game
        if (game.width, game.height) != (self.width, self.height):
            raise SolverError(
                f"{with_article(f'{game.width}x{game.height}')} position given to "
                f"{with_article(f'{self.width}x{self.height}')} solver"
            )
        return int(position.a), int(position.b)

    def _args(
        self,
    ) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
    ]:
        return (
            self.prm,
            self.cols,
            self.book_keys,
            self.book_scores,
            self.tt,
            self.meta,
            self.work,
            self.moves,
        )

    def solve(self, position: Any, weak: bool = False, node_limit: int | None = None) -> int | None:
        """The score for the side to move (its sign if ``weak``); None if ``node_limit``
        more nodes were not enough. A finished game scores as it ended: a full board 0,
        a line by the previous player its (negative) win score."""
        a, b = self.words(position)
        limit = NO_LIMIT if node_limit is None else node_limit
        quick = min(limit, QUICK_NODES)
        score = solve_position(*self._args(), a, b, bool(weak), quick)
        if self.meta[M_ABORTED] and quick < limit:  # a long search: one that a signal can stop
            score = self._stoppable(solve_position, *self._args(), a, b, bool(weak), limit - quick)
        return None if self.meta[M_ABORTED] else int(score)

    def _stoppable(self, function: Any, *args: Any) -> Any:
        """``function(*args)`` in a helper thread, stopped at Ctrl-C or SIGTERM (see
        :func:`~boardlab.core.processes.stoppable_call`): the search gives up at its next
        look at the stop word and the KeyboardInterrupt goes on."""
        return stoppable_call(function, self.meta[M_STOP : M_STOP + 1], *args)

    def final_score(self, position: Any) -> int | None:
        """The score of a finished game for the side to move (None while it goes on)."""
        a, b = self.words(position)
        score = int(final_score(self.prm, a, b))
        return None if score == NOT_FOUND else score

    def playable(self, position: Any) -> list[int]:
        """The columns that are not full (none once the game is over)."""
        a, b = self.words(position)
        if self.final_score((a, b)) is not None:
            return []
        top = self.height - 1
        return [c for c in range(self.width) if not b >> (c * (self.height + 1) + top) & 1]

    def move_scores_at_least(
        self, position: Any, col: int, target: int, node_limit: int | None = None
    ) -> bool | None:
        """True if column ``col`` scores at least ``target`` for the side to move; None if
        ``node_limit`` more nodes were not enough."""
        a, b = self.words(position)
        if col not in self.playable((a, b)):
            raise SolverError(f"column {col + 1} cannot be played here")
        limit = NO_LIMIT if node_limit is None else node_limit
        quick = min(limit, QUICK_NODES)
        try:
            self.meta[M_LIMIT] = min(self.nodes + quick, NO_LIMIT)
            keeps = move_at_least(*self._args(), a, b, col, target)
            if self.meta[M_ABORTED] and quick < limit:  # a long search: one that a signal can stop
                self.meta[M_LIMIT] = min(self.nodes + limit - quick, NO_LIMIT)
                keeps = self._stoppable(move_at_least, *self._args(), a, b, col, target)
        finally:
            self.meta[M_LIMIT] = NO_LIMIT
        return None if self.meta[M_ABORTED] else bool(keeps)

    def analyze(self, position: Any, weak: bool = False) -> list[int | None]:
        """Each column's score for the side to move if it plays there (None: full column)."""
        scores = self.analyze_within(position, None, weak)
        assert scores is not None
        return scores

    def analyze_within(
        self, position: Any, seconds: float | None, weak: bool = False
    ) -> list[int | None] | None:
        """:meth:`analyze` within ``seconds`` (None: as long as it takes); None if the solver
        settled not every column by then (the table keeps what it found for the next try)."""
        deadline = None if seconds is None else time.perf_counter() + seconds
        a, b = self.words(position)
        out: list[int | None] = [None] * self.width
        for col in self.playable((a, b)):
            child = self.play((a, b), col)
            over = self.final_score(child)
            if over is not None:  # a win (or the board filled up)
                score = -over
            else:
                value = self._solve_by(child, weak, deadline)
                if value is None:
                    return None
                score = -value
            out[col] = int(np.sign(score)) if weak else score
        return out

    def _solve_by(self, position: tuple[int, int], weak: bool, deadline: float | None) -> int | None:
        """:meth:`solve`, given up at ``deadline`` (None: never), a few hundred thousand nodes
        at a time between looks at the clock."""
        while True:
            limit = None if deadline is None else BUDGET_CHUNK_NODES
            score = self.solve(position, weak, node_limit=limit)
            if score is not None or deadline is None or time.perf_counter() >= deadline:
                return score

    def play(self, position: Any, col: int) -> tuple[int, int]:
        """The state words after a stone in column ``col``."""
        a, b = self.words(position)
        return a ^ b, b | (b + (1 << (col * (self.height + 1))))

    def best_moves(self, position: Any, score: int | None = None) -> list[int]:
        """The columns (0-based) that keep the exact score (``score`` if already known)."""
        if score is None:
            score = self.solve(position)
        assert score is not None
        return [c for c in self.playable(position) if self.move_scores_at_least(position, c, score)]

    def principal_variation(self, position: Any, score: int | None = None) -> list[int]:
        """Columns (0-based) of a perfect game from ``position`` to its end: each move keeps
        the score, the first such move in the solver's order (centre first)."""
        a, b = self.words(position)
        if score is None:
            score = self.solve((a, b))
        assert score is not None
        line: list[int] = []
        order = column_order(self.width)
        while self.final_score((a, b)) is None:
            playable = set(self.playable((a, b)))
            col = next(c for c in order if c in playable and self.move_scores_at_least((a, b), c, score))
            line.append(col)
            a, b = self.play((a, b), col)
            score = -score
        return line


@functools.cache
def _shared_solver(width: int, height: int) -> Solver:
    return Solver(width, height)


def solver_for(game: Any) -> Solver:
    """The shared solver for a Connect Four game (see :meth:`Solver.for_game`)."""
    return Solver.for_game(game)


# --- the opening book -----------------------------------------------------------------------


def positions_at(width: int, height: int, stones: int) -> list[tuple[int, int]]:
    """The ongoing positions with ``stones`` stones, one per mirror pair, as state words,
    in the order of their move sequences (neighbours share much of their search)."""
    solver = Solver(width, height, tt_log2=10, book=False)
    level = {int(canonical_key(solver.prm, 0, 0)): (0, 0)}  # canonical key -> words
    for _ in range(stones):
        nxt: dict[int, tuple[int, int]] = {}
        for words in level.values():
            for col in solver.playable(words):
                child = solver.play(words, col)
                key = int(canonical_key(solver.prm, *child))
                if key not in nxt:
                    nxt[key] = child
        level = nxt
    return [w for w in level.values() if solver.final_score(w) is None]


def build_book(
    width: int = 7,
    height: int = 6,
    stones: int = 4,
    path: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    tt_log2: int = 24,
    jobs: int = 1,
) -> Book:
    """Solve every position with ``stones`` stones, derive the positions with fewer, and
    save the book as ``.npz`` (default :func:`default_book_path`, for 7 x 6 only).

    ``jobs`` solvers work at once, each in a thread of its own with its own table of
    ``2**tt_log2`` entries (the search runs without the GIL), taking the positions in turn.
    The solved positions are saved to ``<path>.partial.npz`` as they come (every 30 s, and
    at Ctrl-C or SIGTERM), so a stopped or killed build resumes where it stopped, with any
    number of jobs. ``progress(done, total)`` is called as positions are done. A solver's
    table is kept warm from one position to the next: scores are facts, and neighbouring
    positions share most of their search.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    path = Path(path) if path is not None else default_book_path()
    partial = path.with_name(path.name + ".partial.npz")
    prm = Solver(width, height, tt_log2=4, book=False).prm
    known: dict[int, int] = {}
    if partial.exists():
        known = _read_partial(partial, width, height, stones)
    targets = [(int(canonical_key(prm, *words)), words) for words in positions_at(width, height, stones)]
    todo = [(key, words) for key, words in targets if key not in known]
    solvers = [Solver(width, height, tt_log2=tt_log2, book=False) for _ in range(min(jobs, len(todo)) or 1)]
    _solve_all(solvers, todo, known, partial, (width, height, stones), progress, len(targets))
    # the positions with fewer stones, from their children
    solver = solvers[0]
    for depth in range(stones - 1, -1, -1):
        for words in positions_at(width, height, depth):
            known[int(canonical_key(prm, *words))] = _score_from_children(solver, words, known)
    keys = np.array(sorted(known), dtype=np.int64)
    book = Book(width, height, stones, keys, np.array([known[k] for k in keys.tolist()], dtype=np.int8))
    book.save(path)
    partial.unlink(missing_ok=True)
    if path == default_book_path():
        default_book.cache_clear()
    return book


SAVE_EVERY = 30.0
"""Seconds between two saves of a book build's partial file."""


def _solve_all(
    solvers: list[Solver],
    todo: list[tuple[int, tuple[int, int]]],
    known: dict[int, int],
    partial: Path,
    build: tuple[int, int, int],
    progress: Callable[[int, int], None] | None,
    total: int,
) -> None:
    """Solve the ``todo`` positions into ``known`` (key -> score), one solver a thread, saving
    ``partial`` every :data:`SAVE_EVERY` seconds and at the end; ``progress(done, total)`` after
    each. At Ctrl-C or SIGTERM (or an error, in a solver or in ``progress``) the searches are
    stopped, everything solved is saved, and the exception goes on."""
    positions = iter(todo)
    taking = threading.Lock()
    solved: queue.SimpleQueue[tuple[int, int] | BaseException | None] = queue.SimpleQueue()

    def work(solver: Solver) -> None:
        try:
            while True:
                with taking:
                    item = next(positions, None)
                if item is None:
                    return
                score = solver.solve(item[1])
                if score is None:  # stopped
                    return
                solved.put((item[0], score))
        except BaseException as error:  # handed to the main thread
            solved.put(error)
        finally:
            solved.put(None)  # this solver is done

    last_save, saved, running = time.monotonic(), len(known), len(solvers)
    if progress is not None:  # where a resumed build stands
        progress(len(known), total)
    for solver in solvers:
        threading.Thread(target=work, args=(solver,), name="book-solver", daemon=True).start()
    try:
        while running:
            raise_if_stopping()
            try:
                item = solved.get(timeout=STOP_POLL_SECONDS)
            except queue.Empty:
                continue
            if item is None:
                running -= 1
                continue
            if isinstance(item, BaseException):
                raise item
            known[item[0]] = item[1]
            if progress is not None:
                progress(len(known), total)
            if time.monotonic() - last_save > SAVE_EVERY:
                _save_partial(partial, known, build)
                last_save, saved = time.monotonic(), len(known)
    except BaseException:  # stop the searches, keep every position solved
        for solver in solvers:
            solver.meta[M_STOP] = 1
        while running:
            item = _next_through_interrupts(solved)
            if item is None:
                running -= 1
            elif not isinstance(item, BaseException):
                known[item[0]] = item[1]
        for solver in solvers:
            solver.meta[M_STOP] = 0
        if len(known) > saved:
            _save_partial(partial, known, build)
        raise
    if len(known) > saved or not partial.exists():
        _save_partial(partial, known, build)


def _next_through_interrupts(items: queue.SimpleQueue[Any]) -> Any:
    """The next of ``items``, waited for through further Ctrl-C and SIGTERM (a stop is under way)."""
    while True:
        with contextlib.suppress(KeyboardInterrupt):
            return items.get()


def _save_partial(path: Path, known: dict[int, int], build: tuple[int, int, int]) -> None:
    """The positions solved so far, keys sorted as a book's, with the build's ``(width,
    height, stones)``."""
    keys = np.array(sorted(known), dtype=np.int64)
    scores = np.array([known[k] for k in keys.tolist()], dtype=np.int8)
    build_array = np.array(build, dtype=np.int64)
    atomic_write(path, lambda handle: np.savez(handle, keys=keys, scores=scores, build=build_array))


def _read_partial(path: Path, width: int, height: int, stones: int) -> dict[int, int]:
    """The positions a killed build of the same board and stones had solved; InputFileError
    for a file that is damaged or was written by another build."""
    data = load_npz(path, "partial Connect Four book", MAX_BOOK_BYTES, ("keys", "scores", "build"))
    build = data["build"].tolist()
    if build != [width, height, stones]:
        raise InputFileError(
            f"{path} holds a build of another book ({build}, not {[width, height, stones]} as "
            "[width, height, stones]); remove it or give another path"
        )
    keys, scores = _checked_book_entries(path, data, width * height)
    return dict(zip(keys.tolist(), scores.tolist(), strict=True))


def _score_from_children(solver: Solver, words: tuple[int, int], known: dict[int, int]) -> int:
    best = -NO_BOUND
    for col in solver.playable(words):
        child = solver.play(words, col)
        over = solver.final_score(child)
        if over is not None:
            best = max(best, -over)
        else:
            best = max(best, -known[int(canonical_key(solver.prm, *child))])
    return best


__all__ = [
    "BOOK_FILE",
    "CONNECT",
    "DEFAULT_TT_LOG2",
    "SHIPPED_BOOK",
    "Book",
    "Solver",
    "SolverError",
    "build_book",
    "column_order",
    "default_book",
    "default_book_path",
    "positions_at",
    "score_text",
    "solver_for",
]
