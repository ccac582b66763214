"""Play against a boardlab agent in the terminal.

:class:`TerminalGame` runs the loop: it shows the board with its coordinates (the last move
highlighted), reads the human's input through an injectable ``input_fn`` and writes through
a rich ``Console``, so a test can drive a whole game with scripted lines and read the
output back from a buffer. Commands: a move in the game's notation, ``moves``, ``undo``,
``resign``, ``help``, ``board`` and ``quit``; end of input counts as ``quit``.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from boardlab.agents.base import Agent
from boardlab.games.base import GameError, MoveParseError

InputFn = Callable[[str], str]

SYMBOLS = ("X", "O")
CELL_TEXT = {-1: ".", 0: "X", 1: "O"}
CELL_STYLES = {-1: "dim", 0: "bold red", 1: "bold cyan"}
SIDE_NAMES = ("first", "second")

COMMANDS = (
    ("moves", "list the legal moves"),
    ("undo", "take back your last move and the agent's reply"),
    ("resign", "give up the game"),
    ("board", "show the board again"),
    ("help", "show this help"),
    ("quit", "leave without a result"),
)

QUIXO_HELP = (
    "A move names the border cube you take, then the cell at the end of its row or column where it "
    "is pushed back in: a1e1 takes a1 and pushes it in at e1 (row 1 slides left); c1c5 takes c1 "
    "and pushes it in at c5 (column c slides up). Take a blank cube or one of yours, never the "
    "opponent's. Columns are letters from the left, rows numbers from the top. A line of five "
    "of your symbol wins; completing a line of the opponent's loses, even with one of yours."
)


class Outcome(enum.StrEnum):
    """How a terminal game ended."""

    LINE = "line"
    DRAW = "draw"
    RESIGNED = "resigned"
    QUIT = "quit"


@dataclass(frozen=True)
class PlayResult:
    """The end of a terminal game."""

    outcome: Outcome
    winner: int | None
    human_side: int
    moves: tuple[str, ...]
    final_state: Any

    @property
    def human_won(self) -> bool:
        """True if the human won."""
        return self.winner == self.human_side


@dataclass(frozen=True)
class _Played:
    move: Any
    mover: int


def game_title(state: Any) -> str:
    """A short name for the game, e.g. ``Quixo 5x5``."""
    name = type(state).__module__.rsplit(".", 1)[-1].capitalize()
    size = getattr(state, "size", None)
    return f"{name} {size}x{size}" if size else name


def render_board(state: Any, last_move: Any = None) -> Text:
    """The board with column letters and row numbers; the last move's line is underlined
    and the cube it pushed in shown in reverse video."""
    if not hasattr(state, "board"):
        return Text(str(state))
    rows = state.board()
    size = len(rows)
    moved = _moved_cells(last_move)
    destination = getattr(last_move, "destination", None)
    text = Text()
    text.append("    " + " ".join("abcdefgh"[:size]) + "\n", style="dim")
    for y, row in enumerate(rows):
        text.append(f"{y + 1:>3} ", style="dim")
        for x, value in enumerate(row):
            style = CELL_STYLES[value]
            if (x, y) in moved:
                style += " underline"
            if (x, y) == destination:
                style += " reverse"
            text.append(CELL_TEXT[value], style=style)
            text.append(" " if x < size - 1 else "")
        if y < size - 1:
            text.append("\n")
    return text


def _moved_cells(move: Any) -> set[tuple[int, int]]:
    destination = getattr(move, "destination", None)
    if destination is None:
        return set()
    (x0, y0), (x1, y1) = (move.x, move.y), destination
    xs = range(min(x0, x1), max(x0, x1) + 1)
    ys = range(min(y0, y1), max(y0, y1) + 1)
    return {(x, y) for x in xs for y in ys}


class TerminalGame:
    """A human against an agent, one line of input at a time.

    ``human_side`` is 0 to move first (X) or 1 to move second (O). ``input_fn`` gets the
    prompt and returns the line typed (default: ``console.input``); it may raise
    ``EOFError`` or ``KeyboardInterrupt`` to leave. The agent's per-game memory is reset at
    the start and after each ``undo``.
    """

    def __init__(
        self,
        state: Any,
        agent: Agent,
        human_side: int = 0,
        *,
        console: Console | None = None,
        input_fn: InputFn | None = None,
        agent_label: str | None = None,
    ) -> None:
        if human_side not in (0, 1):
            raise ValueError(f"human side must be 0 (first) or 1 (second), got {human_side}")
        self.agent = agent
        self.human_side = human_side
        self.console = console or Console(highlight=False)
        self.input_fn = input_fn or self.console.input
        self.agent_label = agent_label or agent.spec
        self.positions: list[Any] = [state]
        self.played: list[_Played] = []

    @property
    def state(self) -> Any:
        """The current position."""
        return self.positions[-1]

    def run(self) -> PlayResult:
        """Play until the game ends, the human resigns or leaves; print and return the result."""
        self.agent.new_game()
        self._show_intro()
        while not self.state.is_over:
            if self.state.to_move == self.human_side:
                outcome = self._human_turn()
                if outcome is not None:
                    return self._finish(outcome)
            else:
                self._agent_turn()
        self._show_position()
        return self._finish(Outcome.DRAW if self.state.winner is None else Outcome.LINE)

    # --- turns -----------------------------------------------------------------------------

    def _human_turn(self) -> Outcome | None:
        """Read lines until a move is played (None) or the human resigns or leaves."""
        self._show_position()
        while True:
            try:
                line = self.input_fn(self._prompt())
            except (EOFError, KeyboardInterrupt):
                self.console.print()
                return Outcome.QUIT
            command = line.strip().lower()
            if not command:
                continue
            if command in ("quit", "exit"):
                return Outcome.QUIT
            if command == "resign":
                return Outcome.RESIGNED
            if command in self._info_commands:
                self._info_commands[command]()
            elif command == "undo":
                if self._undo():
                    return None
            elif self._try_move(line.strip()):
                return None

    @property
    def _info_commands(self) -> dict[str, Callable[[], None]]:
        return {
            "help": self._show_help,
            "?": self._show_help,
            "moves": self._show_moves,
            "board": self._show_position,
        }

    def _try_move(self, text: str) -> bool:
        try:
            move = self.state.parse_move(text)
        except GameError as err:
            hint = " (type help for the commands)" if isinstance(err, MoveParseError) else ""
            self.console.print(Text.assemble(("Refused: ", "bold red"), f"{err}{hint}"))
            return False
        self._play(move, self.human_side)
        return True

    def _agent_turn(self) -> None:
        start = time.perf_counter()
        if self.console.is_terminal:
            with self.console.status(f"{self.agent_label} is thinking..."):
                move = self.agent.choose(self.state)
        else:
            move = self.agent.choose(self.state)
        elapsed = time.perf_counter() - start
        side = self.state.to_move
        self._play(move, side)
        self.console.print(
            Text.assemble(
                f"{self.agent_label} ({SYMBOLS[side]}) plays ",
                (str(move), "bold"),
                (f"  {elapsed:.2f} s", "dim"),
            )
        )

    def _play(self, move: Any, mover: int) -> None:
        self.positions.append(self.state.play(move))
        self.played.append(_Played(move, mover))

    def _undo(self) -> bool:
        """Take back the human's last move and everything after it; False if there is none."""
        mine = [i for i, p in enumerate(self.played) if p.mover == self.human_side]
        if not mine:
            self.console.print(Text("Nothing to undo: you have not moved yet.", style="yellow"))
            return False
        start = mine[-1]
        taken = [str(p.move) for p in self.played[start:]]
        del self.played[start:]
        del self.positions[start + 1 :]
        self.agent.new_game()
        self.console.print(Text(f"Took back {' '.join(taken)}.", style="yellow"))
        return True

    # --- output ----------------------------------------------------------------------------

    def _prompt(self) -> str:
        return f"move {self.state.ply + 1}, you are {SYMBOLS[self.human_side]} > "

    def _show_intro(self) -> None:
        human, agent = SYMBOLS[self.human_side], SYMBOLS[1 - self.human_side]
        self.console.print(
            Text.assemble(
                (game_title(self.state), "bold"),
                f": you are {human} ({SIDE_NAMES[self.human_side]}), ",
                f"{self.agent_label} is {agent}. Type help for the commands.",
            )
        )

    def _show_position(self) -> None:
        self.console.print()
        self.console.print(render_board(self.state, self._last_move()))
        if self.played:
            recent = ", ".join(self._describe(p) for p in self.played[-2:])
            self.console.print(Text(f"last moves: {recent}", style="dim"))
        if not self.state.is_over:
            side = self.state.to_move
            who = "you" if side == self.human_side else self.agent_label
            self.console.print(f"{SYMBOLS[side]} to move ({who})")

    def _describe(self, played: _Played) -> str:
        who = "you" if played.mover == self.human_side else self.agent_label
        return f"{played.move} by {who} ({SYMBOLS[played.mover]})"

    def _last_move(self) -> Any:
        return self.played[-1].move if self.played else None

    def _show_help(self) -> None:
        if type(self.state).__module__.endswith("quixo"):
            self.console.print(Text(QUIXO_HELP))
        else:
            self.console.print(Text("Type a move in the game's notation."))
        for name, text in COMMANDS:
            self.console.print(Text.assemble(("  " + name.ljust(8), "bold"), text))

    def _show_moves(self) -> None:
        moves = [str(m) for m in self.state.legal_moves()]
        self.console.print(Text(f"{len(moves)} legal moves: " + " ".join(moves)))

    def _finish(self, outcome: Outcome) -> PlayResult:
        winner = self.state.winner
        if outcome is Outcome.RESIGNED:
            winner = 1 - self.human_side
        elif outcome is Outcome.QUIT:
            winner = None
        result = PlayResult(
            outcome, winner, self.human_side, tuple(str(p.move) for p in self.played), self.state
        )
        self.console.print(Text(result_line(result, self.agent_label), style="bold"))
        return result


def result_line(result: PlayResult, agent_label: str) -> str:
    """One line saying how the game ended and who won."""
    plies = len(result.moves)
    moves = f"{plies} move" + ("" if plies == 1 else "s")
    if result.outcome is Outcome.QUIT:
        return f"Game left unfinished after {moves}."
    if result.outcome is Outcome.RESIGNED:
        return f"You resign after {moves}: {agent_label} ({SYMBOLS[1 - result.human_side]}) wins."
    if result.outcome is Outcome.DRAW:
        return f"Draw: the limit of {moves} was reached."
    assert result.winner is not None
    who = "you win" if result.human_won else f"{agent_label} wins"
    return f"{SYMBOLS[result.winner]} wins with a complete line after {moves}: {who}."


def play_in_terminal(
    state: Any,
    agent: Agent,
    human_side: int = 0,
    *,
    console: Console | None = None,
    input_fn: InputFn | None = None,
) -> PlayResult:
    """Play one game of ``state``'s game against ``agent`` in the terminal."""
    return TerminalGame(state, agent, human_side, console=console, input_fn=input_fn).run()
