"""Holding agents to the rules of play: a time limit per move, and a forfeit for any failure.

An agent that raises, calls ``sys.exit``, answers something that is not a legal move, or
thinks longer than its limit loses the game by forfeit (``Reason.FORFEIT``); it never takes
the program down. Every game applies these rules through its
:class:`~boardlab.play.session.Session`; the terminal game runs its opponent in an
:class:`AgentProcess`, a child process that is killed when a decision does not come in time,
so that even an agent stuck in compiled code is stopped.
"""

from __future__ import annotations

import contextlib
import json
import math
import numbers
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from boardlab.agents.base import AgentSpecError, make_agent, parse_spec
from boardlab.agents.decision import Decision, Limit, SearchInfo, policy_problem
from boardlab.core.processes import (
    describe_exit,
    die_with_parent,
    end_group,
    own_process_group,
    worker_context,
)
from boardlab.core.spec import shorten, shortened_in_the_middle
from boardlab.games import parse_game
from boardlab.play.clock import reading_text

MOVE_TIMEOUT_FACTOR = 10.0
"""By default an agent may take this many times its own time per move (its ``time`` option)..."""
MIN_MOVE_TIMEOUT = 10.0
"""...and at least this many seconds (agents without a time budget get exactly this)."""
MAX_MOVE_TIMEOUT = 86400.0
SETUP_TIMEOUT = 300.0
"""Seconds an agent may take to be built and prepared (compiling its search included)."""
GRACE_SECONDS = 0.5
"""Added to a move limit before a silent agent process is stopped (its own check comes first)."""
MAX_DETAIL = 200
"""Characters kept of an exception's message in a forfeit's detail."""
MAX_FORFEIT_DETAIL = 500
"""Characters kept of a forfeit's detail worded by the agent itself (a course player's refused
answer and the advice after it): cut in the middle, so that the advice at its end stays."""


class TimeLimitError(ValueError):
    """A move timeout that is not a number of seconds in the accepted range."""


class AgentForfeit(Exception):
    """An agent lost the game by failing; ``detail`` says what it did."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def move_limit(spec: str, timeout: float | None = None) -> float | None:
    """The per-move time limit, in seconds, of the agent ``spec`` (None: no limit).

    ``timeout`` overrides it for every agent (0 means no limit); by default an agent gets
    :data:`MOVE_TIMEOUT_FACTOR` times its own time per move (its ``time`` option), and at
    least :data:`MIN_MOVE_TIMEOUT` seconds.
    """
    if timeout is not None:
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, numbers.Real)
            or not 0 <= timeout <= MAX_MOVE_TIMEOUT  # NaN is not either
        ):
            accepted = f"0 (no limit) to {MAX_MOVE_TIMEOUT:g} seconds"
            raise TimeLimitError(f"move timeout must be {accepted}, got {shorten(str(timeout))}")
        return None if timeout == 0 else float(timeout)
    try:
        cls, settings = parse_spec(spec)
    except AgentSpecError:
        return MIN_MOVE_TIMEOUT
    budget = cls.default_limit(settings).time or 0.0
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not math.isfinite(budget):
        budget = 0.0
    return max(MIN_MOVE_TIMEOUT, MOVE_TIMEOUT_FACTOR * float(budget))


def describe_failure(err: BaseException) -> str:
    """What an agent's exception says about it, in one short line: an :class:`AgentForfeit`'s
    own detail (an agent that wraps another, as the course adapter does, already said it) and an
    AgentSpecError's own message (a refusal worded for people: a bad option, a game the agent
    does not play), else the exception's class and message, and where an agent's own code
    raised it (:func:`where_raised`)."""
    if isinstance(err, AgentForfeit):
        return shortened_in_the_middle(" ".join(err.detail.split()), MAX_FORFEIT_DETAIL)
    if isinstance(err, AgentSpecError):
        return shorten(" ".join(str(err).split()), MAX_DETAIL)
    if isinstance(err, SystemExit):
        return f"called sys.exit({shorten(repr(err.code), 40)})" + where_raised(err)
    try:
        text = str(err)
    except Exception:
        text = ""
    what, where = type(err).__name__ + (f": {text}" if text else ""), where_raised(err)
    return "raised " + shorten(" ".join(what.split()), MAX_DETAIL - len(where)) + where


NOT_THE_AGENTS = tuple(
    {str(Path(__file__).parents[1]), sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
)
"""Where code that is not an agent's own lives: boardlab, the environment's packages, Python's."""


def where_raised(err: BaseException) -> str:
    """`` (at FILE:LINE, in FUNCTION)``: the innermost place of an agent's own code (not
    boardlab's, a library's or Python's) that ``err`` came through; "" where there is none (a
    shipped agent's failure is said without it)."""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if not frame.filename.startswith(NOT_THE_AGENTS) and not frame.filename.startswith("<"):
            return f" (at {Path(frame.filename).name}:{frame.lineno}, in {frame.name})"
    return ""


START_FAILURE = "failed to start: "
"""How a forfeit's detail starts when the agent failed before its first move: built, prepared."""


