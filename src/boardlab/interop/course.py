"""The course's Quixo template, both ways round.

The template students use has a ``Move`` enum (TOP=0, BOTTOM=1, LEFT=2, RIGHT=3: the end of
the row or column where the taken cube is pushed back in), players with
``make_move(game) -> ((x, y), Move)`` where ``x`` is the column and ``y`` the row, and a
``Game`` whose ``get_board()`` is a 5x5 array indexed ``board[y, x]`` holding -1 for a blank
cube and 0 or 1 for the players' cubes, and whose ``get_current_player()`` says 0 or 1.

- :class:`CourseAgentPlayer` (or :func:`as_course_player`) dresses a boardlab agent as a
  course Player, so it can play inside the course's own ``Game.play`` loop.
- :class:`CoursePlayerAgent` (spec ``course:player=package.module:ClassName``) dresses a
  course Player as a boardlab agent, so student agents can enter boardlab matches.

A student's module may do anything while it is imported: play a game, wait for input, loop
forever, call ``sys.exit``. So the main process first imports it in a child process under a
time limit (``import_timeout``, 30 s by default), and only a module that imports cleanly there
is imported in the main process; one that hangs, fails or exits is refused with a one-line
error. Worker processes import it directly: the arena's referee already times their set-up.

Coordinates are the same on both sides: boardlab's Quixo also uses ``x`` for the column and
``y`` for the row, and :class:`~boardlab.games.quixo.Push` numbers the ends like ``Move``.
"""

from __future__ import annotations

import ast
import contextlib
import enum
import functools
import importlib
import importlib.util
import inspect
import io
import multiprocessing
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError, make_agent
from boardlab.core.console import counted
from boardlab.core.processes import ProcessStartError, describe_exit, end_group, worker_context
from boardlab.core.spec import option, shorten, shortened_in_the_middle
from boardlab.games.base import GameError, IllegalMoveError
from boardlab.games.quixo import SIZES, Move, Push, Quixo, State, all_moves
from boardlab.play.referee import (
    MAX_FORFEIT_DETAIL,
    SETUP_TIMEOUT,
    AgentForfeit,
    describe_failure,
    shown_move,
    start_child,
)
from boardlab.play.session import Session

__all__ = [
    "CourseAgentPlayer",
    "CourseGameView",
    "CourseInteropError",
    "CourseMove",
    "CourseMoveError",
    "CoursePlayerAgent",
    "as_course_player",
    "check_import",
    "check_player_path",
    "course_check_winner",
    "course_move_enum_of",
    "course_take_and_slide",
    "from_course_move",
    "load_course_player",
    "read_board",
    "read_slide",
    "state_from_course_game",
    "to_course_move",
]

CourseMove = Push
"""The enum returned when the caller gives no ``move_enum``: same names and values as the course's."""

BLANK = -1
IMPORT_TIMEOUT = 30.0
"""Seconds a player's module may take to import, by default."""
MAX_IMPORT_TIMEOUT = 3600.0
MAX_OUTPUT = 64 * 1024
"""Characters of a course player's output kept (and shown with ``output=show``); the rest is counted."""
COURSE_PLY_CAP = 10**6
"""The course's ``Game`` has no ply cap: the game the agent is shown has the largest one boardlab takes."""


class CourseInteropError(GameError):
    """A course game or player handed over something that cannot be read."""


class CourseMoveError(AgentForfeit, IllegalMoveError):
    """A course player gave no acceptable move within its allowed attempts: a forfeit whose
    ``detail`` says what it answered last and why that was refused."""


class CourseGame(Protocol):
    """What a course Player may ask of the game it is given."""

    def get_board(self) -> np.ndarray:
        """The board, indexed ``board[y, x]``; -1 (or 255 in a uint8 board) blank, 0 or 1."""
        ...

    def get_current_player(self) -> int:
        """0 or 1: the player about to move."""
        ...


class CoursePlayer(Protocol):
    """A course-template player."""

    def make_move(self, game: Any) -> tuple[tuple[int, int], Any]:
        """The cube to take as ``(x, y)`` and the end where it is pushed back in."""
        ...


# --- reading and writing the course's board and moves ------------------------------------


