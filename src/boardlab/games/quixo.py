"""Quixo: the Python face of the engine (positions, moves, notation, symmetries).

Coordinates follow the course template: ``x`` is the column (``a``.. from the left), ``y``
the row (``1``.. from the top). A move names the cube taken and the end of its row or
column where it is pushed back in (:class:`Push`, numbered like the course's ``Move``).

Move notation: the source cell then the insertion cell, e.g. ``a1e1`` takes the top-left
corner and pushes it back in at the right end of the top row; ``c1c5`` takes the middle
of the top row and pushes it in at the bottom of column c.

Position text: the cells row by row from the top (``X`` first player, ``O`` second, ``.``
blank; ``/`` between rows is allowed and ignored), then optionally the side to move and the
ply count, e.g. ``"X...O/...../...../...../..... O 1"``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from boardlab.games import quixo_kernel as qk
from boardlab.games.base import (
    GameOverError,
    IllegalMoveError,
    Kernel,
    MoveParseError,
    PositionParseError,
)

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
        raise ValueError(f"Quixo board size must be one of {SIZES}, got {size}")


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
        return qk.insert_cell(self.size, self.x, self.y, int(self.push))

    def __str__(self) -> str:
        return _cell_name(self.x, self.y) + _cell_name(*self.destination)

    @classmethod
    def parse(cls, text: str, size: int = 5) -> Move:
        """Read ``a1e1``-style notation; raise MoveParseError naming what is wrong."""
        _check_size(size)
        clean = text.strip().lower()
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
                    f"cannot read move {text!r}: expected source and insertion cells "
                    f"like 'a1{last}1' (columns a-{last}, rows 1-{size})"
                )
            cells.append(("abcde".index(part[0]), int(part[1]) - 1))
        (x, y), (dx, dy) = cells
        if 0 < x < size - 1 and 0 < y < size - 1:
            raise MoveParseError(f"move {text!r}: {_cell_name(x, y)} is not on the border")
        for push in Push:
            if qk.insert_cell(size, x, y, int(push)) == (dx, dy) and (dx, dy) != (x, y):
                return cls(x, y, push, size)
        raise MoveParseError(
            f"move {text!r}: a cube taken at {_cell_name(x, y)} can only be pushed in at the "
            "other end of its row or column"
        )

    def transform(self, sym: int) -> Move:
        """This move seen through symmetry ``sym`` (0..7) of the board."""
        index = move_index(self)
        return move_from_index(int(_kernel(self.size).ctx[5][sym, index]), self.size)


_MOVES: dict[int, list[Move]] = {}
_MOVE_INDEX: dict[int, dict[Move, int]] = {}


def _kernel(size: int) -> Kernel:
    return qk.kernel(size)


def all_moves(size: int = 5) -> list[Move]:
    """Every move shape on the board, in kernel index order."""
    _check_size(size)
    if size not in _MOVES:
        _MOVES[size] = [Move(x, y, Push(e), size) for x, y, e in qk.move_list(size)]
        _MOVE_INDEX[size] = {m: i for i, m in enumerate(_MOVES[size])}
    return _MOVES[size]


def move_index(move: Move) -> int:
    """Kernel index of a move."""
    all_moves(move.size)
    try:
        return _MOVE_INDEX[move.size][move]
    except KeyError:
        raise IllegalMoveError(f"{move!r} is not a Quixo move on a {move.size}x{move.size} board") from None


def move_from_index(index: int, size: int = 5) -> Move:
    """The move with a kernel index."""
    return all_moves(size)[index]


@dataclass(frozen=True)
class State:
    """An immutable Quixo position.

    ``x_cubes`` and ``o_cubes`` are bit masks (cell ``(x, y)`` is bit ``y * size + x``) of
    the first and second player's cubes; ``to_move`` is 0 (X) or 1 (O).
    """

    x_cubes: int = 0
    o_cubes: int = 0
    to_move: int = 0
    ply: int = 0
    size: int = 5
    ply_cap: int = DEFAULT_PLY_CAP
    _status: int = field(default=0, repr=False, compare=False)

    @classmethod
    def initial(cls, size: int = 5, ply_cap: int = DEFAULT_PLY_CAP) -> State:
        """The empty board with X to move."""
        _check_size(size)
        if ply_cap < 1:
            raise ValueError(f"ply cap must be at least 1, got {ply_cap}")
        return cls(size=size, ply_cap=ply_cap)

    @classmethod
    def from_masks(
        cls,
        x_cubes: int,
        o_cubes: int,
        to_move: int = 0,
        ply: int = 0,
        size: int = 5,
        ply_cap: int = DEFAULT_PLY_CAP,
    ) -> State:
        """A position from bit masks; the outcome is computed from the lines on the board."""
        _check_size(size)
        full = (1 << size * size) - 1
        if x_cubes & o_cubes or (x_cubes | o_cubes) & ~full or x_cubes < 0 or o_cubes < 0:
            raise PositionParseError("cube masks overlap or fall outside the board")
        if to_move not in (0, 1):
            raise PositionParseError(f"side to move must be 0 or 1, got {to_move}")
        me, opp = (x_cubes, o_cubes) if to_move == 0 else (o_cubes, x_cubes)
        ctx = _kernel(size).ctx
        status = int(qk.status(ctx, np.int64(me), np.int64(opp)))
        return cls(x_cubes, o_cubes, to_move, ply, size, ply_cap, status)

    @classmethod
    def from_board(cls, board: list[list[int]] | np.ndarray, to_move: int = 0, ply: int = 0) -> State:
        """A position from rows of -1 (blank), 0 (X) and 1 (O), row 0 on top."""
        rows = [list(map(int, row)) for row in board]
        size = len(rows)
        if size not in SIZES or any(len(r) != size for r in rows):
            raise PositionParseError(f"board must be square with side in {SIZES}")
        masks = [0, 0]
        for y, row in enumerate(rows):
            for x, value in enumerate(row):
                if value not in (-1, 0, 1):
                    raise PositionParseError(f"cell ({x}, {y}) holds {value}; expected -1, 0 or 1")
                if value >= 0:
                    masks[value] |= 1 << (y * size + x)
        return cls.from_masks(masks[0], masks[1], to_move, ply, size)

    @classmethod
    def from_text(cls, text: str, ply_cap: int = DEFAULT_PLY_CAP) -> State:
        """Read the position text described in the module docstring."""
        fields = text.split()
        if not 1 <= len(fields) <= 3:
            raise PositionParseError(f"cannot read position {text!r}: expected 'CELLS [X|O] [PLY]'")
        cells = fields[0].replace("/", "").upper()
        size = round(len(cells) ** 0.5)
        if size not in SIZES or size * size != len(cells) or set(cells) - set("XO."):
            raise PositionParseError(
                f"cannot read position {text!r}: cells must be 9, 16 or 25 of 'X', 'O', '.'"
            )
        to_move = 0
        if len(fields) > 1:
            side = fields[1].upper()
            if side not in SYMBOLS:
                raise PositionParseError(f"side to move must be X or O, got {fields[1]!r}")
            to_move = SYMBOLS.index(side)
        ply = 0
        if len(fields) > 2:
            if not (fields[2].isascii() and fields[2].isdigit()):
                raise PositionParseError(f"ply must be a non-negative integer, got {fields[2]!r}")
            ply = int(fields[2])
        x_cubes = sum(1 << i for i, c in enumerate(cells) if c == "X")
        o_cubes = sum(1 << i for i, c in enumerate(cells) if c == "O")
        return cls.from_masks(x_cubes, o_cubes, to_move, ply, size, ply_cap)

    def to_text(self) -> str:
        """Position text that :meth:`from_text` reads back."""
        return f"{self.cells()} {SYMBOLS[self.to_move]} {self.ply}"

    def cells(self) -> str:
        """The cells row by row as ``X``, ``O`` and ``.``."""
        out = []
        for i in range(self.size * self.size):
            if self.x_cubes >> i & 1:
                out.append("X")
            elif self.o_cubes >> i & 1:
                out.append("O")
            else:
                out.append(BLANK)
        return "".join(out)

    def board(self) -> list[list[int]]:
        """Rows of -1 (blank), 0 (X) and 1 (O), row 0 on top."""
        n = self.size
        return [
            [
                0 if self.x_cubes >> (y * n + x) & 1 else 1 if self.o_cubes >> (y * n + x) & 1 else -1
                for x in range(n)
            ]
            for y in range(n)
        ]

    def __str__(self) -> str:
        letters = "abcde"[: self.size]
        cells = self.cells()
        lines = ["   " + " ".join(letters)]
        for y in range(self.size):
            row = cells[y * self.size : (y + 1) * self.size]
            lines.append(f"{y + 1:>2} " + " ".join(row))
        return "\n".join(lines)

    @property
    def kernel(self) -> Kernel:
        """The compiled Quixo rules for this board size."""
        return _kernel(self.size)

    @property
    def sides(self) -> tuple[int, int]:
        """``(me, opp)``: the cubes of the side to move and of its opponent."""
        if self.to_move == 0:
            return self.x_cubes, self.o_cubes
        return self.o_cubes, self.x_cubes

    @property
    def is_over(self) -> bool:
        """True once a line is complete or the ply cap is reached."""
        return self._status != 0 or self.ply >= self.ply_cap

    @property
    def winner(self) -> int | None:
        """0 (X) or 1 (O) for a won game; None while playing or for a draw."""
        if self._status == 0:
            return None
        return self.to_move if self._status > 0 else 1 - self.to_move

    @property
    def is_draw(self) -> bool:
        """True for a game ended by the ply cap."""
        return self._status == 0 and self.ply >= self.ply_cap

    @property
    def blanks(self) -> int:
        """Number of blank cubes."""
        return self.size * self.size - (self.x_cubes | self.o_cubes).bit_count()

    @cached_property
    def _legal_indices(self) -> list[int]:
        if self.is_over:
            return []
        opp = self.sides[1]
        table = self.kernel.ctx[0]
        return [m for m in range(table.shape[0]) if not opp & int(table[m, qk.SRC])]

    def legal_moves(self) -> list[Move]:
        """The legal moves in kernel index order; empty once the game is over."""
        moves = all_moves(self.size)
        return [moves[i] for i in self._legal_indices]

    def legal_indices(self) -> list[int]:
        """Kernel indices of the legal moves."""
        return list(self._legal_indices)

    def move_index(self, move: Move) -> int:
        """Kernel index of ``move``."""
        return move_index(move)

    def move_from_index(self, index: int) -> Move:
        """The move with kernel index ``index``."""
        return move_from_index(index, self.size)

    def is_legal(self, move: Move) -> bool:
        """True if ``move`` may be played here."""
        if move.size != self.size or move not in set(all_moves(self.size)):
            return False
        return move_index(move) in self._legal_indices

    def play(self, move: Move | str) -> State:
        """The position after ``move`` (a Move or its notation)."""
        if isinstance(move, str):
            move = self.parse_move(move)
        return self.play_index(self._check_legal(move))

    def play_index(self, index: int) -> State:
        """The position after the move with kernel index ``index`` (must be legal)."""
        if self.is_over:
            raise GameOverError("the game is over; no more moves can be played")
        me, opp = self.sides
        ctx = self.kernel.ctx
        new_me, new_opp = qk.play(ctx, np.int64(me), np.int64(opp), index)
        status = int(qk.status(ctx, new_me, new_opp))
        to_move = 1 - self.to_move
        # new_me belongs to the side now to move
        x_cubes, o_cubes = (int(new_me), int(new_opp)) if to_move == 0 else (int(new_opp), int(new_me))
        return State(x_cubes, o_cubes, to_move, self.ply + 1, self.size, self.ply_cap, status)

    def _check_legal(self, move: Move) -> int:
        if self.is_over:
            raise GameOverError("the game is over; no more moves can be played")
        if move.size != self.size:
            raise IllegalMoveError(f"move {move} is for a {move.size}x{move.size} board")
        index = move_index(move)
        if index not in self._legal_indices:
            raise IllegalMoveError(
                f"move {move}: the cube at {_cell_name(move.x, move.y)} belongs to the opponent"
            )
        return index

    def parse_move(self, text: str) -> Move:
        """A legal move from notation; raises MoveParseError or IllegalMoveError."""
        move = Move.parse(text, self.size)
        self._check_legal(move)
        return move

    def transform(self, sym: int) -> State:
        """This position under symmetry ``sym`` (0..7); results and side to move are kept."""
        if not 0 <= sym < 8:
            raise ValueError(f"symmetry must be in 0..7, got {sym}")
        ctx = self.kernel.ctx
        x_cubes = int(qk.transform(ctx, np.int64(self.x_cubes), sym))
        o_cubes = int(qk.transform(ctx, np.int64(self.o_cubes), sym))
        return State(x_cubes, o_cubes, self.to_move, self.ply, self.size, self.ply_cap, self._status)

    def canonical_key(self) -> int:
        """A key equal for all 8 symmetric images of a position with the same side to move."""
        me, opp = self.sides
        key, _ = qk.canonical(self.kernel.ctx, np.int64(me), np.int64(opp))
        return int(key) << 1 | self.to_move


def new_game(size: int = 5, ply_cap: int = DEFAULT_PLY_CAP) -> State:
    """The starting position of Quixo."""
    return State.initial(size, ply_cap)
