"""The oracle: how often an agent's moves keep the perfect-play value of the position.

The *judge* is the game's exact play (:func:`boardlab.games.exact_play`): it knows the
exact value of every legal move of the positions it covers, from the mover's view
(:data:`WIN`, :data:`DRAW` or :data:`LOSS` with perfect play afterwards), and a rank among the
moves of one position (the fastest win, the slowest loss, or the game's exact score).

:func:`measure` plays real games, the agent against a spread of opponents with both colours
and short random openings (all from one seed), and judges each move of the agent: did it keep
the value (its move is as good as the best move: a win stays a win, a draw a draw), was it
exactly best (also the fastest win or the slowest loss), did it throw a won position away
(the position was won for the agent and its move no longer wins), and did it lose a drawn one
(the position was drawn and its move loses). A game counts as thrown when a win was thrown
away at least once in it. Deterministic searchers can shuffle cubes until the ply cap,
so the accuracy is also given with each position counted once per game (``distinct``).
:func:`plot_accuracy` draws the accuracy against the number of pieces on the board (Quixo:
cubes; games without such a measure: the ply).

Games start where the judge says (:meth:`~boardlab.games.exact.ExactPlay.start`): the first
position, or for tables of endgames only (5x5 Quixo) a random position they cover, followed
by the usual random opening plies.

    report = measure("mcts:iters=1000", "quixo:size=4", games=10, seed=0)
    report.accuracy, report.thrown_share, report.by_pieces
"""

from __future__ import annotations

import contextlib
import math
import random
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardlab.agents.base import Agent, check_whole_game, make_agent
from boardlab.core.console import counted
from boardlab.core.files import agg_figure, atomic_savefig, atomic_write_text
from boardlab.core.spec import shorten, shortened_in_the_middle
from boardlab.games import DRAW, LOSS, WIN, ExactPlay, ExactPlayError, Game, Reason, exact_play, parse_game
from boardlab.games.exact import VALUE_NAMES, MoveValue, under_cap
from boardlab.play.referee import (
    TimeLimitError,
    describe_failure,
    describe_start_failure,
    move_fault,
    move_limit,
)

DEFAULT_OPPONENTS = ("random", "greedy", "alphabeta:depth=2", "mcts:iters=500")
DEFAULT_GAMES = 10
ORACLE_TITLE_CHARS = 70
"""Longest agent spec in an accuracy plot's title: a longer one is shortened in the middle."""
"""Games per opponent (the agent plays each colour in turn)."""
DEFAULT_OPENING = 2
"""Most random plies before the agents take over (each game draws 0..this many)."""
OPENING_ATTEMPTS = 100


class OracleError(ValueError):
    """A game without a judge, a judge that cannot be built (tables missing), or bad options."""


class AgentFailure(OracleError):
    """An agent (the judged one or an opponent) forfeited a game of the oracle: it raised, gave
    up, or answered an illegal move. No move of a forfeited game can be judged, so the oracle
    stops there; the message names the agent, the ply, the position and what it did."""

    def __init__(
        self, spec: str, detail: str, ply: int | None = None, position: str = "", game: str = ""
    ) -> None:
        self.spec, self.detail, self.ply, self.position, self.game = spec, detail, ply, position, game
        where = "before its first move" if ply is None else f"at ply {ply}"
        where += f" of {game}" if game else ""
        where += f" (position {position})" if position else ""
        super().__init__(f"{spec} forfeited {where}: {detail}")

    def in_game(self, game: str) -> AgentFailure:
        """The same failure, said to have happened in ``game`` (``game 3 against random``)."""
        return AgentFailure(self.spec, self.detail, self.ply, self.position, game)


# --- the judge --------------------------------------------------------------------------------


def judge_for(game: Game | str, directory: Path | str | None = None) -> ExactPlay:
    """The judge of a game (a Game or its spec): its exact play, with solved tables read from
    ``directory`` (default: where the game keeps them); OracleError when there is none."""
    game = parse_game(game)
    try:
        return exact_play(game, tables=directory)
    except ExactPlayError as err:
        raise OracleError(f"no exact judge for {game.spec}: {err}") from None


# --- the report -------------------------------------------------------------------------------