def read_board(board: Any) -> np.ndarray:
    """A course board as an int8 array of -1 (blank), 0 and 1, indexed ``[y, x]``.

    Accepts signed integer boards holding -1 for blank, unsigned boards holding their
    maximum for blank (255 in uint8, as left by some NumPy 2 fixes of the template's
    ``np.ones((5, 5), dtype=np.uint8) * -1``), and float boards holding whole numbers.
    """
    arr = np.asarray(board)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] not in SIZES:
        raise CourseInteropError(f"course board must be square with side in {SIZES}, got shape {arr.shape}")
    if arr.dtype.kind not in "iuf":
        raise CourseInteropError(f"course board must hold numbers, got dtype {arr.dtype}")
    values = arr.astype(np.float64)
    if arr.dtype.kind == "u":
        values[arr == np.iinfo(arr.dtype).max] = BLANK
    bad = ~np.isin(values, (BLANK, 0, 1))
    if bad.any():
        y, x = (int(i) for i in np.argwhere(bad)[0])
        raise CourseInteropError(
            f"course board cell (x={x}, y={y}) holds {arr[y, x]}; expected -1 (or 255 in uint8) "
            "for blank, 0 or 1"
        )
    return values.astype(np.int8)


def state_from_course_game(game: CourseGame, ply: int = 0, rules: str = "course") -> State:
    """The boardlab position of a course game: its board and the player about to move, judged
    by ``rules`` (the course referee's by default)."""
    board = read_board(game.get_board())
    player = int(game.get_current_player())
    if player not in (0, 1):
        raise CourseInteropError(f"course game says player {player} is to move; expected 0 or 1")
    return State.from_board(board, to_move=player, ply=ply, rules=rules)


def read_slide(slide: Any) -> Push:
    """A push end from a member of the course's ``Move`` enum (or any enum with the names TOP,
    BOTTOM, LEFT, RIGHT) or a whole number 0-3; CourseInteropError for anything else (a float,
    a string, a bool), which is never rounded or guessed at."""
    if isinstance(slide, enum.Enum):
        if slide.name in Push.__members__:
            return Push[slide.name]
    elif _is_whole(slide) and 0 <= int(slide) <= len(Push) - 1:
        return Push(int(slide))
    raise CourseInteropError(f"cannot read slide {_shown(slide)}: expected Move.TOP/BOTTOM/LEFT/RIGHT or 0-3")


def _is_whole(value: Any) -> bool:
    """True for a Python or NumPy integer (a bool is no coordinate)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _shown(value: Any) -> str:
    try:
        return shorten(repr(value), 40)
    except Exception:  # a player's object whose repr fails
        return f"an unprintable {type(value).__name__}"


def from_course_move(from_pos: Any, slide: Any, size: int = 5) -> Move:
    """A boardlab move from the course's ``from_pos=(x, y)`` and slide, shape checked only.

    Coordinates must be whole numbers (Python or NumPy integers): ``(1.5, 0)`` is refused,
    never truncated to ``(1, 0)``.
    """
    try:
        x, y = from_pos
    except (TypeError, ValueError):
        raise CourseInteropError(f"cannot read from_pos {_shown(from_pos)}: expected (x, y)") from None
    if not (_is_whole(x) and _is_whole(y)):
        raise CourseInteropError(
            f"cannot read from_pos {_shown(from_pos)}: coordinates must be whole numbers (int)"
        )
    x, y = int(x), int(y)
    push = read_slide(slide)
    move = Move(x, y, push, size)
    if move not in set(all_moves(size)):
        raise CourseInteropError(
            f"({x}, {y}) with {push.name} is not a move on a {size}x{size} board: take a border "
            "cube and push it back in at another end of its row or column"
        )
    return move


def to_course_move(move: Move, move_enum: type[enum.Enum] | None = None) -> tuple[tuple[int, int], Any]:
    """The course's ``((x, y), slide)`` for a boardlab move, slide from ``move_enum`` if given."""
    slide: Any = move.push
    if move_enum is not None:
        members = move_enum.__members__
        slide = members[move.push.name] if move.push.name in members else move_enum(int(move.push))
    return (int(move.x), int(move.y)), slide


def course_move_enum_of(game: Any) -> type[enum.Enum] | None:
    """The ``Move`` enum defined beside a course game's class, if there is one."""
    module = sys.modules.get(type(game).__module__)
    candidate = getattr(module, "Move", None)
    if (
        isinstance(candidate, type)
        and issubclass(candidate, enum.Enum)
        and set(Push.__members__) <= set(candidate.__members__)
    ):
        return candidate
    return None


# --- the course's own rules, for players that simulate on the game they are given ---------


def course_take_and_slide(board: np.ndarray, from_pos: Any, slide: Any, player: int) -> bool:
    """Play a move on a board in place with the course's checks; False (board unchanged) if refused."""
    size = board.shape[0]
    try:
        move = from_course_move(from_pos, slide, size)
    except CourseInteropError:
        return False
    x, y, n = move.x, move.y, size
    if player not in (0, 1) or board[y, x] not in (BLANK, player):
        return False
    if move.push == Push.LEFT:
        board[y, 1 : x + 1] = board[y, 0:x].copy()
        board[y, 0] = player
    elif move.push == Push.RIGHT:
        board[y, x : n - 1] = board[y, x + 1 : n].copy()
        board[y, n - 1] = player
    elif move.push == Push.TOP:
        board[1 : y + 1, x] = board[0:y, x].copy()
        board[0, x] = player
    else:
        board[y : n - 1, x] = board[y + 1 : n, x].copy()
        board[n - 1, x] = player
    return True


