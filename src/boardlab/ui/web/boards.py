"""What the page draws beside a game's own JSON view: the last move's cells and the winning line.

Each game's :meth:`~boardlab.games.base.Game.json_view` gives its board; the page also marks the
last move's cells (:meth:`~boardlab.games.base.Game.move_cells`) and, once a game is won, the
cells that won it (:meth:`~boardlab.games.base.Game.winning_cells`), on the game's grid
(:meth:`~boardlab.games.base.Game.grid`). The games shipped have drawings of their own in the
page; any other game that gives a grid is drawn as that grid, its moves taken by clicking the
cells each names; a game without a grid is played through its list of legal moves. Cells are
``[x, y]`` with ``x`` the column from the left and ``y`` the row from the top.
"""

from __future__ import annotations

from typing import Any

Marks = dict[str, Any]

DRAWN = ("quixo", "connect4", "tictactoe", "nim")
"""The games the page draws in a way of its own (app.js); any other game is drawn from its grid."""


def _nim_marks(last: Any) -> Marks:
    return {"lines": [], "pile": None if last is None else int(last.pile)}


def marks(state: Any, last_move: Any, before: Any = None) -> Marks:
    """What the page marks on a board's grid: the winning lines of ``state`` (``lines``) and the
    cells ``last_move`` was made with from ``before`` (``to``, and ``from`` where a piece
    moved); Nim's pile of the last move; empty for a game without a grid."""
    game = state.game
    if game.name == "nim":
        return _nim_marks(last_move)
    if game.grid(state) is None:
        return {}
    found: Marks = {"lines": [list(cell) for cell in game.winning_cells(state)]}
    cells: tuple[tuple[int, int], ...] = ()
    if last_move is not None and before is not None:
        cells = game.move_cells(before, last_move)
    if cells:
        found["to"] = list(cells[-1])
    if len(cells) > 1:
        found["from"] = list(cells[0])
    return found


def _grid(state: Any) -> dict[str, Any]:
    # the grid of a game the page has no drawing of its own for, and the cells of its moves
    game = state.game
    grid = None if game.name in DRAWN else game.grid(state)
    if grid is None:
        return {}
    moves = [] if state.is_over else state.legal_moves()
    return {"grid": grid, "move_cells": {str(m): [list(c) for c in game.move_cells(state, m)] for m in moves}}


def view(state: Any, last_move: Any = None, before: Any = None) -> dict[str, Any]:
    """A position as the page reads it: the game's JSON view, its notation help, the marks of
    ``last_move`` (played from ``before``) and, for a game drawn as its grid, the grid and the
    cells of each legal move."""
    outcome = state.outcome
    return {
        **state.to_json(),
        **_grid(state),
        "name": state.game.name,
        "title": state.game.title,
        "symbols": list(state.game.symbols),
        "notation": state.game.notation_help,
        "outcome_text": None if outcome is None else outcome.text(state.game.symbols),
        "marks": marks(state, last_move, before),
    }


__all__ = ["DRAWN", "marks", "view"]