@dataclass
class Tally:
    """Counts over judged moves of the agent."""

    moves: int = 0
    kept: int = 0
    """Moves whose value equals the best move's value."""
    exact: int = 0
    """Moves as good as the best move, fastest win and slowest loss included."""
    won: int = 0
    """Positions won for the agent (before its move)."""
    thrown: int = 0
    """Won positions where the agent's move no longer wins."""
    drawn: int = 0
    """Positions drawn for the agent (before its move)."""
    lost: int = 0
    """Drawn positions where the agent's move loses."""

    def add(self, other: Tally) -> None:
        """Add another tally's counts to this one."""
        self.moves += other.moves
        self.kept += other.kept
        self.exact += other.exact
        self.won += other.won
        self.thrown += other.thrown
        self.drawn += other.drawn
        self.lost += other.lost

    @property
    def accuracy(self) -> float:
        """Share of the judged moves keeping the value (NaN without any)."""
        return self.kept / self.moves if self.moves else math.nan

    @property
    def exact_accuracy(self) -> float:
        """Share of the judged moves that are perfect, depth included."""
        return self.exact / self.moves if self.moves else math.nan

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "moves": self.moves,
            "kept": self.kept,
            "exact": self.exact,
            "won": self.won,
            "thrown": self.thrown,
            "drawn": self.drawn,
            "lost": self.lost,
            "accuracy": _number(self.accuracy),
            "exact_accuracy": _number(self.exact_accuracy),
        }


