"""One game loop for every door: a :class:`Session` holds a game and plays it to the end.

A session keeps the position and its history, takes moves from either side (a person's move
through :meth:`Session.play`, an agent's through :meth:`Session.agent_move`, which asks
``agent.act(state, limit)`` for a :class:`~boardlab.agents.decision.Decision`), applies the
referee's rules to agents (an agent that raises, answers an illegal move or thinks longer
than its limit per move loses by forfeit, see :mod:`boardlab.play.referee`), counts each
side's thinking time, takes moves back, records resignations, and ends the game as the rules
say: a result on the board, the game's ply cap, or a repeated position when repetitions are
counted. With a time control (:class:`~boardlab.play.clock.TimeControl`) each side's
agent plays on a game clock, is told what is left on it, and loses on time when it thinks past
it. Its :meth:`~Session.record` is the game as plain JSON, and :meth:`Session.replay` rebuilds a
session from one.

The arena, the terminal game and the course adapter all play through it, so clocks,
forfeits and records behave the same everywhere.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from boardlab.agents.decision import Decision, Limit, check_limit
from boardlab.core.console import counted
from boardlab.core.spec import shown_value
from boardlab.games import Outcome, Reason, State, parse_game
from boardlab.games.base import GameOverError
from boardlab.play.clock import TimeControl, reading_text
from boardlab.play.referee import AgentForfeit, answer_fault, describe_failure, describe_start_failure

OPENING_ATTEMPTS = 1000
SECONDS_DIGITS = 6
"""Thinking times are kept to the microsecond: what a clock can honestly tell."""


VERDICTS = (Reason.RESIGNATION, Reason.FORFEIT, Reason.TIME)
"""The ends of a game that are not on its board: given by a side, or by the referee."""


class SessionError(ValueError):
    """A request the game cannot take now (an undo with nothing to take back), or an argument a
    session cannot take (a start that is no position, a negative limit, a colour 5)."""


def _is_number(value: Any) -> bool:
    """A finite real number: an int, a float or numpy's (bools are not numbers here)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _check_seconds(value: Any, what: str) -> float | None:
    """A thinking time as a float, or None; SessionError unless it is None or a finite number >= 0."""
    if value is None:
        return None
    if not _is_number(value) or value < 0:
        raise SessionError(f"{what} is None or a number of seconds >= 0, got {shown_value(value)}")
    return float(value)


def _check_colour(colour: Any, what: str = "colour") -> int:
    """A colour as an int; SessionError unless it is 0 (the first player) or 1."""
    if isinstance(colour, bool) or not isinstance(colour, numbers.Integral) or colour not in (0, 1):
        raise SessionError(f"{what} is 0 (the first player) or 1, got {shown_value(colour)}")
    return int(colour)


class Player(Protocol):
    """What a session asks of an agent (a boardlab Agent, or an agent in a child process)."""

    @property
    def spec(self) -> str: ...

    def act(self, state: Any, limit: Limit | None = None) -> Decision: ...

    def prepare(self, game: Any) -> None: ...

    def new_game(self) -> None: ...


Report = Callable[[dict[str, Any]], None]
"""Receives a session's events about its agents: ``{"setup": colour}`` before an agent is
built and prepared, ``{"turn": colour}`` when :meth:`Session.run` starts an agent's clock and
``{"move": notation, "seconds": s, "turn": next colour or None}`` after each agent move; with a
time control each ``turn`` comes with ``"left"``, the seconds left on that side's clock."""


@dataclass(frozen=True)
class Turn:
    """One move played: by whom, and for an agent's move its thinking time and its decision."""

    move: Any
    mover: int
    seconds: float | None = None
    decision: Decision | None = None

    @property
    def notation(self) -> str:
        """The move in the game's notation."""
        return str(self.move)


