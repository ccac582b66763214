"""The compiled rules of the ``rules`` agent (see :mod:`boardlab.agents.rules`): numba code
over the Quixo kernel (:mod:`boardlab.games.quixo.kernel`), a few microseconds per move.

Apart from the agent, so that naming and listing the agents loads no compiler.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.agents.rules_layout import (
    ANY,
    BLOCK,
    COMPLETE,
    CONTEST_ROW,
    EMPTY_ROW,
    GROW_ROW,
    LEAVE_THREAT,
    RULES,
)
from boardlab.games.base import LOSS, ONGOING
from boardlab.games.jit import cached_njit
from boardlab.games.quixo import kernel as qk


@cached_njit(inline="always")
def _popcount(x):  # type: ignore[no-untyped-def]
    count = 0
    while x != 0:
        x &= x - 1
        count += 1
    return count


@cached_njit
def rule_masks(ctx, me, opp, moves, masks):  # type: ignore[no-untyped-def]
    """Write the legal moves into ``moves`` and, for each, the bit set of the rules whose action
    it carries out into ``masks`` (bit ``r`` for rule ``r``); return how many moves there are."""
    n = ctx[1][qk.N_IDX]
    lines = ctx[2]
    count_lines = lines.shape[0]
    own = np.empty(count_lines, np.int64)
    theirs = np.empty(count_lines, np.int64)
    threat = False
    for i in range(count_lines):
        own[i] = _popcount(me & lines[i])
        theirs[i] = _popcount(opp & lines[i])
        if theirs[i] >= n - 1:
            threat = True
    count = qk.gen_moves(ctx, me, opp, moves)
    any_block = False
    for j in range(count):
        after_opp, after_me = qk.play(ctx, me, opp, moves[j])
        mask = np.int64(1) << ANY
        if qk.status(ctx, after_opp, after_me) == LOSS:
            mask |= np.int64(1) << COMPLETE
        blocked = threat
        for i in range(count_lines):
            if _popcount(after_opp & lines[i]) >= n - 1:
                blocked = False
            if i >= 2 * n:
                continue
            column = 1 if i >= n else 0
            mine = _popcount(after_me & lines[i])
            if own[i] == 0 and mine > 0:
                mask |= np.int64(1) << (EMPTY_ROW + column)
            if mine > own[i]:
                if own[i] >= n - 2:
                    mask |= np.int64(1) << (GROW_ROW + column)
                if theirs[i] >= n - 2:
                    mask |= np.int64(1) << (CONTEST_ROW + column)
        if blocked:
            mask |= np.int64(1) << BLOCK
            any_block = True
        masks[j] = mask
    if any_block:
        for j in range(count):
            if masks[j] & (np.int64(1) << BLOCK) == 0:
                masks[j] |= np.int64(1) << LEAVE_THREAT
    return count


@cached_njit
def pick_from_masks(weights, moves, masks, count, u_rule, u_move):  # type: ignore[no-untyped-def]
    """The move chosen by weighted roulette over the active rules (``u_rule``) and a uniform
    draw among the chosen rule's moves (``u_move``), both in [0, 1)."""
    active = np.int64(0)
    for j in range(count):
        active |= masks[j]
    total = 0.0
    for r in range(weights.shape[0]):
        if active >> r & 1:
            total += weights[r]
    if total <= 0.0:
        return moves[min(int(u_move * count), count - 1)]
    target = u_rule * total
    rule = -1
    for r in range(weights.shape[0]):
        if active >> r & 1 and weights[r] > 0.0:
            rule = r
            target -= weights[r]
            if target < 0.0:
                break
    members = 0
    for j in range(count):
        members += masks[j] >> rule & 1
    pick = min(int(u_move * members), members - 1)
    for j in range(count):
        if masks[j] >> rule & 1:
            if pick == 0:
                return moves[j]
            pick -= 1
    return moves[0]


@cached_njit
def choose_move(ctx, me, opp, weights, u_rule, u_move, moves, masks):  # type: ignore[no-untyped-def]
    """The rule player's move in an unfinished position (see :func:`pick_from_masks`)."""
    count = rule_masks(ctx, me, opp, moves, masks)
    return pick_from_masks(weights, moves, masks, count, u_rule, u_move)


@cached_njit
def active_rules(ctx, me, opp):  # type: ignore[no-untyped-def]
    """The bit set of the rules active in a position (0 once the game is over)."""
    if qk.status(ctx, me, opp) != ONGOING:
        return np.int64(0)
    size = ctx[0].shape[0]
    moves = np.empty(size, np.int64)
    masks = np.empty(size, np.int64)
    active = np.int64(0)
    for j in range(rule_masks(ctx, me, opp, moves, masks)):
        active |= masks[j]
    return active


def rule_moves(kernel: Any, me: int, opp: int) -> dict[str, list[int]]:
    """For an unfinished position, each rule's moves (action indices, kernel order); inactive
    rules map to an empty list."""
    moves = np.empty(kernel.num_actions, dtype=np.int64)
    masks = np.empty(kernel.num_actions, dtype=np.int64)
    count = rule_masks(kernel.ctx, np.int64(me), np.int64(opp), moves, masks)
    return {
        name: [int(moves[j]) for j in range(count) if int(masks[j]) >> r & 1] for r, name in enumerate(RULES)
    }


__all__ = ["active_rules", "choose_move", "pick_from_masks", "rule_masks", "rule_moves"]
