"""The one-ply greedy agent: takes a win at once, never hands one over if it can help it."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.agents.base import Agent
from boardlab.games.base import LOSS, ONGOING, WIN, Kernel


def classify_moves(kernel: Kernel, me: int, opp: int) -> tuple[list[int], list[int], list[int]]:
    """Split the legal moves into (winning now, safe, losing) for the side to move.

    A move is *losing* if it loses at once or lets the opponent win with its next move; a
    move ending the game in a draw is safe.
    """
    ctx = kernel.ctx
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    reply = np.empty(kernel.num_actions, dtype=np.int64)
    wins, safe, losing = [], [], []
    for m in buf[: kernel.gen_moves(ctx, np.int64(me), np.int64(opp), buf)].tolist():
        a, b = kernel.play(ctx, np.int64(me), np.int64(opp), m)
        result = kernel.status(ctx, a, b)  # for the opponent, now to move
        if result == LOSS:
            wins.append(m)
        elif result == WIN or (result == ONGOING and _opponent_wins_next(kernel, a, b, reply)):
            losing.append(m)
        else:
            safe.append(m)
    return wins, safe, losing


def _opponent_wins_next(kernel: Kernel, me: int, opp: int, buf: np.ndarray) -> bool:
    ctx = kernel.ctx
    for m in buf[: kernel.gen_moves(ctx, me, opp, buf)].tolist():
        a, b = kernel.play(ctx, me, opp, m)
        if kernel.status(ctx, a, b) == LOSS:
            return True
    return False


class GreedyAgent(Agent):
    """Wins at once if it can; otherwise a random move that gives no immediate win away."""

    name = "greedy"
    summary = "wins at once if it can, avoids handing over an immediate win"

    def choose(self, state: Any) -> Any:
        me, opp = state.words
        wins, safe, losing = classify_moves(state.kernel, me, opp)
        pool = wins or safe or losing
        return state.move_from_index(self.rng.choice(pool))