@dataclass(frozen=True)
class SessionRecord:
    """A game as played: the game's spec, where it started, the moves and how it ended.

    ``seconds`` holds each move's thinking time (None for a person's move or an opening move)
    and ``decisions`` what each agent said beside its move (``Decision.to_json()`` without the
    move; None where nothing was said). ``outcome`` is None for a game left unfinished.
    """

    game: str
    start: str
    moves: tuple[str, ...]
    seconds: tuple[float | None, ...]
    decisions: tuple[dict[str, Any] | None, ...]
    outcome: Outcome | None

    def __post_init__(self) -> None:
        count = len(self.moves)
        if len(self.seconds) != count or len(self.decisions) != count:
            raise SessionError(
                f"a record has a time and a decision for each move: {count} moves, "
                f"{len(self.seconds)} times, {len(self.decisions)} decisions"
            )
        for i, seconds in enumerate(self.seconds):
            _check_seconds(seconds, f"the time of move {i + 1}")

    def to_json(self) -> str:
        """The record as one line of JSON."""
        data = {
            "game": self.game,
            "start": self.start,
            "moves": list(self.moves),
            "seconds": list(self.seconds),
            "decisions": list(self.decisions),
            "outcome": None if self.outcome is None else self.outcome.to_json(),
        }
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> SessionRecord:
        """Read what :meth:`to_json` wrote; SessionError if it is not such a record."""
        try:
            data = json.loads(text)
            outcome = data["outcome"]
            return cls(
                game=str(data["game"]),
                start=str(data["start"]),
                moves=tuple(str(m) for m in data["moves"]),
                seconds=tuple(None if s is None else float(s) for s in data["seconds"]),
                decisions=tuple(data["decisions"]),
                outcome=None if outcome is None else Outcome.from_json(outcome),
            )
        except SessionError as err:
            raise SessionError(f"not a game record: {err}") from None
        except (ValueError, KeyError, TypeError) as err:
            raise SessionError(f"not a game record: {type(err).__name__}: {err}") from None