def course_check_winner(board: np.ndarray) -> int:
    """The course's ``check_winner``: the first complete line found (rows, columns, diagonals), or -1.

    This is not the official rule (a move completing the opponent's line loses even if it
    also completes the mover's); boardlab's engine applies it under ``rules="course"``.
    """
    n = board.shape[0]
    lines = [board[i, :] for i in range(n)] + [board[:, i] for i in range(n)]
    lines += [np.diagonal(board), np.diagonal(np.fliplr(board))]
    for line in lines:
        if line[0] != BLANK and (line == line[0]).all():
            return int(line[0])
    return BLANK


class CourseGameView:
    """What a course Player is shown of a boardlab position: the course ``Game``'s reading side.

    Besides ``get_board()`` and ``get_current_player()`` it keeps the template's attribute
    names (``_board``, ``current_player_idx``) and its ``check_winner()`` and private
    ``_Game__move`` so that players simulating moves on a copy of the game keep working.
    """

    def __init__(self, board: np.ndarray, current_player: int) -> None:
        self._board = np.array(board, dtype=np.int8)
        self.current_player_idx = int(current_player)

    @classmethod
    def from_state(cls, state: State) -> CourseGameView:
        """The view of a boardlab Quixo position."""
        return cls(np.array(state.board(), dtype=np.int8), state.to_move)

    def get_board(self) -> np.ndarray:
        """A copy of the board, int8, -1 blank, indexed ``board[y, x]``."""
        return self._board.copy()

    def get_current_player(self) -> int:
        """0 or 1: the player about to move."""
        return self.current_player_idx

    def check_winner(self) -> int:
        """The course's first-found winner, or -1."""
        return course_check_winner(self._board)

    def print(self) -> None:
        """Print the board as the template does."""
        print(self._board)

    def _Game__move(self, from_pos: Any, slide: Any, player_id: int) -> bool:
        """The template's private move, as players call it on a copy: False if refused."""
        return course_take_and_slide(self._board, from_pos, slide, player_id)


# --- boardlab agent -> course Player ------------------------------------------------------


class CourseAgentPlayer:
    """A boardlab agent dressed as a course-template Player.

    ``make_move(game)`` reads the board and the player to move from the course game, asks
    the agent, and answers ``((x, y), slide)``. ``slide`` is a member of ``move_enum`` if
    given (the course's own ``Move``); otherwise of the ``Move`` enum found in the module
    that defines the game's class, else of :data:`CourseMove`, which has the same values.

    The agent plays in a :class:`~boardlab.play.session.Session` that follows the course
    game: a position one move (the opponent's) after the session's is that move, played into
    the session, so the agent sees the game's history and its true ply count; any other
    position starts a new game (from ply 0), and the agent's per-game memory is reset. The
    course game has no ply cap, and neither has the session's. An agent that fails raises
    :class:`~boardlab.play.referee.AgentForfeit` naming it and saying what it did
    (``greedy forfeits: raised RuntimeError: ...``).

    ``rules`` is the rulebook the agent plays by: ``course`` (the default: inside the
    course's ``Game`` its referee decides) or ``official``. The agent is prepared (its
    searches compiled) here, so that no move pays for it.
    """

    def __init__(
        self, agent: Agent, move_enum: type[enum.Enum] | None = None, rules: str = "course", size: int = 5
    ) -> None:
        self.agent = agent
        self.move_enum = check_move_enum(move_enum)
        self.rules = rules
        self.session: Session | None = None
        self.game = Quixo(size=size, ply_cap=COURSE_PLY_CAP, rules=rules)  # checks the rulebook's name
        agent.check_game(agent.settings, self.game)
        agent.prepare(self.game)

    def make_move(self, game: CourseGame) -> tuple[tuple[int, int], Any]:
        """The agent's move for the course game's position."""
        seen = state_from_course_game(game, rules=self.rules)
        if seen.is_over:
            raise CourseInteropError(
                "the course game already has a complete line on the board; no move is asked there"
            )
        session = self._follow(seen)
        turn = session.agent_move()
        if turn is None:  # named, as a match names who forfeited
            detail = session.outcome.detail if session.outcome is not None else "no move"
            raise AgentForfeit(f"{shorten(self.agent.spec, 60)} forfeits: {detail}")
        move_enum = self.move_enum or course_move_enum_of(game)
        return to_course_move(turn.move, move_enum)

    def _follow(self, seen: State) -> Session:
        """The session at the course game's position ``seen``: the same game one move on, or a new one."""
        session = self.session
        if session is not None and not session.is_over:
            if _same_position(session.state, seen):
                return session
            for move in session.state.legal_moves():
                if _same_position(session.state.play(move), seen):
                    session.play(move)
                    return session
        game = self.game if seen.size == self.game.size else Quixo(seen.size, COURSE_PLY_CAP, self.rules)
        self.agent.new_game()
        self.session = Session(game.state(seen.a, seen.b, seen.to_move, 0), (self.agent, self.agent))
        return self.session

    def __repr__(self) -> str:
        return f"<CourseAgentPlayer {self.agent.spec}>"


