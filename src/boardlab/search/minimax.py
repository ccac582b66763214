"""Plain negamax without pruning, depth-limited, counting the nodes it visits.

The textbook algorithm, kept for teaching: run it beside alpha-beta at the same depth to
see how many positions pruning and move ordering save. Generic over games, compiled with
numba, iterative (explicit stack). Finished positions score ``WIN - ply`` for the side that
won (a win as soon as possible, a loss as late as possible) and 0 for a draw; positions at
the depth limit get the game's evaluation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.games.base import DRAW, ONGOING, Kernel, compiled_for
from boardlab.games.jit import cached_njit
from boardlab.search.alphabeta import WIN

INF = 1e18


def build_minimax(kernel: Kernel) -> Any:
    """A compiled ``negamax(ctx, a, b, depth, eval_id) -> (root values, root moves, nodes)``.

    The root's children are all searched to ``depth - 1`` more plies; a root value is for
    the side to move at the root.
    """
    gen_moves = kernel.gen_moves
    play = kernel.play
    status = kernel.status
    evaluate = kernel.evaluate
    num_actions = kernel.num_actions

    @cached_njit
    def leaf_value(ctx, a, b, ply, remaining, eval_id):  # type: ignore[no-untyped-def]
        st = status(ctx, a, b)
        if st == DRAW:
            return 0.0, True
        if st != ONGOING:
            return st * (WIN - ply), True
        if remaining == 0:
            return evaluate(ctx, a, b, eval_id), True
        return 0.0, False

    @cached_njit
    def negamax(ctx, a0, b0, depth, eval_id):  # type: ignore[no-untyped-def]
        size = depth + 1
        moves = np.empty((size, num_actions), dtype=np.int64)
        count = np.zeros(size, dtype=np.int64)
        cursor = np.zeros(size, dtype=np.int64)
        a_at = np.empty(size, dtype=np.int64)
        b_at = np.empty(size, dtype=np.int64)
        best = np.empty(size, dtype=np.float64)
        root_moves = np.empty(num_actions, dtype=np.int64)
        n_root = gen_moves(ctx, a0, b0, root_moves)
        root_values = np.empty(n_root, dtype=np.float64)
        nodes = 1
        for r in range(n_root):
            a_at[1], b_at[1] = play(ctx, a0, b0, root_moves[r])
            nodes += 1
            value, done = leaf_value(ctx, a_at[1], b_at[1], 1, depth - 1, eval_id)
            if done:
                root_values[r] = -value
                continue
            # iterative negamax below the root move, values for the side to move at each ply
            ply = 1
            count[1] = gen_moves(ctx, a_at[1], b_at[1], moves[1])
            cursor[1] = 0
            best[1] = -INF
            while ply >= 1:
                if cursor[ply] == count[ply]:
                    value = best[ply]
                    ply -= 1
                    if ply >= 1 and -value > best[ply]:
                        best[ply] = -value
                    continue
                m = moves[ply, cursor[ply]]
                cursor[ply] += 1
                a, b = play(ctx, a_at[ply], b_at[ply], m)
                nodes += 1
                value, done = leaf_value(ctx, a, b, ply + 1, depth - ply - 1, eval_id)
                if done:
                    if -value > best[ply]:
                        best[ply] = -value
                    continue
                ply += 1
                a_at[ply], b_at[ply] = a, b
                count[ply] = gen_moves(ctx, a, b, moves[ply])
                cursor[ply] = 0
                best[ply] = -INF
            root_values[r] = -value
        return root_values, root_moves[:n_root], nodes

    return negamax


def _build_and_warm(kernel: Kernel) -> Any:
    negamax = build_minimax(kernel)
    negamax(kernel.ctx, np.int64(0), np.int64(0), 1, 0)  # compile now, outside any clock
    return negamax


def compiled_minimax(kernel: Kernel) -> Any:
    """The compiled minimax for a kernel, built (and compiled) once per process."""
    return compiled_for(kernel, _build_and_warm)
