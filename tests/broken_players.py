"""Course-template players that break in every way a student's player has been seen to break.

Used by the reliability tests through specs like ``course:player=<this file>:RaisingPlayer``
(a file path, so that worker processes can load them too). ``BROKEN`` maps each player to a
phrase its forfeit's detail contains.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

PATH = Path(__file__).resolve()


class RaisingPlayer:
    """Raises on its first move."""

    def make_move(self, game: Any) -> Any:
        raise RuntimeError("this player is broken")


class ExitingPlayer:
    """Calls sys.exit(3) in make_move."""

    def make_move(self, game: Any) -> Any:
        sys.exit(3)


class HangingPlayer:
    """Never answers."""

    def make_move(self, game: Any) -> Any:
        while True:
            time.sleep(0.05)


class GarbagePlayer:
    """Answers something that is not a move at all."""

    def make_move(self, game: Any) -> Any:
        return "garbage"


class DyingPlayer:
    """Ends its process at once (os._exit), as a crash in native code would."""

    def make_move(self, game: Any) -> Any:
        os._exit(4)


class SlowPlayer:
    """Answers a legal move, but only after a long sleep."""

    def make_move(self, game: Any) -> Any:
        time.sleep(2.5)
        board = game.get_board()
        me = game.get_current_player()
        for y in range(5):
            for x in range(5):
                if (x in (0, 4) or y in (0, 4)) and board[y, x] in (-1, me):
                    return (x, y), (1 if y != 4 else 0)
        raise RuntimeError("no move")


BROKEN = {
    "RaisingPlayer": "raised RuntimeError: this player is broken",
    "ExitingPlayer": "called sys.exit(3)",
    "HangingPlayer": "no move within",
    "GarbagePlayer": "gave no legal move",
    "DyingPlayer": "process ended (exit code 4)",
}


def spec(name: str, attempts: int = 3) -> str:
    """The agent spec of one of these players."""
    return f"course:player={PATH}:{name},attempts={attempts}"