def _same_position(one: State, other: State) -> bool:
    """True when the cubes and the side to move agree (whatever the ply)."""
    return (one.a, one.b, one.to_move) == (other.a, other.b, other.to_move)


def check_move_enum(move_enum: Any) -> type[enum.Enum] | None:
    """``move_enum`` if it can stand for the course's ``Move``; CourseInteropError otherwise.

    The referee compares slides with its own ``Move`` members, so only that enum (or one with
    the same names) may be given; boardlab's :class:`Push` and :class:`Move` are refused here,
    not inside the referee. None lets the player find the referee's enum itself.
    """
    if move_enum is None:
        return None
    if move_enum is Push or move_enum is Move:
        raise CourseInteropError(
            f"move_enum={move_enum.__name__} is boardlab's own; pass the course's enum "
            "(from game import Move) or leave move_enum out to find it from the game"
        )
    if not (isinstance(move_enum, type) and issubclass(move_enum, enum.Enum)):
        raise CourseInteropError(f"move_enum must be the course's Move enum, got {move_enum!r}")
    missing = set(Push.__members__) - set(move_enum.__members__)
    if missing:
        raise CourseInteropError(f"move_enum {move_enum.__name__} lacks {', '.join(sorted(missing))}")
    return move_enum


def as_course_player(
    agent_or_spec: Agent | str,
    seed: int | None = None,
    move_enum: type[enum.Enum] | None = None,
    rules: str = "course",
) -> CourseAgentPlayer:
    """A course Player playing like a boardlab agent (an Agent or a spec such as ``greedy``),
    under the course referee's rules unless ``rules="official"``. ``seed`` is for a spec: an
    Agent already has its own, and one given with it is refused rather than ignored."""
    if not isinstance(agent_or_spec, str) and seed is not None:
        raise AgentSpecError(
            f"as_course_player: seed={seed!r} is for an agent spec; {agent_or_spec.spec!r} is an Agent "
            "built with its own seed (make_agent(spec, seed))"
        )
    agent = make_agent(agent_or_spec, seed) if isinstance(agent_or_spec, str) else agent_or_spec
    return CourseAgentPlayer(agent, move_enum=move_enum, rules=rules)


# --- course Player -> boardlab agent ------------------------------------------------------


def load_course_player(
    target: Any, seed: int | None = None, import_timeout: float = IMPORT_TIMEOUT
) -> CoursePlayer:
    """A course Player from a path string, a class or an instance.

    A path is ``package.module:ClassName`` (or ``package.module.ClassName``) or
    ``path/to/file.py:ClassName``; a file's folder is put on ``sys.path`` so that its own
    ``from game import ...`` works. Its module is imported, and the class built, under a time
    limit each (see the module docstring). A class is built with ``seed=`` if its constructor
    takes one, else with no arguments.
    """
    if isinstance(target, str):
        target = import_player_class(target.strip(), import_timeout, seed)
    player = _instantiate(target, seed) if isinstance(target, type) else target
    if not callable(getattr(player, "make_move", None)):
        raise AgentSpecError(f"course: {player!r} has no make_move(game) method")
    return player


def _player_path(path: str) -> tuple[str, str]:
    if not path:
        raise AgentSpecError("course: say which player, e.g. course:player=mypackage.players:MyPlayer")
    module_part, sep, attr = path.rpartition(":")
    if not sep and path.endswith(".py"):
        raise AgentSpecError(_file_without_class(path))
    if not sep:
        module_part, _, attr = path.rpartition(".")
    if not module_part or not attr:
        raise AgentSpecError(
            f"course: cannot read player {path!r}; write package.module:ClassName or path/file.py:ClassName"
        )
    return module_part, attr


def _file_without_class(path: str) -> str:
    """Why ``player=file.py`` is refused: the class in the file must be named too."""
    file = Path(path)
    if not file.is_file():
        return _no_such_file(file)
    message = f"course: player {path!r} names a file but no class; write player={path}:ClassName"
    names = _classes_with_make_move(file)
    return message + (
        f" with one of its classes that have make_move(game): {', '.join(names)}" if names else ""
    )


