"""Play against a boardlab agent in the terminal.

:class:`TerminalGame` runs the loop: it shows the board with its coordinates (the last move
highlighted), reads the human's input through an injectable ``input_fn`` and writes through
a rich ``Console``, so a test can drive a whole game with scripted lines and read the
output back from a buffer. Commands: a move in the game's notation, ``moves``, ``hint``,
``position``, ``undo``, ``resign``, ``help``, ``board`` and ``quit``; end of input counts as
``quit``, and Ctrl-C (KeyboardInterrupt) reaches the caller, which stops (``boardlab play``
exits 130). A hint comes from an adviser, a second agent started at the first ``hint``.

On a game clock (a :class:`~boardlab.play.clock.TimeControl`) both sides play against their
clocks: the person's time runs from the prompt of their turn until a legal move comes (the
commands typed meanwhile count too), measured by an injectable ``timer``.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from boardlab.agents.decision import Decision
from boardlab.core.console import counted, make_console
from boardlab.core.spec import shorten
from boardlab.games.base import GameError, MoveParseError, Outcome, Reason
from boardlab.play.clock import TimeControl, reading_text
from boardlab.play.referee import AgentForfeit
from boardlab.play.session import Player, Session, SessionError, Turn
from boardlab.ui.search_analysis import decision_summary

InputFn = Callable[[str], str]

SIDE_NAMES = ("first", "second")
MAX_ECHO = 40  # characters of a refused input shown back

COMMANDS = (
    ("moves", "list the legal moves"),
    ("hint", "ask the adviser for a move, with what its search saw"),
    ("position", "print the position as text (for boardlab analyze, serve's URLs)"),
    ("undo", "take back your last move and the agent's reply"),
    ("resign", "give up the game"),
    ("board", "show the board again"),
    ("help", "show this help"),
    ("quit", "leave without a result"),
)
COMMAND_WIDTH = max(len(name) for name, _ in COMMANDS) + 2


@dataclass(frozen=True)
class PlayResult:
    """The end of a terminal game: its outcome (None when the human left), the moves, the last position."""

    outcome: Outcome | None
    human_side: int
    moves: tuple[str, ...]
    final_state: Any

    @property
    def winner(self) -> int | None:
        """The colour that won, or None (draw or unfinished)."""
        return None if self.outcome is None else self.outcome.winner

    @property
    def human_won(self) -> bool:
        """True if the human won."""
        return self.winner == self.human_side


class TerminalGame:
    """A human against an agent, one line of input at a time, played in a :class:`Session`.

    ``human_side`` is 0 to move first (X) or 1 to move second (O). ``input_fn`` gets the
    prompt and returns the line typed (default: ``console.input``); it may raise
    ``EOFError`` to leave as ``quit`` does, and a ``KeyboardInterrupt`` it raises (Ctrl-C)
    reaches the caller. The agent's per-game memory is reset at
    the start and after each ``undo``. An agent that fails, answers an illegal move or thinks
    longer than ``move_timeout`` seconds (None: no limit) forfeits the game. To stop an agent
    that never answers, give an :class:`~boardlab.play.referee.AgentProcess` as the agent.
    ``adviser`` starts the agent that answers ``hint`` (called at the first hint, and at the
    next after an adviser fails; None: no hints); an adviser with a ``close`` is closed when it
    fails and at the end of :meth:`run`. On a clock, starting and preparing the adviser is not
    charged to the person (its answer is, as any command's time is).

    ``time_control`` puts both sides on a game clock: the agent plays on its own (see
    :class:`~boardlab.play.session.Session`), and the person's thinking, from the prompt of
    their turn to their move, is charged to theirs; a person who thought past what was left
    loses on time and the move is not played. ``timer`` (seconds, monotonic) measures both.

    Where the agent is to move in the first position, the intro says so, with ``other_side``
    (how to play the other side instead, such as ``--side o``) where one is given.
    """

    def __init__(
        self,
        state: Any,
        agent: Player,
        human_side: int = 0,
        *,
        console: Console | None = None,
        input_fn: InputFn | None = None,
        agent_label: str | None = None,
        move_timeout: float | None = None,
        adviser: Callable[[], Player] | None = None,
        time_control: TimeControl | None = None,
        timer: Callable[[], float] = time.perf_counter,
        other_side: str = "",
    ) -> None:
        if human_side not in (0, 1):
            raise ValueError(f"human side must be 0 (first) or 1 (second), got {human_side}")
        self.agent = agent
        self.human_side = human_side
        self.console = console or make_console(highlight=False)
        self.input_fn = input_fn or self.console.input
        self.agent_label = agent_label or agent.spec
        agents: list[Player | None] = [None, None]
        limits: list[float | None] = [None, None]
        agents[1 - human_side], limits[1 - human_side] = agent, move_timeout
        self.session = Session(state, agents, limits=limits, time_control=time_control, timer=timer)
        self._timer = timer
        self._turn_started: float | None = None  # when the person's turn began (their clock runs)
        self._start_adviser = adviser
        self._adviser: Player | None = None
        self._moves_shown = False  # the Moves line is printed once, at the end or an interrupt
        self._other_side = other_side

    @property
    def state(self) -> Any:
        """The current position."""
        return self.session.state

    @property
    def symbols(self) -> tuple[str, str]:
        """The two players' symbols in this game."""
        return self.state.game.symbols  # type: ignore[no-any-return]

    def run(self) -> PlayResult:
        """Play until the game ends, the human resigns or leaves; print and return the result.

        An agent that fails (raises, calls ``sys.exit``, answers an illegal move, or takes
        longer than ``move_timeout`` seconds) forfeits: the human wins. A KeyboardInterrupt
        (Ctrl-C) prints the moves played so far before it passes on.
        """
        try:
            return self._play()
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the game's record is kept all the same
            self._show_record()
            raise
        finally:
            self._close_adviser()

    def _play(self) -> PlayResult:
        self._show_intro()
        failure = self.session.prepare_agents()
        if failure is not None:
            return self._finish(failure)
        while not self.session.is_over:
            if self.session.to_move == self.human_side:
                stop = self._human_turn()
                if stop is not None:
                    return self._finish(stop)
            elif not self._agent_turn():  # the agent forfeits
                self._show_position()
                return self._finish(self.session.outcome)
        self._show_position()
        return self._finish(self.session.outcome)

    # --- turns -----------------------------------------------------------------------------

    def _human_turn(self) -> Outcome | str | None:
        """Read lines until a move is played (None), the human resigns or runs out of time (an
        Outcome) or leaves ("quit")."""
        self._turn_started = self._timer()
        try:
            return self._read_turn()
        finally:
            self._turn_started = None

    def _read_turn(self) -> Outcome | str | None:
        self._show_position()
        while True:
            try:
                discard_typeahead()
                line = self.input_fn(self._prompt())
            except UnicodeDecodeError:  # bytes a strict terminal encoding cannot read: not a move
                self.console.print(Text.assemble(("Refused: ", "bold red"), "the input is not readable text"))
                continue
            except EOFError:  # Ctrl-D: as quit
                self.console.print()
                return "quit"
            except KeyboardInterrupt:  # Ctrl-C: the caller's to answer, on a line of its own
                self.console.print()
                raise
            thought = self._thought()
            if (late := self._out_of_time(thought)) is not None:
                return late
            command = line.strip().lower()
            if not command:
                continue
            if command in ("quit", "exit"):
                return "quit"
            if command == "resign":
                return self.session.resign(self.human_side)
            if command in self._info_commands:
                self._info_commands[command]()
            elif command == "undo":
                if self._undo():
                    return self.session.outcome  # the agent's forfeit if it failed to reset
            elif self._try_move(line.strip(), thought):
                return None

    @property
    def _info_commands(self) -> dict[str, Callable[[], None]]:
        return {
            "help": self._show_help,
            "?": self._show_help,
            "moves": self._show_moves,
            "board": self._show_position,
            "hint": self._show_hint,
            "position": self._show_text,
        }

    def _thought(self) -> float:
        """Seconds the person has been thinking on this turn."""
        assert self._turn_started is not None
        return self._timer() - self._turn_started

    def _out_of_time(self, thought: float) -> Outcome | None:
        """The person's loss on time if ``thought`` seconds went past their clock, else None."""
        left = self.session.clock_left(self.human_side)
        if left is None or thought <= left:
            return None
        return self.session.lose_on_time(
            self.human_side, f"took {reading_text(thought, 1)} with {reading_text(left, 1)} left"
        )

    def _try_move(self, text: str, thought: float) -> bool:
        if len(text) > MAX_ECHO:
            self.console.print(
                Text.assemble(("Refused: ", "bold red"), f"input of {len(text)} characters is not a move")
            )
            return False
        try:  # a person's time is charged on a clock only (else it stays unrecorded, as before)
            self.session.play(text, seconds=None if self.session.time_control is None else thought)
        except GameError as err:
            hint = " (type help for the commands)" if isinstance(err, MoveParseError) else ""
            self.console.print(Text.assemble(("Refused: ", "bold red"), f"{err}{hint}"))
            return False
        return True

    def _agent_turn(self) -> bool:
        """Play the agent's move; False if it forfeits instead."""
        with self._thinking(f"{self.agent_label} is thinking..."):
            turn = self.session.agent_move()
        if turn is None:
            return False
        self.console.print(
            Text.assemble(
                f"{self.agent_label} ({self.symbols[turn.mover]}) plays ",
                (turn.notation, "bold"),
                (f"  {turn.seconds or 0.0:.2f} s", "dim"),
            )
        )
        return True

    def _show_hint(self) -> None:
        """The adviser's move for the position, with its value or evaluation, depth and line.
        An adviser that fails (a search too long for its time limit, say) is stopped and said
        so; the next hint starts a fresh one."""
        if self._start_adviser is None:
            self.console.print(Text("No hint: no adviser in this game.", style="yellow"))
            return
        try:
            with self._thinking("the adviser is thinking..."):
                if self._adviser is None:
                    with self._uncharged():  # starting the adviser is not the person's thinking
                        self._adviser = self._start_adviser()
                        self._adviser.prepare(self.state.game)
                decision = self._adviser.act(self.state)
        except Exception as err:  # a failing adviser ends the hint, never the game
            detail = err.detail if isinstance(err, AgentForfeit) else f"{type(err).__name__}: {err}"
            self._close_adviser()
            self.console.print(Text(f"No hint: the adviser failed ({shorten(detail)}).", style="yellow"))
            return
        parts = (_engine_said(self._adviser.spec, decision), decision_summary(self.state, decision))
        summary = ", ".join(part for part in parts if part)
        said = f"  ({self._adviser.spec}{', ' if summary else ''}{summary})"
        self.console.print(Text.assemble("hint: ", (str(decision.move), "bold"), (said, "dim")))

    @contextlib.contextmanager
    def _uncharged(self) -> Iterator[None]:
        """Time spent inside is left off the person's clock: their turn's start moves on by it."""
        started = self._timer()
        try:
            yield
        finally:
            if self._turn_started is not None:
                self._turn_started += self._timer() - started

    def _close_adviser(self) -> None:
        close = getattr(self._adviser, "close", None)
        if close is not None:
            close()
        self._adviser = None

    def _thinking(self, text: str) -> Any:
        """A spinner with ``text`` on a terminal, nothing elsewhere."""
        return self.console.status(Text(text)) if self.console.is_terminal else contextlib.nullcontext()

    def _show_text(self) -> None:
        self.console.print(Text(self.state.to_text()))

    def _undo(self) -> bool:
        """Take back the human's last move and everything after it; False if there is none."""
        try:
            taken = self.session.undo(self.human_side)
        except SessionError:
            self.console.print(Text("Nothing to undo: you have not moved yet.", style="yellow"))
            return False
        if not self.session.is_over:
            self.console.print(Text(f"Took back {' '.join(t.notation for t in taken)}.", style="yellow"))
        return True

    # --- output ----------------------------------------------------------------------------

    def _prompt(self) -> str:
        left = self._left_now(self.human_side)
        clock = "" if left is None else f", {clock_text(left)} left{self._to_go(self.human_side)}"
        return f"move {self.state.ply + 1}, you are {self.symbols[self.human_side]}{clock} > "

    def _to_go(self, colour: int) -> str:
        """`` for 12 moves`` on a clock of periods: the moves ``colour``'s clock must last."""
        to_go = self.session.moves_to_go(colour)
        return "" if to_go is None else f" for {to_go} move{'s' * (to_go != 1)}"

    def _left_now(self, colour: int) -> float | None:
        """What ``colour``'s clock shows now (None without a clock): the person's runs during
        their turn."""
        left = self.session.clock_left(colour)
        if left is not None and colour == self.human_side and self._turn_started is not None:
            left -= self._thought()
        return left

    def _show_intro(self) -> None:
        human, agent = self.symbols[self.human_side], self.symbols[1 - self.human_side]
        self.console.print(
            Text.assemble(
                (self.state.game.title, "bold"),
                f": you are {human} ({SIDE_NAMES[self.human_side]}), ",
                f"{self.agent_label} is {agent}{self._who_starts()}. Type help for the commands.",
            )
        )

    def _who_starts(self) -> str:
        """``; greedy (O) moves first, --side o to play O`` where the agent is to move at the start
        (a position given with the other side to move), else ""."""
        if self.session.to_move == self.human_side:
            return ""
        agent = self.symbols[1 - self.human_side]
        switch = f", {self._other_side} to play {agent}" if self._other_side else ""
        return f"; {self.agent_label} ({agent}) moves first{switch}"

    def _show_position(self) -> None:
        self.console.print()
        self.console.print(self.state.render(self._last_move()))
        if self.session.turns:
            recent = ", ".join(self._describe(t) for t in self.session.turns[-2:])
            self.console.print(Text(f"last moves: {recent}", style="dim"))
        if not self.state.is_over:
            side = self.state.to_move
            who = "you" if side == self.human_side else self.agent_label
            self.console.print(Text(f"{self.symbols[side]} to move ({who})"))
            if self.session.time_control is not None and not self.session.is_over:
                clocks = "  ".join(
                    f"{self.symbols[c]} {clock_text(self._left_now(c) or 0.0)}{self._to_go(c)}"
                    for c in (0, 1)
                )
                self.console.print(Text(f"clock {self.session.time_control}: {clocks}"))

    def _describe(self, turn: Turn) -> str:
        who = "you" if turn.mover == self.human_side else self.agent_label
        return f"{turn.move} by {who} ({self.symbols[turn.mover]})"

    def _last_move(self) -> Any:
        return self.session.turns[-1].move if self.session.turns else None

    def _show_help(self) -> None:
        self.console.print(Text(self.state.game.notation_help or "Type a move in the game's notation."))
        for name, text in COMMANDS:
            self.console.print(Text.assemble(("  " + name.ljust(COMMAND_WIDTH), "bold"), text))

    def _show_moves(self) -> None:
        moves = [str(m) for m in self.state.legal_moves()]
        self.console.print(Text(f"{len(moves)} legal moves: " + " ".join(moves)))

    def _finish(self, stop: Outcome | str | None) -> PlayResult:
        outcome = stop if isinstance(stop, Outcome) else None
        moves = tuple(self.session.moves)
        result = PlayResult(outcome, self.human_side, moves, self.state)
        self._show_record()
        self.console.print(Text(result_line(result, self.agent_label, self.symbols), style="bold"))
        return result

    def _show_record(self) -> None:
        """The game's moves on one line (once), to replay, analyse or review (boardlab review
        --moves ...); nothing before the first move."""
        moves = self.session.moves
        if moves and not self._moves_shown:
            self._moves_shown = True
            self.console.print(Text(f"Moves: {' '.join(moves)}{self._from()}", style="dim"), soft_wrap=True)

    def _from(self) -> str:
        """`` (from POSITION)`` for a game that did not start at the game's start, else ""."""
        start = self.session.start
        return "" if start == start.game.initial() else f" (from {start.to_text()})"


def result_line(result: PlayResult, agent_label: str, symbols: tuple[str, str] = ("X", "O")) -> str:
    """One line saying how the game ended and who won."""
    moves = counted(len(result.moves), "move")
    outcome = result.outcome
    if outcome is None:
        return f"Game left unfinished after {moves}."
    agent_wins = f"{agent_label} ({symbols[1 - result.human_side]}) wins"
    if outcome.reason is Reason.RESIGNATION:
        return f"You resign after {moves}: {agent_wins}."
    if outcome.reason is Reason.FORFEIT:
        return f"{agent_label} forfeits after {moves} ({outcome.detail}): you win."
    if outcome.reason is Reason.TIME and result.human_won:
        return f"{agent_label} loses on time after {moves} ({outcome.detail}): you win."
    if outcome.reason is Reason.TIME:
        return f"You lose on time after {moves} ({outcome.detail}): {agent_wins}."
    if outcome.winner is None:
        return f"Draw after {moves} ({outcome.text(symbols).removeprefix('draw (').rstrip(')')})."
    who = "you win" if result.human_won else f"{agent_label} wins"
    why = f" ({outcome.detail})" if outcome.detail else ""  # a phrase of its own: "took the last object"
    return f"{symbols[outcome.winner]} wins after {moves}{why}: {who}."


def clock_text(seconds: float) -> str:
    """A clock's time as ``m:ss.s``, its tenths cut rather than rounded, as chess clocks show
    them (1.95 s left reads 0:01.9, never more than is left), never below zero."""
    tenths = max(0, math.floor(seconds * 10 + 1e-6))  # 1e-6: 58.3 s is 583 tenths, not 582.99...9
    minutes, rest = divmod(tenths, 600)
    return f"{minutes}:{rest // 10:02d}.{rest % 10}"


def discard_typeahead(stream: Any = None) -> None:
    """Drop what was typed on the terminal before the prompt (``stream``: standard input by
    default): keys pressed while the agent thought were never shown (its spinner wipes them) and
    must not be read as the next move. Nothing happens for a pipe or a file, whose lines are
    the moves meant."""
    stream = sys.stdin if stream is None else stream
    try:
        import termios  # POSIX only: elsewhere nothing is dropped
    except ImportError:
        return
    try:
        if stream.isatty():
            termios.tcflush(stream, termios.TCIFLUSH)
    except (AttributeError, ValueError, OSError, termios.error):  # closed, replaced, not a terminal
        return


def _engine_said(spec: str, decision: Decision) -> str:
    """ "decided by its ENGINE" where the part of the agent that decided is not the agent itself
    (a hybrid's tables, alpha-beta or MCTS; ``perfect`` falling back to a search); an external
    program's name from its handshake: "the engine NAME"."""
    engine = decision.info.engine if decision.info is not None else ""
    name = spec.split(":", 1)[0].strip()
    if not engine or engine in (name, "exact"):
        return ""
    return f"the engine {engine}" if name == "engine" else f"decided by its {engine}"
