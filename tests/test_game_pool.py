"""The arena's worker pool (:class:`boardlab.play.pool.WorkerPool`) driven directly: each agent
held to its own limit, a stopped game recorded with the moves played so far, workers lost
while idle or while warming up replaced with no game lost, the runner's failures passed on
with their own words, and workers that stop by themselves when play is over.

The workers run the runners and agents of :mod:`pool_runners`, which they import by name."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from boardlab.agents.base import AGENTS, Agent, register
from boardlab.arena import TournamentConfig, build_schedule
from boardlab.arena.play import ARENA_JOBS, GameRecord
from boardlab.arena.schedule import GameTask
from boardlab.games import Reason
from boardlab.play.pool import GameJobs, PoolError, WorkerPool, warm_up

ARENA: GameJobs[GameTask, GameRecord] = GameJobs(
    runner="pool_runners:play_task", seats=ARENA_JOBS.seats, read=ARENA_JOBS.read, stopped=ARENA_JOBS.stopped
)


@dataclass(frozen=True)
class Job:
    """A task of the plain runners: its index only."""

    index: int

    def to_json(self) -> str:
        return json.dumps({"index": self.index})


def jobs_of(runner: str) -> GameJobs[Job, str]:
    return GameJobs(
        runner=f"pool_runners:{runner}", seats=lambda job: ("a", "b"), read=str, stopped=lambda s: s.detail
    )


def schedule(first: str, second: str, games: int = 2, opening: int = 0) -> list[GameTask]:
    return build_schedule(TournamentConfig((first, second), games, "tictactoe", opening_plies=opening))


def loser(record: GameRecord) -> str:
    return record.second_spec if record.winner == 0 else record.first_spec


def play_all(pool: WorkerPool[Any, Any], tasks: list[Any]) -> list[Any]:
    return sorted(pool.play(iter(tasks)), key=lambda record: record.index)


@pytest.mark.timeout(120)
def test_each_agent_is_held_to_its_own_limit_and_a_stopped_game_keeps_its_moves() -> None:
    limits = {"random": 30.0, "pool-hangs": 0.2}
    with WorkerPool(1, "tictactoe", limits, ARENA) as pool:
        records = play_all(pool, schedule("random", "pool-hangs", opening=2))
    assert [r.index for r in records] == [0, 1]
    assert {r.first_spec for r in records} == {"random", "pool-hangs"}  # both colours
    for record in records:
        assert record.outcome.reason is Reason.FORFEIT and loser(record) == "pool-hangs"
        assert record.outcome.detail == "no move within 0.2 s (stopped)"
        before = 1 if record.first_spec == "random" else 0  # random's moves before the hang
        assert len(record.opening) == 2 and record.moves[:2] == record.opening
        assert record.plies == len(record.moves) == 2 + before
        assert len(record.move_times) == before


def test_each_seat_gets_the_limit_of_its_agent() -> None:
    with WorkerPool(1, "tictactoe", {"a": 1.5, "b": None}, jobs_of("echoes")) as pool:
        assert list(pool.play(iter([Job(4)]))) == ['{"index": 4} [1.5, None]']


@pytest.mark.timeout(240)
def test_agents_that_hang_or_die_while_prepared_forfeit_and_are_warmed_no_more() -> None:
    limits = {"random": None, "pool-hangs-preparing": 5.0, "pool-dies-preparing": 5.0}
    tasks = [*schedule("random", "pool-hangs-preparing", 1), *schedule("random", "pool-dies-preparing", 1)]
    with WorkerPool(1, "tictactoe", limits, ARENA, setup_timeout=3.0) as pool:
        records = list(pool.play(iter(tasks)))
    details = {loser(r): r.outcome.detail for r in records if r.outcome.reason is Reason.FORFEIT}
    assert details == {
        "pool-hangs-preparing": "did not start within 3 s (stopped)",
        "pool-dies-preparing": "failed to start: its process ended (exit code 6)",
    }


@pytest.mark.timeout(120)
def test_a_task_for_a_worker_that_died_idle_is_played_by_its_replacement() -> None:
    with WorkerPool(1, "tictactoe", {"random": None}, ARENA) as pool:
        while not pool._workers[0].ready:
            pool._wait()
        dead = pool._workers[0].process
        dead.kill()
        dead.join()
        records = play_all(pool, schedule("random", "random"))
        assert pool._workers[0].process is not dead
    assert [r.index for r in records] == [0, 1]
    assert all(r.outcome.reason is not Reason.FORFEIT for r in records)


@pytest.mark.parametrize(
    ("runner", "message"),
    [
        ("refuses", 'task {"index": 0} cannot be played'),
        ("fails", "ValueError: a bug in the runner"),
        ("exits", "game 0: a worker process ended (exit code 7) outside the agents' moves; "),
    ],
)
def test_a_task_the_runner_cannot_play_stops_play_with_its_words(runner: str, message: str) -> None:
    with WorkerPool(1, "tictactoe", {}, jobs_of(runner)) as pool, pytest.raises(PoolError) as caught:
        list(pool.play(iter([Job(0)])))
    assert str(caught.value).startswith(message)


@pytest.mark.timeout(120)
def test_workers_that_keep_dying_before_play_end_it() -> None:
    pool = WorkerPool(1, "tictactoe", {}, jobs_of("no_such_runner"))
    with pool, pytest.raises(PoolError, match="keep dying before play; giving up"):
        list(pool.play(iter([Job(0)])))


def test_workers_stop_by_themselves_when_play_is_over_and_are_killed_when_it_breaks_off() -> None:
    with WorkerPool(2, "tictactoe", {"random": None}, ARENA) as pool:
        records = play_all(pool, schedule("random", "random", games=4))
        finished = [worker.process for worker in pool._workers]
    assert [r.index for r in records] == [0, 1, 2, 3]
    assert [process.exitcode for process in finished] == [0, 0]
    with pytest.raises(KeyError), WorkerPool(1, "tictactoe", {"random": None}, ARENA) as pool:
        broken_off = [worker.process for worker in pool._workers]
        raise KeyError("stopped")
    assert [process.exitcode for process in broken_off] == [-signal.SIGKILL]


class ExitingAgent(Agent):
    """Calls sys.exit when asked for a move."""

    name = "pool-test-exits"

    def choose(self, state: Any) -> Any:
        raise SystemExit(3)


@pytest.fixture
def exiting_agent() -> Iterator[None]:
    register(ExitingAgent)
    yield
    AGENTS.unregister(ExitingAgent.name)


@pytest.mark.usefixtures("exiting_agent")
def test_warming_up_reports_each_agent_and_goes_on_past_one_that_exits() -> None:
    events: list[dict[str, Any]] = []
    warm_up("tictactoe", ("pool-test-exits", "random"), events.append)
    stages = [{"warm": i, "stage": stage} for i in (0, 1) for stage in ("prepare", "move")]
    assert events == stages
