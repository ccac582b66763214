"""The server's games: each a :class:`~boardlab.play.session.Session` between people and agents.

A :class:`Hall` holds at most ``max_games`` games; a game nobody has looked at for
``idle_seconds`` is dropped, first when room is needed and otherwise by a periodic sweep. Each
game's agents play from the hall's :class:`~boardlab.play.agent_pool.AgentPool` through a
:class:`RemoteAgent`, run by a thread of the hall's executor so that the server's event loop
never waits on an agent. The session's clock is the workers' own measure of thinking time, so a
move that waited for a free worker is not charged for the wait; an agent that overruns its limit
per move, fails or dies forfeits its game, and every other game goes on.

A game may be played on a game clock (a :class:`~boardlab.play.clock.TimeControl`): its agents
then share their clocks out (at most the server's ``max_think`` a move) and lose on time when
they run out; a person's turn is timed from when it began (the hall's monotonic clock) to the
move, and a person whose clock ran out loses on time at their next request or the page's next
look at the game.

Agent specs come from the registry only: :func:`check_agent` refuses the ``course`` adapter and
any option that names a file (``model=``, ``weights=``) unless the server allows paths.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from boardlab.agents.base import AgentSpecError, parse_spec
from boardlab.agents.decision import Decision, Limit, policy_problem
from boardlab.core.machine import memory_problem
from boardlab.core.spec import options_of, shorten, spec_text
from boardlab.games import GameError, Outcome, Reason, parse_game
from boardlab.play.agent_pool import AgentPool, Busy, Overrun, ThinkError, WorkerDied
from boardlab.play.clock import TimeControl, TimeControlError, reading_text
from boardlab.play.referee import MOVE_TIMEOUT_FACTOR, AgentForfeit, describe_failure, read_decision
from boardlab.play.session import VERDICTS, Session, SessionError
from boardlab.ui.search_analysis import evaluation_text
from boardlab.ui.web.boards import view as board_view

MIN_MOVE_LIMIT = 5.0
"""Seconds an agent may always take per move before it forfeits, or the referee's factor
(:data:`~boardlab.play.referee.MOVE_TIMEOUT_FACTOR`) times the thinking time it was given,
whichever is more. Lower than the terminal's 10 s: a page's player waits for the answer."""
MAX_MOVES_TEXT = 4000
CHECK_SECONDS = 30.0
"""Most seconds a worker may take to build an agent when a game starts..."""
CHECK_QUEUE_SECONDS = 2.0
"""...and to come free for it."""
PREPARE_QUEUE_SECONDS = 0.2
"""Most seconds an agent's preparation ahead of its first move waits for a free worker."""
PATH_AGENTS = ("course", "engine")
"""Agents that load or run code named by a path (a course player's module, an engine's
program): refused unless the server allows paths."""
FILE_OPTIONS = ("model", "weights", "player")
"""Agent options whose value is a file: refused unless the server allows paths."""