class Session:
    """A game from ``start`` (a position: ``new_game("connect4")``, ``game.initial()``), played
    by people and agents.

    ``agents`` holds the agent of each colour (None: that side's moves come from
    :meth:`play`). ``limits`` are each side's seconds per move (a positive number, or None:
    no limit): an agent that thinks longer forfeits even if its move comes. ``time_control``
    (a :class:`~boardlab.play.clock.TimeControl`, or None) puts both sides on a game clock:
    each timed move is charged to its side's clock, which gains the increment after it; an
    agent is told what is left (``Limit.clock``) and loses on time (``Reason.TIME``) when it
    thinks longer than that, or when its clock is empty at its turn. ``repetitions``
    (None: not counted, as in every game's own rules today; else a whole number >= 2) ends
    the game as a draw when a position occurs that many times. ``catch_interrupt`` lets a
    KeyboardInterrupt raised by an agent count as its failure (in a worker process that
    ignores Ctrl-C it can only come from the agent); otherwise it goes through to the caller.
    ``report`` receives the events of :data:`Report`.
    """

    def __init__(
        self,
        start: Any,
        agents: Sequence[Player | None] = (None, None),
        *,
        limits: Sequence[float | None] = (None, None),
        time_control: TimeControl | None = None,
        repetitions: int | None = None,
        catch_interrupt: bool = False,
        report: Report | None = None,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not isinstance(start, State):
            raise SessionError(
                "start is a position such as new_game('connect4') or game.initial(), "
                f"got {shown_value(start)}"
            )
        if repetitions is not None and (
            isinstance(repetitions, bool) or not isinstance(repetitions, numbers.Integral) or repetitions < 2
        ):
            raise SessionError(f"repetitions is None or a whole number >= 2, got {shown_value(repetitions)}")
        self.start = start
        self.agents: list[Player | None] = _checked_agents(agents)
        self.limits = _checked_limits(limits)
        if time_control is not None and not isinstance(time_control, TimeControl):
            shown = shown_value(time_control)
            raise SessionError(f"time_control is a TimeControl (TimeControl.parse('60+1')) or None: {shown}")
        self.time_control = time_control
        self.repetitions = None if repetitions is None else int(repetitions)
        self.report = report or (lambda event: None)
        self._caught: type[BaseException] | tuple[type[BaseException], ...] = (
            BaseException if catch_interrupt else (Exception, SystemExit)
        )
        self._timer = timer
        self.positions: list[Any] = [start]
        self.turns: list[Turn] = []
        self._verdict: Outcome | None = None  # a resignation or a forfeit
        self._seen: Counter[tuple[int, int, int]] = Counter({_position_key(start): 1})
        self._seated: set[int] = set()  # the colours whose agent seat() prepared

    def __repr__(self) -> str:
        outcome = self.outcome
        now = (
            f"{self.game.symbols[self.to_move]} to move"
            if outcome is None
            else outcome.text(self.game.symbols)
        )
        return f"<Session of {self.game.spec}: {counted(len(self.turns), 'move')}, {now}>"

    # --- what the game is now --------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The current position."""
        return self.positions[-1]

    @property
    def game(self) -> Any:
        """The game being played."""
        return self.start.game

    @property
    def to_move(self) -> int:
        """The colour to move (0 moved first)."""
        return int(self.state.to_move)

    @property
    def moves(self) -> list[str]:
        """The moves played, in notation."""
        return [turn.notation for turn in self.turns]

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended (a resignation, a forfeit, a repetition or the rules), or None."""
        if self._verdict is not None:
            return self._verdict
        if self.repetitions is not None and self._seen[_position_key(self.state)] >= self.repetitions:
            return Outcome(None, Reason.REPETITION, f"a position met {self.repetitions} times")
        return self.state.outcome  # type: ignore[no-any-return]

    @property
    def is_over(self) -> bool:
        """True once the game has an outcome."""
        return self.outcome is not None

    @property
    def clocks(self) -> tuple[float, float]:
        """The seconds each colour has spent thinking on the moves still on the board."""
        spent = [0.0, 0.0]
        for turn in self.turns:
            spent[turn.mover] += turn.seconds or 0.0
        return spent[0], spent[1]

    def clock_left(self, colour: int) -> float | None:
        """The seconds left on ``colour``'s game clock (None without a time control): the base
        (and again for each period of moves completed), less every timed move of that side,
        plus the increment after each."""
        control = self.time_control
        if control is None:
            return None
        return control.left(self._timed(_check_colour(colour)))

    def moves_to_go(self, colour: int) -> int | None:
        """The moves ``colour``'s clock must last until its base is added again (None without a
        time control, or on one whose base is for the whole game)."""
        control = self.time_control
        if control is None:
            return None
        return control.moves_to_go(len(self._timed(_check_colour(colour))))

    def _timed(self, colour: int) -> list[float]:
        """The seconds of each timed move of ``colour`` (the moves its clock was charged)."""
        return [turn.seconds for turn in self.turns if turn.mover == colour and turn.seconds is not None]

    def agent_to_move(self) -> bool:
        """True when the side to move is played by an agent (and the game goes on)."""
        return not self.is_over and self.agents[self.to_move] is not None

    # --- moves -------------------------------------------------------------------------------

    def play(self, move: Any, *, seconds: float | None = None, decision: Decision | None = None) -> Turn:
        """Play ``move`` (a move object or its notation) for the side to move; ``seconds`` is
        the time it took (None or >= 0), ``decision`` what was said beside it (a Decision).
        With a time control, ``seconds`` is charged to the mover's clock; a person whose clock
        ran out is the caller's to tell (:meth:`lose_on_time`).

        A GameError (IllegalMoveError, MoveParseError) if it is no legal move here; a
        GameOverError once the game is over; SessionError for a bad time or decision.
        """
        seconds = _check_seconds(seconds, "seconds")
        if decision is not None and not isinstance(decision, Decision):
            raise SessionError(f"decision is a Decision or None, got {shown_value(decision)}")
        self._check_open()
        if isinstance(move, str):
            move = self.state.parse_move(move)
        return self._push(move, seconds, decision)

    def _push(self, move: Any, seconds: float | None, decision: Decision | None) -> Turn:
        after = self.state.play(move)
        turn = Turn(move, self.to_move, seconds, decision)
        self.positions.append(after)
        self.turns.append(turn)
        if self.repetitions is not None:
            self._seen[_position_key(after)] += 1
        return turn

    def agent_move(self, limit: Limit | None = None) -> Turn | None:
        """Ask the agent to move for its decision within ``limit`` (None: its own budget) and
        play it; None if the agent forfeits instead (:attr:`outcome` says why). LimitError for
        a ``limit`` that is no Limit (the caller's mistake, not the agent's)."""
        check_limit(limit)
        self._check_open()
        return self._agent_turn(limit)

    def _agent_turn(self, limit: Limit | None) -> Turn | None:
        colour = self.to_move
        agent = self.agents[colour]
        if agent is None:
            raise SessionError(f"{self.game.symbols[colour]} is played by a person, not an agent")
        state = self.state
        left = self.clock_left(colour)
        if left is not None:
            if left <= 0:
                self.lose_on_time(colour, f"its clock was empty at its turn ({left:.2f} s)")
                return None
            assert self.time_control is not None
            increment, to_go = self.time_control.increment, self.moves_to_go(colour)
            limit = replace(limit or Limit(), clock=left, increment=increment, moves_to_go=to_go)
        tic = self._timer()
        try:
            decision = agent.act(state, limit)
        except AgentForfeit as err:
            self._failed(colour, err.detail, self._timer() - tic, left)
            return None
        except self._caught as err:
            _show_where(err)
            self._failed(colour, describe_failure(err), self._timer() - tic, left)
            return None
        spent = self._timer() - tic
        if left is not None and spent > left:
            self.lose_on_time(colour, f"took {reading_text(spent)} with {reading_text(left)} left")
            return None
        allowed = self.limits[colour]
        if allowed is not None and spent > allowed:
            self._lost(colour, f"took {spent:.2f} s, over its limit of {allowed:g} s per move")
            return None
        fault = answer_fault(state, decision)
        if fault is not None:
            self._lost(colour, fault)
            return None
        turn = self._push(decision.move, round(spent, SECONDS_DIGITS), decision)
        self.report({"move": turn.notation, "seconds": turn.seconds, **self._turn_event()})
        return turn

    def run(self, limit: Limit | None = None) -> Outcome:
        """Let the agents play until the game ends (every side to move must be an agent). On a
        clock or limits per move, agents given to the session and not seated by :meth:`seat`
        or :meth:`prepare_agents` are prepared first, so that no compiling is charged to a move."""
        check_limit(limit)
        outcome = self.outcome
        unseated = [c for c, agent in enumerate(self.agents) if agent is not None and c not in self._seated]
        if outcome is None and unseated and self._time_counts():
            outcome = self.prepare_agents()
        if outcome is None:
            self.report(self._turn_event())
        while outcome is None:
            self._agent_turn(limit)
            outcome = self.outcome
        return outcome

    def _time_counts(self) -> bool:
        """Whether a move's time can lose the game: a game clock, or a limit per move."""
        return self.time_control is not None or any(limit is not None for limit in self.limits)

    def _turn_event(self) -> dict[str, Any]:
        """Whose clock runs now (None once the game is over), and what is left on it."""
        if self.is_over:
            return {"turn": None}
        event: dict[str, Any] = {"turn": self.to_move}
        if self.time_control is not None:
            event["left"] = self.clock_left(self.to_move)
        return event

    # --- agents ------------------------------------------------------------------------------

    def seat(self, colour: int, build: Callable[[], Player]) -> Outcome | None:
        """Build the agent of ``colour`` with ``build()``, prepare it for the game and reset its
        memory; its forfeit (``failed to start: ...``) if any of that fails, else None.
        SessionError for a colour that is not 0 or 1 (nothing is built then)."""
        colour = _check_colour(colour)
        self.report({"setup": colour})
        try:
            agent = build()
            agent.prepare(self.game)
            agent.new_game()
        except AgentForfeit as err:
            return self.forfeit(colour, err.detail)
        except self._caught as err:
            _show_where(err)
            return self.forfeit(colour, describe_start_failure(err))
        self.agents[colour] = agent
        self._seated.add(colour)
        return None

    def prepare_agents(self) -> Outcome | None:
        """Prepare the agents given to the session and reset their memory, first colour first;
        the forfeit of the first that fails, else None."""
        for colour, agent in enumerate(self.agents):
            if agent is not None and (forfeit := self.seat(colour, _given(agent))) is not None:
                return forfeit
        return None

    def _reset_agents(self) -> Outcome | None:
        """Tell every agent the game was changed under it; the forfeit of one that fails."""
        for colour, agent in enumerate(self.agents):
            if agent is None:
                continue
            try:
                agent.new_game()
            except AgentForfeit as err:
                return self.forfeit(colour, err.detail)
            except self._caught as err:
                _show_where(err)
                return self.forfeit(colour, describe_failure(err))
        return None

    # --- taking back and giving up -----------------------------------------------------------

    def undo(self, side: int | None = None) -> list[Turn]:
        """Take back the last move, or with ``side`` that side's last move and every move after
        it; the turns taken back, last one last.

        The agents' per-game memory is reset (an agent that fails to reset forfeits: see
        :attr:`outcome`). SessionError if there is nothing to take back or the game ended by
        resignation or forfeit.
        """
        if side is not None:
            side = _check_colour(side, "side")
        if self._verdict is not None:
            raise SessionError(f"the game is over ({self._verdict.reason.value}); nothing can be taken back")
        movers = [i for i, turn in enumerate(self.turns) if side is None or turn.mover == side]
        if not movers:
            raise SessionError("nothing to take back")
        first = movers[-1]
        taken = self.turns[first:]
        if self.repetitions is not None:
            for position in self.positions[first + 1 :]:
                self._seen[_position_key(position)] -= 1
        del self.turns[first:]
        del self.positions[first + 1 :]
        self._reset_agents()
        return taken

    def resign(self, colour: int) -> Outcome:
        """``colour`` (0 or 1) gives up: the other side wins."""
        colour = _check_colour(colour)
        self._check_open()
        self._verdict = Outcome(1 - colour, Reason.RESIGNATION)
        return self._verdict

    def forfeit(self, colour: int, detail: str) -> Outcome:
        """``colour`` (0 or 1) loses by forfeit (``detail`` says what it did)."""
        colour = _check_colour(colour)
        self._check_open()
        self._verdict = Outcome(1 - colour, Reason.FORFEIT, detail)
        return self._verdict

    def _lost(self, colour: int, detail: str) -> None:
        """``colour`` forfeits; nothing was played (what :meth:`agent_move` answers then)."""
        self.forfeit(colour, detail)

    def _failed(self, colour: int, detail: str, spent: float, left: float | None) -> None:
        """``colour``'s agent failed after ``spent`` seconds with ``left`` on its clock: it
        loses on time where the clock ran out first (a host that stops a hung agent at its clock
        tells it by failing it), else by forfeit."""
        if left is not None and spent > left:
            self.lose_on_time(colour, detail)
        else:
            self._lost(colour, detail)

    def lose_on_time(self, colour: int, detail: str) -> Outcome:
        """``colour`` (0 or 1) loses on time (``detail`` says how): what a user interface calls
        when a person's clock runs out; an agent's is checked by the session itself."""
        colour = _check_colour(colour)
        self._check_open()
        self._verdict = Outcome(1 - colour, Reason.TIME, detail)
        return self._verdict

    def _check_open(self) -> None:
        if (outcome := self.outcome) is not None:
            raise GameOverError(f"the game is over: {outcome.text(self.game.symbols)}")

    # --- the record ----------------------------------------------------------------------------

    def record(self) -> SessionRecord:
        """The game so far as a :class:`SessionRecord`."""
        return SessionRecord(
            game=self.game.spec,
            start=self.start.to_text(),
            moves=tuple(self.moves),
            seconds=tuple(turn.seconds for turn in self.turns),
            decisions=tuple(_said(turn.decision) for turn in self.turns),
            outcome=self.outcome,
        )

    @classmethod
    def replay(cls, record: SessionRecord, **options: Any) -> Session:
        """A session holding the game of ``record``, its moves replayed with their times, and its
        resignation or forfeit if it ended so (``options`` as for the constructor).

        A GameError if a move of the record is not legal where it was played.
        """
        if not isinstance(record, SessionRecord):
            raise SessionError(
                f"replay takes a SessionRecord (from_json reads one), got {shown_value(record)}"
            )
        game = parse_game(record.game)
        session = cls(game.parse_position(record.start), **options)
        for move, seconds in zip(record.moves, record.seconds, strict=True):
            session.play(move, seconds=seconds)
        outcome = record.outcome
        if outcome is not None and outcome.reason in VERDICTS:
            session._verdict = outcome
        return session


