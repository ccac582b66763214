"""The worker pool on Ray: games and compiled work spread over the cores of a Ray cluster.

Each worker of a :class:`RayGamePool` is a Ray actor that holds a one-process
:class:`~boardlab.play.pool.WorkerPool` of its own, on whatever machine Ray placed it. The
referee's rules are therefore the very same code as on one machine, applied next to the game:
an agent that overruns its limit, crashes or kills its process forfeits, and the game's
record (or the forfeit's moves so far) comes back to the caller. Only JSON text crosses
between the caller and the actors. The caller alone stores the results, as they come in.

Losing an actor (``ray.kill``, a killed process, a machine leaving the cluster) is not any
agent's doing: its game is played again by a fresh actor from the start, with the same seeds,
so it ends as it would have and is returned once. The game of a task depends on the task
alone, so a tournament on Ray equals the local pool's game for game.

Ray is imported only here, and only when a Ray backend is opened; without the ``ray`` extra
:class:`RayBackend` raises a BackendError naming it. Every machine of a cluster needs the
same boardlab installed (the actors import it).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Generic, TypeVar

from boardlab.play.pool import (
    MAX_LOST_WORKERS,
    BackendError,
    GameJobs,
    PoolCounts,
    PoolError,
    Stopped,
    Task,
    WorkerPool,
)
from boardlab.play.referee import SETUP_TIMEOUT

AUTO = "auto"
"""The address that stands for the running cluster Ray finds itself, as ``ray.init(address="auto")``:
the one in ``RAY_ADDRESS``, else the one ``ray start`` last started on this machine."""
CONNECT_TIMEOUT = 5.0
"""Seconds a cluster's address is given to answer before the backend gives up."""
WAIT_SECONDS = 0.5
"""How often the caller looks up from waiting on its actors (Ctrl-C is heard in between)."""
STOP_SECONDS = 5.0
"""How long stopping actors are given to stop their game processes before they are killed."""
INSTALL_HINT = "the ray backend needs the ray extra: pip install 'boardlab[ray]'"
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS_FRAME = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
"""An empty HTTP/2 SETTINGS frame: a Ray head (a gRPC server) answers it with its own."""

T = TypeVar("T", bound=Task)
R = TypeVar("R")


