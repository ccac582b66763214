"""Worker processes: the games of every caller under a referee's clock (:class:`WorkerPool`),
and trusted compiled work shared out among processes (:class:`Workers`, the trainers' fitness
batches); agents answering single requests live in :mod:`boardlab.play.agent_pool`.

Each worker is a child process (see :mod:`boardlab.core.processes`: forked by the forkserver,
killed by the kernel if its parent dies) joined to the main process by a pipe. Only JSON
crosses it. The worker warms the game and agents it will play (:func:`warm_up`), says it is
ready, then plays the tasks it is sent with the caller's runner (named in :class:`GameJobs`,
e.g. the arena's scheduled games), which plays each game in a
:class:`~boardlab.play.session.Session` whose events (set-up, then every move) are sent on as
they happen. The main process therefore always knows whose clock is running: an agent that
neither answers nor fails within its limit (plus a grace) has its worker killed; the game is
recorded as that agent's forfeit, from the moves reported so far, and a fresh worker takes the
dead one's place. A worker that dies during an agent's call (``os._exit``, a crash in compiled
code, the out-of-memory killer) forfeits the game in the same way. Nothing a game's agents do
can stop the pool.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import math
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any, Generic, NoReturn, Protocol, TypeVar

from boardlab.agents.base import make_agent
from boardlab.core.processes import (
    ProcessStartError,
    describe_exit,
    die_with_parent,
    end_group,
    worker_context,
)
from boardlab.games import parse_game
from boardlab.play.clock import reading_text
from boardlab.play.referee import GRACE_SECONDS, SETUP_TIMEOUT, json_sender, start_child
from boardlab.play.session import Report, SessionError, random_opening

STOP_SECONDS = 5.0
"""How long a stopping worker is given before it is killed."""
MAX_LOST_WORKERS = 20
"""Workers that may die outside any agent's call before the run gives up."""
ORPHAN_CHECK_SECONDS = 0.2
"""How long a worker's message to stderr waits to learn whether the main process has just died."""


class PoolError(Exception):
    """A game the pool could not play (bad input, or boardlab's own bug), or workers that keep dying."""


class BackendError(Exception):
    """A backend that cannot be used: an unknown name, a missing extra, a cluster that does not answer."""


class TaskError(Exception):
    """Raised by a runner for a task it cannot play; its message is passed on as it is."""


class Task(Protocol):
    """What the pool needs of a task: its index (for messages) and its JSON text."""

    @property
    def index(self) -> int: ...

    def to_json(self) -> str: ...


T = TypeVar("T", bound=Task)
R = TypeVar("R")


@dataclass(frozen=True)
class Stopped(Generic[T]):
    """A game stopped from outside: ``colour``'s agent hung or its worker died (``detail``)
    after ``moves`` (from the start) with the thinking ``times`` of the moves after the opening;
    ``out_of_time`` when the agent hung past what was left on its game clock."""

    task: T
    moves: list[str]
    times: list[float]
    colour: int
    detail: str
    started: str
    out_of_time: bool = False


@dataclass(frozen=True)
class GameJobs(Generic[T, R]):
    """How a pool plays one kind of task.

    ``runner`` names, as ``module:function``, what a worker calls for each task:
    ``function(task_json, limits, report) -> result_json`` (limits: seconds per move of the
    first and the second player; report: the session's events, see
    :data:`~boardlab.play.session.Report`, after an ``{"opening": moves}``); it raises
    :class:`TaskError` for a task it cannot play. ``seats`` gives a task's two agent specs,
    ``read`` a result from the runner's JSON, ``stopped`` the result of a game stopped from
    outside.
    """

    runner: str
    seats: Callable[[T], tuple[str, str]]
    read: Callable[[str], R]
    stopped: Callable[[Stopped[T]], R]


@dataclass
class PoolCounts:
    """What happened to a pool's workers that no agent caused: workers lost (killed or dead
    outside any agent's move, and replaced) and the games they were playing, played again from
    the start (on Ray; a local worker lost during a game is the game's forfeit instead)."""

    replayed: int = 0
    lost: int = 0
    last_loss: str = ""
    replayed_indices: list[int] = field(default_factory=list)

    def add(self, other: PoolCounts) -> None:
        """Count ``other``'s losses in these too (the counts of one run's pools together)."""
        self.replayed += other.replayed
        self.lost += other.lost
        self.last_loss = other.last_loss or self.last_loss
        self.replayed_indices.extend(other.replayed_indices)


