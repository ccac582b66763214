"""A deliberately naive Connect Four in plain Python, to check the bitboard kernel against.

The board is a list of rows, row 0 at the bottom, each cell 0 (X), 1 (O) or None. Nothing
here is clever: stones fall to the lowest empty cell, and a line is found by walking every
cell in every direction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


@dataclass
class ReferenceGame:
    """A game in progress: the board, the side to move and the winner once there is one."""

    width: int = 7
    height: int = 6
    connect: int = 4
    board: list[list[int | None]] = field(default_factory=list)
    to_move: int = 0
    winner: int | None = None

    def __post_init__(self) -> None:
        if not self.board:
            self.board = [[None] * self.width for _ in range(self.height)]

    def column_height(self, col: int) -> int:
        """Stones in column ``col``."""
        return sum(1 for row in range(self.height) if self.board[row][col] is not None)

    def legal_moves(self) -> list[int]:
        """Columns with room, left to right; none once the game is over."""
        if self.is_over():
            return []
        return [c for c in range(self.width) if self.column_height(c) < self.height]

    def is_full(self) -> bool:
        """True when no cell is empty."""
        return all(cell is not None for row in self.board for cell in row)

    def is_over(self) -> bool:
        """True after a line or on a full board."""
        return self.winner is not None or self.is_full()

    def has_line(self, player: int) -> bool:
        """True if ``player`` has ``connect`` stones in a row somewhere."""
        for row in range(self.height):
            for col in range(self.width):
                for dc, dr in DIRECTIONS:
                    if all(self._cell(col + i * dc, row + i * dr) == player for i in range(self.connect)):
                        return True
        return False

    def _cell(self, col: int, row: int) -> int | None:
        if 0 <= col < self.width and 0 <= row < self.height:
            return self.board[row][col]
        return None

    def play(self, col: int) -> None:
        """Drop a stone of the side to move in column ``col``."""
        assert col in self.legal_moves(), f"column {col} is not legal"
        row = self.column_height(col)
        self.board[row][col] = self.to_move
        if self.has_line(self.to_move):
            self.winner = self.to_move
        self.to_move = 1 - self.to_move

    def rows_top_first(self) -> list[list[int]]:
        """The board as rows of -1 (empty), 0 (X) and 1 (O), the top row first."""
        return [[-1 if cell is None else cell for cell in row] for row in reversed(self.board)]