def _ray() -> Any:
    """The ray module; BackendError naming the extra if it is not installed."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise BackendError(INSTALL_HINT) from None


# --- connecting -----------------------------------------------------------------------------


RAY_ADDRESS = "RAY_ADDRESS"
"""The environment variable where Ray (and ``--address auto``) looks for a cluster first."""
ADDRESS_FLAG = "--address"


def _not_host_port(address: str, named: str) -> str:
    """Why ``address`` (what ``named`` holds) is not ``HOST:PORT`` of a Ray head, in one line."""
    scheme, sep, _ = address.strip().partition("://")
    if sep and scheme.lower() == "ray":
        return (
            f"{named} {address!r} is a Ray Client address (ray://), which boardlab does not use: give "
            "HOST:PORT of the cluster's head instead, the port `ray start --head` prints (6379 by default)"
        )
    auto = ", or auto (the running cluster Ray finds)" if named == ADDRESS_FLAG else ""
    url = f" (without {scheme}://: not a URL)" if sep else ""
    return f"{named} must be HOST:PORT of a Ray cluster's head{auto}, got {address!r}{url}"


def split_address(address: str, named: str = ADDRESS_FLAG) -> tuple[str, int]:
    """``(host, port)`` of a cluster address ``HOST:PORT``; BackendError if it is not one (a URL,
    a Ray Client ``ray://`` address included), naming it as what ``named`` holds."""
    host, colon, port = address.strip().rpartition(":")
    malformed = "://" in address or not colon or not host or not port.isdigit() or not 0 < int(port) < 65536
    if malformed:
        raise BackendError(_not_host_port(address, named))
    return host.strip("[]"), int(port)


def resolve_address(address: str) -> str:
    """``address`` itself, or for ``auto`` the ``HOST:PORT`` of the running cluster Ray finds as
    ``ray.init(address="auto")`` does (``RAY_ADDRESS``, else the cluster ``ray start`` last
    started on this machine, else a Ray head running here); BackendError when it finds none, or
    when ``RAY_ADDRESS`` holds no ``HOST:PORT``.
    ``auto`` is kept where this Ray cannot be asked beforehand: ``ray.init`` then looks itself."""
    if address.strip() != AUTO:
        return address
    _ray()  # BackendError naming the extra first
    given = _ray_address_set()
    if given:
        split_address(given, f"--address auto: {RAY_ADDRESS}")
    try:
        find = importlib.import_module("ray._private.services").canonicalize_bootstrap_address_or_die
    except (ImportError, AttributeError):  # a Ray without this lookup: ray.init finds the cluster
        return AUTO
    try:
        found = find(AUTO)
    except ConnectionError:
        raise BackendError(
            "--address auto: Ray finds no running cluster (none in RAY_ADDRESS, none started by "
            "`ray start` on this machine); start one with `ray start --head`, or give HOST:PORT"
        ) from None
    except (ValueError, RuntimeError) as err:
        raise BackendError(f"--address auto: {' '.join(str(err).split())}") from None
    return str(found)


def _ray_address_set() -> str:
    """The address ``RAY_ADDRESS`` holds; empty when it is unset, empty or ``auto`` (where Ray
    looks on as without it)."""
    given = os.environ.get(RAY_ADDRESS, "").strip()
    return "" if given == AUTO else given


def found_where(resolved: str) -> str:
    """What ``--address auto`` found, as the user gave it: ``RAY_ADDRESS``'s own text (Ray may
    rewrite a local address to this machine's IP), else the address Ray found."""
    given = _ray_address_set()
    return f"{given} in {RAY_ADDRESS}" if given else resolved


def check_address(address: str, timeout: float = CONNECT_TIMEOUT, *, unanswered: str = "") -> None:
    """BackendError unless a Ray head answers at ``address`` within ``timeout`` seconds: it says
    ``unanswered`` (default: ``no Ray cluster answers at ADDRESS``), then why.

    Ray's own connection waits a minute or more for a head that is not there; this asks first,
    briefly: a TCP connection, then the HTTP/2 handshake that every gRPC server (a Ray head's
    GCS) answers.
    """
    host, port = split_address(address)
    where = unanswered or f"no Ray cluster answers at {address}"
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            conn.settimeout(timeout)
            conn.sendall(HTTP2_PREFACE + SETTINGS_FRAME)
            head = conn.recv(9)
    except TimeoutError:
        raise BackendError(f"{where} (no answer within {timeout:g} s)") from None
    except OSError as err:
        raise BackendError(f"{where} ({err.strerror or err})") from None
    if len(head) != 9 or head[3] != SETTINGS_FRAME[3]:
        raise BackendError(f"{where} (something answers there, but not a Ray head's GCS server)")


@contextlib.contextmanager
def _brief_connection(joining: bool) -> Iterator[None]:
    """While joining a cluster, Ray tries its head for CONNECT_TIMEOUT seconds (not its own ~20 s),
    and the warnings its compiled core writes about each try (to file descriptor 2, past Python's
    logging) are dropped: a failure is reported once, by the caller, in one line."""
    if not joining:
        yield
        return
    wait_setting = "RAY_gcs_server_port_wait_time_s"
    ours = wait_setting not in os.environ
    if ours:
        os.environ[wait_setting] = str(int(CONNECT_TIMEOUT))
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        null = os.open(os.devnull, os.O_WRONLY)  # silences stderr; writes no file
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        if ours:
            os.environ.pop(wait_setting, None)


def _check_same_cluster(ray: Any, address: str) -> None:
    """BackendError if this process is already connected to a Ray cluster other than the one at
    ``address`` (Ray joins one cluster per process: the address would be silently ignored)."""
    try:
        joined = str(ray.get_runtime_context().gcs_address or "")
    except Exception:  # an older Ray without it: nothing to compare
        return
    if joined and split_address(joined)[1] != split_address(address)[1]:
        raise BackendError(
            f"this process is already connected to the Ray cluster at {joined}, not {address}; "
            "Ray joins one cluster per process (call ray.shutdown() first)"
        )


def _unanswered(given: str, resolved: str) -> str:
    """How an error for no Ray head answering at ``resolved`` begins: ``no Ray cluster answers at
    HOST:PORT``; for ``--address auto``, what it found (as the user gave it) comes first."""
    if given.strip() == AUTO and resolved != AUTO:
        return f"--address auto found {found_where(resolved)}, but no Ray cluster answers there"
    return f"no Ray cluster answers at {resolved}"


def _checked_cluster(address: str) -> str:
    """The ``HOST:PORT`` of the cluster at ``address`` (``auto``: the one Ray finds), once a Ray
    head answers there; BackendError otherwise."""
    resolved = resolve_address(address)
    if resolved != AUTO:
        check_address(resolved, unanswered=_unanswered(address, resolved))
    return resolved


LOST_WORKER_MESSAGE = "A worker died or was killed while executing a task"
"""How Ray's own message about a lost worker begins: the pool counts these and the arena says
them in one line of its own (see :class:`~boardlab.play.pool.PoolCounts`)."""


class _DriverMessages:
    """Keeps the messages Ray's driver prints about the cluster (a lost worker's, with its
    ``(raylet)`` prefix) off standard output, which holds the command's report, while a
    backend is open.

    Ray prints each error message the cluster publishes to standard output from a thread of
    its own (``listen_error_messages``, whatever ``log_to_driver`` says) through
    ``ray._private.worker.print_to_stdstream``; while routed, that function sends them to
    standard error instead, leaving out those about a lost worker (the pool counts them). A
    Ray without that function is left as it is.
    """

    def __init__(self) -> None:
        self._users = 0
        self._original: Callable[..., Any] | None = None

    def route(self) -> None:
        """Route Ray's driver messages (until as many :meth:`restore` calls)."""
        self._users += 1
        if self._users > 1:
            return
        module = sys.modules.get("ray._private.worker")
        original = getattr(module, "print_to_stdstream", None)
        if module is None or original is None:
            return
        self._original = original

        def print_to_stdstream(data: dict[str, Any], ignore_prefix: bool) -> None:
            lines = [line for line in data.get("lines", []) if LOST_WORKER_MESSAGE not in str(line)]
            if lines:
                original({**data, "lines": lines, "is_err": True}, ignore_prefix)

        setattr(module, "print_to_stdstream", print_to_stdstream)  # noqa: B010 (a module of Ray's)

    def restore(self) -> None:
        """Undo one :meth:`route`: Ray prints as it does once no backend routes its messages."""
        self._users = max(0, self._users - 1)
        module = sys.modules.get("ray._private.worker")
        if self._users == 0 and self._original is not None and module is not None:
            setattr(module, "print_to_stdstream", self._original)  # noqa: B010
            self._original = None


DRIVER_MESSAGES = _DriverMessages()


class RayBackend:
    """Workers as Ray actors and tasks; use as a context manager.

    Joins the cluster at ``address`` (``HOST:PORT`` of its head, or ``auto``: the running cluster
    Ray finds, as ``ray.init(address="auto")``; :attr:`address` is then the one found) or,
    without one, uses the Ray instance this process already started, else starts a local one
    (and shuts down on close only what it started). ``announce`` is given one line as Ray starts
    or joins the cluster (seconds may pass before it is ready). BackendError if Ray is missing, the cluster
    does not answer (or ``auto`` finds none), or this process already joined another cluster.
    """

    name = "ray"

    def __init__(self, address: str | None = None, announce: Callable[[str], None] | None = None) -> None:
        given = address
        if address is not None:
            address = _checked_cluster(address)
        self.address = address
        ray = _ray()
        self._started = False
        if not ray.is_initialized():
            options: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,  # the actors' output would break the progress bars
                "logging_level": logging.ERROR,
                "configure_logging": True,
            }
            if announce is not None:  # Ray takes seconds to start or join: say what happens
                joining = "Ray finds" if address == AUTO else f"at {address}"
                announce(f"joining the Ray cluster {joining}" if address else "starting a local Ray instance")
            try:
                # "local" always starts a fresh instance: never join someone else's by accident
                with _brief_connection(address is not None):
                    ray.init(address=address or "local", **options)
            except ConnectionError:
                unanswered = _unanswered(given or "", address or "")
                raise BackendError(f"{unanswered} (no Ray connection within {CONNECT_TIMEOUT:g} s)") from None
            except (RuntimeError, ValueError) as err:
                where = f"at {address}" if address else "locally"
                raise BackendError(f"cannot start Ray {where}: {' '.join(str(err).split())}") from None
            self._started = True
        elif address is not None and address != AUTO:
            _check_same_cluster(ray, address)
        self._ray = ray
        DRIVER_MESSAGES.route()
        self._routed = True
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(GameActor)
        self._idle: list[Any] = []  # actors a closed pool handed back, their game process stopped

    def take_actor(self) -> Any:
        """An actor for a new pool: one a closed pool handed back (its processes and compiled
        code warm), else a new one."""
        return self._idle.pop() if self._idle else self._actor_class.remote()

    def keep_actors(self, actors: Sequence[Any]) -> None:
        """Keep healthy idle ``actors`` for the next pool."""
        self._idle.extend(actors)

    def release_actors(self) -> None:
        """Stop the kept actors: each holds a CPU of the cluster while it waits."""
        for actor in self._idle:
            with contextlib.suppress(Exception):
                self._ray.kill(actor, no_restart=True)
        self._idle = []

    def default_size(self) -> int:
        """The CPUs of the whole cluster."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def game_pool(
        self,
        size: int,
        game: str,
        limits: Mapping[str, float | None],
        jobs: GameJobs[T, R],
        *,
        setup_timeout: float = SETUP_TIMEOUT,
    ) -> RayGamePool[T, R]:
        """A :class:`RayGamePool` of ``size`` actors."""
        return RayGamePool(self, size, game, limits, jobs, setup_timeout=setup_timeout)

    def workers(self, count: int) -> RayWorkers:
        """A :class:`RayWorkers` map over ``count`` concurrent Ray tasks (the kept actors are
        stopped first, so that their CPUs are free for the tasks)."""
        self.release_actors()
        return RayWorkers(self._ray, count)

    @property
    def ray(self) -> Any:
        """The ray module."""
        return self._ray

    def close(self) -> None:
        """Stop the kept actors, and shut down the local Ray instance if this backend started it
        (a cluster is left running); Ray's driver messages print as Ray prints them again."""
        self.release_actors()
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
        self._started = False
        if self._routed:
            DRIVER_MESSAGES.restore()
            self._routed = False

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the actor: a one-process worker pool next to the game -----------------------------------


