"""The one-ply greedy agent: takes a win at once, never hands one over if it can help it."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.agents.base import Agent
from boardlab.games.base import LOSS, ONGOING, WIN, Kernel, compiled_for

WINS, SAFE, LOSES = 2, 1, 0
"""The kinds of a move :func:`build_greedy_kinds` gives."""


def build_greedy_kinds(kernel: Kernel) -> Any:
    """A compiled ``kinds(ctx, a, b, actions, reply, out) -> n``: the legal actions and for each
    :data:`WINS` (wins at once), :data:`SAFE` or :data:`LOSES` (loses at once, or lets the
    opponent win with its reply; a draw is safe). Compiled, as the replies of every move are
    tried: 16 million plays a move in a Nim of four piles of 1,000."""
    from boardlab.games.jit import cached_njit  # compiled code: numba loaded only when it plays

    gen_moves, play, status = kernel.gen_moves, kernel.play, kernel.status

    @cached_njit
    def kinds(ctx, a, b, actions, reply, out):  # type: ignore[no-untyped-def]
        n = gen_moves(ctx, a, b, actions)
        for i in range(n):
            x, y = play(ctx, a, b, actions[i])
            s = status(ctx, x, y)  # for the opponent, now to move
            out[i] = WINS if s == LOSS else (LOSES if s == WIN else SAFE)
            if s == ONGOING:
                m = gen_moves(ctx, x, y, reply)
                for j in range(m):
                    u, v = play(ctx, x, y, reply[j])
                    if status(ctx, u, v) == LOSS:
                        out[i] = LOSES
                        break
        return n

    return kinds


def classify_moves(kernel: Kernel, me: int, opp: int) -> tuple[list[int], list[int], list[int]]:
    """Split the legal moves into (winning now, safe, losing) for the side to move, each in
    the order the kernel generates them.

    A move is *losing* if it loses at once or lets the opponent win with its next move; a
    move ending the game in a draw is safe.
    """
    actions = np.empty(kernel.num_actions, dtype=np.int64)
    reply = np.empty(kernel.num_actions, dtype=np.int64)
    kinds = np.empty(kernel.num_actions, dtype=np.int64)
    n = compiled_for(kernel, build_greedy_kinds)(
        kernel.ctx, np.int64(me), np.int64(opp), actions, reply, kinds
    )
    found: dict[int, list[int]] = {WINS: [], SAFE: [], LOSES: []}
    for action, kind in zip(actions[:n].tolist(), kinds[:n].tolist(), strict=True):
        found[kind].append(action)
    return found[WINS], found[SAFE], found[LOSES]


class GreedyAgent(Agent):
    """Wins at once if it can; otherwise a random move that gives no immediate win away."""

    name = "greedy"
    summary = "wins at once if it can, avoids handing over an immediate win"

    def prepare(self, game: Any) -> None:
        """Compile the classification of the moves (loaded from the disk cache after the first time)."""
        compiled_for(game.kernel, build_greedy_kinds)

    def choose(self, state: Any) -> Any:
        me, opp = state.words
        wins, safe, losing = classify_moves(state.kernel, me, opp)
        pool = wins or safe or losing
        return state.move_from_index(self.rng.choice(pool))
