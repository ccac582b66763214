"""Strong solutions of Quixo by retrograde analysis over cube-count classes.

Blank cubes never come back, so the positions fall into classes ``(a, b)``: ``a`` cubes of
the side to move, ``b`` of its opponent. A move that takes a blank cube leads to class
``(b, a + 1)``, one cube fuller, solved before; a move that re-takes an own cube leads to
class ``(b, a)``. The two classes ``(a, b)`` and ``(b, a)`` are therefore solved together,
fullest boards first.

Within a pair the solver works backwards in plies, like an endgame tablebase generator:

1. Every position is looked at once (on both cores). A position where the side to move has
   a full line is won in 0 plies, else one where the opponent has a line is lost in 0 plies
   (so a move completing the opponent's line loses, even if it completes the mover's too).
   Under the course rules (``rulebook="course"``) a position with lines of both colours goes
   to the owner of the first full line in the course referee's scan order instead.
   For the others, moves into the fuller class are read from its table, own-cube moves that
   end the game are valued on the spot, and the other own-cube moves are counted.
2. Level by level (depth d = 1, 2, ...), the positions resolved at depth d are un-moved to
   their parents inside the pair: a parent of a lost position is won in d + 1; a parent
   whose last open move leads to a won position is lost, one ply after its slowest option.
   Values known from step 1 join the levels when their depth comes up (events sorted by
   depth). The two classes of a pair are un-moved on the two cores at once.
3. What is never resolved is a draw (the game can go on for ever).

Depths are plies to the end under perfect play: the winner wins as fast as it can, the
loser holds out as long as it can. Values and depths are always for the side to move.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import prange

from boardlab.core.files import tables_root
from boardlab.games.jit import cached_njit
from boardlab.games.quixo.index import (
    RankTables,
    class_size,
    index_of,
    next_subset,
    pdep,
    position_of,
    rank_tables,
    unrank,
)
from boardlab.games.quixo.layout import insert_cell, move_list
from boardlab.games.quixo.table import (
    DRAW_CODE,
    LOSS_CODE,
    RULEBOOKS,
    WIN_CODE,
    ClassTable,
    TablebaseFormatError,
    folder_rulebook,
    pack_values,
    read_table,
    table_path,
    write_table,
)

__all__ = [
    "DRAW",
    "LOSS",
    "WIN",
    "ClassTable",
    "MemoryTables",
    "QuixoTables",
    "SolveReport",
    "TableSet",
    "TablebaseFormatError",
    "class_pairs",
    "default_table_dir",
    "solve",
    "solve_in_memory",
    "solve_pair",
]

WIN, DRAW, LOSS = 1, 0, -1
"""Values for the side to move (the kernel's status codes)."""

_CODE_TO_VALUE = {WIN_CODE: WIN, LOSS_CODE: LOSS, DRAW_CODE: DRAW}
_SRC, _KEEP, _SHIFT, _INS, _SHKEEP = 0, 1, 2, 3, 4
_MAX_DEPTH = 65535
_BLOCK = 2048
_PARALLEL_MIN = 1 << 17  # below this many positions a class is solved on one core


def default_table_dir(size: int, rulebook: str = "official") -> Path:
    """Where built tables go: ``$BOARDLAB_TABLES`` or ``~/.cache/boardlab/tables``, per size
    (and a folder of their own for the course rules)."""
    return tables_root() / (f"quixo{size}" if rulebook == "official" else f"quixo{size}-{rulebook}")


def solve_dir_flag(folder: Path | None, size: int, rulebook: str = "official") -> str:
    """`` --dir FOLDER`` for a ``boardlab solve`` command building tables into ``folder``, or
    nothing where that is where they go by default (None: the default too)."""
    if folder is None or Path(folder).resolve() == default_table_dir(size, rulebook).resolve():
        return ""
    return f" --dir {shlex.quote(str(folder))}"


# --- constant tables --------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """The move and line tables of an n x n board in the form the solver kernels use."""

    size: int
    rulebook: str  # "official" or "course" (which side wins when both have a line)
    moves: np.ndarray  # int64 [moves, 5]: source, keep, shift, insertion, shifted keep
    lines: np.ndarray  # int64 [lines], in the course referee's scan order
    line_bits: np.ndarray  # uint8 [2^cells / 8]: bit m set if mask m holds a line (cells <= 16)
    rk: RankTables

    @property
    def cells(self) -> int:
        """Number of cells."""
        return self.size * self.size

    @property
    def course(self) -> bool:
        """True under the course rules."""
        return self.rulebook == "course"


_RULES: dict[tuple[int, str], Rules] = {}


def _line_masks(n: int) -> list[int]:
    """Rows from the top, columns from the left, the main diagonal, the anti-diagonal."""
    rows = [sum(1 << (y * n + x) for x in range(n)) for y in range(n)]
    cols = [sum(1 << (y * n + x) for y in range(n)) for x in range(n)]
    diagonal = sum(1 << (i * n + i) for i in range(n))
    anti_diagonal = sum(1 << (i * n + n - 1 - i) for i in range(n))
    return [*rows, *cols, diagonal, anti_diagonal]


def _move_row(n: int, x: int, y: int, end: int) -> list[int]:
    """Masks of one move: the cubes between the insertion cell and the hole slide one step."""
    ix, iy = insert_cell(n, x, y, end)
    dx = (x > ix) - (x < ix)
    dy = (y > iy) - (y < iy)
    keep = 0
    cx, cy = ix, iy
    while (cx, cy) != (x, y):
        keep |= 1 << (cy * n + cx)
        cx, cy = cx + dx, cy + dy
    shift = dy * n + dx
    shifted = keep << shift if shift > 0 else keep >> -shift
    return [1 << (y * n + x), keep, shift, 1 << (iy * n + ix), shifted]


def _line_bits(size: int, lines: np.ndarray) -> np.ndarray:
    cells = size * size
    if cells > 16:
        return np.zeros(1, dtype=np.uint8)
    masks = np.arange(1 << cells, dtype=np.int64)
    full = np.zeros(1 << cells, dtype=bool)
    for line in lines:
        full |= masks & line == line
    return np.packbits(full, bitorder="little")


def rules(size: int, rulebook: str = "official") -> Rules:
    """The cached solver tables for an n x n board (n = 3, 4 or 5) under a rulebook."""
    if size not in (3, 4, 5):
        raise ValueError(f"Quixo board size must be 3, 4 or 5, got {size}")
    if rulebook not in RULEBOOKS:
        raise ValueError(f"unknown Quixo rulebook {rulebook!r}; known: {', '.join(RULEBOOKS)}")
    key = (size, rulebook)
    if key not in _RULES:
        moves = np.array([_move_row(size, x, y, e) for x, y, e in move_list(size)], dtype=np.int64)
        lines = np.array(_line_masks(size), dtype=np.int64)
        rk = rank_tables(size * size)
        _RULES[key] = Rules(size, rulebook, moves, lines, _line_bits(size, lines), rk)
    return _RULES[key]


# --- compiled kernels ---------------------------------------------------------------------------
#
# The hot per-position state of a class being solved is one uint16 (one cache miss per look):
#   bits 0-1  value code (0 unknown / draw, 1 win, 2 loss)
#   bits 2-3  flags: a move into the fuller class wins (1) / draws (2)
#   bits 4-9  own-cube moves whose outcome is not known yet
# ``ext`` holds the depth of the fastest external win, or else of the slowest external loss.

_EXT_WIN, _EXT_DRAW = 1, 2
_FLAG_SHIFT, _COUNT_SHIFT = 2, 4
_COUNT_ONE = 1 << _COUNT_SHIFT
_PACK = 25  # queued positions are packed as me | opp << 25 | lost << 60
_LOW = (1 << _PACK) - 1


@cached_njit(inline="always")
def _shift(bits, shift):  # type: ignore[no-untyped-def]
    if shift > 0:
        return bits << shift
    return bits >> -shift


@cached_njit(inline="always")
def _has_line(bits, lines, line_bits):  # type: ignore[no-untyped-def]
    if line_bits.shape[0] > 1:  # a bit per mask (boards of up to 16 cells): one look-up
        return (line_bits[bits >> 3] >> (bits & 7)) & 1 != 0
    for i in range(lines.shape[0]):
        if bits & lines[i] == lines[i]:
            return True
    return False


@cached_njit(inline="always")
def _finished(me, opp, lines, line_bits, course):  # type: ignore[no-untyped-def]
    """WIN_CODE or LOSS_CODE for the side to move of a finished position, 0 if it goes on.

    The side with a line wins; with lines of both colours, the official rules give the game
    to the side to move (the opponent completed its line), the course rules to the owner of
    the first full line in scan order."""
    mine = _has_line(me, lines, line_bits)
    theirs = _has_line(opp, lines, line_bits)
    if mine and theirs and course:
        for i in range(lines.shape[0]):
            if me & lines[i] == lines[i]:
                return WIN_CODE
            if opp & lines[i] == lines[i]:
                return LOSS_CODE
    if mine:
        return WIN_CODE
    if theirs:
        return LOSS_CODE
    return 0


@cached_njit(inline="always")
def _code_at(packed, i):  # type: ignore[no-untyped-def]
    return (packed[i >> 2] >> ((i & 3) << 1)) & 3


@cached_njit(inline="always")
def _pack(me, opp, code):  # type: ignore[no-untyped-def]
    lost = np.int64(1) if code == LOSS_CODE else np.int64(0)
    return me | (opp << _PACK) | (lost << 60)


@cached_njit(inline="always")
def _init_block(moves, lines, line_bits, course, rk, a, b, nxt_values, nxt_depths, st, dep, ext, block):  # type: ignore[no-untyped-def]
    """Step 1 for the positions of one block of a class: finished positions, moves into the
    fuller class (read from its table), own-cube moves (counted)."""
    cells = rk.scalars[0]
    full = (np.int64(1) << cells) - 1
    per_me = rk.binom[cells - a, b]
    total = rk.binom[cells, a] * per_me
    nmoves = moves.shape[0]
    first = block * _BLOCK
    last = min(first + _BLOCK, total)
    i = first // per_me
    j = first % per_me
    me = unrank(i, a, rk)
    o = unrank(j, b, rk)
    for p in range(first, last):
        opp = pdep(o, full & ~me, rk)
        dep[p] = 0
        ext[p] = 0
        end = _finished(me, opp, lines, line_bits, course)
        if end != 0:
            st[p] = end
        else:
            count = 0
            best = 0
            worst = 0
            has_draw = False
            for m in range(nmoves):
                src = moves[m, _SRC]
                if opp & src:
                    continue
                keep = moves[m, _KEEP]
                shift = moves[m, _SHIFT]
                clear = ~(keep | src)
                new_me = (me & clear) | _shift(me & keep, shift) | moves[m, _INS]
                new_opp = (opp & clear) | _shift(opp & keep, shift)
                if me & src:
                    # an own cube: the child is in the pair; finished children are valued here
                    # so that finished positions never need un-moving
                    code = _finished(new_opp, new_me, lines, line_bits, course)
                    if code == 0:
                        count += 1
                        continue
                    child_depth = np.int64(0)
                else:
                    ci = index_of(new_opp, new_me, b, a + 1, rk)
                    code = _code_at(nxt_values, ci)
                    child_depth = np.int64(nxt_depths[ci])
                if code == LOSS_CODE:
                    d = child_depth + 1
                    if best == 0 or d < best:
                        best = d
                    if d == 1:
                        break  # nothing beats winning on this move
                elif code == WIN_CODE:
                    if best == 0:  # the slowest loss only matters while no win is known
                        d = child_depth + 1
                        if d > worst:
                            worst = d
                else:
                    has_draw = True
            if best != 0:
                ext[p] = best
                flag = _EXT_WIN
            else:
                ext[p] = worst
                flag = _EXT_DRAW if has_draw else 0
            st[p] = (count << _COUNT_SHIFT) | (flag << _FLAG_SHIFT)
        # step to the next position in index order
        if p + 1 < last:
            j += 1
            if j < per_me:
                o = next_subset(o)
            else:
                j = 0
                me = next_subset(me)
                o = (np.int64(1) << b) - 1


@cached_njit(parallel=True)
def _init_class_parallel(moves, lines, line_bits, course, rk, a, b, nxt_values, nxt_depths, st, dep, ext):  # type: ignore[no-untyped-def]
    """Step 1 for a whole class on every core."""
    for block in prange((st.shape[0] + _BLOCK - 1) // _BLOCK):
        _init_block(moves, lines, line_bits, course, rk, a, b, nxt_values, nxt_depths, st, dep, ext, block)


@cached_njit
def _init_class_serial(moves, lines, line_bits, course, rk, a, b, nxt_values, nxt_depths, st, dep, ext):  # type: ignore[no-untyped-def]
    """Step 1 for a small class (waking the other threads would cost more)."""
    for block in range((st.shape[0] + _BLOCK - 1) // _BLOCK):
        _init_block(moves, lines, line_bits, course, rk, a, b, nxt_values, nxt_depths, st, dep, ext, block)


@cached_njit(inline="always")
def _event_depth(s, ext_p):  # type: ignore[no-untyped-def]
    """The depth at which moves into the fuller class settle an open position (0: none)."""
    if s & 3 != 0:
        return np.int64(0)
    flag = (s >> _FLAG_SHIFT) & 3
    if flag == _EXT_WIN or (flag == 0 and s >> _COUNT_SHIFT == 0):
        return np.int64(ext_p)
    return np.int64(0)


@cached_njit
def _sort_events(rk, a, b, st, ext, events, ev_start):  # type: ignore[no-untyped-def]
    """List the open positions that moves out of the pair settle, sorted by depth.

    Events at depth d are ``events[ev_start[d]:ev_start[d + 1]]``, packed positions.
    """
    cells = rk.scalars[0]
    full = (np.int64(1) << cells) - 1
    per_me = rk.binom[cells - a, b]
    total = st.shape[0]
    cursor = np.zeros_like(ev_start)
    for rnd in range(2):
        if rnd == 1:  # counts at when + 1 become the start of each depth's events
            for d in range(1, ev_start.shape[0]):
                ev_start[d] += ev_start[d - 1]
            cursor[:] = ev_start
        me = (np.int64(1) << a) - 1
        o = (np.int64(1) << b) - 1
        j = 0
        for p in range(total):
            when = _event_depth(st[p], ext[p])
            if when != 0:
                if rnd == 0:
                    ev_start[when + 1] += 1
                else:
                    events[cursor[when]] = _pack(me, pdep(o, full & ~me, rk), 0)
                    cursor[when] += 1
            if p + 1 < total:
                j += 1
                if j < per_me:
                    o = next_subset(o)
                else:
                    j = 0
                    me = next_subset(me)
                    o = (np.int64(1) << b) - 1


@cached_njit(inline="always")
def _resolve(st, done, dep, queue, tail, y, pi, code, depth, me, opp):  # type: ignore[no-untyped-def]
    st[y, pi] = (st[y, pi] & ~3) | code
    done[y, pi >> 3] |= np.uint8(1 << (pi & 7))
    dep[y, pi] = depth
    queue[y, tail[y]] = _pack(me, opp, code)
    tail[y] += 1


@cached_njit(inline="always")
def _unmove_level(moves, rk, x, y, ca, cb, d, st, done, dep, ext, queue, start, end, tail, dhead, nxt, top):  # type: ignore[no-untyped-def]
    """Un-move the positions of slot x resolved at depth d into their parents in slot y."""
    nmoves = moves.shape[0]
    for qi in range(start[x], end[x]):
        entry = queue[x, qi]
        cme = entry & _LOW
        copp = (entry >> _PACK) & _LOW
        lost = entry >> 60
        for m in range(nmoves):
            ins = moves[m, _INS]
            if copp & ins == 0:
                continue
            shk = moves[m, _SHKEEP]
            shift = moves[m, _SHIFT]
            region = shk | ins
            pme = (copp & ~region) | _shift(copp & shk, -shift) | moves[m, _SRC]
            popp = (cme & ~region) | _shift(cme & shk, -shift)
            pi = index_of(pme, popp, cb, ca, rk)
            if done[y, pi >> 3] >> (pi & 7) & 1:
                continue  # most parents are settled already: a bit in cache says so
            s = st[y, pi]
            if lost:
                _resolve(st, done, dep, queue, tail, y, pi, WIN_CODE, d + 1, pme, popp)
            else:
                s -= _COUNT_ONE
                st[y, pi] = s
                if s >> _FLAG_SHIFT == 0:  # no open move left, none drawing or winning outside
                    when = max(d + 1, np.int64(ext[y, pi]))
                    if when == d + 1:
                        _resolve(st, done, dep, queue, tail, y, pi, LOSS_CODE, d + 1, pme, popp)
                    else:
                        nxt[y, pi] = dhead[y, when]
                        dhead[y, when] = pi
                        top[y] = max(top[y], when)


@cached_njit(parallel=True)
def _unmove_pair(moves, rk, cls, nslots, d, st, done, dep, ext, queue, start, end, tail, dhead, nxt, top):  # type: ignore[no-untyped-def]
    """Both classes of a pair at once: each thread writes only into the other class."""
    for x in prange(nslots):
        y = nslots - 1 - x
        _unmove_level(
            moves, rk, x, y, cls[x, 0], cls[x, 1], d, st, done, dep, ext, queue,
            start, end, tail, dhead, nxt, top,
        )  # fmt: skip


@cached_njit(inline="always")
def _open_level(  # type: ignore[no-untyped-def]
    rk, cls, nslots, d, st, done, dep, queue, tail, events, ev_start, dhead, nxt, top, start, end
):
    """Settle the positions whose depth d comes from outside the pair; close the level's queue
    segment. False once nothing is left to do."""
    for x in range(nslots):
        ca = cls[x, 0]
        cb = cls[x, 1]
        if d + 1 < ev_start.shape[1]:
            for e in range(ev_start[x, d], ev_start[x, d + 1]):
                entry = events[x, e]
                me = entry & _LOW
                opp = (entry >> _PACK) & _LOW
                p = index_of(me, opp, ca, cb, rk)
                s = st[x, p]
                if s & 3 == 0:
                    won = (s >> _FLAG_SHIFT) & 3 == _EXT_WIN
                    _resolve(st, done, dep, queue, tail, x, p, WIN_CODE if won else LOSS_CODE, d, me, opp)
        if d <= top[x]:
            p = dhead[x, d]
            while p != -1:
                if st[x, p] & 3 == 0:
                    me, opp = position_of(np.int64(p), ca, cb, rk)
                    _resolve(st, done, dep, queue, tail, x, p, LOSS_CODE, d, me, opp)
                p = nxt[x, p]
    busy = False
    for x in range(nslots):
        end[x] = tail[x]
        if end[x] > start[x] or top[x] > d or ev_start.shape[1] > d + 2:
            busy = True
    return busy


@cached_njit
def _run_levels(  # type: ignore[no-untyped-def]
    moves,
    rk,
    cls,
    nslots,
    st,
    done,
    dep,
    ext,
    queue,
    tail,
    events,
    ev_start,
    dhead,
    nxt,
    top,
    max_depth,
):
    """Step 2 on one core: resolve level after level until nothing moves; return the last
    level (-1: the depth overflowed)."""
    start = np.zeros(2, dtype=np.int64)
    end = np.zeros(2, dtype=np.int64)
    d = 0
    while _open_level(
        rk, cls, nslots, d, st, done, dep, queue, tail, events, ev_start, dhead, nxt, top, start, end
    ):
        if d + 1 >= max_depth:
            return -1
        for x in range(nslots):
            y = nslots - 1 - x
            _unmove_level(
                moves, rk, x, y, cls[x, 0], cls[x, 1], d, st, done, dep, ext, queue,
                start, end, tail, dhead, nxt, top,
            )  # fmt: skip
        for x in range(nslots):
            start[x] = end[x]
        d += 1
    return d


@cached_njit
def _run_levels_parallel(  # type: ignore[no-untyped-def]
    moves,
    rk,
    cls,
    nslots,
    st,
    done,
    dep,
    ext,
    queue,
    tail,
    events,
    ev_start,
    dhead,
    nxt,
    top,
    max_depth,
):
    """Step 2 with the two classes of the pair un-moved on two cores (large levels only)."""
    start = np.zeros(2, dtype=np.int64)
    end = np.zeros(2, dtype=np.int64)
    d = 0
    while _open_level(
        rk, cls, nslots, d, st, done, dep, queue, tail, events, ev_start, dhead, nxt, top, start, end
    ):
        if d + 1 >= max_depth:
            return -1
        if nslots == 2 and min(end[0] - start[0], end[1] - start[1]) > _PARALLEL_MIN // 16:
            _unmove_pair(
                moves, rk, cls, nslots, d, st, done, dep, ext, queue, start, end, tail, dhead, nxt, top
            )
        else:
            for x in range(nslots):
                y = nslots - 1 - x
                _unmove_level(
                    moves, rk, x, y, cls[x, 0], cls[x, 1], d, st, done, dep, ext, queue,
                    start, end, tail, dhead, nxt, top,
                )  # fmt: skip
        for x in range(nslots):
            start[x] = end[x]
        d += 1
    return d


_EMPTY_VALUES = np.zeros(1, dtype=np.uint8)
_EMPTY_DEPTHS = np.zeros(1, dtype=np.uint8)  # the same compiled signature as small depths


def solve_pair(
    size: int,
    a: int,
    b: int,
    fuller: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] | None = None,
    rulebook: str = "official",
) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    """Solve classes ``(a, b)`` and ``(b, a)`` given the fuller classes they move into.

    ``fuller`` maps ``(b, a + 1)`` and ``(a, b + 1)`` to ``(packed values, depths)`` (needed
    unless the board is full). Returns ``{(a, b): (codes, depths), (b, a): ...}`` with
    unpacked uint8 codes (0 draw, 1 win, 2 loss) and uint16 depths.
    """
    r = rules(size, rulebook)
    cells = r.cells
    if a < 0 or b < 0 or a + b > cells:
        raise ValueError(f"no class ({a}, {b}) on a {size}x{size} board")
    slots = [(a, b)] if a == b else [(a, b), (b, a)]
    count = class_size(cells, a, b)
    nslots = len(slots)
    st = np.empty((nslots, count), dtype=np.uint16)
    dep = np.empty((nslots, count), dtype=np.uint16)
    ext = np.empty((nslots, count), dtype=np.uint16)
    for x, (sa, sb) in enumerate(slots):
        if sa + sb < cells:
            key = (sb, sa + 1)
            if fuller is None or key not in fuller:
                raise ValueError(f"class ({sa}, {sb}) needs the solved class {key}")
            nv, nd = fuller[key]
            # one byte per depth when it fits: half the cache footprint of the look-ups
            small = nd.dtype == np.uint8 or int(nd.max(initial=0)) < 256
            nd = np.require(nd, np.uint8 if small else np.uint16, ["C", "W"])  # memmaps are read-only:
            nv = np.require(nv, np.uint8, ["C", "W"])  # a copy keeps one compiled signature
        else:
            nv, nd = _EMPTY_VALUES, _EMPTY_DEPTHS
        init = _init_class_parallel if count >= _PARALLEL_MIN else _init_class_serial
        init(r.moves, r.lines, r.line_bits, r.course, r.rk, sa, sb, nv, nd, st[x], dep[x], ext[x])
    top_event = int(ext.max(initial=0))
    if top_event >= _MAX_DEPTH:
        raise OverflowError("depth exceeds the solver's range")
    queue = np.empty((nslots, count), dtype=np.int64)
    events = np.empty((nslots, count), dtype=np.int64)
    ev_start = np.zeros((nslots, top_event + 2), dtype=np.int64)
    tail = np.zeros(2, dtype=np.int64)
    for x, (sa, sb) in enumerate(slots):
        _sort_events(r.rk, sa, sb, st[x], ext[x], events[x], ev_start[x])
    nxt = np.empty((nslots, count), dtype=np.int32)
    dhead = np.full((nslots, _MAX_DEPTH + 1), -1, dtype=np.int32)
    top = np.zeros(2, dtype=np.int64)
    cls = np.array(slots, dtype=np.int64)
    done = np.packbits((st & 3) != 0, axis=1, bitorder="little")
    run = _run_levels_parallel if nslots == 2 and count >= _PARALLEL_MIN else _run_levels
    levels = run(
        r.moves, r.rk, cls, nslots, st, done, dep, ext, queue, tail, events, ev_start, dhead, nxt,
        top, _MAX_DEPTH,
    )  # fmt: skip
    if levels < 0:
        raise OverflowError("depth exceeds the solver's range")
    codes = (st & 3).astype(np.uint8)
    return {slot: (codes[x], dep[x]) for x, slot in enumerate(slots)}


def class_pairs(size: int, min_cubes: int = 0) -> Iterator[tuple[int, int]]:
    """The pairs ``(a, b)`` with ``a <= b`` in solving order: fullest boards first."""
    cells = size * size
    for k in range(cells, min_cubes - 1, -1):
        for a in range(k // 2 + 1):
            yield a, k - a


# --- the driver -------------------------------------------------------------------------------------


@dataclass
class SolveReport:
    """What a solve did: the counts for the side to move over the classes covered."""

    size: int
    directory: Path | None
    min_cubes: int
    wins: int = 0
    losses: int = 0
    draws: int = 0
    seconds: float = 0.0
    pairs_solved: int = 0
    pairs_loaded: int = 0
    per_class: dict[tuple[int, int], tuple[int, int, int]] = field(default_factory=dict)
    rulebook: str = "official"

    @property
    def positions(self) -> int:
        """Number of positions counted."""
        return self.wins + self.losses + self.draws


Progress = Callable[[int, int, tuple[int, int], int], None]
"""Called after each class pair: (pairs done, pairs in all, the pair (a, b), its positions)."""


class TableSet:
    """Solved classes of one board size and rulebook, with look-ups for the side to move."""

    def __init__(self, size: int, rulebook: str = "official") -> None:
        self.rules = rules(size, rulebook)
        self.size = size
        self.rulebook = rulebook

    def table(self, a: int, b: int) -> ClassTable:
        """The table of class ``(a, b)``; KeyError if it was not built."""
        raise NotImplementedError

    def has_class(self, a: int, b: int) -> bool:
        """True if class ``(a, b)`` is solved here."""
        raise NotImplementedError

    def covers(self, me: int, opp: int) -> bool:
        """True if the position's class is solved here."""
        return self.has_class(me.bit_count(), opp.bit_count())

    def value(self, me: int, opp: int) -> tuple[int, int]:
        """``(WIN | DRAW | LOSS, plies to the end)`` for the side to move, whose cubes are ``me``,
        as stored: a draw's depth is 0 (it has no end; :mod:`boardlab.games.quixo.exact` gives
        it None)."""
        full = (1 << self.rules.cells) - 1
        if me & opp or (me | opp) & ~full or me < 0 or opp < 0:
            raise ValueError("cube masks overlap or fall outside the board")
        a, b = me.bit_count(), opp.bit_count()
        table = self.table(a, b)
        i = int(index_of(np.int64(me), np.int64(opp), np.int64(a), np.int64(b), self.rules.rk))
        code = int(table.values[i >> 2]) >> ((i & 3) << 1) & 3
        return _CODE_TO_VALUE[code], int(table.depths[i])

    def counts(self) -> tuple[int, int, int]:
        """Wins, losses and draws over every class present."""
        wins = losses = draws = 0
        cells = self.rules.cells
        for a in range(cells + 1):
            for b in range(cells + 1 - a):
                if self.has_class(a, b):
                    t = self.table(a, b)
                    wins += t.wins
                    losses += t.losses
                    draws += t.draws
        return wins, losses, draws


class MemoryTables(TableSet):
    """Solved classes held in memory (what :func:`solve_in_memory` returns)."""

    def __init__(self, size: int, rulebook: str = "official") -> None:
        super().__init__(size, rulebook)
        self.classes: dict[tuple[int, int], ClassTable] = {}
        self.report: SolveReport | None = None

    def table(self, a: int, b: int) -> ClassTable:
        """The table of class ``(a, b)``."""
        try:
            return self.classes[(a, b)]
        except KeyError:
            raise KeyError(f"class ({a}, {b}) of {self.size}x{self.size} Quixo is not solved here") from None

    def has_class(self, a: int, b: int) -> bool:
        """True if class ``(a, b)`` is solved here."""
        return (a, b) in self.classes


class QuixoTables(TableSet):
    """Solved classes memory-mapped from a folder (default :func:`default_table_dir`).

    Classes are opened on first use: :class:`TablebaseFormatError` if a file is damaged,
    KeyError (naming the command that builds it) if it is missing.
    """

    def __init__(
        self,
        size: int,
        directory: Path | str | None = None,
        verify: bool = True,
        rulebook: str = "official",
    ) -> None:
        super().__init__(size, rulebook)
        self.directory = Path(directory) if directory is not None else default_table_dir(size, rulebook)
        self.verify = verify
        self._classes: dict[tuple[int, int], ClassTable] = {}

    def table(self, a: int, b: int) -> ClassTable:
        """The table of class ``(a, b)``."""
        key = (a, b)
        if key not in self._classes:
            if not self.has_class(a, b):
                blanks = self.rules.cells - a - b
                game = "quixo" if self.rulebook == "official" else f"quixo:rules={self.rulebook}"
                where = solve_dir_flag(self.directory, self.size, self.rulebook)
                how = f"`boardlab solve {game} --size {self.size}{where}`"
                if self.size == 5:
                    how = f"`boardlab solve {game} --size 5 --blanks {blanks}{where}`" + (
                        " (5x5 tables go up to 1 blank)" if blanks > 1 else ""
                    )
                raise KeyError(
                    f"no table for class ({a}, {b}) of {self.size}x{self.size} Quixo in {self.directory}; "
                    f"build it with {how}"
                )
            self._classes[key] = read_table(self.directory, self.size, a, b, self.verify, self.rulebook)
        return self._classes[key]

    def has_class(self, a: int, b: int) -> bool:
        """True if the file of class ``(a, b)`` exists."""
        return (a, b) in self._classes or table_path(self.directory, self.size, a, b).exists()


def _as_class_table(
    size: int, slot: tuple[int, int], codes: np.ndarray, depths: np.ndarray, rulebook: str
) -> ClassTable:
    tally = np.bincount(codes, minlength=4)
    small = depths.max(initial=0) < 256
    return ClassTable(
        size, slot[0], slot[1], pack_values(codes), depths.astype(np.uint8 if small else np.uint16),
        int(tally[WIN_CODE]), int(tally[LOSS_CODE]), int(tally[DRAW_CODE]), rulebook,
    )  # fmt: skip


def _check_request(size: int, min_cubes: int, rulebook: str) -> int:
    cells = rules(size, rulebook).cells
    if not 0 <= min_cubes <= cells:
        raise ValueError(f"min_cubes must be in 0..{cells}, got {min_cubes}")
    return cells


def check_folder(directory: Path, size: int, rulebook: str = "official") -> None:
    """Raise ValueError if ``directory`` holds ``size`` x ``size`` tables of another rulebook.

    A solve there would overwrite them (the file names do not say the rulebook), so it is
    refused before anything is written; the message names a folder to use instead.
    """
    folder = Path(directory)
    found = folder_rulebook(folder, size)
    if found is None or found == rulebook:
        return
    instead = default_table_dir(size, rulebook)
    if instead.resolve() == folder.resolve():
        instead = folder.with_name(f"{folder.name}-{rulebook}")
    raise ValueError(
        f"{folder} holds {size}x{size} tables solved under the {found} rules, not the {rulebook} "
        f"rules; solve into another folder, such as {instead}"
    )


def _drive(
    size: int,
    rulebook: str,
    min_cubes: int,
    existing: Callable[[list[tuple[int, int]]], dict[tuple[int, int], ClassTable] | None],
    keep: Callable[[tuple[int, int], np.ndarray, np.ndarray], ClassTable],
    fuller_of: Callable[[int, dict[tuple[int, int], ClassTable]], Callable[[tuple[int, int]], ClassTable]],
    report: SolveReport,
    progress: Progress | None,
) -> None:
    """Solve the pairs fullest first; ``existing`` skips pairs already done (resume)."""
    cells = rules(size).cells
    pairs = list(class_pairs(size, min_cubes))
    level: dict[int, dict[tuple[int, int], ClassTable]] = {}
    for done, (a, b) in enumerate(pairs, start=1):
        k = a + b
        level.pop(k + 2, None)  # two levels up is never read again
        slots = [(a, b)] if a == b else [(a, b), (b, a)]
        tables = existing(slots)
        if tables is not None:
            report.pairs_loaded += 1
        else:
            fuller: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
            if k < cells:
                lookup = fuller_of(k + 1, level.setdefault(k + 1, {}))
                for sa, sb in slots:
                    t = lookup((sb, sa + 1))
                    fuller[(sb, sa + 1)] = (t.values, t.depths)
            solved = solve_pair(size, a, b, fuller, rulebook)
            tables = {slot: keep(slot, codes, depths) for slot, (codes, depths) in solved.items()}
            report.pairs_solved += 1
        level.setdefault(k, {}).update(tables)
        for slot, table in tables.items():
            report.per_class[slot] = (table.wins, table.losses, table.draws)
            report.wins += table.wins
            report.losses += table.losses
            report.draws += table.draws
        if progress is not None:
            progress(done, len(pairs), (a, b), sum(t.count for t in tables.values()))


def solve(
    size: int,
    directory: Path | str | None = None,
    min_cubes: int = 0,
    progress: Progress | None = None,
    verify: bool = True,
    rulebook: str = "official",
) -> SolveReport:
    """Solve every class with at least ``min_cubes`` cubes and write its table file.

    Tables already in ``directory`` (default :func:`default_table_dir`) are checked and
    reused, so an interrupted solve resumes from the last finished class pair; a damaged
    table is solved again. ``min_cubes = size * size - k`` builds the endgame tables with at
    most k blanks (5x5: 25 is the full board, 24 adds one blank). ``rulebook`` is
    ``"official"`` or ``"course"`` (see the module's docstring).
    """
    _check_request(size, min_cubes, rulebook)
    folder = Path(directory) if directory is not None else default_table_dir(size, rulebook)
    check_folder(folder, size, rulebook)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(f".quixo{size}_*.tmp"):  # left by a solve that was killed mid-write
        stale.unlink(missing_ok=True)
    report = SolveReport(size, folder, min_cubes, rulebook=rulebook)
    started = time.perf_counter()

    def existing(slots: list[tuple[int, int]]) -> dict[tuple[int, int], ClassTable] | None:
        out = {}
        for a, b in slots:
            if not table_path(folder, size, a, b).exists():
                return None
            try:
                out[(a, b)] = read_table(folder, size, a, b, verify, rulebook)
            except TablebaseFormatError:
                return None
        return out

    def keep(slot: tuple[int, int], codes: np.ndarray, depths: np.ndarray) -> ClassTable:
        return write_table(folder, size, slot[0], slot[1], codes, depths, rulebook)

    def fuller_of(
        k: int, loaded: dict[tuple[int, int], ClassTable]
    ) -> Callable[[tuple[int, int]], ClassTable]:
        def lookup(key: tuple[int, int]) -> ClassTable:
            if key not in loaded:
                loaded[key] = read_table(folder, size, key[0], key[1], verify, rulebook)
            return loaded[key]

        return lookup

    _drive(size, rulebook, min_cubes, existing, keep, fuller_of, report, progress)
    report.seconds = time.perf_counter() - started
    return report


def solve_in_memory(
    size: int, min_cubes: int = 0, progress: Progress | None = None, rulebook: str = "official"
) -> MemoryTables:
    """Solve every class with at least ``min_cubes`` cubes, keeping the tables in memory."""
    _check_request(size, min_cubes, rulebook)
    tables = MemoryTables(size, rulebook)
    report = SolveReport(size, None, min_cubes, rulebook=rulebook)
    started = time.perf_counter()

    def keep(slot: tuple[int, int], codes: np.ndarray, depths: np.ndarray) -> ClassTable:
        table = _as_class_table(size, slot, codes, depths, rulebook)
        tables.classes[slot] = table
        return table

    def fuller_of(
        k: int, loaded: dict[tuple[int, int], ClassTable]
    ) -> Callable[[tuple[int, int]], ClassTable]:
        return lambda key: tables.table(*key)

    _drive(size, rulebook, min_cubes, lambda slots: None, keep, fuller_of, report, progress)
    report.seconds = time.perf_counter() - started
    tables.report = report
    return tables