def timestamp() -> str:
    """Now, in ISO 8601 (UTC, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def warm_up(game: str, specs: tuple[str, ...], report: Report | None = None) -> None:
    """Compile what the games of ``game`` will use, so no move's time includes a compile.

    Plays a short random opening of ``game`` and asks each agent of ``specs`` for one decision
    there (the searches are compiled per process and kernel). Warming is only a speed-up: any
    failure is left for the game it concerns to meet and report. ``report`` gets
    ``{"warm": i, "stage": "prepare"}`` before agent ``specs[i]`` is built and prepared and
    ``{"warm": i, "stage": "move"}`` before it is asked for its move.
    """
    send = report or (lambda event: None)
    try:
        try:
            state, _ = random_opening(game, 2, 0)
        except SessionError:  # a game that two random plies can end: warm on the start
            state = parse_game(game).initial()
    except Exception:
        return
    for i, spec in enumerate(specs):
        try:
            send({"warm": i, "stage": "prepare"})
            agent = make_agent(spec, 0, game=state.game)
            agent.prepare(state.game)
            agent.new_game()
            send({"warm": i, "stage": "move"})
            agent.act(state)
        except (Exception, SystemExit):
            continue


# --- the worker process -------------------------------------------------------------------


def named(path: str) -> Any:
    """The object that ``module:name`` names (a worker is told what to run by name: only JSON
    crosses its pipe)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def worker_main(conn: Connection, game: str, warm_specs: tuple[str, ...], runner: str) -> None:
    """A worker's life: warm up, then play each task sent until told to stop or orphaned."""
    start_child()
    send = json_sender(conn)
    try:
        play: Callable[[str, tuple[float | None, float | None], Report], str] = named(runner)
        warm_up(game, warm_specs, send)
        send({"ready": True})
        while True:
            message = json.loads(conn.recv_bytes())
            if message.get("stop"):
                return
            limits = tuple(message["limits"])
            try:
                result = play(message["task"], limits, send)
            except TaskError as err:
                send({"error": str(err)})
            except BaseException as err:  # not an agent's doing: boardlab's own bug
                send({"error": f"{type(err).__name__}: {err}"})
            else:
                send({"result": result})
    except (EOFError, OSError, KeyboardInterrupt):
        return  # the main process is gone or stopping us


# --- the main process's side --------------------------------------------------------------


@dataclass
class _Worker:
    process: Any
    conn: Connection
    task: Any = None
    limits: tuple[float | None, float | None] = (None, None)
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    started: str = ""
    ready: bool = False
    warm_specs: tuple[str, ...] = ()
    clock: int | None = None  # colour (or index in warm_specs) whose agent is running
    stage: str = "warm"  # warm / setup / move / clock (a move on a game clock)
    deadline: float | None = None
    limit: float | None = None