@dataclass(frozen=True)
class ThrownWin:
    """A won position that the agent's move threw away, for a look at what went wrong."""

    ply: int
    position: str
    """The position in the game's text form (:meth:`boardlab.games.Game.parse_position` reads it)."""
    played: str
    """The agent's move."""
    value: str
    """What that move left: ``draw`` or ``loss``."""
    wins: int
    """How many moves of the position win."""
    fastest: str
    """A winning move, the fastest."""
    plies: int | None
    """Plies to the end of the fastest win (that move included), when the judge knows them."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dict(self.__dict__)


def thrown_win(state: Any, values: Sequence[MoveValue], action: int) -> ThrownWin:
    """The record of ``action`` played in ``state``, a won position it throws away."""
    by_action = {v.action: v for v in values}
    wins = [v for v in values if v.value == WIN]
    fastest = max(wins, key=lambda v: v.rank)
    return ThrownWin(
        ply=int(state.ply),
        position=state.game.position_text(state),
        played=str(state.move_from_index(action)),
        value=VALUE_NAMES[by_action[action].value],
        wins=len(wins),
        fastest=str(state.move_from_index(fastest.action)),
        plies=fastest.depth,
    )


@dataclass(frozen=True)
class LostDraw:
    """A drawn position that the agent's move lost."""

    ply: int
    position: str
    """The position in the game's text form (:meth:`boardlab.games.Game.parse_position` reads it)."""
    played: str
    """The agent's move, a losing one."""
    draws: int
    """How many moves of the position keep the draw."""
    drawing: str
    """One of them."""
    plies: int | None
    """Plies to the end of the loss the played move leads to (that move included), when the
    judge knows them."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dict(self.__dict__)


def lost_draw(state: Any, values: Sequence[MoveValue], action: int) -> LostDraw:
    """The record of ``action`` played in ``state``, a drawn position it loses."""
    by_action = {v.action: v for v in values}
    draws = [v for v in values if v.value == DRAW]
    return LostDraw(
        ply=int(state.ply),
        position=state.game.position_text(state),
        played=str(state.move_from_index(action)),
        draws=len(draws),
        drawing=str(state.move_from_index(draws[0].action)),
        plies=by_action[action].depth,
    )


@dataclass
class OpponentResult:
    """The games against one opponent: results for the agent and its judged moves."""

    opponent: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    thrown_games: int = 0
    """Games in which the agent threw a won position away at least once."""
    won_games: int = 0
    """Games in which the agent stood won (at a judged move)."""
    unconverted: int = 0
    """Games in which the agent stood won and did not win: a win thrown away, or won positions
    kept move after move without ever finishing (a loop up to the ply cap)."""
    capped: int = 0
    """Games drawn by the game's ply cap (often a loop of repeated positions)."""
    unjudged: int = 0
    """Moves of the agent not judged: before ``from_ply``, or in positions the judge does not cover."""
    tally: Tally = field(default_factory=Tally)
    """The agent's judged moves."""
    distinct: Tally = field(default_factory=Tally)
    """The agent's judged moves, each position counted once per game."""
    thrown_wins: list[ThrownWin] = field(default_factory=list)
    """Every won position the agent threw away, game after game."""
    lost_draws: list[LostDraw] = field(default_factory=list)
    """Every drawn position the agent lost, game after game."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "thrown_games": self.thrown_games,
            "won_games": self.won_games,
            "unconverted": self.unconverted,
            "capped": self.capped,
            "unjudged": self.unjudged,
            **self.tally.to_json(),
            "distinct": self.distinct.to_json(),
            "thrown_wins": [t.to_json() for t in self.thrown_wins],
            "lost_draws": [t.to_json() for t in self.lost_draws],
        }


@dataclass
class OracleReport:
    """Move accuracy of one agent on one game, against each opponent and by game stage."""

    agent: str
    game: str
    judge: str
    pieces_label: str
    seed: int
    opening: int
    opponents: list[OpponentResult]
    by_pieces: dict[int, Tally]
    from_ply: int = 0
    seconds: float = 0.0

    @property
    def tally(self) -> Tally:
        """The counts over every opponent."""
        total = Tally()
        for result in self.opponents:
            total.add(result.tally)
        return total

    @property
    def distinct(self) -> Tally:
        """The counts over every opponent, each position counted once per game."""
        total = Tally()
        for result in self.opponents:
            total.add(result.distinct)
        return total

    @property
    def moves(self) -> int:
        """Moves of the agent that were judged."""
        return self.tally.moves

    @property
    def accuracy(self) -> float:
        """Share of the judged moves keeping the perfect-play value."""
        return self.tally.accuracy

    @property
    def exact_accuracy(self) -> float:
        """Share of the judged moves that are perfect, fastest win and slowest loss included."""
        return self.tally.exact_accuracy

    @property
    def games(self) -> int:
        """Games played."""
        return sum(r.games for r in self.opponents)

    @property
    def thrown_games(self) -> int:
        """Games in which the agent threw a won position away."""
        return sum(r.thrown_games for r in self.opponents)

    @property
    def thrown_share(self) -> float:
        """Share of the games in which the agent threw a won position away."""
        return self.thrown_games / self.games if self.games else math.nan

    @property
    def won_games(self) -> int:
        """Games in which the agent stood won."""
        return sum(r.won_games for r in self.opponents)

    @property
    def unconverted(self) -> int:
        """Games in which the agent stood won and did not win."""
        return sum(r.unconverted for r in self.opponents)

    @property
    def capped(self) -> int:
        """Games drawn by the ply cap."""
        return sum(r.capped for r in self.opponents)

    @property
    def unjudged(self) -> int:
        """Moves of the agent not judged (before ``from_ply`` or not covered)."""
        return sum(r.unjudged for r in self.opponents)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of everything measured."""
        return {
            "agent": self.agent,
            "game": self.game,
            "judge": self.judge,
            "seed": self.seed,
            "opening": self.opening,
            "from_ply": self.from_ply,
            "games": self.games,
            "thrown_games": self.thrown_games,
            "thrown_share": _number(self.thrown_share),
            "won_games": self.won_games,
            "unconverted": self.unconverted,
            "capped": self.capped,
            "unjudged": self.unjudged,
            "seconds": round(self.seconds, 3),
            **self.tally.to_json(),
            "distinct": self.distinct.to_json(),
            "opponents": [r.to_json() for r in self.opponents],
            "pieces": self.pieces_label,
            "by_pieces": [{self.pieces_label: k, **t.to_json()} for k, t in sorted(self.by_pieces.items())],
        }


