"""What the page draws beside a game's own JSON view: the last move's cells and the winning line.

Each game's :meth:`~boardlab.games.base.Game.json_view` gives its board; the page also marks the
last move and, once a game is won, its winning line(s). Those marks depend on how a game's
moves and boards look, so each drawn game has a small function here (a game without one is
still played on the page, through its list of legal moves). Cells are ``[x, y]`` with ``x``
the column from the left and ``y`` the row from the top.
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


def marks(state: Any, last_move: Any) -> Marks:
    """The last move's cells (``to``, and ``from`` where a piece moved) and the winning lines of
    ``state`` reached by ``last_move`` (None at the start); empty for a game not drawn here."""
    mark = DRAWN.get(state.game.name)
    return {} if mark is None else mark(state, last_move)


def view(state: Any, last_move: Any = None) -> dict[str, Any]:
    """A position as the page reads it: the game's JSON view, its notation help and the marks."""
    outcome = state.outcome
    return {
        **state.to_json(),
        "name": state.game.name,
        "title": state.game.title,
        "symbols": list(state.game.symbols),
        "notation": state.game.notation_help,
        "outcome_text": None if outcome is None else outcome.text(state.game.symbols),
        "marks": marks(state, last_move),
    }


__all__ = ["DRAWN", "marks", "view"]
