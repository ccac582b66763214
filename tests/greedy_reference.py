"""What a greedy fitness opponent may play, found by playing moves on states (tests of the
trainers' compiled greedy opponents: rules_es and neat_quixo)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any


def midgame_states(game: Any, count: int, seed: int) -> Iterator[Any]:
    """Up to ``count`` positions after 6 to 29 random plies (games that ended are skipped)."""
    rng = random.Random(seed)
    for _ in range(count):
        state = game.initial()
        for _ in range(rng.randrange(6, 30)):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        if not state.is_over:
            yield state


def greedy_classes(state: Any) -> tuple[set[int], set[int], set[int]]:
    """The moves that win at once, the safe ones (no reply wins at once) and the rest."""
    wins, safe, rest = set(), set(), set()
    for action in state.legal_indices():
        after = state.play_index(action)
        if after.is_over:
            (wins if after.winner == state.to_move else rest).add(action)
        elif any(after.play_index(reply).winner == after.to_move for reply in after.legal_indices()):
            rest.add(action)
        else:
            safe.add(action)
    return wins, safe, rest
