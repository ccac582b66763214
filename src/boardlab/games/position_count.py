"""The positions of a game counted compiled, over its kernel: what a full solve of a small game
(:mod:`boardlab.games.small_solver`) would hold, known before the solve is tried.

The count walks every position reachable from a start once, remembering those seen in an
open-addressed hash table of the two state words (grown as it fills), and stops as soon as it
passes its limit. It is built once per kernel (:func:`~boardlab.games.base.compiled_for`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.games.base import ONGOING, Kernel
from boardlab.games.jit import cached_njit

FIRST_SLOTS = 1024
"""Slots of the hash table and of the stack of positions to visit at first (both grow by doubling)."""
EMPTY = np.int64(-(2**63))
"""The first word of an empty slot. A position whose first word is this one is kept apart, in
a flag of its own, so that every position can be counted."""


@cached_njit
def _slot(keys, a, b):  # type: ignore[no-untyped-def]
    """The slot of position ``(a, b)`` (a first word other than EMPTY) in the open-addressed
    table ``keys`` (one row of two words per slot): its own, or the empty one where it goes."""
    mask = np.uint64(keys.shape[0] - 1)
    h = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(b) * np.uint64(0xC2B2AE3D27D4EB4F)
    i = (h ^ (h >> np.uint64(29))) & mask
    while keys[i, 0] != EMPTY and (keys[i, 0] != a or keys[i, 1] != b):
        i = (i + np.uint64(1)) & mask
    return i


@cached_njit
def _grown(keys):  # type: ignore[no-untyped-def]
    """The table twice as large, holding the same positions."""
    grown = np.full((keys.shape[0] * 2, 2), EMPTY, dtype=np.int64)
    for j in range(keys.shape[0]):
        if keys[j, 0] != EMPTY:
            i = _slot(grown, keys[j, 0], keys[j, 1])
            grown[i, 0], grown[i, 1] = keys[j, 0], keys[j, 1]
    return grown


@cached_njit
def _added(keys, a, b, empty_seen):  # type: ignore[no-untyped-def]
    """Whether ``(a, b)`` is new, entered in ``keys`` if so (or in ``empty_seen[0]``, for a
    position whose first word is EMPTY)."""
    if a == EMPTY:
        if empty_seen[0]:
            return False
        empty_seen[0] = True
        return True
    i = _slot(keys, a, b)
    if keys[i, 0] != EMPTY:
        return False
    keys[i, 0], keys[i, 1] = a, b
    return True


def build_position_count(kernel: Kernel) -> Any:
    """A compiled ``count(ctx, a, b, limit) -> positions`` for ``kernel``: the distinct
    positions reachable from ``(a, b)``, the start and the finished ones included, counted up to
    ``limit + 1`` (where it stops)."""
    status, gen_moves, play = kernel.status, kernel.gen_moves, kernel.play
    num_actions = kernel.num_actions

    @cached_njit
    def count(ctx, a, b, limit):  # type: ignore[no-untyped-def]
        keys = np.full((FIRST_SLOTS, 2), EMPTY, dtype=np.int64)
        empty_seen = np.zeros(1, dtype=np.bool_)
        todo = np.empty((FIRST_SLOTS, 2), dtype=np.int64)  # positions seen, their moves not yet played
        moves = np.empty(num_actions, dtype=np.int64)
        _added(keys, a, b, empty_seen)
        todo[0, 0], todo[0, 1] = a, b
        seen, waiting = 1, 1
        while waiting > 0:
            waiting -= 1
            x, y = todo[waiting, 0], todo[waiting, 1]
            if status(ctx, x, y) != ONGOING:
                continue
            for m in range(gen_moves(ctx, x, y, moves)):
                c, d = play(ctx, x, y, moves[m])
                if not _added(keys, c, d, empty_seen):
                    continue
                seen += 1
                if seen > limit:
                    return seen
                if waiting == todo.shape[0]:
                    todo = np.concatenate((todo, np.empty_like(todo)))
                todo[waiting, 0], todo[waiting, 1] = c, d
                waiting += 1
                if 2 * seen > keys.shape[0]:  # half full at most: probes stay short
                    keys = _grown(keys)
        return seen

    return count


__all__ = ["build_position_count"]
