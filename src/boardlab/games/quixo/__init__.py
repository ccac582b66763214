"""Quixo: the Python face of the engine (positions, moves, notation, symmetries).

Coordinates follow the course template: ``x`` is the column (``a``.. from the left), ``y``
the row (``1``.. from the top). A move names the cube taken and the end of its row or
column where it is pushed back in (:class:`Push`, numbered like the course's ``Move``).

Move notation: the source cell then the insertion cell, e.g. ``a1e1`` takes the top-left
corner and pushes it back in at the right end of the top row; ``c1c5`` takes the middle
of the top row and pushes it in at the bottom of column c.

Position text: the cells row by row from the top (``X`` first player, ``O`` second, ``.``
blank; ``/`` between rows is allowed and ignored), then optionally the side to move (X when
absent) and the ply count, e.g. ``"X...O/...../...../...../..... X 2"``. The side and ply
must fit the cubes as in a game: X moves at even plies and O at odd ones, and each side holds
at least one cube once it has moved and at most one per move it has made. Without a ply the
position is taken to be at the first ply that fits (0 for the empty board with X to move, 3
for the example's board with O to move); the ply matters, as the ply cap counts from it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from rich.text import Text

from boardlab.core.spec import option
from boardlab.games import base
from boardlab.games.base import (
    GameOptionError,
    IllegalMoveError,
    Integer,
    Kernel,
    MoveParseError,
    PositionParseError,
    checked_action,
    checked_symmetry,
)
from boardlab.games.quixo.layout import EVALUATIONS, RULES, insert_cell, move_list

# The compiled kernel (numba) is imported where it is used: naming a game and listing its
# options and evaluations load no compiler.

SIZES = (3, 4, 5)
DEFAULT_PLY_CAP = 200
SYMBOLS = "XO"
BLANK = "."


class Push(enum.IntEnum):
    """The end of its row or column where the taken cube is pushed back in."""

    TOP = 0
    BOTTOM = 1
    LEFT = 2
    RIGHT = 3


def _check_size(size: int) -> None:
    if size not in SIZES:
        raise GameOptionError(f"Quixo board size must be one of {SIZES}, got {size}")


def _cell_name(x: int, y: int) -> str:
    return f"{'abcde'[x]}{y + 1}"


@dataclass(frozen=True, slots=True)
class Move:
    """Take the border cube at ``(x, y)`` and push it back in at end ``push``."""

    x: int
    y: int
    push: Push
    size: int = 5

    @property
    def destination(self) -> tuple[int, int]:
        """The cell where the cube re-enters the board."""
        return insert_cell(self.size, self.x, self.y, int(self.push))

    def __str__(self) -> str:
        return _cell_name(self.x, self.y) + _cell_name(*self.destination)

    @classmethod
    def parse(cls, text: str, size: int = 5) -> Move:
        """Read ``a1e1``-style notation; raise MoveParseError naming what is wrong."""
        _check_size(size)
        clean = text.strip().lower() if isinstance(text, str) else ""
        cells = []
        for part in (clean[0:2], clean[2:4]):
            if (
                len(clean) != 4
                or len(part) != 2
                or part[0] not in "abcde"[:size]
                or part[1] not in "12345"[:size]
            ):
                last = "abcde"[size - 1]
                raise MoveParseError(
                    f"cannot read move {str(text)[:20]!r}: expected source and insertion cells "
                    f"like 'a1{last}1' (columns a-{last}, rows 1-{size})"
                )
            cells.append(("abcde".index(part[0]), int(part[1]) - 1))
        (x, y), (dx, dy) = cells
        if 0 < x < size - 1 and 0 < y < size - 1:
            raise MoveParseError(f"move {text!r}: {_cell_name(x, y)} is not on the border")
        ends = [(push, insert_cell(size, x, y, int(push))) for push in Push]
        ends = [(push, cell) for push, cell in ends if cell != (x, y)]
        for push, cell in ends:
            if cell == (dx, dy):
                return cls(x, y, push, size)
        names = [_cell_name(*cell) for _, cell in ends]
        raise MoveParseError(
            f"move {text!r}: a cube taken at {_cell_name(x, y)} can only be pushed in at "
            f"{', '.join(names[:-1])} or {names[-1]} (an end of its row or column)"
        )

    def transform(self, sym: int) -> Move:
        """This move seen through symmetry ``sym`` (0..7) of the board; ValueError for another ``sym``."""
        maps = _kernel(self.size).action_maps
        image = maps[checked_symmetry(sym, len(maps)), move_index(self)]
        return move_from_index(int(image), self.size)


_MOVES: dict[int, list[Move]] = {}
_MOVE_INDEX: dict[int, dict[Move, int]] = {}


def _kernel(size: int) -> Kernel:
    from boardlab.games.quixo.kernel import kernel  # compiled code: loaded at its first use

    return kernel(size)


def all_moves(size: int = 5) -> list[Move]:
    """Every move shape on the board, in kernel index order."""
    _check_size(size)
    if size not in _MOVES:
        _MOVES[size] = [Move(x, y, Push(e), size) for x, y, e in move_list(size)]
        _MOVE_INDEX[size] = {m: i for i, m in enumerate(_MOVES[size])}
    return _MOVES[size]


def move_index(move: Move) -> int:
    """Kernel index of a move."""
    if not isinstance(move, Move):
        raise IllegalMoveError(f"{move!r} is not a Quixo move")
    all_moves(move.size)
    try:
        return _MOVE_INDEX[move.size][move]
    except KeyError:
        raise IllegalMoveError(f"{move!r} is not a Quixo move on a {move.size}x{move.size} board") from None


def move_from_index(index: Integer, size: int = 5) -> Move:
    """The move with a kernel index; IllegalMoveError for anything but an index of a move."""
    moves = all_moves(size)
    return moves[checked_action(index, len(moves))]


QUIXO_HELP = (
    "A move names the border cube you take, then the cell at the end of its row or column where it "
    "is pushed back in: a1{last}1 takes a1 and pushes it in at {last}1 (row 1 slides left); "
    "{mid}1{mid}{size} takes {mid}1 and pushes it in at {mid}{size} (column {mid} slides up). Take a "
    "blank cube or one of yours, never the opponent's. Columns are letters from the left, rows "
    "numbers from the top. A full line of your symbol wins; completing a line of the opponent's "
    "loses, even with one of yours."
)
"""The help of :attr:`Quixo.notation_help`, its examples filled in for the board's size."""

