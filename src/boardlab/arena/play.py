"""Playing one scheduled game: the random opening, then the two agents, recorded move by move."""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from boardlab.agents.base import make_agent
from boardlab.arena.schedule import ArenaError, GameTask
from boardlab.games import new_game

OPENING_ATTEMPTS = 1000


@dataclass(frozen=True)
class GameRecord:
    """A finished game as stored.

    ``moves`` holds every move in notation, opening included; ``opening`` is its first
    ``len(opening)`` moves. ``winner`` is the colour that won (0 moved first, 1 second) or
    None for a draw. ``move_times`` has the agents' thinking time in seconds for each move
    after the opening. Timestamps are ISO 8601 in UTC.
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
    winner: int | None
    plies: int
    move_times: tuple[float, ...]
    started: str
    finished: str

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
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner_player == player else 0.0

    def game_content(self) -> tuple[Any, ...]:
        """Everything that follows from the schedule (no times): equal for a replayed game."""
        return (
            self.tournament_id,
            self.index,
            self.game,
            self.first_player,
            self.second_player,
            self.first_spec,
            self.second_spec,
            self.first_seed,
            self.second_seed,
            self.opening_index,
            self.opening,
            self.moves,
            self.winner,
            self.plies,
        )

    def to_json(self) -> str:
        """The record as JSON (what a worker process sends back)."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Read a record written by :meth:`to_json`."""
        data = json.loads(text)
        for key in ("opening", "moves", "move_times"):
            data[key] = tuple(data[key])
        return cls(**data)


def play_opening(game: str, plies: int, seed: int) -> tuple[Any, list[str]]:
    """A position reached by ``plies`` uniformly random moves from the start, and those moves.

    An opening that ends the game is drawn again (from the same random stream), so the
    opening is a function of ``(game, plies, seed)`` and always leaves the game open.
    """
    rng = random.Random(seed)
    for _ in range(OPENING_ATTEMPTS):
        state, moves = new_game(game), []
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
    agents = (make_agent(task.first_spec, task.first_seed), make_agent(task.second_spec, task.second_seed))
    for agent in agents:
        agent.new_game()
    state, opening = play_opening(task.game, task.opening_plies, task.opening_seed)
    moves, times = list(opening), []
    while not state.is_over:
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
        winner=state.winner,
        plies=len(moves),
        move_times=tuple(times),
        started=started,
        finished=_now(),
    )


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