@dataclass(frozen=True)
class CarriedTask:
    """A task as an actor receives it: its index, its JSON text and its two agent specs."""

    index: int
    text: str
    specs: tuple[str, str]

    def to_json(self) -> str:
        """The task's own JSON, for the runner."""
        return self.text


STOPPED_FIELDS = ("moves", "times", "colour", "detail", "started", "out_of_time")
"""What a stopped game's JSON carries back from an actor."""


def _stopped_json(stopped: Stopped[CarriedTask]) -> str:
    fields = {k: getattr(stopped, k) for k in STOPPED_FIELDS}
    return json.dumps({"stopped": fields})


def carried_jobs(runner: str) -> GameJobs[CarriedTask, str]:
    """The jobs of an actor's own pool: the runner's result, or a stopped game, as JSON text."""
    return GameJobs(
        runner=runner,
        seats=lambda task: task.specs,
        read=lambda text: json.dumps({"result": text}),
        stopped=_stopped_json,
    )


class GameActor:
    """A Ray actor playing one game at a time through a one-process WorkerPool (see the module).

    :meth:`configure` sets up the pool for a game and its agents; an actor is configured again
    for each caller's pool that reuses it (the process's forkserver stays warm).
    """

    def __init__(self) -> None:
        self._pool: WorkerPool[CarriedTask, str] | None = None

    def configure(self, game: str, limits: dict[str, float | None], runner: str, setup_timeout: float) -> int:
        """Start a fresh one-process pool for ``game`` (stopping any earlier one); this actor's pid."""
        self.close()
        self._pool = WorkerPool(1, game, limits, carried_jobs(runner), setup_timeout=setup_timeout)
        return os.getpid()

    def play(self, index: int, text: str, first: str, second: str) -> str:
        """The JSON outcome of one task: ``{"result": ...}``, ``{"stopped": ...}`` or ``{"error": ...}``."""
        task = CarriedTask(index, text, (first, second))
        if self._pool is None:
            return json.dumps({"error": "a Ray worker was asked to play before it was configured"})
        try:
            outcomes = list(self._pool.play(iter([task])))
        except PoolError as err:
            return json.dumps({"error": str(err)})
        return outcomes[0]

    def close(self) -> None:
        """Stop the game process."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None


# --- the caller's side ----------------------------------------------------------------------


@dataclass
class _Slot(Generic[T]):
    actor: Any
    ready: Any  # the reference of the actor's pid, until it is known
    pid: int | None = None
    task: T | None = None
    outcome: Any = None  # the reference of the game's outcome while one is played
    started: float = 0.0


class RayGamePool(Generic[T, R]):
    """``size`` Ray actors playing games of ``game`` as ``jobs`` says; use as a context manager.

    The same contract as :class:`~boardlab.play.pool.WorkerPool` (``limits`` maps each agent
    spec to its limit per move in seconds), plus: a game whose actor is lost is played again
    (counted in :attr:`counts`); PoolError if actors keep being lost.
    """

    def __init__(
        self,
        backend: RayBackend,
        size: int,
        game: str,
        limits: Mapping[str, float | None],
        jobs: GameJobs[T, R],
        *,
        setup_timeout: float = SETUP_TIMEOUT,
    ) -> None:
        self._backend = backend
        self._ray = backend.ray
        self._jobs = jobs
        self._arguments = (game, dict(limits), jobs.runner, setup_timeout)
        self._max_lost = MAX_LOST_WORKERS + 2 * size
        self.counts = PoolCounts()
        self._setup_timeout = setup_timeout
        self._opened = time.monotonic()
        self._slots: list[_Slot[T]] = [self._spawn() for _ in range(size)]

    def __enter__(self) -> RayGamePool[T, R]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(kill=kind is not None)

    def _spawn(self) -> _Slot[T]:
        actor = self._backend.take_actor()
        return _Slot(actor, actor.configure.remote(*self._arguments))

    def pids(self) -> list[int]:
        """The process ids of the actors that are up."""
        return [s.pid for s in self._slots if s.pid is not None]

    def busy(self) -> list[tuple[int, int, float]]:
        """``(task index, actor pid, seconds since the game was sent)`` of each game being played."""
        now = time.monotonic()
        return [
            (s.task.index, s.pid, now - s.started)
            for s in self._slots
            if s.task is not None and s.pid is not None
        ]

    def play(self, tasks: Iterator[T]) -> Generator[R, None, None]:
        """Results of ``tasks`` (taken as actors free up), as they finish; a game whose actor is
        lost is played again. PoolError if a task cannot be played or actors keep being lost."""
        exhausted = False
        retry: list[T] = []
        while True:
            for slot in self._slots:
                if slot.pid is None or slot.task is not None:
                    continue
                task = retry.pop() if retry else None if exhausted else next(tasks, None)
                if task is None:
                    exhausted = True
                    break
                self._assign(slot, task)
            if exhausted and not retry and all(s.task is None for s in self._slots):
                return
            yield from self._wait(retry)

    def _assign(self, slot: _Slot[T], task: T) -> None:
        first, second = self._jobs.seats(task)
        slot.task, slot.started = task, time.monotonic()
        slot.outcome = slot.actor.play.remote(task.index, task.to_json(), first, second)

    def _wait(self, retry: list[T]) -> list[R]:
        pending = {}
        for slot in self._slots:
            ref = slot.outcome if slot.task is not None else slot.ready if slot.pid is None else None
            if ref is not None:
                pending[ref] = slot
        if not pending:
            return []
        if all(s.pid is None for s in self._slots) and time.monotonic() - self._opened > self._setup_timeout:
            raise PoolError(
                f"no Ray worker started within {self._setup_timeout:g} s: does the cluster have a free CPU "
                "and boardlab installed on every machine?"
            )
        # the first to finish, within WAIT_SECONDS; then whatever else has finished by now
        done, rest = self._ray.wait(list(pending), num_returns=1, timeout=WAIT_SECONDS)
        if done and rest:
            done += self._ray.wait(rest, num_returns=len(rest), timeout=0)[0]
        records: list[R] = []
        for ref in done:
            slot = pending[ref]
            if slot.task is None:
                self._started(slot)
            else:
                record = self._finished(slot, retry)
                if record is not None:
                    records.append(record)
        return records

    def _started(self, slot: _Slot[T]) -> None:
        try:
            slot.pid = int(self._ray.get(slot.ready))
        except self._ray.exceptions.RayError as err:
            self._lose(slot, err)

    def _finished(self, slot: _Slot[T], retry: list[T]) -> R | None:
        task = slot.task
        assert task is not None
        try:
            text = self._ray.get(slot.outcome)
        except self._ray.exceptions.RayError as err:  # the actor is lost, not the game
            retry.append(task)
            self.counts.replayed += 1
            self.counts.replayed_indices.append(task.index)
            self._lose(slot, err)
            return None
        slot.task, slot.outcome = None, None
        outcome = json.loads(text)
        if "error" in outcome:
            raise PoolError(outcome["error"])
        if "stopped" in outcome:
            said = outcome["stopped"]
            return self._jobs.stopped(Stopped(task, **{k: said[k] for k in STOPPED_FIELDS}))
        return self._jobs.read(outcome["result"])

    def _lose(self, slot: _Slot[T], err: BaseException) -> None:
        """Replace a lost actor; PoolError once too many were lost."""
        self.counts.lost += 1
        self.counts.last_loss = _first_line(err)
        with contextlib.suppress(Exception):
            self._ray.kill(slot.actor, no_restart=True)
        if self.counts.lost > self._max_lost:
            raise PoolError(f"Ray workers keep being lost; giving up (last: {self.counts.last_loss})")
        self._slots[self._slots.index(slot)] = self._spawn()
        self._opened = time.monotonic()  # the replacement gets its own time to start

    def close(self, kill: bool = False) -> None:
        """Stop the games: idle actors stop their game process and go back to the backend for
        its next pool; busy or starting ones (or all, with ``kill``) are killed."""
        idle = [s.actor for s in self._slots if s.task is None and s.pid is not None] if not kill else []
        stopped = []
        if idle:
            closing = {a.close.remote(): a for a in idle}
            with contextlib.suppress(Exception):
                done, _ = self._ray.wait(list(closing), num_returns=len(closing), timeout=STOP_SECONDS)
                stopped = [closing[ref] for ref in done if _succeeded(self._ray, ref)]
        self._backend.keep_actors(stopped)
        for slot in self._slots:
            if not any(slot.actor is actor for actor in stopped):
                with contextlib.suppress(Exception):
                    self._ray.kill(slot.actor, no_restart=True)
        self._slots = []


def _succeeded(ray: Any, ref: Any) -> bool:
    try:
        ray.get(ref)
    except ray.exceptions.RayError:
        return False
    return True


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"[:200]


# --- trusted compiled work -------------------------------------------------------------------


def apply(function: Callable[[Any], Any], task: Any) -> Any:
    """``function(task)``: what each Ray task of :class:`RayWorkers` runs (any importable
    callable, built-ins included, which Ray cannot make remote by themselves)."""
    return function(task)


class RayWorkers:
    """A parallel map over Ray tasks, at most ``count`` at a time in flight (Ray itself places
    them on the cluster's CPUs). ``function`` must be importable on every machine (a module's
    function, not a lambda or a test's). Every task's result depends on the task alone."""

    def __init__(self, ray: Any, count: int = 1) -> None:
        self.count = max(1, int(count))
        self._ray = ray
        self._apply = ray.remote(num_cpus=1)(apply)

    def map(self, function: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
        """``[function(t) for t in tasks]``, computed by Ray tasks (in order)."""
        results: list[Any] = [None] * len(tasks)
        flying: dict[Any, int] = {}
        for i, task in enumerate(tasks):
            if len(flying) >= self.count:
                self._collect(flying, results, 1)
            flying[self._apply.remote(function, task)] = i
        self._collect(flying, results, len(flying))
        return results

    def _collect(self, flying: dict[Any, int], results: list[Any], wanted: int) -> None:
        done, _ = self._ray.wait(list(flying), num_returns=wanted)
        for ref in done:
            results[flying.pop(ref)] = self._ray.get(ref)

    def close(self) -> None:
        """Nothing to stop: Ray tasks end with their work."""

    def __enter__(self) -> RayWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
