"""Endgame tables for searching agents: exact moves wherever a game's solved tables reach.

A searching agent asks :func:`endgame_for` once per game. It returns an :class:`Endgame`
when solved tables of that game are at hand on this machine, and None otherwise. Today that
means Quixo, under the game's own rulebook:

- 3x3 is solved in memory on first use, in a few milliseconds;
- 4x4 is read from the tables that ``boardlab solve quixo --size 4`` builds;
- on 5x5, the full-board and one-blank tables from ``--size 5 --blanks 1``.

Quixo's blank cubes never come back. So once a game reaches a covered position, every later
position is covered too, and an agent that plays the table's best moves from there plays
perfectly to the end: it wins fastest, loses slowest, and draws when it must.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Endgame:
    """Exact play where a game's tables cover a position.

    ``covers(state)`` is true when the tables hold the position. ``best_actions(state)``
    gives the perfect moves of a covered, ongoing position (at least one).
    """

    title: str
    covers: Callable[[Any], bool]
    best_actions: Callable[[Any], list[int]]


def endgame_for(game: Any, directory: str | None = None) -> Endgame | None:
    """The endgame tables of ``game`` built on this machine, or None when there are none."""
    if getattr(game, "name", None) != "quixo":
        return None
    from boardlab.games.quixo.exact import best_moves, covers, tables_for

    size = int(game.size)
    tables = tables_for(size, directory, str(game.rules))
    cells = size * size
    if not any(tables.has_class(a, cells - a) for a in range(cells + 1)):
        return None  # not even the full-board classes are built
    return Endgame(
        title=f"{size}x{size} Quixo tables ({game.rules} rules)",
        covers=lambda state: covers(state, tables),
        best_actions=lambda state: [m.action for m in best_moves(state, tables)],
    )


__all__ = ["Endgame", "endgame_for"]
