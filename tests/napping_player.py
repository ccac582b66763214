"""A course-template player that thinks slowly but always plays the same move: the first free
border cube, pushed in from an end, after a short nap. Its games are long enough to be caught
in the middle and as reproducible as any seeded agent's. Used as
``course:player=<this file>:NappingPlayer`` (a file path, so worker processes can load it)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

PATH = Path(__file__).resolve()
NAP_SECONDS = 0.05


class NappingPlayer:
    """Naps, then plays the first legal border cube."""

    def make_move(self, game: Any) -> Any:
        time.sleep(NAP_SECONDS)
        board = game.get_board()
        me = game.get_current_player()
        for y in range(5):
            for x in range(5):
                if (x in (0, 4) or y in (0, 4)) and board[y, x] in (-1, me):
                    return (x, y), (1 if y != 4 else 0)
        raise RuntimeError("no move")


def spec() -> str:
    """The agent spec of the napping player."""
    return f"course:player={PATH}:NappingPlayer"