def _classes_with_make_move(file: Path) -> list[str]:
    """The classes ``file`` defines with a ``make_move`` method of their own that is not abstract,
    read from its source (nothing in it runs)."""
    try:
        tree = ast.parse(file.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return []
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(
            isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            and item.name == "make_move"
            and not any("abstractmethod" in ast.unparse(d) for d in item.decorator_list)
            for item in node.body
        )
    ]


def _no_such_file(file: Path) -> str:
    """A missing player file, with the folder a relative path was looked for in."""
    where = "" if file.is_absolute() else f" (in {Path.cwd()})"
    return f"course: no such file {str(file)!r}{where}"


def _module_not_found(name: str, attr: str | None, err: BaseException) -> str | None:
    """What to write instead when the module ``name`` itself (not one it imports) is not found;
    None for any other failure."""
    if not isinstance(err, ModuleNotFoundError) or not err.name:
        return None
    if err.name != name and not name.startswith(err.name + "."):
        return None  # the player's module was found; something it imports is missing
    message = f"course: cannot import {name!r} (no module of that name on sys.path)"
    file = Path(*name.split(".")).with_suffix(".py")
    if file.is_file():
        return (
            f"{message}; the file {file} of the current folder is written player={file}:{attr or 'ClassName'}"
        )
    return (
        f"{message}; install it, add its folder to PYTHONPATH, or name a file: player=path/file.py:ClassName"
    )


def _missing_class(name: str, attr: str, module: Any) -> str:
    """A class ``attr`` that the module ``name`` lacks, with the classes there that could be meant."""
    where = repr(name) if name.endswith(".py") else f"module {name!r}"
    message = f"course: {where} has no class {attr!r}"
    names = [
        key
        for key, value in vars(module).items()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and callable(getattr(value, "make_move", None))
        and not inspect.isabstract(value)
    ]
    return message + (f"; its classes with make_move(game): {', '.join(names)}" if names else "")


def check_player_path(path: str, import_timeout: float = IMPORT_TIMEOUT, seed: int | None = None) -> None:
    """AgentSpecError unless the player ``path`` names (as :func:`import_player_class` reads it)
    imports and builds within ``import_timeout`` seconds each, tried in a child process only."""
    module_part, attr = _player_path(path.strip())
    check_import(module_part, import_timeout, attr, seed)


def import_player_class(path: str, import_timeout: float = IMPORT_TIMEOUT, seed: int | None = None) -> Any:
    """The object named by ``module:Name``, ``module.Name`` or ``file.py:Name``; the module
    must import, and a class build (with ``seed``), within ``import_timeout`` seconds each
    (checked in a child process)."""
    module_part, attr = _player_path(path)
    module = _import_module(module_part, import_timeout, attr, seed)
    try:
        return functools.reduce(getattr, attr.split("."), module)
    except AttributeError:
        raise AgentSpecError(_missing_class(module_part, attr, module)) from None


def _import_module(name: str, timeout: float, attr: str | None = None, seed: int | None = None) -> Any:
    if multiprocessing.parent_process() is None:  # the main process: nothing else times this import
        check_import(name, timeout, attr, seed)
    try:
        return _load_module(name)
    except AgentSpecError:
        raise
    except BaseException as err:  # a student's module may fail in any way while importing
        if isinstance(err, KeyboardInterrupt) and _in_main_process():
            raise  # Ctrl-C: the user's, not the module's
        message = (
            _module_not_found(name, attr, err) or f"course: cannot import {name!r}: {_import_failure(err)}"
        )
        raise AgentSpecError(message) from None


def _in_main_process() -> bool:
    """True in the process the user started (where Ctrl-C arrives as KeyboardInterrupt)."""
    return multiprocessing.parent_process() is None


def _load_module(name: str) -> Any:
    if name.endswith(".py") or "/" in name or "\\" in name:
        return _import_file(Path(name))
    return importlib.import_module(name)


def _import_failure(err: BaseException) -> str:
    """``SyntaxError: ...`` or ``called sys.exit(3)``: what went wrong while importing."""
    return describe_failure(err).removeprefix("raised ")


_IMPORTS_CHECKED: set[tuple[str, str | None]] = set()
"""Modules (and the class built from each) this process has seen import cleanly in a child process."""


