"""Connect Four: the Python face of the bitboard engine (options, moves, texts, views).

The game has three options, ``width`` (7), ``height`` (6) and ``connect`` (4, the stones in
a row that win), written as a spec like ``connect4:width=8,height=7``. One bitboard word
holds the board, so ``(height + 1) * width`` may not exceed 64.

Moves are columns. An action is the 0-based column index; the notation (and ``str`` of a
:class:`Column`) is the 1-based column number, ``4`` for the centre of the 7-wide board.

Position texts come in two forms, both read by :meth:`ConnectFour.parse_position`:

- the moves of a game from the empty board, as in the public benchmark sets: ``4453``
  (one digit per move on boards up to 9 columns wide; numbers separated by spaces, like
  ``10 3 4``, on any board);
- the board, written by :meth:`ConnectFour.position_text`: the rows from the top joined by
  ``/`` (``X`` the first player, ``O`` the second, ``.`` empty), then the side to move and
  the ply, e.g. ``......./......./......./......./...O.../...XX.. X 3``.

A board is read only if a game reaches it: stones on stones, X as many as O or one more,
no line of the side to move, a line of the other side only if its last stone made it, and
an order in which the stones can be dropped in turn, X first (searched from the top; on
boards with more than 2**28 combinations of column heights the search stops after
``DROP_ORDER_BUDGET`` steps and reads the board).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from rich.text import Text

from boardlab.core.spec import option
from boardlab.games.base import (
    LOSS,
    Game,
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    Integer,
    Kernel,
    MoveParseError,
    PositionParseError,
    State,
    checked_action,
)
from boardlab.games.connect4.layout import EVALUATIONS, MAX_BITS, bit

# The compiled kernel (numba) is imported where it is used: naming a game and listing its
# options and evaluations load no compiler.

SYMBOLS = "XO"
EMPTY = "."
STONE_STYLES = ("bold red", "bold yellow")
DROP_ORDER_BUDGET = 20_000_000
"""Steps the search for a dropping order may take on boards too large to remember its dead ends."""
NUMBER_WORDS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


class SequenceMoveError(MoveParseError, PositionParseError):
    """A move sequence with a move that is not a column of the board."""


class SequenceIllegalError(IllegalMoveError, PositionParseError):
    """A move sequence that drops a stone into a full column."""


class SequenceOverError(GameOverError, PositionParseError):
    """A move sequence that goes on after the game has ended."""


@dataclass(frozen=True, slots=True)
class Column:
    """A move: drop a stone in the column ``index`` (0 on the left); prints 1-based."""

    index: int

    def __str__(self) -> str:
        return str(self.index + 1)


class ConnectFourState(State):
    """A Connect Four position: ``a`` the stones of the side to move, ``b`` all stones."""

    game: ConnectFour

    @property
    def stones(self) -> tuple[int, int]:
        """Bit masks of X's and O's stones (kernel layout: ``height + 1`` bits per column)."""
        opp = self.a ^ self.b
        return (self.a, opp) if self.to_move == 0 else (opp, self.a)

    def cell(self, col: int, row: int) -> int:
        """-1 (empty), 0 (X) or 1 (O) at column ``col`` and row ``row`` (row 0 at the bottom)."""
        mask = 1 << bit(self.game.width, self.game.height, col, row)
        x, o = self.stones
        return 0 if x & mask else 1 if o & mask else -1

    def board(self) -> list[list[int]]:
        """Rows of -1 (empty), 0 (X) and 1 (O), the top row first."""
        width, height = self.game.width, self.game.height
        return [[self.cell(c, r) for c in range(width)] for r in range(height - 1, -1, -1)]

    def heights(self) -> list[int]:
        """Stones in each column, left to right."""
        h1 = self.game.height + 1
        return [((self.b >> (c * h1)) & ((1 << h1) - 1)).bit_count() for c in range(self.game.width)]

    def illegal_reason(self, action: int) -> str:
        """Why a column cannot be played here."""
        return f"column {action + 1} is full"


@dataclass(frozen=True)
class ConnectFour(Game):
    """Connect Four on a ``width`` x ``height`` board, won by ``connect`` stones in a row."""

    width: int = option(7, "columns of the board", minimum=2, maximum=21)
    height: int = option(6, "rows of the board", minimum=2, maximum=31)
    connect: int = option(4, "stones in a row that win", minimum=2, maximum=31)

    name: ClassVar[str] = "connect4"
    exact_play: ClassVar[tuple[str, ...]] = ("boardlab.games.connect4.exact:ConnectFourSolverPlay",)
    display_name: ClassVar[str] = "Connect Four"
    perft_ended_leaves: ClassVar[bool] = False  # published counts: move sequences of exactly n plies
    draw_detail: ClassVar[str] = "full board"

    def __post_init__(self) -> None:
        super().__post_init__()
        bits = (self.height + 1) * self.width
        if bits > MAX_BITS:
            raise GameOptionError(
                f"connect4: (height + 1) * width must be at most {MAX_BITS} (one bitboard word), "
                f"got ({self.height} + 1) * {self.width} = {bits}"
            )
        if self.connect > max(self.width, self.height):
            raise GameOptionError(
                f"connect4: connect={self.connect} can never be reached on a "
                f"{self.width}x{self.height} board; use at most {max(self.width, self.height)}"
            )

    # metadata ----------------------------------------------------------------------------------

    @property
    def max_plies(self) -> int:
        """Every move fills a cell."""
        return self.width * self.height

    @property
    def title(self) -> str:
        """``Connect Four 7x6``, with the line length when it is not four."""
        size = f"{self.display_name} {self.width}x{self.height}"
        return size if self.connect == 4 else f"{size}, {self.connect} in a row"

    @property
    def win_detail(self) -> str:  # type: ignore[override]
        """``four in a row`` (the line length in words up to ten)."""
        k = self.connect
        return f"{NUMBER_WORDS[k] if k < len(NUMBER_WORDS) else k} in a row"

    @property
    def notation_help(self) -> str:
        """How a move is written (a whole game as moves, ``4453``, is for position inputs)."""
        return f"A move is a column number, 1-{self.width} from the left (e.g. {self.width // 2 + 1})."

    # the kernel --------------------------------------------------------------------------------

    @property
    def evaluations(self) -> tuple[str, ...]:
        return EVALUATIONS  # the kernel's, named without compiling it

    def build_kernel(self) -> Kernel:
        """The compiled rules for this board (see :mod:`boardlab.games.connect4.kernel`)."""
        from boardlab.games.connect4.kernel import build_kernel  # compiled code: loaded at its first use

        return build_kernel(self.width, self.height, self.connect)

    @property
    def state_class(self) -> type[State]:
        """:class:`ConnectFourState`."""
        return ConnectFourState

    def initial_words(self) -> tuple[int, int]:
        """The empty board: no stones for the side to move, no stones at all."""
        return 0, 0

    # moves -------------------------------------------------------------------------------------

    def move_of(self, action: Integer) -> Column:
        """The :class:`Column` of an action (its 0-based index)."""
        return Column(checked_action(action, self.width))

    def action_of(self, move: Any) -> int:
        """The action of a :class:`Column`; IllegalMoveError for anything else or off the board."""
        if not isinstance(move, Column):
            raise IllegalMoveError(f"{move!r} is not a Connect Four move (expected a Column)")
        if not 0 <= move.index < self.width:
            raise IllegalMoveError(f"column {move} is not on a {self.width}-wide board (1-{self.width})")
        return move.index

    def parse_action(self, text: str) -> int:
        """The action of a 1-based column number such as ``4``; MoveParseError otherwise."""
        clean = text.strip() if isinstance(text, str) else ""
        if not (clean.isascii() and clean.isdigit() and len(clean) <= 3) or not 1 <= int(clean) <= self.width:
            raise MoveParseError(f"cannot read move {text!r}: expected a column number 1-{self.width}")
        return int(clean) - 1

    def move_texts(self, text: str) -> list[str]:
        """The moves of a text holding several: separated by blanks or commas, or (on boards up
        to 9 wide) written together, one digit a move, as in ``4453``."""
        moves = super().move_texts(text)
        if self.width > 9:
            return moves
        return [digit for move in moves for digit in (move if move.isascii() and move.isdigit() else [move])]

    # positions ---------------------------------------------------------------------------------

    def position_text(self, state: State) -> str:
        """The board rows from the top joined by ``/``, the side to move and the ply."""
        rows = ["".join(_symbol(v) for v in row) for row in _board(state)]
        return f"{'/'.join(rows)} {SYMBOLS[state.to_move]} {state.ply}"

    def parse_position(self, text: str) -> ConnectFourState:
        """A position from its moves (``4453``) or from :meth:`position_text`'s board form."""
        if not isinstance(text, str) or not text.strip():
            raise PositionParseError(
                "empty position text: give moves like 4453 or a board like '......./.../...X... O 1'"
            )
        if all(ch.isdigit() or ch.isspace() for ch in text) and text.isascii():
            return self.play_moves(text)
        return self._parse_board(text)

    def play_moves(self, moves: str) -> ConnectFourState:
        """The position after a move sequence from the empty board, e.g. ``4453`` or ``10 3 4``.

        Each error names the ply where the sequence went wrong; the errors are both
        PositionParseError and MoveParseError, IllegalMoveError or GameOverError.
        """
        clean = moves.strip()
        tokens = clean.split() if any(ch.isspace() for ch in clean) or self.width > 9 else list(clean)
        state: ConnectFourState = self.initial()  # type: ignore[assignment]
        for ply, token in enumerate(tokens, start=1):
            where = f"move sequence {_short(moves)!r}, ply {ply}"
            if state.is_over:
                raise SequenceOverError(f"{where}: the game is already over ({state.outcome.text()})")  # type: ignore[union-attr]
            try:
                action = self.parse_action(token)
            except MoveParseError:
                raise SequenceMoveError(f"{where}: {token!r} is not a column 1-{self.width}") from None
            if action not in state.legal_indices():
                raise SequenceIllegalError(f"{where}: column {action + 1} is full")
            state = state.play_index(action)
        return state

    def _parse_board(self, text: str) -> ConnectFourState:
        fields = text.split()
        if not 1 <= len(fields) <= 3:
            raise PositionParseError(f"cannot read position {_short(text)!r}: expected 'ROWS [X|O] [PLY]'")
        rows = self._read_rows(fields[0])
        counts = [sum(row.count(s) for row in rows) for s in SYMBOLS]
        to_move = 0 if counts[0] == counts[1] else 1
        if counts[0] - counts[1] not in (0, 1):
            raise PositionParseError(
                f"X has {counts[0]} stones and O {counts[1]}: X moves first, so X has as many stones as O "
                "or one more"
            )
        if len(fields) > 1:
            side = fields[1].upper()
            if side not in SYMBOLS:
                raise PositionParseError(f"side to move must be X or O, got {_short(fields[1])!r}")
            if SYMBOLS.index(side) != to_move:
                raise PositionParseError(
                    f"side to move is {SYMBOLS[to_move]} by the stone counts ({counts[0]} X, {counts[1]} O), "
                    f"not {side}"
                )
        stones = counts[0] + counts[1]
        if len(fields) > 2:
            ply = fields[2]
            if not (ply.isascii() and ply.isdigit()) or int(ply) != stones:
                raise PositionParseError(
                    f"ply must be the number of stones on the board, {stones}; got {_short(ply)!r}"
                )
        masks = [0, 0]
        for top_row, row in enumerate(rows):
            for col, ch in enumerate(row):
                if ch != EMPTY:
                    masks[SYMBOLS.index(ch)] |= 1 << bit(
                        self.width, self.height, col, self.height - 1 - top_row
                    )
        mover, opp = masks[to_move], masks[1 - to_move]
        last_columns = self._last_columns(mover, opp, to_move)
        self._check_drop_order(rows, last_columns)
        return self.state(mover, mover | opp, to_move, stones)  # type: ignore[return-value]

    def _read_rows(self, cells: str) -> list[str]:
        """The rows (top first) of a board text, checked for shape, symbols and gravity."""
        cells = cells.upper()
        rows = (
            cells.split("/")
            if "/" in cells
            else [cells[i : i + self.width] for i in range(0, len(cells), self.width)]
        )
        if len(rows) != self.height or any(len(row) != self.width for row in rows):
            raise PositionParseError(
                f"cannot read board {_short(cells)!r}: expected {self.height} rows of {self.width} cells "
                "joined by '/'"
            )
        wrong = set(cells) - set(SYMBOLS + EMPTY + "/")
        if wrong:
            raise PositionParseError(
                f"board cells must be X, O or '.', got {_short(''.join(sorted(wrong)))!r}"
            )
        for col in range(self.width):
            column = "".join(row[col] for row in reversed(rows))  # bottom first
            if EMPTY + "X" in column or EMPTY + "O" in column:
                raise PositionParseError(f"column {col + 1} has a stone above an empty cell")
        return rows

    def _last_columns(self, mover: int, opp: int, to_move: int) -> int:
        """The columns (a bit mask) whose top stone may have been the last one dropped.

        A finished game has one line, of the player who moved last, made by its last stone:
        on such a board only the columns whose top stone completes every line qualify.
        """
        from boardlab.games.connect4.kernel import has_line  # compiled code: loaded at its first use

        ctx = self.kernel.ctx
        if has_line(ctx, np.int64(mover)):
            raise PositionParseError(
                f"{SYMBOLS[to_move]} is to move but already has {self.connect} in a row, "
                "so the game ended before"
            )
        if not has_line(ctx, np.int64(opp)):
            return (1 << self.width) - 1
        h1 = self.height + 1
        both = mover | opp
        columns = 0
        for col in range(self.width):
            column = (both >> (col * h1)) & ((1 << h1) - 1)
            if column == 0:
                continue
            top = 1 << (col * h1 + column.bit_length() - 1)
            if opp & top and not has_line(ctx, np.int64(opp ^ top)):
                columns |= 1 << col
        if not columns:
            raise PositionParseError(
                f"{SYMBOLS[1 - to_move]} has {self.connect} in a row that no single last stone completed"
            )
        return columns

    def _check_drop_order(self, rows: list[str], last_columns: int) -> None:
        """Refuse a board that no game reaches: its stones cannot be dropped in turn, X first.

        The order is searched from the top (see :func:`kernel.drop_order_exists`); on boards too
        large to search to the end within its budget the board is taken as it is.
        """
        from boardlab.games.connect4.kernel import drop_order_exists  # compiled code: loaded at its first use

        colours = np.zeros(self.width, np.int64)
        heights = np.zeros(self.width, np.int64)
        for col in range(self.width):
            column = [row[col] for row in reversed(rows) if row[col] != EMPTY]
            heights[col] = len(column)
            colours[col] = sum(1 << r for r, ch in enumerate(column) if ch == SYMBOLS[1])
        if drop_order_exists(colours, heights, np.int64(last_columns), DROP_ORDER_BUDGET) == 0:
            raise PositionParseError(
                "no game reaches this board: its stones cannot be dropped in turn, X first, "
                "with each one landing where it lies"
            )

    # views -------------------------------------------------------------------------------------

    def board_text(self, state: State) -> str:
        """The board rows from the top, with the column numbers underneath."""
        cell = len(str(self.width))
        lines = [" ".join(_symbol(v).rjust(cell) for v in row) for row in _board(state)]
        lines.append(" ".join(str(c + 1).rjust(cell) for c in range(self.width)))
        return "\n".join(lines)

    def render(self, state: State, last_move: Any = None) -> Text:
        """The board with red X and yellow O stones; the top stone of ``last_move``'s column
        (a Column, an action or a column number) in reverse, the stones of a winning line
        underlined."""
        cell = len(str(self.width))
        last = self._last_cell(state, last_move)
        won = set(self.winning_cells(state))
        text = Text()
        for top_row, row in enumerate(_board(state)):
            for col, value in enumerate(row):
                if col:
                    text.append(" ")
                style = "dim" if value < 0 else STONE_STYLES[value]
                if (col, top_row) in won:
                    style += " underline"
                if (col, top_row) == last:
                    style += " reverse"
                text.append(_symbol(value).rjust(cell), style=style)
            text.append("\n")
        text.append(" ".join(str(c + 1).rjust(cell) for c in range(self.width)), style="dim")
        return text

    def _last_cell(self, state: State, last_move: Any) -> tuple[int, int] | None:
        """``(col, top_row)`` of the top stone of the last move's column, if there is one."""
        if last_move is None:
            return None
        try:
            if isinstance(last_move, str):
                col = self.parse_action(last_move)
            elif isinstance(last_move, int | np.integer):
                col = self.move_of(int(last_move)).index
            else:
                col = self.action_of(last_move)
        except (MoveParseError, IllegalMoveError):
            return None
        height = _heights(state)[col]
        return (col, self.height - height) if height else None

    def json_view(self, state: State) -> dict[str, Any]:
        """Width, height, line length, the cells (rows top first), heights and winning cells."""
        board = _board(state)
        return {
            "width": self.width,
            "height": self.height,
            "connect": self.connect,
            "cells": ["".join(_symbol(v) for v in row) for row in board],
            "board": board,
            "heights": _heights(state),
            "win_cells": self.win_cells(state),
        }

    def grid(self, state: State) -> list[list[int]]:
        return _board(state)

    def winning_cells(self, state: State) -> tuple[tuple[int, int], ...]:
        return tuple((x, y) for x, y in self.win_cells(state))

    def move_cells(self, state: State, move: Any) -> tuple[tuple[int, int], ...]:
        """The cell where the stone comes to rest."""
        column = self.action_of(move)
        return ((column, self.height - 1 - _heights(state)[column]),)

    def win_cells(self, state: State) -> list[list[int]]:
        """``[col, top_row]`` of the stones in the winning line(s) of a won game, else empty."""
        if state.status != LOSS:
            return []
        winner = state.a ^ state.b  # the player who just moved
        found: set[tuple[int, int]] = set()
        for col in range(self.width):
            for row in range(self.height):
                for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    line = [(col + i * dc, row + i * dr) for i in range(self.connect)]
                    if all(self._holds(winner, c, r) for c, r in line):
                        found.update(line)
        return [[c, self.height - 1 - r] for c, r in sorted(found)]

    def _holds(self, stones: int, col: int, row: int) -> bool:
        if not (0 <= col < self.width and 0 <= row < self.height):
            return False
        return bool(stones >> bit(self.width, self.height, col, row) & 1)


def _board(state: State) -> list[list[int]]:
    return state.board()  # type: ignore[attr-defined, no-any-return]


def _heights(state: State) -> list[int]:
    return state.heights()  # type: ignore[attr-defined, no-any-return]


def _symbol(value: int) -> str:
    return EMPTY if value < 0 else SYMBOLS[value]


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = [
    "Column",
    "ConnectFour",
    "ConnectFourState",
    "SequenceIllegalError",
    "SequenceMoveError",
    "SequenceOverError",
]
