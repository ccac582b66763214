"""Tic-Tac-Toe: three in a row on a 3 x 3 board, X moves first.

Coordinates as in Quixo: ``x`` is the column (``a``-``c`` from the left), ``y`` the row
(``1``-``3`` from the top). The state words are the cells of the side to move and of its
opponent (cell ``(x, y)`` is bit ``y * 3 + x``); actions 0..8 are the cells.

Move notation: the cell, column letter then row number from the top, e.g. ``b2`` for the
centre; a digit ``1``-``9`` is accepted too, counting the cells row by row from the top-left
(``1`` = ``a1``, ``3`` = ``c1``, ``5`` = ``b2``, ``9`` = ``c3``). Moves print as cells.

Position text: the cells row by row from the top (``X``, ``O``, ``.``; ``/`` between rows is
allowed and ignored), then optionally the side to move and the ply, e.g. ``"X.O/.X./... O 3"``.
The counts must fit X moving first, the side to move must match them, a given ply must equal
the number of stones, and only the player who just moved may have a line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text

from boardlab.games import base
from boardlab.games.base import (
    IllegalMoveError,
    Integer,
    Kernel,
    MoveParseError,
    PositionParseError,
    checked_action,
)
from boardlab.games.tictactoe.layout import CELLS, EVALUATIONS, FULL, SIDE, line_masks

# The compiled kernel (numba) is imported where it is used: naming a game and listing its
# options and evaluations load no compiler.

SYMBOLS = "XO"
BLANK = "."
COLUMNS = "abc"

CELL_TEXT = {-1: BLANK, 0: "X", 1: "O"}
CELL_STYLES = {-1: "dim", 0: "bold red", 1: "bold cyan"}

NOTATION_HELP = (
    "A move is the cell you mark: column letter a-c from the left, then row 1-3 from the top, "
    "e.g. b2 for the centre. A digit 1-9 also works, counting row by row from the top-left "
    "(1 = a1, 3 = c1, 5 = b2, 9 = c3). Three in a row, column or diagonal wins."
)


@dataclass(frozen=True, slots=True)
class Cell:
    """The move that marks the cell in column ``x`` and row ``y`` (0-based, row 0 on top)."""

    x: int
    y: int

    @property
    def index(self) -> int:
        """The action of this move (the cell's bit, ``y * 3 + x``)."""
        return self.y * SIDE + self.x

    def __str__(self) -> str:
        if not (0 <= self.x < SIDE and 0 <= self.y < SIDE):
            return f"Cell({self.x}, {self.y})"
        return f"{COLUMNS[self.x]}{self.y + 1}"

    @classmethod
    def parse(cls, text: str) -> Cell:
        """Read ``b2`` or a digit ``1``-``9``; MoveParseError naming what is accepted."""
        clean = text.strip().lower() if isinstance(text, str) else ""
        if len(clean) == 1 and clean in "123456789":
            return cls.of_index(int(clean) - 1)
        if len(clean) == 2 and clean[0] in COLUMNS and clean[1] in "123":
            return cls(COLUMNS.index(clean[0]), int(clean[1]) - 1)
        raise MoveParseError(
            f"cannot read move {str(text)[:20]!r}: expected a cell like 'b2' (columns a-c, rows 1-3 "
            "from the top) or a digit 1-9 (row by row from the top-left)"
        )

    @classmethod
    def of_index(cls, index: Integer) -> Cell:
        """The move of an action 0..8; IllegalMoveError for anything else."""
        action = checked_action(index, CELLS)
        return cls(action % SIDE, action // SIDE)


ALL_CELLS = tuple(Cell.of_index(i) for i in range(CELLS))


@dataclass(frozen=True)
class TicTacToe(base.Game):
    """Tic-Tac-Toe (no options): three in a row wins, a full board without one is a draw."""

    name: ClassVar[str] = "tictactoe"
    exact_play: ClassVar[tuple[str, ...]] = ("boardlab.games.exact:SmallSolverPlay",)
    display_name: ClassVar[str] = "Tic-Tac-Toe"
    perft_ended_leaves: ClassVar[bool] = False  # published counts: move sequences of exactly n plies
    win_detail: ClassVar[str] = "three in a row"
    draw_detail: ClassVar[str] = "full board"

    @property
    def max_plies(self) -> int:
        """Every move fills a cell."""
        return SIDE * SIDE

    @property
    def notation_help(self) -> str:
        return NOTATION_HELP

    @property
    def state_class(self) -> type[State]:
        return State

    @property
    def evaluations(self) -> tuple[str, ...]:
        return EVALUATIONS  # the kernel's, named without compiling it

    def build_kernel(self) -> Kernel:
        from boardlab.games.tictactoe.kernel import build_kernel  # compiled code: loaded at its first use

        return build_kernel()

    def initial_words(self) -> tuple[int, int]:
        return 0, 0

    # moves ----------------------------------------------------------------------------------

    def move_of(self, action: Integer) -> Cell:
        return Cell.of_index(action)

    def action_of(self, move: Any) -> int:
        if not isinstance(move, Cell) or not (0 <= move.x < SIDE and 0 <= move.y < SIDE):
            raise IllegalMoveError(f"{move!r} is not a Tic-Tac-Toe cell (columns a-c, rows 1-3)")
        return move.index

    def parse_action(self, text: str) -> int:
        return Cell.parse(text).index

    # positions ------------------------------------------------------------------------------

    def position_text(self, state: base.State) -> str:
        cells = _cells(state)
        rows = "/".join(cells[y * SIDE : (y + 1) * SIDE] for y in range(SIDE))
        return f"{rows} {SYMBOLS[state.to_move]} {state.ply}"

    def parse_position(self, text: str) -> State:
        """Read ``CELLS [X|O] [PLY]`` (see the module docstring)."""
        fields = text.split() if isinstance(text, str) else []
        if not 1 <= len(fields) <= 3:
            raise PositionParseError(f"cannot read position {str(text)[:60]!r}: expected 'CELLS [X|O] [PLY]'")
        cells = fields[0].replace("/", "").upper()
        if len(cells) != CELLS or set(cells) - set("XO."):
            raise PositionParseError(
                f"cannot read position {text[:60]!r}: expected 9 cells of 'X', 'O', '.' like 'X.O/.X./...'"
            )
        x_cells = sum(1 << i for i, c in enumerate(cells) if c == "X")
        o_cells = sum(1 << i for i, c in enumerate(cells) if c == "O")
        to_move = _side_from_counts(x_cells, o_cells)
        if len(fields) > 1:
            side = fields[1].upper()
            if side not in SYMBOLS:
                raise PositionParseError(f"side to move must be X or O, got {fields[1][:20]!r}")
            if SYMBOLS.index(side) != to_move:
                raise PositionParseError(
                    f"{side} cannot be to move with {x_cells.bit_count()} X and {o_cells.bit_count()} O "
                    f"(X moves first, so {SYMBOLS[to_move]} is to move)"
                )
        stones = (x_cells | o_cells).bit_count()
        if len(fields) > 2:
            ply = fields[2]
            if not (ply.isascii() and ply.isdigit()) or len(ply) > 9 or int(ply) != stones:
                raise PositionParseError(f"ply must be the number of stones, {stones}, got {ply[:20]!r}")
        return self.from_masks(x_cells, o_cells)

    def from_masks(self, x_cells: int, o_cells: int) -> State:
        """A position from the masks of X's and O's cells; PositionParseError if it cannot arise."""
        from boardlab.games.tictactoe.kernel import has_line  # compiled code: loaded at its first use

        x_cells, o_cells = base.checked_masks("cell masks", x_cells, o_cells)
        if x_cells & o_cells or (x_cells | o_cells) & ~FULL or x_cells < 0 or o_cells < 0:
            raise PositionParseError("cell masks overlap or fall outside the 3 x 3 board")
        to_move = _side_from_counts(x_cells, o_cells)
        me, opp = (x_cells, o_cells) if to_move == 0 else (o_cells, x_cells)
        ctx = self.kernel.ctx
        if has_line(ctx, me):
            raise PositionParseError(
                f"{SYMBOLS[to_move]} is to move but already has three in a row: the game ended before"
            )
        state = self.state(me, opp, to_move, (x_cells | o_cells).bit_count())
        return state  # type: ignore[return-value]

    def board_text(self, state: base.State) -> str:
        cells = _cells(state)
        lines = ["   " + " ".join(COLUMNS)]
        for y in range(SIDE):
            lines.append(f"{y + 1:>2} " + " ".join(cells[y * SIDE : (y + 1) * SIDE]))
        return "\n".join(lines)

    def render(self, state: base.State, last_move: Any = None) -> Text:
        """The board with coordinates: X red, O cyan, the last move in reverse video and a
        winning line underlined."""
        last = _last_cell(last_move)
        line = set(winning_cells(state))
        text = Text()
        text.append("    " + " ".join(COLUMNS) + "\n", style="dim")
        for y, row in enumerate(_board(state)):
            text.append(f"{y + 1:>3} ", style="dim")
            for x, value in enumerate(row):
                style = CELL_STYLES[value]
                if (x, y) in line:
                    style += " underline"
                if (x, y) == last:
                    style += " reverse"
                text.append(CELL_TEXT[value], style=style)
                text.append(" " if x < SIDE - 1 else "")
            if y < SIDE - 1:
                text.append("\n")
        return text

    def json_view(self, state: base.State) -> dict[str, Any]:
        """``cells``: rows from the top of -1 (blank), 0 (X), 1 (O); ``win_line``: the [x, y]
        cells of the winning line(s) once a game is won, else empty."""
        return {
            "size": SIDE,
            "cells": _board(state),
            "symbols": list(SYMBOLS),
            "win_line": [[x, y] for x, y in winning_cells(state)],
        }

    def grid(self, state: base.State) -> list[list[int]]:
        return _board(state)

    def winning_cells(self, state: base.State) -> tuple[tuple[int, int], ...]:
        return tuple(winning_cells(state))

    def move_cells(self, state: base.State, move: Any) -> tuple[tuple[int, int], ...]:
        self.action_of(move)
        return ((move.x, move.y),)


def _side_from_counts(x_cells: int, o_cells: int) -> int:
    nx, no = x_cells.bit_count(), o_cells.bit_count()
    if nx == no:
        return 0
    if nx == no + 1:
        return 1
    raise PositionParseError(
        f"{nx} X and {no} O cannot arise: X moves first, so X has as many stones as O or one more"
    )


def _last_cell(move: Any) -> tuple[int, int] | None:
    if isinstance(move, Cell):
        return move.x, move.y
    if isinstance(move, str):
        try:
            cell = Cell.parse(move)
        except MoveParseError:
            return None
        return cell.x, cell.y
    return None


def _masks(state: base.State) -> tuple[int, int]:
    """(X cells, O cells) of a position."""
    return (state.a, state.b) if state.to_move == 0 else (state.b, state.a)


def _cells(state: base.State) -> str:
    x_cells, o_cells = _masks(state)
    return "".join("X" if x_cells >> i & 1 else "O" if o_cells >> i & 1 else BLANK for i in range(CELLS))


def _board(state: base.State) -> list[list[int]]:
    cells = _cells(state)
    value = {"X": 0, "O": 1, BLANK: -1}
    return [[value[cells[y * SIDE + x]] for x in range(SIDE)] for y in range(SIDE)]


def winning_cells(state: base.State) -> list[tuple[int, int]]:
    """The ``(x, y)`` cells of every complete line on the board, top-left first (none while playing)."""
    bits = 0
    for side in _masks(state):
        for line in line_masks():
            if side & line == line:
                bits |= line
    return [(i % SIDE, i // SIDE) for i in range(CELLS) if bits >> i & 1]


@dataclass(frozen=True)
class State(base.State):
    """An immutable Tic-Tac-Toe position (see :class:`boardlab.games.base.State`)."""

    @property
    def x_cells(self) -> int:
        """Mask of X's cells (bit ``y * 3 + x``)."""
        return _masks(self)[0]

    @property
    def o_cells(self) -> int:
        """Mask of O's cells."""
        return _masks(self)[1]

    def cells(self) -> str:
        """The cells row by row as ``X``, ``O`` and ``.``."""
        return _cells(self)

    def board(self) -> list[list[int]]:
        """Rows of -1 (blank), 0 (X) and 1 (O), row 0 on top."""
        return _board(self)

    def illegal_reason(self, action: int) -> str:
        return f"cell {Cell.of_index(action)} is already taken"


def new_game() -> State:
    """The empty board with X to move."""
    return TicTacToe().initial()  # type: ignore[return-value]
