"""Hexapawn (Martin Gardner, 1962), a game added to boardlab from outside its package.

Each side has a row of pawns: White on the bottom row, moving up, Black on the top row, moving
down; White moves first. A pawn steps straight forward onto an empty cell, or diagonally forward
onto an opponent's pawn, taking it. A side wins by bringing a pawn to the far row, by taking
every pawn of the opponent, or when the opponent has no move on its turn. There are no draws.
On the 3 x 3 board the second player, Black, wins with perfect play.

Coordinates as in boardlab's other games: columns ``a``.. from the left, rows ``1``.. from the
top, so White starts on the last row. A move is the pawn's cell and its target, ``-`` for a
step and ``x`` for a take: ``a3-a2``, ``b2xa1`` (``a3a2`` is read too).

Position text: the rows from the top (``W``, ``B``, ``.``; ``/`` between rows is allowed and
ignored), then optionally the side to move and the ply, e.g. ``"BBB/.W./W.W B 1"``. Without a
ply the position is taken to be the first with that side to move (ply 0 for White, 1 for
Black); a given ply must fit the side to move (White moves at even plies).

The package registers the game through the ``boardlab.games`` entry point of its
``pyproject.toml``; every boardlab agent, the arena, the trainers and the exact play of small
games then take ``--game hexapawn`` (or ``hexapawn:size=4``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text

from boardlab.core.spec import option
from boardlab.games import base
from boardlab.games.base import IllegalMoveError, Integer, Kernel, MoveParseError, PositionParseError

SYMBOLS = ("W", "B")
BLANK = "."
COLUMNS = "abcde"
ACTIONS_PER_CELL = 6  # the kernel's action layout: cell * 6 + way * 3 + (dx + 1)
STYLES = {-1: "dim", 0: "bold red", 1: "bold cyan"}
MOVE_PATTERN = re.compile(r"^([a-e])([1-5])([-x]?)([a-e])([1-5])$")
DOWN_FLAG = 1 << 62  # the kernel's mark of Black to move, kept in the mover's word


@dataclass(frozen=True, slots=True)
class Step:
    """The move of the pawn on ``(x, y)`` to ``(to_x, to_y)`` (0-based, row 0 on top)."""

    x: int
    y: int
    to_x: int
    to_y: int

    def __str__(self) -> str:
        sign = "-" if self.x == self.to_x else "x"
        return f"{COLUMNS[self.x]}{self.y + 1}{sign}{COLUMNS[self.to_x]}{self.to_y + 1}"

    @classmethod
    def parse(cls, text: str) -> Step:
        """Read ``a3-a2``, ``b2xa1`` or ``a3a2``; MoveParseError naming what is accepted."""
        found = MOVE_PATTERN.match(text.strip().lower()) if isinstance(text, str) else None
        if found is None:
            raise MoveParseError(
                f"cannot read move {str(text)[:20]!r}: expected the pawn's cell and its target, "
                "like 'a3-a2' (a step) or 'b2xa1' (a take)"
            )
        x, y, sign, to_x, to_y = found.groups()
        if sign and (sign == "x") != (x != to_x):
            raise MoveParseError(f"cannot read move {text.strip()[:20]!r}: a step is written '-', a take 'x'")
        return cls(COLUMNS.index(x), int(y) - 1, COLUMNS.index(to_x), int(to_y) - 1)


@dataclass(frozen=True)
class Hexapawn(base.Game):
    """Hexapawn on an ``size`` x ``size`` board (3: Gardner's game; 4 is sometimes called
    Octapawn)."""

    name: ClassVar[str] = "hexapawn"
    display_name: ClassVar[str] = "Hexapawn"
    symbols: ClassVar[tuple[str, str]] = SYMBOLS
    exact_play: ClassVar[tuple[str, ...]] = ("boardlab.games.exact:SmallSolverPlay",)
    win_detail: ClassVar[str] = "a pawn through, every pawn taken or no move left"

    size: int = option(3, "board side (rows and columns)", minimum=3, maximum=5)

    @property
    def title(self) -> str:
        return f"Hexapawn {self.size}x{self.size}"

    @property
    def max_plies(self) -> int:
        """Each pawn steps forward at most ``size - 2`` times before the step that ends the game."""
        return 2 * self.size * (self.size - 2) + 1

    @property
    def notation_help(self) -> str:
        last = self.size
        return (
            f"A move is the pawn's cell and its target: column letter from the left, row 1-{last} "
            f"from the top, '-' for a step and 'x' for a take, e.g. a{last}-a{last - 1} or "
            f"b{last - 1}xa{last - 2}. White starts on row {last} and moves up; a pawn through, "
            "every pawn taken or an opponent with no move wins."
        )

    @property
    def state_class(self) -> type[State]:
        return State

    @property
    def evaluations(self) -> tuple[str, ...]:
        return ("advance",)  # the kernel's, named without compiling it

    def build_kernel(self) -> Kernel:
        from boardlab_hexapawn.kernel import build_kernel  # compiled code: loaded at its first use

        return build_kernel(self.size)

    def initial_words(self) -> tuple[int, int]:
        n = self.size
        row = (1 << n) - 1
        return row << (n * (n - 1)), row  # White (to move) on the bottom row, Black on the top

    # moves ----------------------------------------------------------------------------------

    def move_of(self, action: Integer) -> Step:
        action = base.checked_action(action, self.size * self.size * ACTIONS_PER_CELL)
        cell, way, step = action // ACTIONS_PER_CELL, action // 3 % 2, action % 3
        x, y = cell % self.size, cell // self.size
        return Step(x, y, x + step - 1, y + (1 if way else -1))

    def action_of(self, move: Any) -> int:
        n = self.size
        if (
            not isinstance(move, Step)
            or not all(0 <= v < n for v in (move.x, move.y, move.to_x, move.to_y))
            or abs(move.to_y - move.y) != 1
            or abs(move.to_x - move.x) > 1
        ):
            raise IllegalMoveError(f"{move!r} is not a pawn move on the {n}x{n} board")
        way = 1 if move.to_y > move.y else 0
        return (move.y * n + move.x) * ACTIONS_PER_CELL + way * 3 + move.to_x - move.x + 1

    def parse_action(self, text: str) -> int:
        return self.action_of(Step.parse(text))

    # positions ------------------------------------------------------------------------------

    def position_text(self, state: base.State) -> str:
        cells = _cells(state)
        n = self.size
        rows = "/".join(cells[y * n : (y + 1) * n] for y in range(n))
        return f"{rows} {SYMBOLS[state.to_move]} {state.ply}"

    def parse_position(self, text: str) -> State:
        """Read ``ROWS [W|B] [PLY]`` (see the module docstring)."""
        n = self.size
        fields = text.split() if isinstance(text, str) else []
        if not 1 <= len(fields) <= 3:
            raise PositionParseError(f"cannot read position {str(text)[:60]!r}: expected 'ROWS [W|B] [PLY]'")
        cells = fields[0].replace("/", "").upper()
        if len(cells) != n * n or set(cells) - {"W", "B", BLANK}:
            raise PositionParseError(
                f"cannot read position {text[:60]!r}: expected {n * n} cells of 'W', 'B', '.' "
                f"({n} rows of {n}, '/' between rows allowed)"
            )
        to_move, ply = base.parse_side_and_ply(fields[1:], SYMBOLS)
        if len(fields) < 3:
            ply = to_move
        white = sum(1 << i for i, c in enumerate(cells) if c == "W")
        black = sum(1 << i for i, c in enumerate(cells) if c == "B")
        return self.from_masks(white, black, to_move, ply)

    def from_masks(self, white: int, black: int, to_move: int = 0, ply: int | None = None) -> State:
        """A position from the masks of White's and Black's pawns (bit ``y * size + x``), the side
        to move and the ply (default: the first ply of that side); PositionParseError when it
        cannot arise in a game."""
        n = self.size
        white, black = base.checked_masks("pawn masks", white, black)
        to_move, ply = base.checked_side_and_ply(to_move, to_move if ply is None else ply)
        board = (1 << (n * n)) - 1
        if white & black or (white | black) & ~board or white < 0 or black < 0:
            raise PositionParseError(f"pawn masks overlap or fall outside the {n}x{n} board")
        if white.bit_count() > n or black.bit_count() > n:
            raise PositionParseError(f"each side starts with {n} pawns and never gains one")
        if ply % 2 != to_move:
            raise PositionParseError(
                f"{SYMBOLS[to_move]} moves at {'odd' if to_move else 'even'} plies, not {ply}"
            )
        through = white & ((1 << n) - 1) if to_move == 0 else black >> (n * (n - 1))
        if through:
            raise PositionParseError(
                f"{SYMBOLS[to_move]} is to move but already has a pawn on the far row: the game ended before"
            )
        me, opp = (white, black) if to_move == 0 else (black | DOWN_FLAG, white)
        return self.state(me, opp, to_move, ply)  # type: ignore[return-value]

    def board_text(self, state: base.State) -> str:
        n = self.size
        cells = _cells(state)
        lines = ["   " + " ".join(COLUMNS[:n])]
        for y in range(n):
            lines.append(f"{y + 1:>2} " + " ".join(cells[y * n : (y + 1) * n]))
        return "\n".join(lines)

    def render(self, state: base.State, last_move: Any = None) -> Text:
        """The board with coordinates: White red, Black cyan, the last move's target in
        reverse video."""
        n = self.size
        target = (last_move.to_x, last_move.to_y) if isinstance(last_move, Step) else None
        text = Text()
        text.append("    " + " ".join(COLUMNS[:n]) + "\n", style="dim")
        for y, row in enumerate(_board(state)):
            text.append(f"{y + 1:>3} ", style="dim")
            for x, value in enumerate(row):
                symbol = SYMBOLS[value] if value >= 0 else BLANK
                style = STYLES[value] + (" reverse" if (x, y) == target else "")
                text.append(symbol, style=style)
                text.append(" " if x < n - 1 else "")
            if y < n - 1:
                text.append("\n")
        return text

    def json_view(self, state: base.State) -> dict[str, Any]:
        """``cells``: rows from the top of -1 (empty), 0 (White), 1 (Black)."""
        return {"size": self.size, "cells": _board(state), "symbols": list(SYMBOLS)}

    def grid(self, state: base.State) -> list[list[int]]:
        return _board(state)

    def winning_cells(self, state: base.State) -> tuple[tuple[int, int], ...]:
        """The pawn that went through to the far row, if that is how the game was won."""
        if state.outcome is None or state.outcome.winner is None:
            return ()
        rows, n = _board(state), self.size
        far = 0 if state.outcome.winner == 0 else n - 1
        return tuple((x, far) for x in range(n) if rows[far][x] == state.outcome.winner)

    def move_cells(self, state: base.State, move: Any) -> tuple[tuple[int, int], ...]:
        """The pawn's cell, then its target."""
        self.action_of(move)
        return (move.x, move.y), (move.to_x, move.to_y)


def _masks(state: base.State) -> tuple[int, int]:
    """(White's pawns, Black's pawns) of a position, without the kernel's flag."""
    pawns = DOWN_FLAG - 1
    return (state.a & pawns, state.b) if state.to_move == 0 else (state.b, state.a & pawns)


def _cells(state: base.State) -> str:
    white, black = _masks(state)
    n = state.game.size  # type: ignore[attr-defined]
    return "".join("W" if white >> i & 1 else "B" if black >> i & 1 else BLANK for i in range(n * n))


def _board(state: base.State) -> list[list[int]]:
    n = state.game.size  # type: ignore[attr-defined]
    value = {"W": 0, "B": 1, BLANK: -1}
    cells = _cells(state)
    return [[value[cells[y * n + x]] for x in range(n)] for y in range(n)]


@dataclass(frozen=True)
class State(base.State):
    """An immutable Hexapawn position (see :class:`boardlab.games.base.State`)."""

    def board(self) -> list[list[int]]:
        """Rows of -1 (empty), 0 (White) and 1 (Black), row 0 on top."""
        return _board(self)

    def illegal_reason(self, action: int) -> str:
        step = self.game.move_of(action)
        return f"{step} is not a move of {SYMBOLS[self.to_move]}'s pawns here"
