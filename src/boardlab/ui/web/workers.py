"""Thinking away from the server: agents' moves and analyses in worker processes.

The server never runs an agent or a solver in its own process. A :class:`ThinkPool` keeps a
few worker processes (children made by :func:`~boardlab.core.processes.worker_context`, killed
by the kernel if the server dies) and hands each request to a free one; only JSON crosses the
pipe. A request first gets ``{"started": true}`` once the worker has built and prepared what it
needs (compiling included, under the referee's set-up timeout), then its answer, which must come
within the request's own limit plus a grace. A worker that overruns is killed and replaced, and
the request fails with :class:`Overrun`; one that dies fails it with :class:`WorkerDied`. For an
agent's move both mean a forfeit of that game alone (the caller turns them into
:class:`~boardlab.play.referee.AgentForfeit`); the other games go on with the other workers.

A worker keeps the agents of the games it has served (at most :data:`AGENTS_PER_WORKER`, least
recently used dropped first: a dropped agent is built again, fresh, when its game asks next) and
the exact play of each game variant it has opened.
"""

from __future__ import annotations

import contextlib
import json
import queue
import random
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.agents.decision import Decision, Limit
from boardlab.core.processes import (
    describe_exit,
    die_with_parent,
    end_group,
    own_process_group,
    worker_context,
)
from boardlab.games import ExactPlayError, exact_play, parse_game
from boardlab.games.exact import value_of_moves
from boardlab.play.referee import GRACE_SECONDS, SETUP_TIMEOUT, describe_failure, is_legal, shown_move

AGENTS_PER_WORKER = 16
"""Agents a worker keeps between requests (each may hold tables of some megabytes)."""
EXACT_LIMIT = 2_000_000
"""Most positions an exhaustive solve on demand may hold in a worker (small games only)."""


class ThinkError(Exception):
    """A request a worker could not answer; the message says why, in one line."""


class Overrun(ThinkError):
    """The worker did not answer within the request's limit (it was stopped)."""


class WorkerDied(ThinkError):
    """The worker's process ended while it held the request."""


class Busy(ThinkError):
    """No worker came free within the wait allowed."""


# --- the worker process ---------------------------------------------------------------------


class _Worker:
    """What one worker process holds: agents by game key, exact play by game spec."""

    def __init__(self) -> None:
        self.agents: OrderedDict[str, Any] = OrderedDict()
        self.exact: dict[str, Any] = {}

    def agent(self, key: str, game: Any, spec: str, seed: int | None) -> Any:
        agent = self.agents.pop(key, None)
        if agent is None:
            agent = make_agent(spec, seed, game=game)
            agent.prepare(game)
            agent.new_game()
        self.agents[key] = agent
        while len(self.agents) > AGENTS_PER_WORKER:
            self.agents.popitem(last=False)
        return agent

    def exact_play(self, game: Any) -> Any:
        if game.spec not in self.exact:
            try:
                exact = exact_play(game, limit=EXACT_LIMIT)
                _warm(exact, game)
                self.exact[game.spec] = exact
            except ExactPlayError as err:
                self.exact[game.spec] = str(err)
        return self.exact[game.spec]


def _warm(exact: Any, game: Any) -> None:
    """Compile what an exact play runs, on the last position of a random game before its end,
    so that no analysis's budget pays for a compile."""
    rng = random.Random(0)
    state, before = game.initial(), None
    while not state.is_over:
        before, state = state, state.play(rng.choice(state.legal_moves()))
    if before is not None and exact.covers(before):
        exact.move_values(before)


