"""Playing one scheduled game: the random opening, then the two agents, recorded move by move."""

from __future__ import annotations

import json
import random
import time
import typing
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from boardlab.agents.base import make_agent
from boardlab.arena.schedule import ArenaError, GameTask
from boardlab.games import Outcome, parse_game

OPENING_ATTEMPTS = 1000

TIMING = {"timing": True}
"""Field metadata of what a replay does not reproduce (clock readings)."""


@dataclass(frozen=True)
class GameRecord:
    """A finished game as stored: the one definition the store and the workers derive from.

    ``moves`` holds every move in notation, opening included; ``opening`` is its first
    ``len(opening)`` moves. ``outcome`` says who won (colour 0 moved first, 1 second; None
    for a draw) and why. ``move_times`` has the agents' thinking time in seconds for each move
    after the opening. Timestamps are ISO 8601 in UTC. Fields marked :data:`TIMING` are the
    clock readings, left out of :meth:`game_content`.
    """

    tournament_id: str
    index: int
    game: str
    first_player: int
    second_player: int
    first_spec: str
    second_spec: str
    first_seed: int
    second_seed: int
    opening_index: int
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
    """A position reached by ``plies`` uniformly random moves from the start, and those moves.

    An opening that ends the game is drawn again (from the same random stream), so the
    opening is a function of ``(game, plies, seed)`` and always leaves the game open.
    """
    rng = random.Random(seed)
    start = parse_game(game).initial()
    for _ in range(OPENING_ATTEMPTS):
        state, moves = start, []
        while len(moves) < plies and not state.is_over:
            move = rng.choice(state.legal_moves())
            moves.append(str(move))
            state = state.play(move)
        if not state.is_over:
            return state, moves
    raise ArenaError(f"no opening of {plies} random plies leaves a game of {game} open; use fewer plies")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def play_game(task: GameTask) -> GameRecord:
    """Play a scheduled game: build both agents from their specs and seeds, then play it out."""
    started = _now()
    game = parse_game(task.game)
    agents = (
        make_agent(task.first_spec, task.first_seed, game=game),
        make_agent(task.second_spec, task.second_seed, game=game),
    )
    for agent in agents:
        agent.prepare(game)
        agent.new_game()
    state, opening = play_opening(task.game, task.opening_plies, task.opening_seed)
    moves, times = list(opening), []
    while (outcome := state.outcome) is None:
        agent = agents[state.to_move]
        tic = time.perf_counter()
        try:
            move = agent.choose(state)
            times.append(round(time.perf_counter() - tic, 6))
            moves.append(str(move))
            state = state.play(move)
        except Exception as err:
            raise ArenaError(
                f"game {task.index}: agent {agent.spec!r} failed at ply {state.ply}: {err}"
            ) from err
    return GameRecord(
        tournament_id=task.tournament_id,
        index=task.index,
        game=task.game,
        first_player=task.first_player,
        second_player=task.second_player,
        first_spec=task.first_spec,
        second_spec=task.second_spec,
        first_seed=task.first_seed,
        second_seed=task.second_seed,
        opening_index=task.opening_index,
        opening=tuple(opening),
        moves=tuple(moves),
        outcome=outcome,
        plies=len(moves),
        move_times=tuple(times),
        started=started,
        finished=_now(),
    )


def warm_up(game: str, specs: tuple[str, ...]) -> None:
    """Compile what the games of a tournament will use, so no move's time includes a compile.

    Plays a short random opening of ``game`` and asks each agent of ``specs`` for one move
    there (the searches are compiled per process and kernel). Warming is only a speed-up: any
    failure is left for the game it concerns to meet and report.
    """
    try:
        try:
            state, _ = play_opening(game, 2, 0)
        except ArenaError:  # a game that two random plies can end: warm on the start
            state = parse_game(game).initial()
    except Exception:
        return
    for spec in dict.fromkeys(specs):
        try:
            agent = make_agent(spec, 0, game=state.game)
            agent.prepare(state.game)
            agent.new_game()
            agent.choose(state)
        except Exception:
            continue


def play_task_json(task_json: str) -> str:
    """Worker entry point: a task as JSON in, its record as JSON out.

    A failure comes back as ``{"error": message}`` so that only strings cross processes.
    """
    try:
        return play_game(GameTask.from_json(task_json)).to_json()
    except ArenaError as err:
        message = str(err)
    except Exception as err:
        message = f"{type(err).__name__}: {err}"
    return json.dumps({"error": message})


def record_from_worker(text: str) -> GameRecord:
    """The record a worker sent back, or ArenaError with the worker's message."""
    data = json.loads(text)
    if "error" in data:
        raise ArenaError(data["error"])
    return GameRecord.from_json(text)
