"""Playing one scheduled game: its opening (random or from a suite), then the two agents, move by move."""

from __future__ import annotations

import functools
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from boardlab.agents.base import make_agent
from boardlab.arena.schedule import ArenaError, GameSeating, GameTask
from boardlab.games import Outcome, Reason, parse_game
from boardlab.play import referee
from boardlab.play.clock import TimeControl
from boardlab.play.pool import GameJobs, Stopped, TaskError, timestamp
from boardlab.play.session import Session, SessionError, random_opening

TIMING = {"timing": True}
"""Field metadata of what a replay does not reproduce (clock readings)."""


@dataclass(frozen=True)
class GameRecord(GameSeating):
    """A finished game as stored: the one definition the store and the workers derive from.

    Its first fields are its task's (:class:`~boardlab.arena.schedule.GameSeating`).
    ``moves`` holds every move in notation, opening included; ``opening`` is its first
    ``len(opening)`` moves. ``outcome`` says who won (colour 0 moved first, 1 second; None
    for a draw) and why. ``move_times`` has the agents' thinking time in seconds for each move
    after the opening. Timestamps are ISO 8601 in UTC. Fields marked :data:`TIMING` are the
    clock readings, left out of :meth:`game_content`.
    """

    opening: tuple[str, ...]
    moves: tuple[str, ...]
    outcome: Outcome
    plies: int
    move_times: tuple[float, ...] = field(metadata=TIMING)
    started: str = field(metadata=TIMING)
    finished: str = field(metadata=TIMING)

    @property
    def winner(self) -> int | None:
        """The colour that won (0 moved first, 1 second), or None for a draw."""
        return self.outcome.winner

    @property
    def winner_player(self) -> int | None:
        """The tournament player index of the winner, or None for a draw."""
        if self.winner is None:
            return None
        return self.first_player if self.winner == 0 else self.second_player

    def score_of(self, player: int) -> float:
        """1, 0.5 or 0 for ``player`` (who must have played this game)."""
        if player not in (self.first_player, self.second_player):
            raise ValueError(f"player {player} did not play game {self.index}")
        return self.outcome.score_for(0 if player == self.first_player else 1)

    def game_content(self) -> tuple[Any, ...]:
        """Every field but the clock readings: equal for a replayed game."""
        return tuple(getattr(self, f.name) for f in fields(self) if not f.metadata.get("timing"))

    def to_json(self) -> str:
        """The record as JSON (what a worker process sends back)."""
        data = {f.name: _plain(getattr(self, f.name)) for f in fields(self)}
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Read a record written by :meth:`to_json`."""
        data = json.loads(text)
        return cls(**{name: _from_plain(kind, data[name]) for name, kind in record_types().items()})


def record_types() -> dict[str, Any]:
    """Each field of :class:`GameRecord` with its (resolved) type, in field order."""
    return dict(_RECORD_TYPES)


def _plain(value: Any) -> Any:
    if isinstance(value, Outcome):
        return value.to_json()
    if isinstance(value, tuple):
        return list(value)
    return value


def _from_plain(kind: Any, value: Any) -> Any:
    if kind is Outcome:
        return Outcome.from_json(value)
    if typing.get_origin(kind) is tuple:
        return tuple(value)
    return value


_RECORD_HINTS = typing.get_type_hints(GameRecord)
_RECORD_TYPES = {f.name: _RECORD_HINTS[f.name] for f in fields(GameRecord)}


def play_opening(game: str, plies: int, seed: int) -> tuple[Any, list[str]]:
    """A position reached by ``plies`` uniformly random moves from the start, and those moves
    (:func:`boardlab.play.session.random_opening`, with ArenaError when there is none)."""
    try:
        return random_opening(game, plies, seed)
    except SessionError as err:
        raise ArenaError(str(err)) from None


def move_limit(spec: str, timeout: float | None = None) -> float | None:
    """:func:`boardlab.play.referee.move_limit`, with ArenaError for a bad ``timeout``."""
    try:
        return referee.move_limit(spec, timeout)
    except referee.TimeLimitError as err:
        raise ArenaError(str(err)) from None


Report = Callable[[dict[str, Any]], None]
"""Receives the referee's events (see :func:`play_game`); the arena's workers send them on."""


def play_game(
    task: GameTask,
    limits: tuple[float | None, float | None] | None = None,
    report: Report | None = None,
    *,
    catch_interrupt: bool = False,
) -> GameRecord:
    """Play a scheduled game: build both agents from their specs and seeds, then play it out.

    An agent that raises, calls ``sys.exit``, answers something that is not a legal move, or
    takes longer than its limit in ``limits`` (seconds per move for the first and the second
    player; default :func:`move_limit` of each spec) forfeits: the game ends there with
    ``Outcome(other colour, Reason.FORFEIT, what happened)``. A task with a time control plays
    on a game clock instead of ``limits``: an agent that thinks past what is left on its clock
    loses on time (``Reason.TIME``). A KeyboardInterrupt is the
    user's and goes through, unless ``catch_interrupt`` (in a worker process, which ignores
    Ctrl-C, it can only come from the agent). ``report`` gets ``{"setup": colour}`` before an
    agent is built and prepared (after ``{"opening": moves}``), ``{"turn": colour}`` before the
    first move and ``{"move": notation, "seconds": s, "turn": colour or None}`` after each move
    (each ``turn`` with ``"left"``, the seconds on that side's clock, on a game clock), so that
    a watcher knows whose clock runs and can stop a hung agent.
    """
    started = timestamp()
    if limits is None:
        limits = (move_limit(task.first_spec), move_limit(task.second_spec))
    send = report or (lambda event: None)
    game = parse_game(task.game)
    specs, seeds = (task.first_spec, task.second_spec), (task.first_seed, task.second_seed)
    opening = list(task.opening) or play_opening(task.game, task.opening_plies, task.opening_seed)[1]
    clock = TimeControl.parse(task.time_control) if task.time_control else None
    if clock is not None:
        limits = (None, None)  # the game clock is the limit
    session = Session(
        game.initial(), limits=limits, time_control=clock, catch_interrupt=catch_interrupt, report=send
    )
    for move in opening:
        session.play(move)
    send({"opening": opening})
    for colour in (0, 1):
        build = functools.partial(make_agent, specs[colour], seeds[colour], game=game)
        if session.seat(colour, build) is not None:
            break
    outcome = session.run()
    times = [float(turn.seconds or 0.0) for turn in session.turns[len(opening) :]]  # agents' moves: all timed
    return make_record(task, session.moves, times, outcome, started)


def make_record(
    task: GameTask, moves: list[str], times: list[float], outcome: Outcome, started: str
) -> GameRecord:
    """The record of ``task``'s game: ``moves`` from the start (the opening first), the thinking
    times of the moves after the opening, and how it ended."""
    opening = tuple(moves[: task.opening_plies])
    return GameRecord(
        **task.seating(),
        opening=opening,
        moves=tuple(moves),
        outcome=outcome,
        plies=len(moves),
        move_times=tuple(times),
        started=started,
        finished=timestamp(),
    )


def forfeit_record(
    task: GameTask, moves: list[str], times: list[float], colour: int, detail: str, started: str
) -> GameRecord:
    """The record of a game that ``colour``'s agent forfeited after ``moves`` (for a game
    stopped from outside, e.g. a hung agent's process killed)."""
    return make_record(task, moves, times, Outcome(1 - colour, Reason.FORFEIT, detail), started)


def play_task(text: str, limits: tuple[float | None, float | None], report: Report) -> str:
    """A worker's runner (see :class:`~boardlab.play.pool.GameJobs`): the record of the
    scheduled game ``text``, played with :func:`play_game`, as JSON."""
    task = GameTask.from_json(text)
    try:
        return play_game(task, limits, report, catch_interrupt=True).to_json()
    except ArenaError as err:
        raise TaskError(str(err)) from None
    except BaseException as err:  # not an agent's doing: boardlab's own bug
        raise TaskError(f"game {task.index}: {type(err).__name__}: {err}") from None


def _stopped_record(stopped: Stopped[GameTask]) -> GameRecord:
    if stopped.out_of_time:
        outcome = Outcome(1 - stopped.colour, Reason.TIME, stopped.detail)
        return make_record(stopped.task, stopped.moves, stopped.times, outcome, stopped.started)
    return forfeit_record(
        stopped.task, stopped.moves, stopped.times, stopped.colour, stopped.detail, stopped.started
    )


ARENA_JOBS: GameJobs[GameTask, GameRecord] = GameJobs(
    runner=f"{__name__}:play_task",
    seats=lambda task: (task.first_spec, task.second_spec),
    read=GameRecord.from_json,
    stopped=_stopped_record,
)
"""How the worker pool plays the arena's scheduled games."""