def _act(worker: _Worker, request: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    game = parse_game(request["game"])
    state = game.parse_position(request["position"])
    try:
        agent = worker.agent(request["key"], game, request["agent"], request.get("seed"))
    except BaseException as err:
        return {"error": "failed to start: " + describe_failure(err)}
    send({"started": True})
    limit = None if request.get("limit") is None else Limit(**request["limit"])
    tic = time.perf_counter()
    try:
        decision = agent.act(state, limit)
    except BaseException as err:
        worker.agents.pop(request["key"], None)
        return {"error": describe_failure(err)}
    spent = time.perf_counter() - tic
    move = decision.move if isinstance(decision, Decision) else decision
    if not isinstance(decision, Decision) or not is_legal(state, move):
        return {"error": f"answered {shown_move(move)}, not a legal move"}
    return {"decision": decision.to_json(), "seconds": spent}


def _exact(
    worker: _Worker, request: dict[str, Any], send: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    game = parse_game(request["game"])
    state = game.parse_position(request["position"])
    exact = worker.exact_play(game)
    send({"started": True})
    if isinstance(exact, str):
        return {"exact": None, "why": exact}
    reason = exact.uncovered(state)
    if reason is not None:
        return {"exact": None, "why": reason}
    values = exact.move_values(state)
    moves = [
        {
            "move": str(state.move_from_index(v.action)),
            "value": v.name,
            "depth": v.depth,
            "score": v.score,
        }
        for v in values
    ]
    position = exact.position_value(state) if state.is_over or not values else value_of_moves(values)
    best = {str(state.move_from_index(a)) for a in (exact.best_actions(state) if values else [])}
    for item in moves:
        item["best"] = item["move"] in best
    return {
        "exact": {
            "title": exact.title,
            "value": position.name,
            "depth": position.depth,
            "score": position.score,
            "moves": moves,
        }
    }


def _check(
    worker: _Worker, request: dict[str, Any], send: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Build the agent for the game (what refuses a game it cannot play, e.g. missing tables)."""
    send({"started": True})
    make_agent(request["agent"], None, game=parse_game(request["game"]))
    return {"ok": True}


_HANDLERS = {"act": _act, "exact": _exact, "check": _check}


def think_main(conn: Connection) -> None:
    """A worker's life: answer each request sent until told to stop or orphaned."""
    die_with_parent()
    own_process_group()  # whatever an agent starts is ended with the worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server

    def send(reply: dict[str, Any]) -> None:
        conn.send_bytes(json.dumps(reply, separators=(",", ":")).encode())

    worker = _Worker()
    try:
        while True:
            request = json.loads(conn.recv_bytes())
            if request.get("stop"):
                return
            handler = _HANDLERS.get(request.get("kind", ""))
            if handler is None:
                send({"error": f"unknown request {shown_move(request.get('kind'))}"})
                continue
            try:
                reply = handler(worker, request, send)
            except AgentSpecError as err:  # an agent refusing the game: its own words
                reply = {"error": str(err)}
            except BaseException as err:  # a bad position or spec got past the server's checks
                reply = {"error": describe_failure(err)}
            send(reply)
    except (EOFError, OSError, KeyboardInterrupt):
        return


# --- the server's side ----------------------------------------------------------------------


class _Slot:
    """One worker process and the server's end of its pipe."""

    def __init__(self) -> None:
        context = worker_context()
        self.conn, theirs = context.Pipe(duplex=True)
        self.process = context.Process(
            target=think_main, args=(theirs,), name="boardlab-web-worker", daemon=True
        )
        self.process.start()
        theirs.close()

    def stop(self, kill: bool = False) -> None:
        if not kill and self.process.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send_bytes(b'{"stop": true}')
            self.process.join(1)
        if self.process.pid is not None:
            end_group(self.process.pid)
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        with contextlib.suppress(OSError):  # closed already when the worker was replaced
            self.conn.close()


class ThinkPool:
    """``size`` worker processes answering requests one at a time each (thread-safe).

    :meth:`ask` blocks its calling thread (the server calls it from a thread pool, so that its
    event loop stays free), waiting at most ``queue_seconds`` for a free worker.
    """

    def __init__(self, size: int, *, setup_timeout: float = SETUP_TIMEOUT) -> None:
        if size < 1:
            raise ValueError(f"a pool needs at least one worker, got {size}")
        self.size = size
        self.setup_timeout = setup_timeout
        self._free: queue.Queue[_Slot] = queue.Queue()
        self._slots: list[_Slot] = []
        self._lock = threading.Lock()
        self._closed = False
        self.replaced = 0
        for _ in range(size):
            slot = _Slot()
            self._slots.append(slot)
            self._free.put(slot)

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
            fresh = _Slot()
            self._slots[self._slots.index(slot)] = fresh
            self.replaced += 1
        return fresh

    def close(self) -> None:
        """Stop every worker process."""
        self._closed = True
        for slot in self._slots:
            slot.stop()


__all__ = ["AGENTS_PER_WORKER", "Busy", "Overrun", "ThinkError", "ThinkPool", "WorkerDied", "think_main"]