def describe_start_failure(err: BaseException) -> str:
    """:func:`describe_failure` for an agent that failed as it was built or prepared, after
    :data:`START_FAILURE`, once: an agent's own forfeit (the engine agent's) may say it already."""
    detail = describe_failure(err)
    return detail if detail.startswith(START_FAILURE) else START_FAILURE + detail


def shown_move(value: Any, state: Any = None) -> str:
    """A short text of whatever an agent answered, for a forfeit's detail: a move object of
    ``state``'s game in the game's notation (legal there or not), anything else as its repr."""
    if state is not None and _is_move_object(state, value):
        with contextlib.suppress(Exception):
            return shorten(str(value), 60)
    try:
        return shorten(repr(value), 60)
    except Exception:
        return f"an unprintable {type(value).__name__}"


def _is_move_object(state: Any, value: Any) -> bool:
    """True when ``value`` is of the class of ``state``'s game's moves (its first action's)."""
    try:
        return type(value) is type(state.game.move_of(0)) and not isinstance(value, str)
    except Exception:
        return False


def is_legal(state: Any, move: Any) -> bool:
    """True if ``move`` is a legal move object of ``state`` (False for anything else)."""
    try:
        return bool(state.is_legal(move))
    except Exception:
        return False


def move_fault(state: Any, move: Any) -> str | None:
    """Why ``move``, an agent's answer in ``state``, forfeits its game; None for a legal move
    object. Notation text is refused too, saying how to turn it into a move object."""
    if isinstance(move, str):
        text = shorten(move, 20)
        return f"answered the text {text!r}; an agent returns a move object (state.parse_move({text!r}))"
    if is_legal(state, move):
        return None
    return f"answered {shown_move(move, state)}, not a legal move"


def answer_fault(state: Any, answer: Any) -> str | None:
    """Why ``answer``, what an agent's ``act`` returned in ``state``, forfeits its game, in one
    line; None for a :class:`Decision` of a legal move object whose policy, if any, is a 1-D
    array of finite, non-negative numbers, one per action of the game."""
    fault = move_fault(state, answer.move if isinstance(answer, Decision) else answer)
    if fault is not None or not isinstance(answer, Decision):
        return fault or f"answered {shown_move(answer, state)} itself; act returns Decision(move)"
    if answer.policy is None:
        return None
    problem = policy_problem(answer.policy, _action_count(state))
    return None if problem is None else f"answered a bad policy: {problem}"


def _action_count(state: Any) -> int | None:
    """The size of ``state``'s game's action space (None where the game does not say)."""
    try:
        return int(state.kernel.num_actions)
    except Exception:
        return None


def read_decision(data: dict[str, Any], state: Any) -> Decision:
    """The :class:`Decision` that ``Decision.to_json()`` wrote for ``state`` (the move parsed
    there); ValueError, TypeError or KeyError if it is not one."""
    info = data.get("info")
    policy = data.get("policy")
    return Decision(
        move=state.parse_move(data["move"]),
        policy=None if policy is None else np.asarray(policy, dtype=np.float64),
        value=data.get("value"),
        info=None if info is None else SearchInfo(**{**info, "pv": tuple(info.get("pv", ()))}),
    )


# --- agents in child processes --------------------------------------------------------------

Send = Callable[[dict[str, Any]], None]
"""Sends one JSON message from a child process to the main process."""


def json_sender(conn: Connection) -> Send:
    """A :data:`Send` down ``conn``: each message as compact JSON."""

    def send(message: dict[str, Any]) -> None:
        conn.send_bytes(json.dumps(message, separators=(",", ":")).encode())

    return send


def start_child() -> None:
    """A child process's first steps (an agent's host, a pool's worker): die with its parent,
    lead a process group of its own (whatever its agents start is ended with it) and leave
    Ctrl-C to the main process."""
    die_with_parent()
    own_process_group()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_child(process: Any, conn: Connection, kill: bool = False) -> None:
    """Stop a child process and every process its agents started: asked first (a second to
    go) unless ``kill``, then its process group ended and the child killed if still there."""
    if not kill and process.is_alive():
        with contextlib.suppress(OSError):
            conn.send_bytes(b'{"stop": true}')
        process.join(1)
    if process.pid is not None:
        end_group(process.pid)
    if process.is_alive():
        process.kill()
    process.join(5)
    with contextlib.suppress(OSError):  # closed already when a pool replaced the child
        conn.close()


def _warm(the_game: Any) -> None:
    """Compile the game's code that answering a request uses (reading a position as text, its
    moves, playing one, the legality check), so that the first move's clock counts the agent's
    thinking only; the agent compiles its own in ``prepare``. Only a speed-up: a failure is
    left for the first move to meet and report. The agent itself is not asked: one that hangs
    or dies must forfeit its first move, not its start."""
    with contextlib.suppress(Exception):
        state = the_game.initial()
        for _ in range(2):
            state = the_game.parse_position(state.to_text())
            if state.outcome is not None:
                break
            move = state.legal_moves()[0]
            is_legal(state, move)
            state = state.play(move)