def check_import(
    name: str, timeout: float = IMPORT_TIMEOUT, build: str | None = None, seed: int | None = None
) -> None:
    """AgentSpecError unless the module ``name`` (dotted, or a file path) imports cleanly within
    ``timeout`` seconds in a child process, and, given ``build`` (the name of a class in it),
    that class is built there within ``timeout`` seconds more (with ``seed`` if its constructor
    takes one); a child still importing or building then is killed.

    Nothing the module or the constructor does (sleep, loop, print, ``sys.exit``, ``os._exit``,
    raise, start processes) reaches this process: the child's output goes nowhere, and the
    child leads a process group of its own that is ended, with whatever it started, when the
    check is over. Each module and class is checked once per process.
    """
    if (name, build) in _IMPORTS_CHECKED:
        return
    try:
        context = worker_context()
    except ProcessStartError as err:  # a refused spec, as callers of agent specs expect
        raise AgentSpecError(f"course: cannot check that {name!r} imports cleanly: {err}") from None
    ours, theirs = context.Pipe(duplex=False)
    process = context.Process(
        target=_import_in_child,
        args=(theirs, name, list(sys.path), build, seed),
        name="boardlab-import",
        daemon=True,
    )
    process.start()
    theirs.close()
    try:
        failure = _import_report(ours, name, timeout, process, build)
    finally:
        end_group(process.pid)  # the child, and what it started, even once the child is gone
        if process.is_alive():
            process.kill()
        process.join(5)
        ours.close()
    if failure:
        raise AgentSpecError(failure)
    _IMPORTS_CHECKED.add((name, build))


def _import_report(conn: Any, name: str, timeout: float, process: Any, build: str | None) -> str:
    """What the child importing ``name`` (and building ``build``) reported: "" when all went well."""
    phase = f"course: cannot import {name!r}: "
    try:
        if not conn.poll(SETUP_TIMEOUT):
            raise AgentSpecError(f"course: no process could be started to import {name!r}")
        conn.recv_bytes()  # the child is running: the import's clock starts now
        if not conn.poll(timeout):
            raise AgentSpecError(
                f"course: importing {name!r} took over {timeout:g} s (stopped); a player's module "
                "must not play, wait or loop when it is imported"
            )
        failure = conn.recv_bytes().decode("utf-8", "replace")
        if failure.startswith(WHOLE_MESSAGE.decode()):
            return failure.removeprefix(WHOLE_MESSAGE.decode())
        if failure or build is None:
            return phase + failure if failure else ""
        phase = f"course: building {build} failed: "
        if not conn.poll(timeout):  # the constructor gets the same time as the import
            raise AgentSpecError(
                f"course: building {build} took over {timeout:g} s (stopped); a player's constructor "
                "must not play, wait or loop"
            )
        failure = conn.recv_bytes().decode("utf-8", "replace")
        if failure.startswith(WHOLE_MESSAGE.decode()):
            return failure.removeprefix(WHOLE_MESSAGE.decode())
        return phase + failure if failure else ""
    except EOFError:
        process.join(5)
        return phase + f"its process ended ({describe_exit(process.exitcode)})"


WHOLE_MESSAGE = b"\x00"
"""Starts a report of the checking child that is the whole error message (a missing class, a
class with no ``make_move``), not the failure of a phase."""


def _import_in_child(conn: Any, name: str, path: list[str], build: str | None, seed: int | None) -> None:
    """The child of :func:`check_import`: say it started, import ``name`` (and build the class
    ``build``), report how each went."""
    start_child()  # a guarded group of its own, ended with all it holds when the check is over
    _silence_output()
    sys.path[:] = path
    conn.send_bytes(b"")
    try:
        module = _load_module(name)
    except AgentSpecError as err:  # boardlab's own refusal (no such file): the whole message
        conn.send_bytes(WHOLE_MESSAGE + str(err).encode("utf-8", "replace"))
        return
    except BaseException as err:  # whatever the student's module does
        not_found = _module_not_found(name, build, err)
        if not_found:
            conn.send_bytes(WHOLE_MESSAGE + not_found.encode("utf-8", "replace"))
        else:
            conn.send_bytes(_import_failure(err).encode("utf-8", "replace") or b"failed")
        return
    conn.send_bytes(b"")
    if build is None:
        return
    try:
        target = functools.reduce(getattr, build.split("."), module)
    except AttributeError:
        conn.send_bytes(WHOLE_MESSAGE + _missing_class(name, build, module).encode("utf-8", "replace"))
        return
    try:
        player = _build(target, seed) if isinstance(target, type) else target
    except BaseException as err:  # whatever the student's constructor does
        failure = describe_failure(err).removeprefix("raised ") + _constructor_advice(target)
        conn.send_bytes(failure.encode("utf-8", "replace") or b"failed")
        return
    if callable(getattr(player, "make_move", None)):
        conn.send_bytes(b"")
    else:
        message = f"course: {shorten(repr(player), 80)} has no make_move(game) method"
        conn.send_bytes(WHOLE_MESSAGE + message.encode("utf-8", "replace"))