class WorkerPool(Generic[T, R]):
    """``size`` worker processes playing games of ``game``, as ``jobs`` says; use as a context manager.

    ``limits`` maps each agent spec that the tasks name to its limit per move in seconds
    (None: none); every worker warms these agents before its first task.
    """

    def __init__(
        self,
        size: int,
        game: str,
        limits: Mapping[str, float | None],
        jobs: GameJobs[T, R],
        *,
        setup_timeout: float = SETUP_TIMEOUT,
    ) -> None:
        try:
            self._context = worker_context()
        except ProcessStartError as err:  # the arena's way out: no worker processes at all
            raise PoolError(f"{err}, or play in this process (workers=0)") from None
        self._jobs = jobs
        self._game = game
        self._limits = dict(limits)
        self._warm_specs = list(self._limits)
        self._setup_timeout = setup_timeout
        self.counts = PoolCounts()
        """Workers lost before play (a game's worker lost during it forfeits the game instead)."""
        self._max_lost = MAX_LOST_WORKERS + 2 * size * len(self._limits)
        self._workers: list[_Worker] = []
        try:
            for _ in range(size):
                self._workers.append(self._spawn())
        except BaseException:
            self.close(kill=True)
            raise

    def __enter__(self) -> WorkerPool[T, R]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(kill=kind is not None)

    def _spawn(self) -> _Worker:
        ours, theirs = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=worker_main,
            args=(theirs, self._game, tuple(self._warm_specs), self._jobs.runner),
            name="boardlab-worker",
            daemon=True,
        )
        process.start()
        theirs.close()
        worker = _Worker(process, ours, warm_specs=tuple(self._warm_specs))
        self._start_clock(worker, None, "warm", self._setup_timeout)
        return worker

    def play(self, tasks: Iterator[T]) -> Generator[R, None, None]:
        """Results of ``tasks`` (taken from the iterator as workers free up), as they finish.

        PoolError if a task cannot be played (the runner's TaskError) or workers keep dying.
        """
        exhausted = False
        retry: list[T] = []  # tasks whose worker died before it could take them
        while True:
            for worker in self._workers:
                if not worker.ready or worker.task is not None:
                    continue
                task = retry.pop() if retry else None if exhausted else next(tasks, None)
                if task is None:
                    exhausted = True
                    break
                if not self._assign(worker, task):
                    retry.append(task)
            if exhausted and not retry and all(w.task is None for w in self._workers):
                return
            yield from self._wait()

    def _assign(self, worker: _Worker, task: T) -> bool:
        """Send ``task`` to ``worker``; False if its pipe is already broken (it died idle)."""
        first, second = self._jobs.seats(task)
        limits = (self._limits.get(first), self._limits.get(second))
        message = {"task": task.to_json(), "limits": list(limits)}
        try:
            worker.conn.send_bytes(json.dumps(message).encode())
        except OSError:
            worker.ready = False  # its death is seen by the next wait
            return False
        worker.task, worker.limits = task, limits
        worker.moves, worker.times, worker.started = [], [], timestamp()
        self._stop_clock(worker)
        return True

    def _wait(self) -> list[R]:
        deadlines = [w.deadline for w in self._workers if w.deadline is not None]
        timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        sources: dict[Any, _Worker] = {}
        for worker in self._workers:
            sources[worker.conn] = worker
            sources[worker.process.sentinel] = worker
        ready = wait(list(sources), timeout)
        records: list[R] = []
        for worker in {id(sources[r]): sources[r] for r in ready}.values():
            records.extend(self._read(worker))
        now = time.monotonic()
        for worker in list(self._workers):
            if worker.deadline is not None and now > worker.deadline:
                records.extend(self._overdue(worker))
        return records

    def _read(self, worker: _Worker) -> list[R]:
        records: list[R] = []
        try:
            while worker.conn.poll():
                event = json.loads(worker.conn.recv_bytes())
                record = self._handle(worker, event)
                if record is not None:
                    records.append(record)
        except (EOFError, OSError):
            records.extend(self._died(worker))
            return records
        if not worker.process.is_alive() and not worker.conn.poll():
            records.extend(self._died(worker))
        return records

    def _handle(self, worker: _Worker, event: dict[str, Any]) -> R | None:
        if "warm" in event:
            spec = worker.warm_specs[event["warm"]]
            if event["stage"] == "prepare":
                self._start_clock(worker, event["warm"], "warm", self._setup_timeout)
            else:
                self._start_clock(worker, event["warm"], "warm", self._limits.get(spec))
        elif "ready" in event:
            worker.ready = True
            self._stop_clock(worker)
        elif "setup" in event:
            self._start_clock(worker, event["setup"], "setup", self._setup_timeout)
        elif "opening" in event:
            worker.moves.extend(event["opening"])
        elif "turn" in event and "move" not in event:
            self._turn(worker, event["turn"], event.get("left"))
        elif "move" in event:
            worker.moves.append(event["move"])
            worker.times.append(event["seconds"])
            self._turn(worker, event["turn"], event.get("left"))
        elif "result" in event:
            self._finish(worker)
            return self._jobs.read(event["result"])
        elif "error" in event:
            self._finish(worker)
            raise PoolError(event["error"])
        return None

    def _turn(self, worker: _Worker, colour: int | None, left: float | None) -> None:
        """Watch the agent of ``colour`` (None: nobody's turn) for its move: within its limit per
        move, or on a game clock within the ``left`` seconds it has."""
        if colour is None:
            self._stop_clock(worker)
        elif left is not None:
            self._start_clock(worker, colour, "clock", max(0.0, float(left)))
        else:
            self._start_clock(worker, colour, "move", worker.limits[colour])

    def _start_clock(self, worker: _Worker, who: int | None, stage: str, limit: float | None) -> None:
        worker.clock, worker.stage, worker.limit = who, stage, limit
        worker.deadline = (
            None if limit is None else time.monotonic() + limit + max(GRACE_SECONDS, 0.1 * limit)
        )

    def _stop_clock(self, worker: _Worker) -> None:
        worker.clock, worker.deadline, worker.limit = None, None, None

    def _finish(self, worker: _Worker) -> None:
        worker.task = None
        self._stop_clock(worker)

    def _overdue(self, worker: _Worker) -> list[R]:
        """Stop a worker whose agent overran its limit; the game is that agent's forfeit."""
        limit = worker.limit
        if worker.stage == "setup":
            detail = f"did not start within {limit:g} s (stopped)"
        elif worker.stage == "clock" and limit is not None:  # a clock's stage always has its limit
            detail = f"no move with {reading_text(limit)} left (stopped)"
        else:
            detail = f"no move within {limit:g} s (stopped)"
        return self._replace(worker, detail, out_of_time=worker.stage == "clock")

    def _died(self, worker: _Worker) -> list[R]:
        """A worker ended by itself: the agent whose clock ran forfeits; else play goes on."""
        worker.process.join(STOP_SECONDS)
        how = describe_exit(worker.process.exitcode)
        if worker.task is not None and worker.clock is None:
            index = worker.task.index
            self._kill(worker)
            raise PoolError(
                f"game {index}: a worker process ended ({how}) outside the agents' moves; "
                "the stored games are kept, run again to resume"
            )
        prefix = "failed to start: " if worker.stage == "setup" else ""
        return self._replace(worker, f"{prefix}its process ended ({how})")

    def _replace(self, worker: _Worker, detail: str, *, out_of_time: bool = False) -> list[R]:
        records: list[R] = []
        if worker.task is not None and worker.clock is not None:
            records.append(
                self._jobs.stopped(
                    Stopped(
                        worker.task,
                        worker.moves,
                        worker.times,
                        worker.clock,
                        detail,
                        worker.started,
                        out_of_time=out_of_time,
                    )
                )
            )
        else:
            self.counts.lost += 1
            self.counts.last_loss = detail
            if self.counts.lost > self._max_lost:
                raise PoolError("worker processes keep dying before play; giving up")
            if worker.stage == "warm" and worker.clock is not None:
                # this agent's warm-up hung or crashed: later workers skip warming it
                spec = worker.warm_specs[worker.clock]
                self._warm_specs = [s for s in self._warm_specs if s != spec]
        self._kill(worker)
        self._workers[self._workers.index(worker)] = self._spawn()
        return records

    def _kill(self, worker: _Worker) -> None:
        end_group(worker.process.pid)
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(STOP_SECONDS)
        worker.conn.close()
        worker.task = None

    def close(self, kill: bool = False) -> None:
        """Stop every worker: politely when play is over, at once (``kill``) when it stops early."""
        for worker in self._workers:
            if kill or worker.task is not None:
                if worker.process.is_alive():
                    worker.process.kill()
            else:
                try:
                    worker.conn.send_bytes(b'{"stop":true}')
                except OSError:
                    worker.process.kill()
        join_or_kill([worker.process for worker in self._workers])
        for worker in self._workers:
            end_group(worker.process.pid)  # what its agents started
            worker.conn.close()
        self._workers = []