def _host(conn: Connection, game: str, spec: str, seed: int | None) -> None:
    """The child process: build and prepare the agent, warm the game's code up, then answer
    ``act`` requests."""
    start_child()
    send = json_sender(conn)

    caught = BaseException  # whatever the agent raises (Ctrl-C is ignored in this process)
    try:
        try:
            the_game = parse_game(game)
            agent = make_agent(spec, seed, game=the_game)
            agent.prepare(the_game)
        except caught as err:
            send({"error": describe_start_failure(err)})
            return
        _warm(the_game)
        send({"ready": True})
        while True:
            request = json.loads(conn.recv_bytes())
            if "stop" in request:
                return
            try:
                if "new_game" in request:
                    agent.new_game()
                    send({"ok": True})
                    continue
                state = the_game.parse_position(request["act"])
                limit = None if request.get("limit") is None else Limit(**request["limit"])
                tic = time.perf_counter()
                decision = agent.act(state, limit)
                spent = time.perf_counter() - tic
                fault = answer_fault(state, decision)
                if fault is not None:
                    send({"error": fault})
                    continue
                reply = json.dumps({"decision": decision.to_json(), "seconds": spent})
            except caught as err:
                send({"error": describe_failure(err)})
                continue
            conn.send_bytes(reply.encode())
    except (EOFError, OSError):
        return


class AgentProcess:
    """An agent playing from a child process, each move under a time limit.

    Built from a game spec, an agent spec and a seed; it offers what a caller of an agent uses
    (``spec``, ``prepare``, ``new_game``, ``act``, ``choose``). ``act`` sends the position as
    text and waits at most ``limit`` seconds (None: no limit), or what is left on the game
    clock the call's Limit gives where that is less, plus a grace: a decision that
    does not come, an agent that fails or answers an illegal move, or a process that dies
    raises :class:`AgentForfeit`; a hung agent's process is killed. Use as a context manager
    or call :meth:`close`.
    """

    def __init__(
        self,
        game: str,
        spec: str,
        seed: int | None = None,
        limit: float | None = None,
        *,
        setup_timeout: float = SETUP_TIMEOUT,
    ) -> None:
        self.spec = spec
        self.limit = limit
        self.failed: str | None = None
        context = worker_context()
        self._conn, theirs = context.Pipe(duplex=True)
        self._process = context.Process(
            target=_host, args=(theirs, game, spec, seed), name="boardlab-agent", daemon=True
        )
        self._process.start()
        theirs.close()
        self._ask(None, setup_timeout, "did not start within {limit:g} s (stopped)")

    def __enter__(self) -> AgentProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def prepare(self, game: Any) -> None:
        """Nothing to do: the agent was prepared when its process started."""

    def new_game(self) -> None:
        """Reset the agent's per-game memory."""
        self._ask({"new_game": True}, SETUP_TIMEOUT, "did not reset within {limit:g} s (stopped)")

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        """The agent's decision for ``state`` within ``limit`` (None: its own budget);
        AgentForfeit if it fails or overruns its time limit per move, or the game clock of
        ``limit`` (``Limit.clock``, what is left) where that is shorter."""
        request = {"act": state.to_text(), "limit": None if limit is None else asdict(limit)}
        wait, overdue = self.limit, "no move within {limit:g} s (stopped)"
        if limit is not None and limit.clock is not None and (wait is None or limit.clock < wait):
            wait, overdue = limit.clock, f"no move with {reading_text(limit.clock)} left (stopped)"
        reply = self._ask(request, wait, overdue)
        if self.limit is not None and reply["seconds"] > self.limit:
            self._fail(f"took {reply['seconds']:.2f} s, over its limit of {self.limit:g} s per move")
        said = reply["decision"]
        try:
            return read_decision(said, state)
        except (ValueError, TypeError, KeyError):
            self._fail(f"answered {shown_move(said.get('move'), state)}, not a legal move")

    def choose(self, state: Any) -> Any:
        """The agent's move for ``state``; AgentForfeit if it fails or overruns its limit."""
        return self.act(state).move

    def _ask(self, request: dict[str, Any] | None, limit: float | None, overdue: str) -> dict[str, Any]:
        if self.failed is not None:
            raise AgentForfeit(self.failed)
        try:
            if request is not None:
                self._conn.send_bytes(json.dumps(request).encode())
            wait = None if limit is None else limit + max(GRACE_SECONDS, 0.1 * limit)
            if not self._conn.poll(wait):
                end_group(self._process.pid)
                self._process.kill()
                self._fail(overdue.format(limit=limit))
            reply: dict[str, Any] = json.loads(self._conn.recv_bytes())
        except (EOFError, OSError):
            self._process.join(5)
            self._fail(f"its process ended ({describe_exit(self._process.exitcode)})")
        if "error" in reply:
            self._fail(reply["error"])
        return reply

    def _fail(self, detail: str) -> NoReturn:
        self.failed = detail
        raise AgentForfeit(detail)

    def close(self) -> None:
        """Stop the child process and every process its agent started."""
        stop_child(self._process, self._conn)