def _show_where(err: BaseException) -> None:
    """With ``BOARDLAB_DEBUG`` set, an agent's exception's traceback on standard error: its
    forfeit says only the exception's class and message, and one debugging an agent of one's
    own wants the line that raised it."""
    if os.environ.get("BOARDLAB_DEBUG"):
        traceback.print_exception(err, file=sys.stderr)


def _given(agent: Player) -> Callable[[], Player]:
    return lambda: agent


def _two_sides(values: Any) -> list[Any]:
    if isinstance(values, str) or not isinstance(values, Sequence) or len(values) != 2:
        raise SessionError("a session has two sides: give two agents (or None) and two limits")
    return list(values)


def _checked_agents(agents: Any) -> list[Player | None]:
    """Each side's agent (anything with ``act``) or None; SessionError for anything else."""
    sides = _two_sides(agents)
    for colour, agent in enumerate(sides):
        if agent is not None and not callable(getattr(agent, "act", None)):
            raise SessionError(
                f"agents[{colour}] is an agent (make_agent(spec)) or None, got {shown_value(agent)}"
            )
    return sides


def _checked_limits(limits: Any) -> tuple[float | None, float | None]:
    """Each side's seconds per move as a float or None; SessionError for anything else."""
    sides = _two_sides(limits)
    for colour, limit in enumerate(sides):
        if limit is not None and (not _is_number(limit) or limit <= 0):
            raise SessionError(
                f"limits[{colour}] is None or a number of seconds > 0, got {shown_value(limit)}"
            )
    first, second = (None if limit is None else float(limit) for limit in sides)
    return first, second


def _position_key(state: Any) -> tuple[int, int, int]:
    return int(state.a), int(state.b), int(state.to_move)


def _said(decision: Decision | None) -> dict[str, Any] | None:
    """What a decision says beyond its move, as JSON values (None: nothing)."""
    if decision is None:
        return None
    said = decision.to_json()
    del said["move"]
    return said or None


def random_opening(game: str, plies: int, seed: int) -> tuple[Any, list[str]]:
    """A position reached by ``plies`` uniformly random moves from the start, and those moves.

    An opening that ends the game is drawn again (from the same random stream), so the
    opening is a function of ``(game, plies, seed)`` and always leaves the game open.
    SessionError if no such opening is found.
    """
    rng = random.Random(seed)
    start = parse_game(game).initial()
    for _ in range(OPENING_ATTEMPTS):
        state = start
        moves: list[str] = []
        while len(moves) < plies and not state.is_over:
            move = rng.choice(state.legal_moves())
            moves.append(str(move))
            state = state.play(move)
        if not state.is_over:
            return state, moves
    raise SessionError(f"no opening of {plies} random plies leaves a game of {game} open; use fewer plies")
