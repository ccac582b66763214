"""Combinatorial ranking of Quixo positions within a cube-count class.

A class ``(a, b)`` holds every board with ``a`` cubes of the side to move, ``b`` of its
opponent and blanks elsewhere on the ``C = n * n`` cells; it has ``C!/(a! b! (C-a-b)!)``
positions. A position ``(me, opp)`` (two cell masks) gets the index

    rank(me) * binom(C - a, b) + rank(pext(opp, free cells))

where ``rank`` is the colexicographic rank of a k-subset (``sum binom(cell_i, i)`` over its
cells in increasing order, i = 1..k), and ``pext`` packs the opponent's cubes into the bits
of the cells that ``me`` leaves free. Colex order of k-subsets is the numeric order of the
masks, so Gosper's next-subset step walks a class in index order.

Everything works a byte at a time through small tables (``RankTables``) so that the same
compiled code serves 3x3, 4x4 and 5x5 boards.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from boardlab.games.jit import cached_njit


class RankTables(NamedTuple):
    """Constant tables for ranking and bit packing on a board of ``cells`` cells."""

    binom: np.ndarray  # int64 [cells + 1, cells + 2]: binom[n, k]
    rank_chunk: np.ndarray  # int32 [chunks, cells + 1, 256]: rank share of one byte
    pop8: np.ndarray  # uint8 [256]
    pext8: np.ndarray  # uint8 [256, 256]: pext8[mask, x]
    pdep8: np.ndarray  # uint8 [256, 256]: pdep8[mask, x]
    rank16: np.ndarray  # int32 [65536]: colex rank of a subset of the cells 0..15
    pop16: np.ndarray  # uint8 [65536]
    scalars: np.ndarray  # int64 [cells, chunks]


def _binomials(cells: int) -> np.ndarray:
    table = np.zeros((cells + 1, cells + 2), dtype=np.int64)
    for n in range(cells + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + (table[n - 1, k] if k <= n - 1 else 0)
    return table


def rank_tables(cells: int) -> RankTables:
    """The tables for boards of ``cells`` cells (9, 16 or 25)."""
    if not 1 <= cells <= 25:
        raise ValueError(f"cells must be in 1..25, got {cells}")
    binom = _binomials(cells)
    chunks = (cells + 7) // 8
    rank_chunk = np.zeros((chunks, cells + 1, 256), dtype=np.int32)
    for k in range(chunks):
        for prior in range(cells + 1):
            for byte in range(256):
                total = 0
                seen = prior
                for bit in range(8):
                    if byte >> bit & 1:
                        seen += 1
                        cell = 8 * k + bit
                        if cell <= cells and seen <= cells + 1:
                            total += binom[cell, seen] if seen <= cell else 0
                rank_chunk[k, prior, byte] = total
    pop8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    pext8 = np.zeros((256, 256), dtype=np.uint8)
    pdep8 = np.zeros((256, 256), dtype=np.uint8)
    for mask in range(256):
        bits = [i for i in range(8) if mask >> i & 1]
        for x in range(256):
            pext8[mask, x] = sum(1 << j for j, i in enumerate(bits) if x >> i & 1)
            pdep8[mask, x] = sum(1 << i for j, i in enumerate(bits) if x >> j & 1)
    low = np.arange(1 << 16, dtype=np.int64)
    rank16 = np.zeros(1 << 16, dtype=np.int64)
    pop16 = np.zeros(1 << 16, dtype=np.int64)
    for half in range(2):
        bytes_of_half = (low >> (8 * half)) & 255
        if half < chunks:
            rank16 += rank_chunk[half, pop16, bytes_of_half]
        pop16 += pop8[bytes_of_half]
    scalars = np.array([cells, chunks], dtype=np.int64)
    return RankTables(
        binom, rank_chunk, pop8, pext8, pdep8, rank16.astype(np.int32), pop16.astype(np.uint8), scalars
    )


def class_size(cells: int, a: int, b: int) -> int:
    """Number of positions with ``a`` cubes of the mover and ``b`` of the opponent."""
    if a < 0 or b < 0 or a + b > cells:
        raise ValueError(f"no class ({a}, {b}) on a board of {cells} cells")
    from math import comb

    return comb(cells, a) * comb(cells - a, b)


@cached_njit(inline="always")
def popcount(x: np.int64, rk: RankTables) -> np.int64:
    """Number of set bits of a mask of at most ``8 * chunks`` bits."""
    total = np.int64(0)
    for k in range(rk.scalars[1]):
        total += np.int64(rk.pop8[(x >> (8 * k)) & 255])
    return total


@cached_njit(inline="always")
def rank(x: np.int64, rk: RankTables) -> np.int64:
    """Colex rank of the subset ``x`` among the subsets of the same size."""
    low = x & 0xFFFF
    total = np.int64(rk.rank16[low])
    seen = np.int64(rk.pop16[low])
    for k in range(2, rk.scalars[1]):
        byte = (x >> (8 * k)) & 255
        total += np.int64(rk.rank_chunk[k, seen, byte])
        seen += np.int64(rk.pop8[byte])
    return total


@cached_njit(inline="always")
def unrank(r: np.int64, k: np.int64, rk: RankTables) -> np.int64:
    """The k-subset with colex rank ``r`` (inverse of :func:`rank`)."""
    out = np.int64(0)
    cell = rk.scalars[0] - 1
    for i in range(k, 0, -1):
        while rk.binom[cell, i] > r:
            cell -= 1
        r -= rk.binom[cell, i]
        out |= np.int64(1) << cell
        cell -= 1
    return out


@cached_njit(inline="always")
def pext(x: np.int64, mask: np.int64, rk: RankTables) -> np.int64:
    """The bits of ``x`` at the set bits of ``mask``, packed to the low end."""
    out = np.int64(0)
    shift = np.int64(0)
    for k in range(rk.scalars[1]):
        mb = (mask >> (8 * k)) & 255
        out |= np.int64(rk.pext8[mb, (x >> (8 * k)) & 255]) << shift
        shift += np.int64(rk.pop8[mb])
    return out


@cached_njit(inline="always")
def pdep(x: np.int64, mask: np.int64, rk: RankTables) -> np.int64:
    """Spread the low bits of ``x`` over the set bits of ``mask`` (inverse of :func:`pext`)."""
    out = np.int64(0)
    for k in range(rk.scalars[1]):
        mb = (mask >> (8 * k)) & 255
        out |= np.int64(rk.pdep8[mb, x & 255]) << (8 * k)
        x >>= np.int64(rk.pop8[mb])
    return out


@cached_njit(inline="always")
def next_subset(x: np.int64) -> np.int64:
    """Gosper's hack: the next larger mask with the same number of bits (x must be > 0)."""
    low = x & -x
    ripple = x + low
    return (((ripple ^ x) >> 2) // low) | ripple


@cached_njit(inline="always")
def index_of(me: np.int64, opp: np.int64, a: np.int64, b: np.int64, rk: RankTables) -> np.int64:
    """Index of ``(me, opp)`` in its class ``(a, b)``."""
    cells = rk.scalars[0]
    full = (np.int64(1) << cells) - 1
    return rank(me, rk) * rk.binom[cells - a, b] + rank(pext(opp, full & ~me, rk), rk)


@cached_njit(inline="always")
def position_of(index: np.int64, a: np.int64, b: np.int64, rk: RankTables) -> tuple[np.int64, np.int64]:
    """The ``(me, opp)`` masks at ``index`` in class ``(a, b)`` (inverse of :func:`index_of`)."""
    cells = rk.scalars[0]
    full = (np.int64(1) << cells) - 1
    per_me = rk.binom[cells - a, b]
    me = unrank(index // per_me, a, rk)
    opp = pdep(unrank(index % per_me, b, rk), full & ~me, rk)
    return me, opp
