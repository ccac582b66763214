"""A stand-in of the course's Quixo template, written for the tests from its documented facts.

``Move`` names the end where the taken cube is pushed back in; ``from_pos`` is ``(x, y)``
with x the column and y the row; the board is indexed ``board[y, x]`` with -1 blank and 0,
1 the players; player 0 moves first; ``check_winner`` returns the first complete line it
finds scanning rows, columns, then diagonals; ``play`` asks a player again until its move
is accepted. The board here is NumPy-2 safe (int8 holding -1); ``Game(blank_255=True)``
instead keeps a uint8 board holding 255 for blank, as some fixes of the template do.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from copy import deepcopy
from enum import Enum

import numpy as np


class Move(Enum):
    """The end of the row or column where the taken cube is pushed back in."""

    TOP = 0
    BOTTOM = 1
    LEFT = 2
    RIGHT = 3


class Player(ABC):
    """A course player."""

    @abstractmethod
    def make_move(self, game: Game) -> tuple[tuple[int, int], Move]:
        """The cube to take as (x, y) and the end where it goes back in."""


class Game:
    """The course's game: a 5x5 board, two players, the first-found winner."""

    def __init__(self, blank_255: bool = False) -> None:
        dtype = np.uint8 if blank_255 else np.int8
        self.blank = 255 if blank_255 else -1
        self._board = np.full((5, 5), self.blank, dtype=dtype)
        self.current_player_idx = 1
        self.turns = 0
        self.refused = 0

    def get_board(self) -> np.ndarray:
        """A copy of the board, indexed board[y, x]."""
        return deepcopy(self._board)

    def get_current_player(self) -> int:
        """0 or 1."""
        return deepcopy(self.current_player_idx)

    def check_winner(self) -> int:
        """The first complete line found (rows, columns, diagonals); -1 if none."""
        b = self._board
        for y in range(5):
            if b[y, 0] != self.blank and all(b[y, x] == b[y, 0] for x in range(5)):
                return int(b[y, 0])
        for x in range(5):
            if b[0, x] != self.blank and all(b[y, x] == b[0, x] for y in range(5)):
                return int(b[0, x])
        if b[0, 0] != self.blank and all(b[i, i] == b[0, 0] for i in range(5)):
            return int(b[0, 0])
        if b[0, 4] != self.blank and all(b[i, 4 - i] == b[0, 4] for i in range(5)):
            return int(b[0, 4])
        return -1

    def play(self, player1: Player, player2: Player, max_turns: int = 10_000) -> int:
        """Alternate the players until a line appears; a refused move is asked for again."""
        players = [player1, player2]
        winner = -1
        while winner < 0 and self.turns < max_turns:
            self.current_player_idx = (self.current_player_idx + 1) % 2
            ok = False
            while not ok:
                from_pos, slide = players[self.current_player_idx].make_move(self)
                ok = self.__move(from_pos, slide, self.current_player_idx)
                self.refused += not ok
            self.turns += 1
            winner = self.check_winner()
        return winner

    def __move(self, from_pos: tuple[int, int], slide: Move, player_id: int) -> bool:
        x, y = from_pos
        if not (0 <= x < 5 and 0 <= y < 5) or not isinstance(slide, Move):
            return False
        previous = self._board[y, x]
        if not self.__take(x, y, player_id):
            return False
        if not self.__slide(x, y, slide):
            self._board[y, x] = previous
            return False
        return True

    def __take(self, x: int, y: int, player_id: int) -> bool:
        on_border = x in (0, 4) or y in (0, 4)
        mine_or_blank = self._board[y, x] == self.blank or self._board[y, x] == player_id
        if on_border and mine_or_blank:
            self._board[y, x] = player_id
            return True
        return False

    def __slide(self, x: int, y: int, slide: Move) -> bool:
        allowed = {
            Move.TOP: y != 0,
            Move.BOTTOM: y != 4,
            Move.LEFT: x != 0,
            Move.RIGHT: x != 4,
        }
        if not allowed[slide]:
            return False
        piece = self._board[y, x]
        if slide == Move.LEFT:
            for i in range(x, 0, -1):
                self._board[y, i] = self._board[y, i - 1]
            self._board[y, 0] = piece
        elif slide == Move.RIGHT:
            for i in range(x, 4):
                self._board[y, i] = self._board[y, i + 1]
            self._board[y, 4] = piece
        elif slide == Move.TOP:
            for i in range(y, 0, -1):
                self._board[i, x] = self._board[i - 1, x]
            self._board[0, x] = piece
        else:
            for i in range(y, 4):
                self._board[i, x] = self._board[i + 1, x]
            self._board[4, x] = piece
        return True


class RandomPlayer(Player):
    """The course's example student: any cube, any direction, asked again when refused."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def make_move(self, game: Game) -> tuple[tuple[int, int], Move]:
        from_pos = (self.rng.randint(0, 4), self.rng.randint(0, 4))
        return from_pos, self.rng.choice([Move.TOP, Move.BOTTOM, Move.LEFT, Move.RIGHT])


class FirstLegalPlayer(Player):
    """A student that reads the board and takes the first legal move, scanning (x, y) in order.

    It checks legality on a copy of the game with the template's private ``__move``, as
    many students did.
    """

    def make_move(self, game: Game) -> tuple[tuple[int, int], Move]:
        me = game.get_current_player()
        for y in range(5):
            for x in range(5):
                for slide in Move:
                    trial = deepcopy(game)
                    if trial._Game__move((x, y), slide, me):
                        return (x, y), slide
        raise RuntimeError("no legal move")


class StubbornPlayer(Player):
    """A student that always answers the same move (the centre cube: never legal)."""

    def make_move(self, game: Game) -> tuple[tuple[int, int], Move]:
        return (2, 2), Move.TOP