class WebInputError(ValueError):
    """A request the server refuses (answered with a 4xx and this one-line message); ``field``
    names the field of the request's body at fault, where one is (``time_control``,
    ``sides.1``), for the page to name the box it came from."""

    def __init__(self, message: str, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.field = field


@dataclass(frozen=True)
class HallSettings:
    """The bounds of a server's games."""

    max_games: int = 100
    idle_seconds: float = 1800.0
    max_think: float = 30.0
    """Most seconds per move a page may give an agent (and one on a game clock may think)."""
    pace: float = 0.4
    """Seconds between two agents' moves when a person watches them."""
    allow_paths: bool = False
    agent_threads: int = 64
    min_move_limit: float = MIN_MOVE_LIMIT
    """Seconds an agent may always take per move before it forfeits (see :func:`move_limit`)."""


def move_limit(think: float, least: float = MIN_MOVE_LIMIT) -> float:
    """Seconds an agent given ``think`` seconds per move may take before it forfeits."""
    return max(least, MOVE_TIMEOUT_FACTOR * think)


# --- checked input ------------------------------------------------------------------------


def check_game(spec: str) -> Any:
    """The Game of ``spec``; WebInputError when it is unknown or its options are bad."""
    try:
        return parse_game(spec)
    except GameError as err:
        raise WebInputError(str(err)) from None


def check_clock(text: str) -> TimeControl | None:
    """The game clock of ``text`` (``[MOVES/]BASE[+INC]`` seconds; blank: None);
    WebInputError when it is not one."""
    if not text.strip():
        return None
    try:
        return TimeControl.parse(text)
    except TimeControlError as err:
        raise WebInputError(str(err)) from None


def check_agent(spec: str, game: Any, allow_paths: bool = False) -> str:
    """The canonical spec of an agent from the registry that can play ``game``; WebInputError
    otherwise (and for agents or options that name files, unless ``allow_paths``)."""
    try:
        cls, settings = parse_spec(spec)
    except AgentSpecError as err:
        raise WebInputError(str(err)) from None
    if not allow_paths:
        if cls.name in PATH_AGENTS:
            raise WebInputError(
                f"agent {cls.name} loads or runs code named by a path; start serve with --allow-paths"
            )
        for option in options_of(cls.Settings):
            value = getattr(settings, option.name)
            if option.kind is str and value != option.default and _names_a_file(option.name, value):
                raise WebInputError(
                    f"agent option {option.name}= names a file; start serve with --allow-paths to use it"
                )
    if cls.games and game.name not in cls.games:
        raise WebInputError(f"agent {cls.name} plays only {', '.join(cls.games)}, not {game.name}")
    problem = memory_problem(cls.memory_bytes(settings, game), f"agent {spec_text(cls.name, settings)}")
    if problem is not None:
        raise WebInputError(f"{problem}; choose smaller tables")
    return spec_text(cls.name, settings)


def check_in_worker(pool: AgentPool, game: Any, spec: str, start: Any = None) -> None:
    """WebInputError when the agent refuses the game as a worker of ``pool`` builds it (a
    solver's tables not built, a model not shipped), or, given the game's ``start``, refuses to
    play the whole game from there (``perfect`` where its tables do not cover it); a pool too
    busy to ask is not waited for: such an agent then fails at its first move."""
    request = {"kind": "check", "game": game.spec, "agent": spec}
    if start is not None:
        request["position"] = start.to_text()
    try:
        pool.ask(request, CHECK_SECONDS, queue_seconds=CHECK_QUEUE_SECONDS)
    except (Busy, Overrun, WorkerDied):
        return
    except ThinkError as err:
        raise WebInputError(str(err)) from None


def _names_a_file(name: str, value: str) -> bool:
    """True for an option that names a file, or a nested spec that sets one (hybrid's search=)."""
    return name in FILE_OPTIONS or any(
        mark in value for mark in ("/", "\\", *(f"{o}=" for o in FILE_OPTIONS))
    )


def _move_tokens(game: Any, text: str) -> list[str]:
    tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    if len(tokens) == 1 and tokens[0].isdigit():
        start = game.initial()
        try:
            start.parse_move(tokens[0])
        except GameError:
            return list(tokens[0])  # single-digit moves written together, as in 4453
    return tokens


def start_position(game: Any, position: str = "", moves: str = "") -> tuple[Any, list[str]]:
    """The position a game starts from (``position`` in the game's text notation, or the start)
    and the moves then played (``moves``: notation separated by spaces or commas, or digits
    written together for games whose moves are digits); WebInputError when either is bad."""
    for field_name, text in (("position", position), ("moves", moves)):
        if len(text) > MAX_MOVES_TEXT:
            raise WebInputError(
                f"a position or move list is at most {MAX_MOVES_TEXT} characters", field=field_name
            )
    try:
        start = game.parse_position(position.strip()) if position.strip() else game.initial()
    except GameError as err:
        raise WebInputError(str(err), field="position") from None
    tokens = _move_tokens(game, moves) if moves.strip() else []
    state = start
    for number, token in enumerate(tokens, 1):
        try:
            state = state.play(state.parse_move(token))
        except GameError as err:
            raise WebInputError(f"move {number} ({shorten(token, 20)}): {err}", field="moves") from None
    return start, tokens


@contextlib.contextmanager
def blamed(field_name: str) -> Iterator[None]:
    """Within it, a WebInputError that names no field names ``field_name`` (the part of a
    request's body it came from)."""
    try:
        yield
    except WebInputError as err:
        if err.field is None:
            err.field = field_name
        raise


# --- agents in the workers ----------------------------------------------------------------


class ThinkingClock:
    """A clock that moves only by the thinking time the workers measured (and, for a move
    stopped as overdue, by the time it was waited for)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds


class RemoteAgent:
    """A session's agent whose decisions come from the think pool (see the module notes)."""

    def __init__(
        self, pool: AgentPool, key: str, game: str, spec: str, seed: int, clock: ThinkingClock
    ) -> None:
        self.spec = spec
        self._pool, self._key, self._game, self._seed, self._clock = pool, key, game, seed, clock
        self._generation = 0
        self.limit_seconds: float | None = None
        self.last_start = 0.0
        """Seconds of the last move that were not the agent's own thinking: its start-up in the
        worker (built, prepared, compiled) and the passing of the request and the answer."""

    def prepare(self, game: Any) -> None:
        """Nothing here: a worker prepares the agent before its first move."""

    def new_game(self) -> None:
        """Forget the agent's memory: the next move is asked of a fresh agent."""
        self._generation += 1

    def prepare_request(self) -> dict[str, Any]:
        """The request that builds and prepares the agent its next move will ask for."""
        key = f"{self._key}/{self._generation}"
        return {"kind": "prepare", "key": key, "game": self._game, "agent": self.spec, "seed": self._seed}

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        allowed = self.limit_seconds
        if limit is not None and limit.clock is not None:  # on a game clock: waited for what is left
            allowed = limit.clock if allowed is None else min(allowed, limit.clock)
        request = {
            "kind": "act",
            "key": f"{self._key}/{self._generation}",
            "game": self._game,
            "agent": self.spec,
            "seed": self._seed,
            "position": state.to_text(),
            "limit": None if limit is None else asdict(limit),
        }
        tic = time.monotonic()
        try:
            reply = self._pool.ask(request, allowed, queue_seconds=3600.0)
        except Overrun as err:  # the time waited went by: on a clock, a loss on time if past it
            self._clock.seconds += time.monotonic() - tic
            raise AgentForfeit(str(err)) from None
        except ThinkError as err:
            raise AgentForfeit(str(err)) from None
        self._clock.seconds += float(reply["seconds"])
        self.last_start = max(0.0, time.monotonic() - tic - float(reply["seconds"]))
        try:
            return read_decision(reply["decision"], state)
        except (ValueError, TypeError, KeyError) as err:
            raise AgentForfeit(
                f"answered something that is not a decision ({describe_failure(err)})"
            ) from None


# --- one game -----------------------------------------------------------------------------


class WebGame:
    """A game on the server: its session, who plays each side, and the view the page reads.

    Agents think ``think`` seconds a move; on a game clock (``time_control``) they share their
    clocks out instead, each move at most ``max_think`` seconds (the server's bound)."""

    def __init__(
        self,
        game_id: str,
        start: Any,
        moves: list[str],
        sides: tuple[str | None, str | None],
        think: float,
        pool: AgentPool,
        seed: int,
        least: float = MIN_MOVE_LIMIT,
        *,
        time_control: TimeControl | None = None,
        max_think: float = HallSettings.max_think,
    ) -> None:
        self.id = game_id
        self.sides = sides
        self.think = think
        self.time_control = time_control
        per_move = max_think if time_control is not None else think
        self.agent_limit = Limit(time=per_move)
        self.clock = ThinkingClock()
        agents: list[RemoteAgent | None] = []
        for colour, spec in enumerate(sides):
            if spec is None:
                agents.append(None)
                continue
            agent = RemoteAgent(pool, f"{game_id}/{colour}", start.game.spec, spec, seed + colour, self.clock)
            agent.limit_seconds = move_limit(per_move, least)
            agents.append(agent)
        limit = None if time_control is not None else move_limit(think, least)  # or the clock's
        self.session = Session(
            start,
            agents,
            limits=tuple(None if s is None else limit for s in sides),
            time_control=time_control,
            timer=self.clock,
        )
        for move in moves:
            self.session.play(move)
        self.lock = threading.Lock()
        self.thinking: int | None = None
        self.thinking_since = 0.0
        self.turn_started = 0.0  # when the side to move began its turn (a person's clock runs)
        self._plies = -1  # the moves on the board when the turn began
        self._clock_left: list[float] = []  # each side's clock when the turn began
        self.running = False
        self.closed = False
        self.version = 0
        self.last_seen = time.monotonic()
        self.left_at: float | None = None  # when a page showing it was left (see Hall.leave)
        # by ply: an agent's seconds that were not its thinking (RemoteAgent.last_start)
        self.start_seconds: dict[int, float] = {}
        self.view: dict[str, Any] = {}
        self._refresh()

    @property
    def people(self) -> list[int]:
        """The colours played by people."""
        return [c for c, spec in enumerate(self.sides) if spec is None]

    def _refresh(self) -> None:
        session = self.session
        last = session.turns[-1].move if session.turns else None
        outcome = session.outcome
        if len(session.turns) != self._plies:  # a move played or taken back: a new turn begins
            self._plies, self.turn_started = len(session.turns), time.monotonic()
            for ply in [p for p in self.start_seconds if p >= len(session.turns)]:
                del self.start_seconds[ply]
        if self.time_control is not None:
            self._clock_left = [session.clock_left(colour) or 0.0 for colour in (0, 1)]
            if outcome is not None and outcome.reason is Reason.TIME and outcome.winner is not None:
                self._clock_left[1 - outcome.winner] = 0.0  # its clock ran out, whatever it last read
        moves = [
            {
                "ply": i + 1,
                "move": turn.notation,
                "mover": turn.mover,
                "seconds": turn.seconds,
                "start_seconds": self.start_seconds.get(i),
                "decision": None
                if turn.decision is None
                else said(turn.decision.to_json(), session.positions[i]),
            }
            for i, turn in enumerate(session.turns)
        ]
        self.version += 1
        self.view = {
            "id": self.id,
            "version": self.version,
            "game": session.game.spec,
            "sides": list(self.sides),
            "think": self.think,
            "start": session.start.to_text(),
            "start_initial": session.start.to_text() == session.game.initial().to_text(),
            "position": board_view(session.state, last, session.positions[-2] if session.turns else None),
            "moves": moves,
            "outcome": None if outcome is None else outcome.to_json(),
            "outcome_text": None if outcome is None else self._outcome_text(outcome),
            "clocks": list(session.clocks),
            "time_control": None if self.time_control is None else str(self.time_control),
            "clock_left": None,
            "clock_moves_to_go": [session.moves_to_go(colour) for colour in (0, 1)]
            if self.time_control is not None
            else None,
            "clock_running": None if self.time_control is None or outcome is not None else session.to_move,
            "thinking": self.thinking,
            "can_undo": _undoable(session, self.people),
        }

    def _outcome_text(self, outcome: Outcome) -> str:
        """The outcome in a sentence; a game an agent forfeited or lost on time names it, as a
        match's list of forfeits does: ``X wins (random forfeits: raised RuntimeError: ...)``."""
        symbols = self.session.game.symbols
        loser = None if outcome.winner is None else 1 - outcome.winner
        verbs = {Reason.FORFEIT: "forfeits", Reason.TIME: "loses on time"}
        if loser is None or self.sides[loser] is None or outcome.reason not in verbs:
            return outcome.text(symbols)
        spec = shorten(str(self.sides[loser]), 60)
        detail = f": {outcome.detail}" if outcome.detail else ""
        return f"{symbols[outcome.winner]} wins ({spec} {verbs[outcome.reason]}{detail})"

    def snapshot(self) -> dict[str, Any]:
        """The latest view, with how long the agent to move has been thinking and, on a game
        clock, what each side's clock reads now (a person whose clock ran out loses on time)."""
        self.last_seen = time.monotonic()
        if self.time_control is not None and self.lock.acquire(blocking=False):  # never waits
            try:
                self._flag_person()
            finally:
                self.lock.release()
        view = dict(self.view)
        if view["thinking"] is not None:
            view["thinking_for"] = round(time.monotonic() - self.thinking_since, 2)
        if self.time_control is not None:
            view["clock_left"] = self._clocks_now(view)
        return view

    def _clocks_now(self, view: dict[str, Any]) -> list[float]:
        """Each side's clock as it reads now: the side to move's runs from the start of a
        person's turn, or from when its agent began to think."""
        left = list(self._clock_left)
        running = view["clock_running"]
        if running is not None and running in self.people:
            left[running] -= time.monotonic() - self.turn_started
        elif running is not None and view["thinking"] == running:
            left[running] -= time.monotonic() - self.thinking_since
        return [round(max(0.0, seconds), 3) for seconds in left]

    def _person_thought(self) -> tuple[float, float] | None:
        """The seconds the person to move has thought on this turn and what their clock had at
        its start; None unless a person is to move on a clock."""
        session = self.session
        if self.time_control is None or session.is_over or session.to_move not in self.people:
            return None
        left = session.clock_left(session.to_move)
        assert left is not None
        return time.monotonic() - self.turn_started, left

    def _flag_person(self) -> None:
        """The person to move loses on time if their clock ran out (the lock held)."""
        thought = self._person_thought()
        if thought is not None and thought[0] > thought[1]:
            mover = self.session.to_move  # named: "O wins (on time: X made no move ...)"
            symbol = self.session.game.symbols[mover]
            self.session.lose_on_time(
                mover, f"{symbol} made no move in the {reading_text(thought[1], 1)} left on its clock"
            )
            self._refresh()

    # --- a person's requests --------------------------------------------------------------------

    def _person_request(self) -> None:
        if self.running:
            raise WebInputError("the agent is thinking; wait for its move", 409)

    def play(self, move: str, ply: int | None = None) -> None:
        """Play a person's move; WebInputError if it is not that person's turn or not legal,
        or (given ``ply``, the moves on the board the move was chosen on) if the game has moved
        on since: another page showing the same game played in between."""
        self._person_request()  # before the lock, which an agent's move holds while it thinks
        with self.lock:
            self._person_request()
            session = self.session
            if ply is not None and ply != len(session.turns):
                raise WebInputError(
                    f"the game has moved on ({len(session.turns)} moves, not {ply}): "
                    "it is played on another page too; this one now shows it as it stands",
                    409,
                    field="ply",
                )
            if session.is_over:
                raise WebInputError("the game is over", 409)
            if session.agents[session.to_move] is not None:
                raise WebInputError("it is the agent's turn, not yours", 409)
            thought = self._person_thought()
            if thought is not None and thought[0] > thought[1]:  # too late: lost on time instead
                seconds, left = thought
                symbol = session.game.symbols[session.to_move]
                session.lose_on_time(
                    session.to_move,
                    f"{symbol} took {reading_text(seconds, 1)} with {reading_text(left, 1)} left on its"
                    " clock",
                )
                self._refresh()
                return
            try:
                session.play(move, seconds=None if thought is None else thought[0])
            except GameError as err:
                raise WebInputError(str(err)) from None
            self._refresh()

    def undo(self) -> None:
        """Take back the person's last move and the agent's answers after it (where two people
        play, the last move)."""
        self._person_request()  # before the lock, which an agent's move holds while it thinks
        with self.lock:
            self._person_request()
            self._flag_person()
            people = self.people
            if not people:
                raise WebInputError("no person plays this game; there is nothing to take back", 409)
            side = people[0] if len(people) == 1 else None
            try:
                self.session.undo(side)
            except SessionError as err:
                raise WebInputError(str(err), 409) from None
            self._refresh()

    def resign(self) -> None:
        """The person to move (or the only person) gives up."""
        self._person_request()  # before the lock, which an agent's move holds while it thinks
        with self.lock:
            self._person_request()
            self._flag_person()
            session = self.session
            people = self.people
            if not people:
                raise WebInputError("no person plays this game; nobody can resign it", 409)
            colour = session.to_move if session.to_move in people else people[0]
            try:
                session.resign(colour)
            except GameError as err:
                raise WebInputError(str(err), 409) from None
            self._refresh()

    # --- the agents' moves ---------------------------------------------------------------------

    def agent_turns(self, pace: float) -> None:
        """Let the agents move while it is their turn (a thread of the hall runs this)."""
        try:
            while not self.closed:
                with self.lock:
                    session = self.session
                    if not session.agent_to_move():
                        return
                    mover = session.to_move
                    self.thinking, self.thinking_since = mover, time.monotonic()
                    self._refresh()
                    plies = len(session.turns)
                    try:
                        session.agent_move(self.agent_limit)
                    except Exception as err:  # never left thinking: the game ends, saying why
                        if not session.is_over:
                            session.forfeit(mover, describe_failure(err))
                    agent = session.agents[mover]
                    if len(session.turns) > plies and isinstance(agent, RemoteAgent):
                        self.start_seconds[plies] = round(agent.last_start, 2)
                    self.thinking = None
                    self._refresh()
                    watched = not self.people and not session.is_over
                if watched and pace > 0:
                    time.sleep(pace)
        finally:
            with self.lock:
                self.running = False
                self.thinking = None
                self._refresh()


def said(decision: dict[str, Any], state: Any) -> dict[str, Any]:
    """What a decision (``Decision.to_json()``) said about ``state`` beside its move, its
    policy also given per legal move in notation (``policy_moves``, largest first), and its
    search's score in words where it says more than the value (``evaluation``: a proven win
    with its distance, or an exact one from tables, as the terminal says it)."""
    out = {key: value for key, value in decision.items() if key != "move"}
    info = decision.get("info") or {}
    value, score, plies = decision.get("value"), info.get("score"), info.get("plies_to_end")
    out["evaluation"] = evaluation_text(state, value, score, units=False, plies=plies)
    policy = decision.get("policy")
    # the referee refuses a policy of another length; one that slipped by is not shown per move
    if policy is not None and policy_problem(policy, state.kernel.num_actions) is None:
        shares = [(str(state.move_from_index(a)), float(policy[a])) for a in state.legal_indices()]
        out["policy_moves"] = sorted(shares, key=lambda item: -item[1])
    return out


def _undoable(session: Session, people: list[int]) -> bool:
    """True when a person's move can be taken back: a person played one (an agent's opening
    move alone is not taken back), and no resignation, forfeit or clock ended the game."""
    outcome = session.outcome
    ended_by_verdict = outcome is not None and outcome.reason in VERDICTS
    return any(turn.mover in people for turn in session.turns) and not ended_by_verdict


# --- the hall -----------------------------------------------------------------------------


class Hall:
    """Every game of a server, within its bounds (see the module notes)."""

    def __init__(self, pool: AgentPool, settings: HallSettings | None = None) -> None:
        self.pool = pool
        self.settings = settings or HallSettings()
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(self.settings.agent_threads, thread_name_prefix="boardlab-game")

    def __len__(self) -> int:
        return len(self._games)

    def create(
        self,
        game_spec: str,
        sides: tuple[str | None, str | None],
        *,
        think: float = 1.0,
        position: str = "",
        moves: str = "",
        seed: int | None = None,
        time_control: str = "",
    ) -> WebGame:
        """A new game, its agents started if they move first, on the game clock ``time_control``
        (``[MOVES/]BASE[+INC]`` seconds; blank: none); WebInputError for bad input or when the
        hall is full of games still in use (429)."""
        with blamed("time_control"):  # first: the page drops a bad clock when told so first
            clock = check_clock(time_control)
        with blamed("game"):
            game = check_game(game_spec)
        checked: list[str | None] = []
        for colour, side in enumerate(sides):
            with blamed(f"sides.{colour}"):
                checked.append(None if side is None else check_agent(side, game, self.settings.allow_paths))
        if not 0 < think <= self.settings.max_think:
            raise WebInputError(
                f"thinking time must be in (0, {self.settings.max_think:g}] seconds, got {think:g}",
                field="think",
            )
        start, tokens = start_position(game, position, moves)
        for colour, spec in enumerate(checked):
            if spec is not None and spec not in checked[:colour]:  # one check for an agent on both sides
                with blamed(f"sides.{colour}"):
                    check_in_worker(self.pool, game, spec, start)
        with self._lock:
            self._evict(room_for=1)
            if len(self._games) >= self.settings.max_games:
                raise WebInputError(
                    f"the server holds its most games ({self.settings.max_games}); try again later", 429
                )
            game_id = secrets.token_hex(8)
            web_game = WebGame(
                game_id,
                start,
                tokens,
                (checked[0], checked[1]),
                think,
                self.pool,
                secrets.randbelow(2**31) if seed is None else seed,
                self.settings.min_move_limit,
                time_control=clock,
                max_think=self.settings.max_think,
            )
            self._games[game_id] = web_game
        self.start_agents(web_game)
        self._prepare_agents(web_game)
        return web_game

    def _prepare_agents(self, web_game: WebGame) -> None:
        """Have each free worker build and prepare the game's agents that are not to move now
        (an agent to move is being asked already), so that their first moves do not wait for
        their start-up (compiling included); a busy pool is not waited for."""
        session = web_game.session
        for colour, agent in enumerate(session.agents):
            if not isinstance(agent, RemoteAgent) or (colour == session.to_move and not session.is_over):
                continue
            for _ in range(getattr(self.pool, "size", 1)):  # every worker: any may get the move
                self._executor.submit(self._ask_quietly, agent.prepare_request())

    def _ask_quietly(self, request: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # a failure shows, said, at the agent's first move
            self.pool.ask(request, CHECK_SECONDS, queue_seconds=PREPARE_QUEUE_SECONDS)

    def get(self, game_id: str) -> WebGame:
        """The game ``game_id``; WebInputError (404) when there is none."""
        web_game = self._games.get(game_id)
        if web_game is None:
            raise WebInputError(
                f"no game {shorten(game_id, 40)!r} (it ended or was dropped after idling)", 404
            )
        return web_game

    def drop(self, game_id: str) -> None:
        """Forget a game (an agent still thinking finishes its move unseen)."""
        with self._lock:
            web_game = self._games.pop(game_id, None)
        if web_game is None:
            raise WebInputError(f"no game {shorten(game_id, 40)!r}", 404)
        web_game.closed = True

    def leave(self, game_id: str) -> None:
        """A page showing the game was left (closed, reloaded, or a new game started in it): the
        game is kept, for a reload or the browser's Back to show it again, but is the first to
        go when the hall needs room, unless a page looked at it since."""
        self.get(game_id).left_at = time.monotonic()

    def start_agents(self, web_game: WebGame) -> None:
        """Start the agents' moves of a game in a thread if an agent is to move."""
        with web_game.lock:
            if web_game.running or not web_game.session.agent_to_move():
                return
            web_game.running = True
        self._executor.submit(web_game.agent_turns, self.settings.pace)

    def sweep(self) -> int:
        """Drop the games idle too long; how many were dropped."""
        with self._lock:
            return self._evict(room_for=0)

    def _evict(self, room_for: int) -> int:
        now = time.monotonic()

        def left(web_game: WebGame) -> bool:
            return web_game.left_at is not None and web_game.left_at >= web_game.last_seen

        # games idle too long, and where room is needed the games whose pages were left, those first
        idle = [
            g
            for g in self._games.values()
            if now - g.last_seen > self.settings.idle_seconds or (room_for and left(g))
        ]
        idle.sort(key=lambda g: (not left(g), g.last_seen))
        dropped = 0
        for web_game in idle:
            if room_for and len(self._games) + room_for <= self.settings.max_games:
                break
            del self._games[web_game.id]
            web_game.closed = True
            dropped += 1
        return dropped

    def close(self) -> None:
        """Stop every game's agents (their moves in progress end with the pool)."""
        for web_game in self._games.values():
            web_game.closed = True
        with contextlib.suppress(RuntimeError):
            self._executor.shutdown(wait=False, cancel_futures=True)


__all__ = [
    "Hall",
    "HallSettings",
    "RemoteAgent",
    "WebGame",
    "WebInputError",
    "blamed",
    "check_agent",
    "check_clock",
    "check_game",
    "check_in_worker",
    "move_limit",
    "start_position",
]