CELL_TEXT = {-1: BLANK, 0: "X", 1: "O"}
CELL_STYLES = {-1: "dim", 0: "bold red", 1: "bold cyan"}


@dataclass(frozen=True)
class Quixo(base.Game):
    """Quixo on an N x N board under the official or the course rulebook, drawn after ``ply_cap`` plies.

    The rulebooks differ only when a move completes lines of both colours: officially the
    mover loses; the course template's referee gives the game to the owner of the first
    complete line in its scan order (rows from the top, columns from the left, the main
    diagonal, the anti-diagonal), whoever moved.
    """

    name: ClassVar[str] = "quixo"
    exact_play: ClassVar[tuple[str, ...]] = ("boardlab.games.quixo.exact:QuixoTablesPlay",)
    display_name: ClassVar[str] = "Quixo"
    win_detail: ClassVar[str] = "a complete line"

    size: int = option(5, "board side", choices=SIZES)
    ply_cap: int = option(DEFAULT_PLY_CAP, "plies after which the game is a draw", minimum=1, maximum=10**6)
    rules: str = option(
        "official",
        "who wins when a move completes lines of both colours: official (the mover loses) or "
        "course (the first line in the course referee's scan order)",
        choices=RULES,
    )

    @property
    def title(self) -> str:
        rulebook = "" if self.rules == "official" else f" ({self.rules} rules)"
        return f"Quixo {self.size}x{self.size}{rulebook}"

    @property
    def notation_help(self) -> str:
        letters = "abcdefghijklmnopqrstuvwxyz"
        text = QUIXO_HELP.format(last=letters[self.size - 1], mid=letters[self.size // 2], size=self.size)
        if self.rules == "official":
            return text
        return text.replace(
            "completing a line of the opponent's loses, even with one of yours.",
            "a move completing lines of both colours goes to the owner of the first complete line "
            "in the course referee's scan order: rows from the top, columns from the left, then the "
            "diagonals.",
        )

    @property
    def state_class(self) -> type[State]:
        return State

    @property
    def evaluations(self) -> tuple[str, ...]:
        return EVALUATIONS  # the kernel's, named without compiling it

    def build_kernel(self) -> Kernel:
        from boardlab.games.quixo.kernel import kernel  # compiled code: loaded at its first use

        return kernel(self.size, self.rules)

    def initial_words(self) -> tuple[int, int]:
        return 0, 0

    def move_of(self, action: Integer) -> Move:
        return move_from_index(action, self.size)

    def action_of(self, move: Any) -> int:
        if isinstance(move, Move) and move.size != self.size:
            raise IllegalMoveError(f"move {move} is for a {move.size}x{move.size} board")
        return move_index(move)

    def parse_action(self, text: str) -> int:
        return move_index(Move.parse(text, self.size))

    def position_text(self, state: base.State) -> str:
        return f"{_cells(state)} {SYMBOLS[state.to_move]} {state.ply}"

    def parse_position(self, text: str) -> State:
        state = State.from_text(text, self.ply_cap)
        if state.size != self.size:
            raise PositionParseError(f"a {state.size}x{state.size} position cannot be used in {self.title}")
        return self.state(state.a, state.b, state.to_move, state.ply)  # type: ignore[return-value]

    def board_text(self, state: base.State) -> str:
        letters = "abcde"[: self.size]
        cells = _cells(state)
        lines = ["   " + " ".join(letters)]
        for y in range(self.size):
            row = cells[y * self.size : (y + 1) * self.size]
            lines.append(f"{y + 1:>2} " + " ".join(row))
        return "\n".join(lines)

    def render(self, state: base.State, last_move: Any = None) -> Text:
        """The board with coordinates; the last move's cube in reverse video and its line
        underlined, or once the game is won the winning line(s)."""
        rows = _board(state)
        moved = set(self.winning_cells(state)) or _moved_cells(last_move)
        destination = last_move.destination if isinstance(last_move, Move) else None
        text = Text()
        text.append("    " + " ".join("abcde"[: self.size]) + "\n", style="dim")
        for y, row in enumerate(rows):
            text.append(f"{y + 1:>3} ", style="dim")
            for x, value in enumerate(row):
                style = CELL_STYLES[value]
                if (x, y) in moved:
                    style += " underline"
                if (x, y) == destination:
                    style += " reverse"
                text.append(CELL_TEXT[value], style=style)
                text.append(" " if x < self.size - 1 else "")
            if y < self.size - 1:
                text.append("\n")
        return text

    def json_view(self, state: base.State) -> dict[str, Any]:
        return {"size": self.size, "cells": _board(state), "symbols": list(SYMBOLS)}

    def grid(self, state: base.State) -> list[list[int]]:
        return _board(state)

    def winning_cells(self, state: base.State) -> tuple[tuple[int, int], ...]:
        """Every row, column and diagonal of one colour (a move may complete several)."""
        rows, n = _board(state), self.size
        lines = [[(x, y) for x in range(n)] for y in range(n)]
        lines += [[(x, y) for y in range(n)] for x in range(n)]
        lines += [[(i, i) for i in range(n)], [(n - 1 - i, i) for i in range(n)]]
        cells = {cell for line in lines if _held_by_one(rows, line) for cell in line}
        return tuple(sorted(cells, key=lambda c: (c[1], c[0])))

    def move_cells(self, state: base.State, move: Any) -> tuple[tuple[int, int], ...]:
        """The cube taken, then the cell where it goes back in."""
        self.action_of(move)
        return (move.x, move.y), move.destination


def _moved_cells(move: Any) -> set[tuple[int, int]]:
    if not isinstance(move, Move):
        return set()
    (x0, y0), (x1, y1) = (move.x, move.y), move.destination
    xs = range(min(x0, x1), max(x0, x1) + 1)
    ys = range(min(y0, y1), max(y0, y1) + 1)
    return {(x, y) for x in xs for y in ys}


def _masks(state: base.State) -> tuple[int, int]:
    """(X cubes, O cubes) of a position."""
    return (state.a, state.b) if state.to_move == 0 else (state.b, state.a)


def _cells(state: base.State) -> str:
    x_cubes, o_cubes = _masks(state)
    n = state.game.size  # type: ignore[attr-defined]
    return "".join("X" if x_cubes >> i & 1 else "O" if o_cubes >> i & 1 else BLANK for i in range(n * n))


def _held_by_one(rows: list[list[int]], line: list[tuple[int, int]]) -> bool:
    first = rows[line[0][1]][line[0][0]]
    return first >= 0 and all(rows[y][x] == first for x, y in line)


def _board(state: base.State) -> list[list[int]]:
    n = state.game.size  # type: ignore[attr-defined]
    x_cubes, o_cubes = _masks(state)
    return [
        [0 if x_cubes >> (y * n + x) & 1 else 1 if o_cubes >> (y * n + x) & 1 else -1 for x in range(n)]
        for y in range(n)
    ]


# What the cube counts tell of the ply, proved from the rules (the same in both rulebooks):
#
# - A move takes a border cube that is blank or the mover's own, turns it to the mover's
#   symbol and pushes it back in; the push moves other cubes without turning them. So a cube
#   is never turned from X to O, from O to X or back to blank: each side's count of cubes
#   never falls, and only its own move raises it, by at most one.
# - X moves first and the sides take turns (a side always has a move while no line is
#   complete, so nobody passes): X moves at even plies, O at odd ones, and by ply p X has
#   made (p + 1) // 2 moves and O p // 2.
# - A side's first move takes a blank cube (it owns none yet), so a side that has moved
#   holds at least one cube.
#
# Hence at ply p: p is even exactly when X is to move; X holds at most (p + 1) // 2 cubes
# and O at most p // 2 (so at ply 0 the board is empty); X holds a cube once p >= 1 and O
# once p >= 2. From ply 2 on both sides must hold a cube and the upper bounds only loosen,
# so a side and board that fit a ply p >= 2 fit p + 2 too; the empty board (ply 0) and a
# lone X cube with O to move (ply 1) fit no later ply.


_COUNT_RULE = (
    "each side's first move turns a blank cube to its symbol, a later one at most one, "
    "and no cube ever turns back"
)


def _ply_problem(n_x: int, n_o: int, to_move: int, ply: int) -> str | None:
    """Why no game has ``n_x`` X and ``n_o`` O cubes with ``to_move`` to move at ``ply``
    (see the proof above), or None when the counts allow it."""
    if ply % 2 != to_move:
        return f"{SYMBOLS[to_move]} to move at ply {ply}: X moves at even plies and O at odd ones"
    for symbol, cubes, moves in (("X", n_x, (ply + 1) // 2), ("O", n_o, ply // 2)):
        if cubes > moves or (moves and not cubes):
            held = f"{cubes} cube{'' if cubes == 1 else 's'}" if cubes else "no cube"
            made = f"{moves} move{'' if moves == 1 else 's'}"
            return f"{symbol} has {held} at ply {ply}, after {made} of its own: {_COUNT_RULE}"
    return None


def _fitting_ply(n_x: int, n_o: int, to_move: int, size: int, start: int = 0) -> int | None:
    """The first ply from ``start`` on at which ``to_move`` can be to move with these counts,
    or None when there is none."""
    # the first fitting ply, if any, is at most 2 * size**2 + 1 (X: twice the larger count;
    # O: twice its count plus one), and from ply 2 on fitting is kept two plies on (see the
    # proof above): the first candidate from a later start answers for all after it
    last = max(start, 2 * size * size + 1) + 2
    first = start + (start % 2 != to_move)
    return next((p for p in range(first, last, 2) if _ply_problem(n_x, n_o, to_move, p) is None), None)


def _side_and_ply(fields: list[str], n_x: int, n_o: int, size: int) -> tuple[int, int]:
    """The side to move and the ply of a position text's trailing fields, checked against the
    cube counts; a missing side is X, a missing ply the first that fits the side and counts."""
    to_move, ply = base.parse_side_and_ply(fields, SYMBOLS)
    side, other = SYMBOLS[to_move], SYMBOLS[1 - to_move]
    if len(fields) < 2:
        first = _fitting_ply(n_x, n_o, to_move, size)
        if first is not None:
            return to_move, first
        problem = f"{side} cannot be to move with {n_x} X and {n_o} O cubes at any ply: {_COUNT_RULE}"
        ply = to_move
    else:
        found = _ply_problem(n_x, n_o, to_move, ply)
        if found is None:
            return to_move, ply
        problem = found
    fits = []
    for s, symbol in ((to_move, side), (1 - to_move, other)):
        # the nearest fitting ply from the one written on, else an earlier one (ply 0 or 1)
        near = _fitting_ply(n_x, n_o, s, size, max(ply - 1, 0))
        near = _fitting_ply(n_x, n_o, s, size) if near is None else near
        if near is not None:
            fits.append(f"{symbol} {near}")
    advice = f"write {' or '.join(fits)}" if fits else f"no game reaches a board of {n_x} X and {n_o} O cubes"
    raise PositionParseError(f"{problem}; {advice}")


@dataclass(frozen=True)
class State(base.State):
    """An immutable Quixo position (see :class:`boardlab.games.base.State`).

    The state words are the cubes of the side to move and of its opponent; ``x_cubes`` and
    ``o_cubes`` give them by colour (cell ``(x, y)`` is bit ``y * size + x``).
    """

    @classmethod
    def initial(cls, size: int = 5, ply_cap: int = DEFAULT_PLY_CAP, rules: str = "official") -> State:
        """The empty board with X to move."""
        _check_size(size)
        return Quixo(size, ply_cap, rules).initial()  # type: ignore[return-value]

    @classmethod
    def from_masks(
        cls,
        x_cubes: int,
        o_cubes: int,
        to_move: int = 0,
        ply: int = 0,
        size: int = 5,
        ply_cap: int = DEFAULT_PLY_CAP,
        rules: str = "official",
    ) -> State:
        """A position from bit masks (integers); the outcome is computed from the lines on the board.

        The side to move and the ply are taken as given; :meth:`from_text` also checks them
        against the cubes."""
        _check_size(size)
        x_cubes, o_cubes = base.checked_masks("cube masks", x_cubes, o_cubes)
        full = (1 << size * size) - 1
        if x_cubes & o_cubes or (x_cubes | o_cubes) & ~full or x_cubes < 0 or o_cubes < 0:
            raise PositionParseError("cube masks overlap or fall outside the board")
        to_move, ply = base.checked_side_and_ply(to_move, ply)
        me, opp = (x_cubes, o_cubes) if to_move == 0 else (o_cubes, x_cubes)
        return Quixo(size, ply_cap, rules).state(me, opp, to_move, ply)  # type: ignore[return-value]

    @classmethod
    def from_board(
        cls, board: list[list[int]] | np.ndarray, to_move: int = 0, ply: int = 0, rules: str = "official"
    ) -> State:
        """A position from rows of -1 (blank), 0 (X) and 1 (O), row 0 on top."""
        try:
            rows = [list(row) for row in board]
        except TypeError:
            raise PositionParseError(f"board must be rows of cells, got {str(board)[:40]!r}") from None
        size = len(rows)
        if size not in SIZES or any(len(r) != size for r in rows):
            raise PositionParseError(f"board must be square with side in {SIZES}")
        masks = [0, 0]
        for y, row in enumerate(rows):
            for x, value in enumerate(row):
                if value not in (-1, 0, 1) or isinstance(value, bool):
                    raise PositionParseError(f"cell ({x}, {y}) holds {value}; expected -1, 0 or 1")
                if value >= 0:
                    masks[int(value)] |= 1 << (y * size + x)
        return cls.from_masks(masks[0], masks[1], to_move, ply, size, rules=rules)

    @classmethod
    def from_text(cls, text: str, ply_cap: int = DEFAULT_PLY_CAP, rules: str = "official") -> State:
        """Read ``CELLS [X|O] [PLY]`` (see the module docstring)."""
        fields = text.split() if isinstance(text, str) else []
        if not 1 <= len(fields) <= 3:
            raise PositionParseError(f"cannot read position {str(text)[:60]!r}: expected 'CELLS [X|O] [PLY]'")
        cells = fields[0].replace("/", "").upper()
        size = round(len(cells) ** 0.5)
        if size not in SIZES or size * size != len(cells) or set(cells) - set("XO."):
            raise PositionParseError(
                f"cannot read position {text[:60]!r}: cells must be 9, 16 or 25 of 'X', 'O', '.'"
            )
        to_move, ply = _side_and_ply(fields[1:], cells.count("X"), cells.count("O"), size)
        x_cubes = sum(1 << i for i, c in enumerate(cells) if c == "X")
        o_cubes = sum(1 << i for i, c in enumerate(cells) if c == "O")
        return cls.from_masks(x_cubes, o_cubes, to_move, ply, size, ply_cap, rules)

    @property
    def size(self) -> int:
        """The board side."""
        return self.game.size  # type: ignore[attr-defined, no-any-return]

    @property
    def ply_cap(self) -> int:
        """Plies after which the game is a draw."""
        return self.game.ply_cap  # type: ignore[return-value]

    @property
    def x_cubes(self) -> int:
        """Mask of the first player's cubes."""
        return _masks(self)[0]

    @property
    def o_cubes(self) -> int:
        """Mask of the second player's cubes."""
        return _masks(self)[1]

    @property
    def blanks(self) -> int:
        """Number of blank cubes."""
        return self.size * self.size - (self.a | self.b).bit_count()

    def cells(self) -> str:
        """The cells row by row as ``X``, ``O`` and ``.``."""
        return _cells(self)

    def board(self) -> list[list[int]]:
        """Rows of -1 (blank), 0 (X) and 1 (O), row 0 on top."""
        return _board(self)

    def illegal_reason(self, action: int) -> str:
        move = move_from_index(action, self.size)
        return f"move {move}: the cube at {_cell_name(move.x, move.y)} belongs to the opponent"


def new_game(size: int = 5, ply_cap: int = DEFAULT_PLY_CAP) -> State:
    """The starting position of Quixo."""
    return State.initial(size, ply_cap)
