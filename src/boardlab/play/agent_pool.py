"""Agents thinking on request in worker processes: :class:`AgentPool`.

The third kind of worker pool, beside :mod:`boardlab.play.pool`'s ``WorkerPool`` (whole games
under a referee's clock) and ``Workers`` (trusted compiled work): a caller that must never run
an agent in its own process (the web server) asks a pool for one decision, or one answer, at a
time. An :class:`AgentPool` keeps a few worker processes (children made by
:func:`~boardlab.core.processes.worker_context`, killed by the kernel if the caller dies) and
hands each request to a free one; only JSON crosses the pipe. A request first gets
``{"started": true}`` once the worker has built and prepared what it needs (compiling included,
under the referee's set-up timeout), then its answer, which must come within the request's own
limit plus a grace. A worker that overruns is killed and replaced, and the request fails with
:class:`Overrun`; one that dies fails it with :class:`WorkerDied`. For an agent's move both mean
a forfeit of that game alone (the caller turns them into
:class:`~boardlab.play.referee.AgentForfeit`); the other games go on with the other workers.

A request is a JSON object whose ``"kind"`` picks its handler in the table the pool names
(``module:NAME``, imported in the worker, so that only the name crosses to it):
:data:`AGENT_REQUESTS` by default, ``"act"`` (an agent's decision) and ``"check"`` (whether an
agent can be built for a game); a caller adds kinds of its own to a table of its own. A handler
is ``handler(worker, request, send) -> reply``: ``worker`` the :class:`AgentWorker` that holds
what the worker keeps between requests, ``send`` for the ``{"started": true}`` message.

A worker keeps the agents of the games it has served (at most :data:`AGENTS_PER_WORKER`, least
recently used dropped first: a dropped agent is built again, fresh, when its game asks next).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import Any

from boardlab.agents.base import AgentSpecError, check_whole_game, make_agent
from boardlab.agents.decision import Limit
from boardlab.core.processes import describe_exit, worker_context
from boardlab.games import parse_game
from boardlab.play.pool import named
from boardlab.play.referee import (
    GRACE_SECONDS,
    SETUP_TIMEOUT,
    Send,
    answer_fault,
    describe_failure,
    describe_start_failure,
    json_sender,
    shown_move,
    start_child,
    stop_child,
)

AGENTS_PER_WORKER = 16
"""Agents a worker keeps between requests (each may hold tables of some megabytes)."""


class ThinkError(Exception):
    """A request a worker could not answer; the message says why, in one line."""


class Overrun(ThinkError):
    """The worker did not answer within the request's limit (it was stopped)."""


class WorkerDied(ThinkError):
    """The worker's process ended while it held the request."""


class Busy(ThinkError):
    """No worker came free within the wait allowed."""


# --- the worker process ---------------------------------------------------------------------


class AgentWorker:
    """What one worker process holds between requests: agents by the caller's key, and
    whatever a handler keeps for itself in :attr:`kept` (e.g. a game's exact play)."""

    def __init__(self) -> None:
        self.agents: OrderedDict[str, Any] = OrderedDict()
        self.kept: dict[str, Any] = {}

    def agent(self, key: str, game: Any, spec: str, seed: int | None) -> Any:
        """The agent kept under ``key``, else a fresh one of ``spec``, prepared for ``game``."""
        agent = self.agents.pop(key, None)
        if agent is None:
            agent = make_agent(spec, seed, game=game)
            agent.prepare(game)
            agent.new_game()
        self.agents[key] = agent
        while len(self.agents) > AGENTS_PER_WORKER:
            self.agents.popitem(last=False)
        return agent


Handler = Callable[[AgentWorker, dict[str, Any], Send], dict[str, Any]]


def act(worker: AgentWorker, request: dict[str, Any], send: Send) -> dict[str, Any]:
    """``{"kind": "act", "key", "game", "position", "agent", "seed"?, "limit"?}``: the decision
    of the agent kept under ``key`` (``agent``'s spec), within ``limit`` (a Limit's fields)."""
    game = parse_game(request["game"])
    state = game.parse_position(request["position"])
    try:
        agent = worker.agent(request["key"], game, request["agent"], request.get("seed"))
    except BaseException as err:
        return {"error": describe_start_failure(err)}
    send({"started": True})
    limit = None if request.get("limit") is None else Limit(**request["limit"])
    tic = time.perf_counter()
    try:
        decision = agent.act(state, limit)
    except BaseException as err:
        worker.agents.pop(request["key"], None)
        return {"error": describe_failure(err)}
    spent = time.perf_counter() - tic
    fault = answer_fault(state, decision)
    if fault is not None:
        return {"error": fault}
    return {"decision": decision.to_json(), "seconds": spent}


def check(worker: AgentWorker, request: dict[str, Any], send: Send) -> dict[str, Any]:
    """``{"kind": "check", "game", "agent", "position"?}``: build the agent for the game (what
    refuses a game it cannot play, e.g. missing tables) and, given a ``position``, check that it
    plays the whole game from there (what refuses ``perfect`` outside its tables)."""
    send({"started": True})
    game = parse_game(request["game"])
    make_agent(request["agent"], None, game=game)
    if request.get("position") is not None:
        check_whole_game(request["agent"], game, game.parse_position(request["position"]))
    return {"ok": True}


AGENT_REQUESTS: Mapping[str, Handler] = {"act": act, "check": check}
"""The requests every agent worker answers."""