class _Discard(io.TextIOBase):
    """A text stream that drops what it is given."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


def _silence_output() -> None:
    """Drop what this process prints: a check is not a place to show it. Python's own streams
    go nowhere, and what compiled code writes to the descriptors goes to /dev/null."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)
    sys.stdout = sys.stderr = _Discard()


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise AgentSpecError(_no_such_file(path))
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = f"boardlab_course_player_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AgentSpecError(f"course: cannot load {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def _build(cls: type, seed: int | None) -> Any:
    """``cls(seed=seed)`` if its constructor takes a seed, else ``cls()``."""
    try:
        takes_seed = "seed" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        takes_seed = False
    return cls(seed=seed) if takes_seed else cls()


def _instantiate(cls: type, seed: int | None) -> Any:
    try:
        return _build(cls, seed)
    except BaseException as err:  # the student's constructor
        if isinstance(err, KeyboardInterrupt) and _in_main_process():
            raise
        failure = describe_failure(err).removeprefix("raised ") + _constructor_advice(cls)
        raise AgentSpecError(f"course: building {cls.__name__} failed: {failure}") from None


def _constructor_advice(target: Any) -> str:
    """The next step for a class whose constructor needs arguments boardlab cannot give (it
    gives ``seed`` only); "" for anything else."""
    if not isinstance(target, type):
        return ""
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return ""
    required = [
        p.name
        for p in parameters
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        and p.name != "seed"
    ]
    if not required:
        return ""
    names = ", ".join(required)
    example = ", ".join(f"{name}=..." for name in required)
    return (
        f"; boardlab builds {target.__name__} with no arguments (seed= only, if it takes one): give "
        f"{names} a default in __init__, or name a subclass that sets "
        f"{'it' if len(required) == 1 else 'them'} (its __init__ calling super().__init__({example}))"
    )


@dataclass(frozen=True)
class CourseSettings:
    """Options of the course-player agent."""

    player: str = option("", "the Player class: package.module:ClassName or path/file.py:ClassName")
    attempts: int = option(100, "make_move calls allowed per turn before giving up", minimum=1, maximum=10**6)
    import_timeout: float = option(
        IMPORT_TIMEOUT,
        "seconds the player's module may take to import, and its class to be built (tried first "
        "in a child process)",
        minimum=0.1,
        maximum=MAX_IMPORT_TIMEOUT,
    )
    output: str = option(
        "hide",
        f"what the player prints: hide it, or show it on stderr (the first {MAX_OUTPUT:,} characters)",
        choices=("hide", "show"),
    )


class CoursePlayerAgent(Agent):
    """A course-template Player playing as a boardlab agent.

    Each turn the player is shown a fresh :class:`CourseGameView` of the position; a move it
    gives that is malformed or illegal is refused and ``make_move`` is asked again, as the
    course's loop does, up to ``attempts`` times, after which :class:`CourseMoveError` is
    raised. Only whole-number coordinates and a ``Move`` member (or a whole number 0-3) are
    read; anything else is refused, never rounded. Whatever the player raises, ``SystemExit``
    and other ``BaseException`` subclasses included, is an :class:`AgentForfeit` with a
    one-line detail. What it prints (import, constructor and moves) is captured in
    :attr:`output`, at most :data:`MAX_OUTPUT` characters, and shown on stderr only with
    ``output=show``.

    ``player`` may also be a class or an instance, for an agent built and played in this
    process only (``agent.choose(state)``, a :class:`~boardlab.play.session.Session`). The
    arena (``match``, ``tournament``) takes agent specs, strings, since each game is played in
    a worker process that builds its agents from their specs: a course player enters it from
    a file, ``course:player=file.py:ClassName``.
    """

    name = "course"
    summary = "a course-template Player (e.g. a student agent) loaded by its import path"
    Settings: ClassVar[type] = CourseSettings
    games: ClassVar[tuple[str, ...]] = ("quixo",)
    settings: CourseSettings

    def __init__(
        self, seed: int | None = None, settings: Any = None, player: Any = None, **options: Any
    ) -> None:
        if isinstance(player, str):
            options["player"] = player
        super().__init__(seed, settings, **options)
        echo = sys.stderr if self.settings.output == "show" else None
        self.output = CappedOutput(MAX_OUTPUT, echo)
        self._target = player if player is not None and not isinstance(player, str) else self.settings.player
        self._course_player: Any = None
        if isinstance(self._target, str) and _in_main_process():
            # checked in a child (module imported, class built, each in time); built here only when
            # it plays, so that an agent built to check a spec starts nothing in this process
            check_player_path(self._target, self.settings.import_timeout, seed)
        else:
            _ = self.course_player
        self.refused_moves = 0

    @property
    def course_player(self) -> Any:
        """The course Player, built at its first use."""
        if self._course_player is None:
            timeout = self.settings.import_timeout
            with captured(self.output):
                self._course_player = load_course_player(self._target, self.seed, timeout)
        return self._course_player

    def choose(self, state: Any) -> Any:
        legal = set(state.legal_moves())
        reason = "no attempt made"
        for _ in range(self.settings.attempts):
            reason, move = self._ask(state, legal)
            if move is not None:
                return move
            self.refused_moves += 1
        detail = (
            f"{type(self.course_player).__name__} answered no legal move in "
            f"{counted(self.settings.attempts, 'attempt')}; last: {reason}{_size_advice(state.size)}"
        )
        raise CourseMoveError(shortened_in_the_middle(detail, MAX_FORFEIT_DETAIL))

    def _ask(self, state: State, legal: set[Move]) -> tuple[str, Move | None]:
        answer = self._make_move(CourseGameView.from_state(state))
        try:
            from_pos, slide = answer
        except (TypeError, ValueError):  # not a pair: a list of three, None, a bare Move
            return f"answered {shown_move(answer, state)}, not a legal move (expected ((x, y), Move))", None
        try:
            move = from_course_move(from_pos, slide, state.size)
        except (TypeError, ValueError) as err:
            why = _why(err)
        else:
            if move in legal:
                return "", move
            why = f"{move} takes a cube of the opponent"
        advice = _swap_advice(from_pos, slide, legal)
        return f"answered {shown_move(answer, state)}, not a legal move ({why}){advice}", None

    def _make_move(self, view: CourseGameView) -> Any:
        """The player's answer; AgentForfeit, with one line saying what it did, if it fails
        in any way (a ``BaseException`` subclass included)."""
        try:
            with captured(self.output):
                return self.course_player.make_move(view)
        except BaseException as err:  # whatever a student's make_move raises
            if isinstance(err, KeyboardInterrupt) and _in_main_process():
                raise  # Ctrl-C: the user's, not the player's
            raise AgentForfeit(describe_failure(err) + _size_advice(len(view.get_board()))) from None


def _why(err: BaseException) -> str:
    """The reason of a refused answer, without what :func:`from_course_move` repeats of it; kept
    whole, since its end says how to mend the move (the forfeit's detail is bounded as a whole)."""
    text = str(err)
    return text.split(": ", 1)[1] if text.startswith("cannot read ") and ": " in text else text


def _swap_advice(from_pos: Any, slide: Any, legal: set[Move]) -> str:
    """A hint that ``x`` and ``y`` were swapped, where the answer's cell can be taken only as
    ``(y, x)``, or the answer is legal as ``(y, x)``; "" otherwise."""
    try:
        x, y = from_pos
    except (TypeError, ValueError):
        return ""
    if not (_is_whole(x) and _is_whole(y)) or x == y:
        return ""
    x, y = int(x), int(y)
    cells = {(move.x, move.y) for move in legal}
    with contextlib.suppress(CourseInteropError):
        push = read_slide(slide)
        if any((move.x, move.y, move.push) == (y, x, push) for move in legal):
            return f"; x is the column and y the row: did you swap them? ({y}, {x}) {push.name} is legal"
    if (y, x) in cells and (x, y) not in cells:
        return f"; x is the column and y the row: did you swap them? ({y}, {x}) can be taken"
    return ""


def _size_advice(size: int) -> str:
    """What a course player failing on a board other than the template's 5x5 is told."""
    if size == 5:
        return ""
    return f" (the board is {size}x{size}: read its size from game.get_board(), do not assume 5x5)"


class CappedOutput(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters written to it (echoing them to
    ``echo`` if given) and only counts the rest, so a player printing without end costs no
    memory and floods no terminal."""

    def __init__(self, limit: int = MAX_OUTPUT, echo: Any = None) -> None:
        super().__init__()
        self.limit = limit
        self.echo = echo
        self._kept: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        """Keep what fits under the limit, count the rest."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        head = text[: max(self.limit - self.kept, 0)]
        if head:
            self._kept.append(head)
            self.kept += len(head)
            self._show(head)
        over = len(text) - len(head)
        if over:
            if not self.dropped:
                self._show(f"\n[course player output cut at {self.limit:,} characters]\n")
            self.dropped += over
        return len(text)

    def _show(self, text: str) -> None:
        if self.echo is not None:
            with contextlib.suppress(OSError, ValueError):  # a closed or full terminal loses nothing here
                self.echo.write(text)
                self.echo.flush()

    @property
    def text(self) -> str:
        """What was kept: the first :attr:`limit` characters written."""
        return "".join(self._kept)


@contextlib.contextmanager
def captured(sink: CappedOutput) -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` written to ``sink`` for the duration (Python-level
    writes: output a native extension writes to the file descriptors directly is not seen)."""
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield
