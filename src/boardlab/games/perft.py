"""perft and random playouts for any game, compiled over its kernel.

perft counts the leaves of the game tree to a depth, the classic check of move generation.
Games differ in how they count a game that ends before the depth: as a leaf (``ended=True``,
how Quixo's counts are given: every finished game counted once) or not at all
(``ended=False``, move sequences of exactly ``depth`` plies, how chess and Connect Four
counts are given). Both are iterative with an explicit stack (cached recursive numba
functions are fragile); the compiled functions are built once per kernel.

    perft(game.kernel, *game.initial_words(), depth=5)
    random_playouts(game.kernel, *game.initial_words(), games=1000, max_plies=200, seed=0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.games.base import ONGOING, Kernel, compiled_for
from boardlab.games.jit import cached_njit


@cached_njit
def _no_counter(ctx, a, b):  # type: ignore[no-untyped-def]
    return 0


def build_perft(kernel: Kernel) -> Any:
    """A compiled ``perft(ctx, a, b, depth, ended) -> leaves`` for ``kernel``."""
    status, gen_moves, play = kernel.status, kernel.gen_moves, kernel.play
    counts_without_listing = kernel.count_moves is not None
    count_moves = kernel.count_moves if kernel.count_moves is not None else _no_counter
    num_actions = kernel.num_actions

    @cached_njit
    def perft(ctx, a, b, depth, ended):  # type: ignore[no-untyped-def]
        if status(ctx, a, b) != ONGOING:
            return 1 if ended or depth == 0 else 0
        if depth == 0:
            return 1
        moves = np.empty((depth, num_actions), dtype=np.int64)
        counts = np.zeros(depth, dtype=np.int64)
        cursor = np.zeros(depth, dtype=np.int64)
        stack_a = np.empty(depth, dtype=np.int64)
        stack_b = np.empty(depth, dtype=np.int64)
        scratch = np.empty(num_actions, dtype=np.int64)
        stack_a[0], stack_b[0] = a, b
        counts[0] = gen_moves(ctx, a, b, moves[0])
        total = 0
        level = 0
        while level >= 0:
            if cursor[level] == counts[level]:
                cursor[level] = 0
                level -= 1
                continue
            x, y = play(ctx, stack_a[level], stack_b[level], moves[level, cursor[level]])
            cursor[level] += 1
            if level + 1 == depth:
                total += 1
            elif status(ctx, x, y) != ONGOING:
                total += ended
            elif level + 2 == depth:  # the children are the leaves: count them, do not play them
                if counts_without_listing:
                    total += count_moves(ctx, x, y)
                else:
                    total += gen_moves(ctx, x, y, scratch)
            else:
                level += 1
                stack_a[level], stack_b[level] = x, y
                counts[level] = gen_moves(ctx, x, y, moves[level])
        return total

    return perft


def build_playouts(kernel: Kernel) -> Any:
    """A compiled ``playouts(ctx, a, b, games, max_plies, seed) -> moves played``: uniformly
    random games from ``(a, b)``, each stopped at its end or after ``max_plies``."""
    status, gen_moves, play = kernel.status, kernel.gen_moves, kernel.play
    num_actions = kernel.num_actions

    @cached_njit
    def playouts(ctx, a0, b0, games, max_plies, seed):  # type: ignore[no-untyped-def]
        np.random.seed(seed)
        buf = np.empty(num_actions, dtype=np.int64)
        total = 0
        for _ in range(games):
            a, b = a0, b0
            for _ply in range(max_plies):
                if status(ctx, a, b) != ONGOING:
                    break
                n = gen_moves(ctx, a, b, buf)
                a, b = play(ctx, a, b, buf[np.random.randint(n)])
                total += 1
        return total

    return playouts


def capped_depth(depth: int, ended: bool, plies_left: int | None) -> int | None:
    """The depth to count to when the game's ply cap ends every game ``plies_left`` plies from
    here (None: no cap): a line that reaches the cap is a finished game (a draw), which the
    compiled kernels do not see. None when nothing is counted (every line ends before
    ``depth`` and ended games are not leaves)."""
    if plies_left is None or plies_left >= depth:
        return depth
    return max(plies_left, 0) if ended else None


def perft(
    kernel: Kernel, a: int, b: int, depth: int, ended: bool = True, plies_left: int | None = None
) -> int:
    """Leaves of the game tree of ``kernel`` from ``(a, b)`` to ``depth`` plies; a game that
    ends earlier (by its rules, or by the ply cap ``plies_left`` plies from here: None, no
    cap) is a leaf if ``ended``, else it counts nothing."""
    if depth < 0:
        raise ValueError(f"perft depth must be 0 or more, got {depth}")
    capped = capped_depth(depth, ended, plies_left)
    if capped is None:
        return 0
    depth = capped
    count = compiled_for(kernel, build_perft)(kernel.ctx, np.int64(a), np.int64(b), int(depth), bool(ended))
    return int(count)


def random_playouts(kernel: Kernel, a: int, b: int, games: int, max_plies: int, seed: int) -> int:
    """Moves played in ``games`` random games from ``(a, b)`` (seeded), each stopped at its
    end or after ``max_plies``."""
    playouts = compiled_for(kernel, build_playouts)
    return int(playouts(kernel.ctx, np.int64(a), np.int64(b), int(games), int(max_plies), int(seed)))


__all__ = ["build_perft", "build_playouts", "capped_depth", "perft", "random_playouts"]
