"""What the page draws beside a game's own JSON view: the last move's cells and the winning line.

Each game's :meth:`~boardlab.games.base.Game.json_view` gives its board; the page also marks the
last move and, once a game is won, its winning line(s). Those marks depend on how a game's
moves and boards look, so each game the page draws in its own way has a small function here.
Any other game that gives a grid (:meth:`~boardlab.games.base.Game.grid`) is drawn as that
grid, its moves taken by clicking the cells each names
(:meth:`~boardlab.games.base.Game.move_cells`), the last move's cells marked; a game without
a grid is played through its list of legal moves. Cells are ``[x, y]`` with ``x`` the column
from the left and ``y`` the row from the top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Marks = dict[str, Any]


def _full_lines(rows: list[list[int]]) -> list[list[int]]:
    """The cells of every row, column and diagonal held by one colour (square boards)."""
    size = len(rows)
    lines = [[(x, y) for x in range(size)] for y in range(size)]
    lines += [[(x, y) for y in range(size)] for x in range(size)]
    lines += [[(i, i) for i in range(size)], [(size - 1 - i, i) for i in range(size)]]
    cells: set[tuple[int, int]] = set()
    for line in lines:
        first = rows[line[0][1]][line[0][0]]
        if first >= 0 and all(rows[y][x] == first for x, y in line):
            cells.update(line)
    return [[x, y] for x, y in sorted(cells)]


def _quixo(state: Any, last: Any) -> Marks:
    marks: Marks = {"lines": _full_lines(state.board()) if state.outcome is not None else []}
    if last is not None:
        marks["from"] = [last.x, last.y]
        marks["to"] = list(last.destination)
    return marks


def _connect4(state: Any, last: Any) -> Marks:
    view = state.game.json_view(state)
    marks: Marks = {"lines": view["win_cells"]}
    if last is not None:
        column = int(last.index)
        marks["to"] = [column, state.game.height - view["heights"][column]]
    return marks


def _tictactoe(state: Any, last: Any) -> Marks:
    marks: Marks = {"lines": state.game.json_view(state)["win_line"]}
    if last is not None:
        marks["to"] = [last.x, last.y]
    return marks


def _nim(state: Any, last: Any) -> Marks:
    return {"lines": [], "pile": None if last is None else int(last.pile)}


DRAWN: dict[str, Callable[[Any, Any], Marks]] = {
    "quixo": _quixo,
    "connect4": _connect4,
    "tictactoe": _tictactoe,
    "nim": _nim,
}
"""The games the page draws as boards, with what marks their last move and winning lines."""


def _grid_marks(before: Any, last: Any) -> Marks:
    # the cells the last move was made with: the first as ``from`` where there are two or more
    cells = [list(cell) for cell in before.game.move_cells(before, last)] if last is not None else []
    marks: Marks = {"lines": []}
    if cells:
        marks["to"] = cells[-1]
    if len(cells) > 1:
        marks["from"] = cells[0]
    return marks


def marks(state: Any, last_move: Any, before: Any = None) -> Marks:
    """The last move's cells (``to``, and ``from`` where a piece moved) and the winning lines of
    ``state`` reached by ``last_move`` (None at the start) from ``before``; for a game drawn as
    its grid, the cells ``last_move`` names in ``before``; empty for a game without a drawing."""
    mark = DRAWN.get(state.game.name)
    if mark is not None:
        return mark(state, last_move)
    if before is not None and state.game.grid(state) is not None:
        return _grid_marks(before, last_move)
    return {}


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