def agent_worker_main(conn: Connection, requests: str) -> None:
    """A worker's life: answer each request sent, with the handlers of the table named by
    ``requests`` (``module:NAME``), until told to stop or orphaned."""
    start_child()
    send = json_sender(conn)
    handlers: Mapping[str, Handler] = named(requests)
    worker = AgentWorker()
    try:
        while True:
            request = json.loads(conn.recv_bytes())
            if request.get("stop"):
                return
            handler = handlers.get(request.get("kind", ""))
            if handler is None:
                send({"error": f"unknown request {shown_move(request.get('kind'))}"})
                continue
            try:
                reply = handler(worker, request, send)
            except AgentSpecError as err:  # an agent refusing the game: its own words
                reply = {"error": str(err)}
            except BaseException as err:  # a bad position or spec got past the caller's checks
                reply = {"error": describe_failure(err)}
            send(reply)
    except (EOFError, OSError, KeyboardInterrupt):
        return


# --- the caller's side ----------------------------------------------------------------------


class _Slot:
    """One worker process and the caller's end of its pipe."""

    def __init__(self, requests: str, name: str) -> None:
        context = worker_context()
        self.conn, theirs = context.Pipe(duplex=True)
        self.process = context.Process(
            target=agent_worker_main, args=(theirs, requests), name=name, daemon=True
        )
        self.process.start()
        theirs.close()

    def stop(self, kill: bool = False) -> None:
        stop_child(self.process, self.conn, kill)


class AgentPool:
    """``size`` worker processes answering requests one at a time each (thread-safe).

    ``requests`` names the table of handlers the workers use (``module:NAME``, default
    :data:`AGENT_REQUESTS`); ``name`` is the workers' process name. :meth:`ask` blocks its
    calling thread (a server calls it from a thread pool, so that its event loop stays free),
    waiting at most ``queue_seconds`` for a free worker.
    """

    def __init__(
        self,
        size: int,
        *,
        setup_timeout: float = SETUP_TIMEOUT,
        requests: str = f"{__name__}:AGENT_REQUESTS",
        name: str = "boardlab-agent-worker",
    ) -> None:
        if size < 1:
            raise ValueError(f"a pool needs at least one worker, got {size}")
        self.size = size
        self.setup_timeout = setup_timeout
        self._requests, self._name = requests, name
        self._free: queue.Queue[_Slot] = queue.Queue()
        self._slots: list[_Slot] = []
        self._lock = threading.Lock()
        self._closed = False
        self.replaced = 0
        for _ in range(size):
            slot = self._spawn()
            self._slots.append(slot)
            self._free.put(slot)

    def _spawn(self) -> _Slot:
        return _Slot(self._requests, self._name)

    def ask(
        self,
        request: dict[str, Any],
        limit: float | None,
        queue_seconds: float = 60.0,
        setup_seconds: float | None = None,
    ) -> dict[str, Any]:
        """The answer to ``request`` from a worker, within ``limit`` seconds once started (and
        ``setup_seconds``, default the pool's set-up timeout, to start).

        Busy when no worker comes free in ``queue_seconds``; Overrun, WorkerDied, or a
        ThinkError with the worker's own message when it fails.
        """
        try:
            slot = self._free.get(timeout=queue_seconds)
        except queue.Empty:
            raise Busy(f"every worker stayed busy for {queue_seconds:g} s; try again") from None
        try:
            slot.conn.send_bytes(json.dumps(request, separators=(",", ":")).encode())
            setup = self.setup_timeout if setup_seconds is None else setup_seconds
            first = self._receive(slot, setup, "did not start within {limit:g} s (stopped)")
            reply = (
                first
                if "started" not in first
                else self._receive(slot, limit, "no answer within {limit:g} s (stopped)")
            )
        except ThinkError:
            slot = self._replace(slot)
            raise
        except OSError:
            slot = self._replace(slot)
            raise WorkerDied("the worker's pipe broke") from None
        finally:
            if not self._closed:
                self._free.put(slot)
        if "error" in reply:
            raise ThinkError(str(reply["error"]))
        return reply

    def _receive(self, slot: _Slot, limit: float | None, overdue: str) -> dict[str, Any]:
        wait = None if limit is None else limit + max(GRACE_SECONDS, 0.1 * limit)
        try:
            if not slot.conn.poll(wait):
                raise Overrun(overdue.format(limit=limit))
            return json.loads(slot.conn.recv_bytes())  # type: ignore[no-any-return]
        except (EOFError, OSError):
            slot.process.join(2)
            raise WorkerDied(f"its process ended ({describe_exit(slot.process.exitcode)})") from None

    def _replace(self, slot: _Slot) -> _Slot:
        slot.stop(kill=True)
        if self._closed:
            return slot
        with self._lock:
            fresh = self._spawn()
            self._slots[self._slots.index(slot)] = fresh
            self.replaced += 1
        return fresh

    def close(self) -> None:
        """Stop every worker process."""
        self._closed = True
        for slot in self._slots:
            slot.stop()


__all__ = [
    "AGENTS_PER_WORKER",
    "AGENT_REQUESTS",
    "AgentPool",
    "AgentWorker",
    "Busy",
    "Handler",
    "Overrun",
    "ThinkError",
    "WorkerDied",
    "act",
    "agent_worker_main",
    "check",
]
