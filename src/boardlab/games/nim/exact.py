"""Exact play of Nim: the exhaustive solve of small variants, the closed-form rule for any."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar

from boardlab.core.machine import memory_problem
from boardlab.games.base import Game
from boardlab.games.exact import LOSS, WIN, ExactPlay, ExactPlayError, MoveValue, SmallSolverPlay
from boardlab.games.nim.theory import mover_wins
from boardlab.games.small_solver import DEFAULT_LIMIT

BYTES_PER_POSITION = 250
"""Memory a solved position takes in the small solver's table (a dict of tuples), rounded up."""


MOVES_PER_POSITION_LIMIT = 2
"""A full solve looks at each move of each position (about a million a second): it is refused
beyond this many moves per position of its ``limit`` (4 million moves, a few seconds, by
default), however few the positions (``nim:piles=300-300``: 90,601 positions, 27 million moves)."""


def positions(game: Any) -> int:
    """How many positions the piles of ``game`` can be in."""
    return math.prod(p + 1 for p in game.piles)


def moves(game: Any) -> int:
    """How many moves all the positions of ``game`` have together (what a full solve looks at)."""
    most = game.k or max(game.piles, default=0)
    total = 0
    for i, pile in enumerate(game.piles):
        others = math.prod(p + 1 for j, p in enumerate(game.piles) if j != i)
        total += sum(min(q, most) for q in range(pile + 1)) * others
    return total


class NimSolverPlay(SmallSolverPlay):
    """Nim solved in full: the fastest win and the slowest loss, for variants of at most
    ``limit`` positions."""

    @classmethod
    def check_size(cls, game: Game, limit: int) -> None:
        count = positions(game)
        name = f"Nim {'-'.join(map(str, game.piles))}"  # type: ignore[attr-defined]
        if count > limit:
            raise ExactPlayError(
                f"{name} has {count:,} positions, more than the limit of {limit:,} for a full solve"
            )
        # the cost is known before the solve: refuse it now rather than after minutes of work
        work = moves(game)
        if work > MOVES_PER_POSITION_LIMIT * limit:
            raise ExactPlayError(
                f"{name} has {work:,} moves over its {count:,} positions, more than the "
                f"{MOVES_PER_POSITION_LIMIT * limit:,} a full solve looks at"
            )
        problem = memory_problem(count * BYTES_PER_POSITION, f"a full solve of {name}")
        if problem is not None:
            raise ExactPlayError(problem)


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
        self.check_game(state)
        game: Any = self.game
        out = []
        for action in state.legal_indices():
            take = game.move_of(action)
            after = list(state.piles)
            after[take.pile] -= take.count
            out.append(MoveValue(action, LOSS if mover_wins(after, game.k, game.misere) else WIN))
        return out


__all__ = ["MOVES_PER_POSITION_LIMIT", "NimRule", "NimSolverPlay", "moves", "positions"]