def _number(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


# --- measuring --------------------------------------------------------------------------------


def _opening(game: Game, judge: ExactPlay, most: int, rng: random.Random) -> Any:
    """A position after 0..``most`` random plies from the judge's start that leaves the game open."""
    try:
        start = judge.start(rng)
    except ExactPlayError as err:
        raise OracleError(str(err)) from None
    plies = rng.randint(0, most)
    for _ in range(OPENING_ATTEMPTS):
        state = start
        for _ in range(plies):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        if not state.is_over:
            return state
    return start


def action_index(state: Any, move: Any) -> int:
    """The action of ``move`` (a Move or its notation) in ``state``'s game."""
    game = state.game
    return int(game.parse_action(move) if isinstance(move, str) else game.action_of(move))


def check_builds(spec: str, game: Game) -> None:
    """Build the agent of ``spec`` once, to refuse it before play: AgentSpecError for a spec
    that cannot play ``game`` (a refusal worded for people), OracleError naming it for an
    agent whose own code fails as it is built."""
    try:
        make_agent(spec, seed=0, game=game)
    except (ValueError, KeyboardInterrupt):  # AgentSpecError, GameError, an agent's own check
        raise
    except BaseException as err:  # an agent's own code failing, sys.exit included
        raise OracleError(f"agent {shorten(spec)!r} cannot be built: {describe_failure(err)}") from None


def _agent(spec: str, seed: int, game: Game) -> Agent:
    """The agent of ``spec`` built, prepared and reset for a game; AgentFailure, naming it, if
    any of that fails in any way (Ctrl-C excepted: it is the user's)."""
    try:
        agent = make_agent(spec, seed=seed, game=game)
        agent.prepare(game)
        agent.new_game()
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # an engine that does not start, an agent's own code failing
        raise AgentFailure(spec, describe_start_failure(err)) from None
    return agent


class _Overdue(BaseException):
    """Raised into an agent's code when its time per move is up: a BaseException, so that the
    agent's own ``except Exception`` does not swallow it."""


@contextlib.contextmanager
def _move_alarm(seconds: float | None) -> Iterator[None]:
    """Within it, :class:`_Overdue` is raised into the running code after ``seconds`` (None: never).

    Only the main thread gets signals; elsewhere nothing is raised, and a move over its limit is
    caught when it comes. Compiled code that never returns to Python is not interrupted."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def overdue(signum: int, frame: Any) -> None:
        raise _Overdue

    previous = signal.signal(signal.SIGALRM, overdue)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _agent_move(agent: Agent, state: Any, limit: float | None = None) -> Any:
    """The agent's move in ``state`` within ``limit`` seconds (None: no limit); AgentFailure,
    naming the agent, if it forfeits: it raises (an :class:`AgentForfeit` of a course player or
    an engine included) or calls ``sys.exit``, thinks past ``limit`` (stopped there where it
    can be), or answers anything but a legal move object. Ctrl-C passes through."""
    tic = time.perf_counter()
    try:
        with _move_alarm(limit):
            move = agent.choose(state)
    except KeyboardInterrupt:
        raise
    except _Overdue:
        detail = f"no move within {limit:g} s (stopped)"
        raise AgentFailure(agent.spec, detail, int(state.ply), _position(state)) from None
    except BaseException as err:  # whatever the agent's code raises, sys.exit included
        raise AgentFailure(agent.spec, describe_failure(err), int(state.ply), _position(state)) from None
    spent = time.perf_counter() - tic
    if limit is not None and spent > limit:
        detail = f"took {spent:.2f} s, over its limit of {limit:g} s per move"
        raise AgentFailure(agent.spec, detail, int(state.ply), _position(state))
    fault = move_fault(state, move)
    if fault is not None:
        raise AgentFailure(agent.spec, fault, int(state.ply), _position(state))
    return move


def _position(state: Any) -> str:
    """The position in the game's text form, for a failure's message."""
    try:
        return str(state.game.position_text(state))
    except Exception:  # a game without a text form: the failure is still said
        return ""


def judged_values(judge: ExactPlay, state: Any) -> list[MoveValue]:
    """The judge's value of every move of ``state`` under the game's ply cap (the judge's own
    hold without it: a win or loss past the cap is a draw)."""
    cap = getattr(state.game, "ply_cap", None)
    return under_cap(judge.move_values(state), None if cap is None else cap - int(state.ply))


def judge_move(values: Sequence[MoveValue], action: int) -> Tally:
    """The tally of one move: ``action`` played where the moves have ``values``."""
    by_action = {v.action: v for v in values}
    if action not in by_action:
        raise OracleError(f"action {action} is not a legal move of the judged position")
    chosen = by_action[action]
    best_value = max(v.value for v in values)
    best_rank = max(v.rank for v in values)
    won, drawn = best_value == WIN, best_value == DRAW
    return Tally(
        moves=1,
        kept=int(chosen.value == best_value),
        exact=int(chosen.rank == best_rank),
        won=int(won),
        thrown=int(won and chosen.value != WIN),
        drawn=int(drawn),
        lost=int(drawn and chosen.value == LOSS),
    )


@dataclass
class GameJudgement:
    """One game's judged moves of the agent."""

    final: Any
    """The last position."""
    tally: Tally = field(default_factory=Tally)
    """Every judged move."""
    distinct: Tally = field(default_factory=Tally)
    """The judged moves in positions met for the first time in the game (a loop of repeated
    positions counts once)."""
    unjudged: int = 0
    """Moves not judged: before ``from_ply``, or in positions the judge does not cover."""
    thrown: list[ThrownWin] = field(default_factory=list)
    """The won positions thrown away, in the order of the game."""
    lost: list[LostDraw] = field(default_factory=list)
    """The drawn positions lost, in the order of the game."""
    stood_won: bool = False
    """Whether the agent was to move in a won position at a judged move."""


def play_judged_game(
    game: Game,
    agent: Agent,
    opponent: Agent,
    colour: int,
    start: Any,
    judge: ExactPlay,
    by_pieces: dict[int, Tally],
    from_ply: int = 0,
    limits: tuple[float | None, float | None] = (None, None),
) -> GameJudgement:
    """Play from ``start`` with the agent as ``colour`` (0 moves first) and judge its moves
    from ply ``from_ply`` on; ``by_pieces`` gains each judged move under its piece count.
    ``limits`` are the seconds per move of the agent and the opponent (None: no limit).
    AgentFailure if either agent forfeits (fails, overruns its limit or answers an illegal move)."""
    players = {colour: agent, 1 - colour: opponent}
    per_move = {colour: limits[0], 1 - colour: limits[1]}
    state, result, seen = start, GameJudgement(start), set()
    while state.outcome is None:
        mover = state.to_move
        judged = mover == colour and state.ply >= from_ply and judge.covers(state)
        values = judged_values(judge, state) if judged else None
        move = _agent_move(players[mover], state, per_move[mover])
        if mover == colour:
            if values is None:
                result.unjudged += 1
            else:
                action = action_index(state, move)
                one = judge_move(values, action)
                result.tally.add(one)
                result.stood_won = result.stood_won or one.won > 0
                if one.thrown:
                    result.thrown.append(thrown_win(state, values, action))
                if one.lost:
                    result.lost.append(lost_draw(state, values, action))
                if state.words not in seen:
                    seen.add(state.words)
                    result.distinct.add(one)
                by_pieces.setdefault(judge.pieces(state), Tally()).add(one)
        state = state.play(move)
    result.final = state
    return result


def measure(
    agent: str,
    game: Game | str = "quixo:size=4",
    *,
    opponents: Iterable[str] = DEFAULT_OPPONENTS,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    opening: int = DEFAULT_OPENING,
    from_ply: int = 0,
    judge: ExactPlay | None = None,
    progress: Callable[[int, int], None] | None = None,
    move_timeout: float | None = None,
) -> OracleReport:
    """Play ``games`` games of ``agent`` against each opponent and judge every move it makes.

    The agent plays first in even games and second in odd ones; games ``2k`` and ``2k + 1``
    start from the same random opening (0..``opening`` plies), and each opponent meets the same
    openings. Everything follows from ``seed``. Moves before ply ``from_ply`` are played but
    not judged (for judges that are slow early in a game). ``progress(done, total)`` is called
    after each game. AgentSpecError for an agent or opponent that cannot play the game; OracleError for a
    game without a judge; :class:`AgentFailure` (an OracleError) for an agent or opponent that
    forfeits a game: it raises or exits, answers anything but a legal move, or thinks longer
    than its limit per move: ``move_timeout`` seconds (0: no limit), by default
    :func:`~boardlab.play.referee.move_limit` of its spec (ten times its own time, at least 10 s).
    """
    game = parse_game(game)
    opponents = list(opponents)
    if games < 1:
        raise OracleError(f"games must be at least 1, got {games}")
    if opening < 0:
        raise OracleError(f"the opening must be 0 plies or more, got {opening}")
    if from_ply < 0:
        raise OracleError(f"from_ply must be 0 or more, got {from_ply}")
    if not opponents:
        raise OracleError("give at least one opponent")
    try:
        limits = {spec: move_limit(spec, move_timeout) for spec in (agent, *opponents)}
    except TimeLimitError as err:
        raise OracleError(str(err)) from None
    for spec in (agent, *opponents):  # refuse bad specs before any game is played
        check_builds(spec, game)
        check_whole_game(spec, game)  # an agent of some positions only: refused, not forfeited
    judge = judge if judge is not None else judge_for(game)
    started = time.perf_counter()
    results = [OpponentResult(spec) for spec in opponents]
    by_pieces: dict[int, Tally] = {}
    total, done = games * len(opponents), 0
    for o, result in enumerate(results):
        for i in range(games):
            start = _opening(game, judge, opening, random.Random(f"oracle-opening:{seed}:{i // 2}"))
            seeds = random.Random(f"oracle-agents:{seed}:{o}:{i}")
            colour = i % 2
            try:
                me = _agent(agent, seeds.randrange(2**31), game)
                them = _agent(result.opponent, seeds.randrange(2**31), game)
                pair = (limits[agent], limits[result.opponent])
                judged = play_judged_game(game, me, them, colour, start, judge, by_pieces, from_ply, pair)
            except AgentFailure as failure:
                raise failure.in_game(f"game {i + 1} against {result.opponent}") from None
            outcome = judged.final.outcome
            winner = outcome.winner
            result.games += 1
            result.wins += winner == colour
            result.losses += winner == 1 - colour
            result.draws += winner is None
            result.thrown_games += judged.tally.thrown > 0
            result.won_games += judged.stood_won
            result.unconverted += judged.stood_won and winner != colour
            result.capped += outcome.reason == Reason.PLY_CAP
            result.unjudged += judged.unjudged
            result.tally.add(judged.tally)
            result.distinct.add(judged.distinct)
            result.thrown_wins.extend(judged.thrown)
            result.lost_draws.extend(judged.lost)
            done += 1
            if progress is not None:
                progress(done, total)
    return OracleReport(
        agent=agent,
        game=game.spec,
        judge=judge.title,
        pieces_label=judge.pieces_label,
        seed=seed,
        opening=opening,
        opponents=results,
        by_pieces=by_pieces,
        from_ply=from_ply,
        seconds=time.perf_counter() - started,
    )


# --- judging positions -----------------------------------------------------------------------


@dataclass(frozen=True)
class MoveAccuracy:
    """How often an agent's moves in given positions keep their perfect-play value."""

    agent: str
    positions: int
    kept: int
    """Moves as good as the best (the fastest win, the slowest loss, the exact score)."""
    kept_outcome: int
    """Moves that keep the outcome (win, draw or loss), however slowly."""
    won: int
    """Positions won for the side to move."""
    thrown: int
    """Won positions where the agent's move no longer wins."""

    @property
    def kept_share(self) -> float:
        """Share of the moves as good as the best."""
        return self.kept / self.positions if self.positions else math.nan

    @property
    def outcome_share(self) -> float:
        """Share of the moves keeping the outcome."""
        return self.kept_outcome / self.positions if self.positions else math.nan

    @property
    def thrown_share(self) -> float:
        """Share of the won positions thrown away."""
        return self.thrown / self.won if self.won else math.nan


def move_accuracy(
    agent_spec: str, positions: Iterable[Any], seed: int | None = 0, judge: ExactPlay | None = None
) -> MoveAccuracy:
    """Ask the agent of ``agent_spec`` for a move in each ongoing position and judge it with
    ``judge`` (default: the game's exact play), under the game's ply cap as the oracle judges.

    A position the judge does not cover raises OracleError saying why.
    """
    agent = None
    total = Tally()
    for state in positions:
        if state.is_over:
            continue
        if agent is None:
            agent = make_agent(agent_spec, seed=seed, game=state.game)
            judge = judge if judge is not None else judge_for(state.game)
        assert judge is not None
        reason = judge.uncovered(state)
        if reason is not None:
            raise OracleError(f"position {state.to_text()} is not covered by the judge: {reason}")
        values = judged_values(judge, state)
        total.add(judge_move(values, action_index(state, agent.choose(state))))
    return MoveAccuracy(agent_spec, total.moves, total.exact, total.kept, total.won, total.thrown)


def game_positions(
    game: Game, agent_specs: Sequence[str], games: int, seed: int = 0, min_ply: int = 0
) -> list[Any]:
    """Positions (at ``min_ply`` plies or more) from ``games`` games between the agents of
    ``agent_specs`` taken in turn (each pair plays both colours), seeded."""
    pairs = [(x, y) for x in agent_specs for y in agent_specs]
    out = []
    for g in range(games):
        first, second = pairs[g % len(pairs)]
        players = [
            make_agent(first, seed=seed + 2 * g, game=game),
            make_agent(second, seed=seed + 2 * g + 1, game=game),
        ]
        for p in players:
            p.new_game()
        state = game.initial()
        while not state.is_over:
            if state.ply >= min_ply:
                out.append(state)
            state = state.play(players[state.to_move].choose(state))
    return out


# --- output -----------------------------------------------------------------------------------


def write_json(report: OracleReport, path: Path | str) -> Path:
    """Write the report as JSON, atomically."""
    import json

    return atomic_write_text(path, json.dumps(report.to_json(), indent=2) + "\n")


def plot_accuracy(reports: Sequence[OracleReport], path: Path | str) -> Path:
    """A PNG of accuracy against the pieces on the board, one line per report, written
    atomically. With one report, the exactly-best share and the moves judged are shown too."""
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    if not reports:
        raise OracleError("nothing to plot: no report given")
    figure = agg_figure(8, 4.8)
    ax = figure.subplots()
    label = reports[0].pieces_label
    if len(reports) == 1:
        report = reports[0]
        keys = sorted(report.by_pieces)
        counts = [report.by_pieces[k].moves for k in keys]
        bars = ax.twinx()
        bars.bar(keys, counts, color="#d9d9d9", width=0.7, label="moves judged")
        bars.set_ylabel("moves judged")
        bars.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_zorder(bars.get_zorder() + 1)
        ax.patch.set_visible(False)
        ax.plot(
            keys, [report.by_pieces[k].accuracy for k in keys], "o-", color="#1f77b4", label="keeps the value"
        )
        exact = [report.by_pieces[k].exact_accuracy for k in keys]
        ax.plot(keys, exact, "s--", color="#ff7f0e", markersize=4, label="exactly best (depth too)")
        ax.set_title(
            f"{shortened_in_the_middle(report.agent, ORACLE_TITLE_CHARS)} on {report.game}\n"
            f"accuracy {report.accuracy:.1%} over {counted(report.moves, 'move')}, "
            f"{counted(report.games, 'game')}",
            fontsize=10,
        )
        handles = ax.get_legend_handles_labels()[0] + bars.get_legend_handles_labels()[0]
        figure.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=8)
    else:
        for report in reports:
            keys = sorted(report.by_pieces)
            ax.plot(
                keys, [report.by_pieces[k].accuracy for k in keys], "o-", markersize=3, label=report.agent
            )
        ax.set_title(f"Move accuracy on {reports[0].game} (keeps the perfect-play value)", fontsize=10)
        figure.legend(loc="outside right center", fontsize=8)
    ax.set_xlabel(f"{label} on the board before the move")
    ax.set_ylabel("share of moves")
    ax.set_ylim(-0.02, 1.05)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    return atomic_savefig(figure, path)


__all__ = [
    "DEFAULT_GAMES",
    "DEFAULT_OPENING",
    "DEFAULT_OPPONENTS",
    "AgentFailure",
    "GameJudgement",
    "MoveAccuracy",
    "OpponentResult",
    "OracleError",
    "OracleReport",
    "Tally",
    "check_builds",
    "game_positions",
    "judge_for",
    "judge_move",
    "measure",
    "move_accuracy",
    "play_judged_game",
    "plot_accuracy",
    "write_json",
]
