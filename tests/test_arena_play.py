"""One scheduled game: its record, the referee's events, forfeits, and the worker's runner."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from forfeits import Raised

from boardlab.agents.base import AGENTS, Agent, register
from boardlab.arena import ArenaError, TournamentConfig, match, play_opening
from boardlab.arena import play as arena_play
from boardlab.arena.play import ARENA_JOBS, GameRecord, forfeit_record, play_game, play_task
from boardlab.arena.schedule import GameTask, game_task
from boardlab.games import Outcome, Reason
from boardlab.play.pool import Stopped, TaskError, timestamp


class SlowAgent(Agent):
    """Answers a legal move after 0.3 s."""

    name = "test-slow"

    def choose(self, state: Any) -> Any:
        time.sleep(0.3)
        return state.legal_moves()[0]


class UnreadyAgent(Agent):
    """Fails as it is readied for a game."""

    name = "test-unready"

    def new_game(self) -> None:
        raise RuntimeError("no board today")

    def choose(self, state: Any) -> Any:
        return state.legal_moves()[0]


class CountedAgent(Agent):
    """Plays the first legal move; counts the agents of its kind built."""

    name = "test-counted"
    built = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        type(self).built += 1

    def choose(self, state: Any) -> Any:
        return state.legal_moves()[0]


class InterruptedAgent(Agent):
    """Raises KeyboardInterrupt in its move."""

    name = "test-interrupted"

    def choose(self, state: Any) -> Any:
        raise KeyboardInterrupt


TEST_AGENTS = (SlowAgent, UnreadyAgent, CountedAgent, InterruptedAgent)


@pytest.fixture(autouse=True)
def test_agents() -> Iterator[None]:
    for cls in TEST_AGENTS:
        register(cls)
    CountedAgent.built = 0
    yield
    for cls in TEST_AGENTS:
        AGENTS.unregister(cls.name)


def task_of(first: str, second: str, plies: int = 0, game: str = "tictactoe") -> GameTask:
    """Game 0 of a match: ``first`` moves first."""
    return game_task(TournamentConfig((first, second), 2, game, seed=3, opening_plies=plies), 0)


def test_a_record_reads_back_from_json_and_scores_only_its_players() -> None:
    record = play_game(task_of("random", "greedy", plies=2))
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert isinstance(again.moves, tuple) and isinstance(again.opening, tuple)
    assert isinstance(again.move_times, tuple) and isinstance(again.outcome, Outcome)
    assert record.score_of(0) + record.score_of(1) == 1
    with pytest.raises(ValueError, match="player 2 did not play game 0"):
        record.score_of(2)


def test_an_opening_that_ends_every_game_is_refused_before_play() -> None:
    with pytest.raises(ArenaError, match=r"^no opening of 9 random plies .* use fewer plies$"):
        play_opening("tictactoe", 9, 0)
    with pytest.raises(ArenaError, match="use fewer plies"):
        match("random", "random", 2, game="tictactoe", opening_plies=9, workers=0)
    # a worker's runner passes the message on as it is
    text = task_of("random", "random", plies=9).to_json()
    with pytest.raises(TaskError) as caught:
        play_task(text, (None, None), lambda event: None)
    message = "no opening of 9 random plies leaves a game of tictactoe open; use fewer plies"
    assert str(caught.value) == message


def test_without_limits_each_agent_is_held_to_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    limits = {"test-slow": 0.1, "random": 60.0}
    monkeypatch.setattr(arena_play, "move_limit", lambda spec, timeout=None: limits[spec])
    for task in (task_of("random", "test-slow"), task_of("test-slow", "random")):
        record = play_game(task)
        slow = 0 if task.first_spec == "test-slow" else 1
        assert record.outcome.winner == 1 - slow and record.outcome.reason is Reason.FORFEIT
        assert "over its limit of 0.1 s per move" in record.outcome.detail


def test_the_referee_reports_the_opening_then_each_seat_and_move() -> None:
    events: list[dict[str, Any]] = []
    record = play_game(task_of("random", "greedy", plies=2), (None, None), events.append)
    opening = list(record.opening)
    assert len(opening) == 2
    assert events[:4] == [{"opening": opening}, {"setup": 0}, {"setup": 1}, {"turn": 0}]
    moves = [event for event in events[4:] if "move" in event]
    assert opening + [event["move"] for event in moves] == list(record.moves)
    assert [event["seconds"] for event in moves] == list(record.move_times)
    assert [event["turn"] for event in moves] == [(k + 1) % 2 for k in range(len(moves) - 1)] + [None]


def test_an_agent_that_cannot_start_forfeits_before_the_other_is_built() -> None:
    events: list[dict[str, Any]] = []
    record = play_game(task_of("test-unready", "test-counted"), (None, None), events.append)
    detail = Raised("failed to start: raised RuntimeError: no board today", "test_arena_play.py", "new_game")
    assert record.outcome == Outcome(1, Reason.FORFEIT, detail)
    assert {"setup": 1} not in events and CountedAgent.built == 0
    assert record.moves == () and record.move_times == ()


def test_a_stopped_game_is_lost_by_the_colour_stopped() -> None:
    task = task_of("random", "greedy")
    started = timestamp()
    for colour in (0, 1):
        record = forfeit_record(task, ["a1"], [], colour, "no move within 1 s (stopped)", started)
        assert record.outcome == Outcome(1 - colour, Reason.FORFEIT, "no move within 1 s (stopped)")
        stopped = ARENA_JOBS.stopped(Stopped(task, ["a1", "b2"], [0.5], colour, "died", started))
        assert stopped.outcome == Outcome(1 - colour, Reason.FORFEIT, "died")
        assert (stopped.moves, stopped.move_times, stopped.started) == (("a1", "b2"), (0.5,), started)
    assert ARENA_JOBS.seats(task) == ("random", "greedy")


def test_an_interrupt_raised_by_an_agent_in_a_worker_is_its_forfeit() -> None:
    for task in (task_of("test-interrupted", "random"), task_of("random", "test-interrupted")):
        record = GameRecord.from_json(play_task(task.to_json(), (None, None), lambda event: None))
        loser = 0 if task.first_spec == "test-interrupted" else 1
        assert record.outcome.winner == 1 - loser and record.outcome.reason is Reason.FORFEIT
        assert "KeyboardInterrupt" in record.outcome.detail
