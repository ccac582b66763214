"""Exact play of Nim: the exhaustive solve of small variants, the closed-form rule for any."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar

from boardlab.games.base import Game
from boardlab.games.exact import LOSS, WIN, ExactPlay, ExactPlayError, MoveValue, SmallSolverPlay
from boardlab.games.nim.theory import mover_wins
from boardlab.games.small_solver import DEFAULT_LIMIT


def positions(game: Any) -> int:
    """How many positions the piles of ``game`` can be in."""
    return math.prod(p + 1 for p in game.piles)


class NimSolverPlay(SmallSolverPlay):
    """Nim solved in full: the fastest win and the slowest loss, for variants of at most
    ``limit`` positions."""

    @classmethod
    def check_size(cls, game: Game, limit: int) -> None:
        count = positions(game)
        if count > limit:
            raise ExactPlayError(
                f"Nim {'-'.join(map(str, game.piles))} has {count:,} positions, "  # type: ignore[attr-defined]
                f"more than the limit of {limit:,} for a full solve"
            )


class NimRule(ExactPlay):
    """Nim by its closed-form rule (:mod:`boardlab.games.nim.theory`): win or loss of every
    position at once, however large the piles, without the distance to the end."""

    knows_depth: ClassVar[bool] = False
    closed_form: ClassVar[bool] = True
    title = "the nim-sum rule"

    @classmethod
    def open(cls, game: Game, *, tables: Path | str | None = None, limit: int = DEFAULT_LIMIT) -> ExactPlay:
        return cls(game)

    def move_values(self, state: Any) -> list[MoveValue]:
        game: Any = self.game
        out = []
        for action in state.legal_indices():
            take = game.move_of(action)
            after = list(state.piles)
            after[take.pile] -= take.count
            out.append(MoveValue(action, LOSS if mover_wins(after, game.k, game.misere) else WIN))
        return out


__all__ = ["NimRule", "NimSolverPlay", "positions"]
