"""Course-template players that break in every way a student's player has been seen to break.

Used by the reliability tests through specs like ``course:player=<this file>:RaisingPlayer``
(a file path, so that worker processes can load them too). ``BROKEN`` maps each player to a
phrase its forfeit's detail contains. Modules that break while they are imported are written
on demand by :func:`write_module` (importing this file must stay harmless).
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


class LateHangingPlayer:
    """Plays its first two moves at once, then never answers."""

    def __init__(self) -> None:
        self.moves = 0

    def make_move(self, game: Any) -> Any:
        self.moves += 1
        while self.moves > 2:
            time.sleep(0.05)
        return _first_move(game)


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


def _first_move(game: Any) -> tuple[tuple[int, int], int]:
    """A legal course move of ``game``: the first free border cube, pushed in from an end."""
    board = game.get_board()
    me = game.get_current_player()
    for y in range(5):
        for x in range(5):
            if (x in (0, 4) or y in (0, 4)) and board[y, x] in (-1, me):
                return (x, y), (1 if y != 4 else 0)
    raise RuntimeError("no move")


class Boom(BaseException):
    """Not an Exception: slips past ``except Exception``."""


class BaseExceptionPlayer:
    """Raises a BaseException subclass of its own in make_move."""

    def make_move(self, game: Any) -> Any:
        raise Boom("out of the blue")


class FractionalPlayer:
    """Answers a cube with fractional coordinates (truncated, it would be a legal move)."""

    def make_move(self, game: Any) -> Any:
        (x, y), slide = _first_move(game)
        return (x + 0.5, y), slide


class FloatSlidePlayer:
    """Answers a legal cube with the slide as a float."""

    def make_move(self, game: Any) -> Any:
        position, slide = _first_move(game)
        return position, slide + 0.25


class ListPlayer:
    """Answers a list of three numbers instead of ``((x, y), Move)``."""

    def make_move(self, game: Any) -> Any:
        (x, y), slide = _first_move(game)
        return [x, y, slide]


class SwappedPlayer:
    """Answers ``(0, 2)`` pushed in from the LEFT: no move, but ``(2, 0)`` LEFT is legal on an
    empty board (the student took ``x`` for the row)."""

    def make_move(self, game: Any) -> Any:
        return (0, 2), 2


class FiveByFivePlayer:
    """Assumes the template's 5x5 board: reads ``board[4, 4]`` (an IndexError on smaller boards)."""

    def make_move(self, game: Any) -> Any:
        game.get_board()[4, 4]
        return _first_move(game)


class ChattyPlayer:
    """Prints 126 MB in every make_move (1 MB lines), then answers a legal move."""

    def make_move(self, game: Any) -> Any:
        line = "x" * 1_000_000
        for _ in range(126):
            print(line)
        return _first_move(game)


class SleepyConstructorPlayer:
    """Sleeps in its constructor as if it waited for input."""

    def __init__(self) -> None:
        time.sleep(3600)

    def make_move(self, game: Any) -> Any:
        return _first_move(game)


class SpawningConstructorPlayer:
    """Starts a long-lived process in its constructor, then hangs."""

    def __init__(self) -> None:
        import subprocess

        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        time.sleep(3600)

    def make_move(self, game: Any) -> Any:
        return _first_move(game)


BROKEN = {
    "RaisingPlayer": "raised RuntimeError: this player is broken",
    "ExitingPlayer": "called sys.exit(3)",
    "HangingPlayer": "no move within",
    "GarbagePlayer": "answered no legal move in 3 attempts; last: answered 'garbage', not a legal move",
    "DyingPlayer": "process ended (exit code 4)",
    "BaseExceptionPlayer": "raised Boom: out of the blue",
    "FractionalPlayer": "not a legal move (coordinates must be whole numbers",
    "FloatSlidePlayer": "not a legal move (expected Move.TOP/BOTTOM/LEFT/RIGHT or 0-3",
}


BROKEN_ON_BUILD = {
    "SleepyConstructorPlayer": "building SleepyConstructorPlayer took over",
    "SpawningConstructorPlayer": "building SpawningConstructorPlayer took over",
}
"""Players whose constructor breaks, and a phrase of the error each gets before play."""


def spec(name: str, attempts: int = 3, **options: Any) -> str:
    """The agent spec of one of these players."""
    extra = "".join(f",{key}={value}" for key, value in options.items())
    return f"course:player={PATH}:{name},attempts={attempts}{extra}"


BROKEN_ON_IMPORT = {
    "hangs": "import time\n\nwhile True:\n    time.sleep(0.05)\n",
    "spins": "while True:\n    pass\n",
    "exits": "import sys\n\nsys.exit(3)\n",
    "dies": "import os\n\nos._exit(4)\n",
    "raises": "raise RuntimeError('broken at import')\n",
}
"""Module sources that break while imported, by what they do then."""
IMPORT_FAILURES = {
    "hangs": "took over",
    "spins": "took over",
    "exits": "called sys.exit(3)",
    "dies": "its process ended (exit code 4)",
    "raises": "RuntimeError: broken at import",
}
"""A phrase of the error each of them gets."""


def write_module(folder: Path, kind: str) -> Path:
    """A player module in ``folder`` that does ``kind`` (a key of BROKEN_ON_IMPORT) when imported."""
    path = folder / f"player_{kind}_on_import.py"
    path.write_text(BROKEN_ON_IMPORT[kind] + "\n\nclass Player:\n    pass\n")
    return path


def module_spec(path: Path, import_timeout: float = 1.0) -> str:
    """The agent spec of the Player of a module written by :func:`write_module`."""
    return f"course:player={path}:Player,import_timeout={import_timeout:g}"