def join_or_kill(processes: Sequence[Any]) -> None:
    """Wait up to :data:`STOP_SECONDS` in all for ``processes`` to end; kill those still running."""
    deadline = time.monotonic() + STOP_SECONDS
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()


# --- trusted work: a plain parallel map ------------------------------------------------------


def _worker_start(main: int) -> None:
    die_with_parent()
    # Ctrl-C reaches the whole process group: the main process decides when to stop, saves and
    # ends the pool
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr = QuietOrphanStream(sys.stderr, main)


class QuietOrphanStream(io.TextIOBase):
    """A worker's stderr that says nothing once the main process ``main`` has died.

    After ``kill -9`` of the main process a worker that was finishing a task meets a broken
    pipe, and multiprocessing prints its traceback before the kernel ends the worker: noise about
    a death the user caused. Writes wait a moment for the main process's end to show (the pipe
    breaks as it exits) and are dropped if it has; while it lives they go through.
    """

    def __init__(self, stream: Any, main: int) -> None:
        super().__init__()
        self._stream = stream
        self._main: int | None = None
        self._verdict = (False, -math.inf)  # orphaned?, when last looked at
        with contextlib.suppress(OSError, AttributeError):  # no pidfd: everything goes through
            self._main = os.pidfd_open(main)

    def _orphaned(self) -> bool:
        orphaned, when = self._verdict
        if self._main is None or orphaned or time.monotonic() - when < 1.0:
            return orphaned  # one wait for a whole traceback, written in many pieces
        readable, _, _ = select.select([self._main], [], [], ORPHAN_CHECK_SECONDS)
        self._verdict = (bool(readable), time.monotonic())
        return bool(readable)

    def write(self, text: str) -> int:
        if self._orphaned():
            return len(text)
        return int(self._stream.write(text))

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()


def _serve(conn: Connection, main: int) -> None:
    """A :class:`Workers` process: answers each ``(function, task)`` with ``(True, result)`` or
    ``(False, error)`` until told to stop (None) or its pipe closes."""
    _worker_start(main)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        function, task = message
        try:
            answer: tuple[bool, Any] = (True, function(task))
        except Exception as error:  # handed to the caller, who raises it
            answer = (False, error)
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return
        except Exception as error:  # a result or error that cannot cross the pipe
            conn.send((False, PoolError(f"a task's answer could not be sent back: {error!r}")))


@dataclass(eq=False)  # told apart by identity: a key of the busy map
class _Helper:
    process: Any
    conn: Connection


class Workers:
    """Runs tasks in ``count`` worker processes, started at the first parallel map (in this
    process when ``count`` is 1). Every task's result depends on the task alone, so the number
    of workers never changes a result.

    Each worker has a pipe of its own and shares no lock with the others, so a map stopped
    half-way (Ctrl-C, SIGTERM, an error) ends by killing the workers, which cannot hang; the
    next map starts fresh ones.
    """

    def __init__(self, count: int = 1) -> None:
        self.count = max(1, int(count))
        self._helpers: list[_Helper] = []

    def map(self, function: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
        """``[function(t) for t in tasks]``, in parallel when there are workers: the error a task
        raised, raised here; PoolError if a worker process dies."""
        if self.count <= 1 or len(tasks) <= 1:
            return [function(t) for t in tasks]
        try:
            return self._map(function, tasks)
        except BaseException:
            self._kill()  # workers still busy with this map would answer the next one
            raise

    def _map(self, function: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
        if not self._helpers:
            self._start()
        results: list[Any] = [None] * len(tasks)
        queue = iter(enumerate(tasks))
        busy: dict[_Helper, int] = {}

        def hand_out(helper: _Helper) -> None:
            item = next(queue, None)
            if item is not None:
                busy[helper] = item[0]
                try:
                    helper.conn.send((function, item[1]))
                except OSError:  # it died while idle
                    self._ended(helper)

        for helper in self._helpers:
            hand_out(helper)
        while busy:
            helpers = list(busy)
            ready = set(wait([h.conn for h in helpers] + [h.process.sentinel for h in helpers]))
            for helper in helpers:
                if helper.conn not in ready and helper.process.sentinel not in ready:
                    continue
                ok, value = self._answer(helper)
                if not ok:
                    raise value
                results[busy.pop(helper)] = value
                hand_out(helper)
        return results

    @staticmethod
    def _answer(helper: _Helper) -> tuple[bool, Any]:
        try:
            if helper.conn.poll():
                return helper.conn.recv()  # type: ignore[no-any-return]
        except (EOFError, OSError):
            pass
        Workers._ended(helper)

    @staticmethod
    def _ended(helper: _Helper) -> NoReturn:
        helper.process.join(STOP_SECONDS)
        raise PoolError(f"a worker process ended ({describe_exit(helper.process.exitcode)})")

    def _start(self) -> None:
        context = worker_context()
        for _ in range(self.count):
            ours, theirs = context.Pipe(duplex=True)
            process = context.Process(
                target=_serve, args=(theirs, os.getpid()), name="boardlab-worker", daemon=True
            )
            process.start()
            theirs.close()
            self._helpers.append(_Helper(process, ours))

    def _kill(self) -> None:
        for helper in self._helpers:
            helper.process.kill()
        self._reap()

    def _reap(self) -> None:
        join_or_kill([helper.process for helper in self._helpers])
        for helper in self._helpers:
            helper.conn.close()
        self._helpers = []

    def close(self) -> None:
        """Stop the worker processes: each finishes nothing more and exits (or is killed)."""
        for helper in self._helpers:
            try:
                helper.conn.send(None)
            except OSError:
                helper.process.kill()
        self._reap()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
