"""Perfect Quixo play from the solved tables: move values, best moves, a perfect move, and
the game's exact play (:class:`QuixoTablesPlay`).

A move's value is the value of the position it leads to, seen from the mover: won in d
plies if the opponent is then lost in d - 1, and so on. The best moves win fastest, else
draw, else lose slowest; :func:`perfect_move` picks among them at random.

Works on Quixo ``State`` objects (``a``, ``b`` words, ``game.size`` and ``game.rules``): the
tables of the game's rulebook are used. Moves are the state's own action indices, played with
``state.play_index``. 3x3 is solved in memory on first use; 4x4 and 5x5 are read from the
tables ``boardlab solve quixo`` builds (4x4 in full, 5x5 its endgames). Blank cubes never come
back, so once a game reaches a covered position every later position is covered too.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from boardlab.core.console import counted
from boardlab.games.base import DRAW, Game
from boardlab.games.exact import ExactPlay, ExactPlayError, MoveValue, Value, best_of, final_value
from boardlab.games.small_solver import DEFAULT_LIMIT

if TYPE_CHECKING:
    from boardlab.games.quixo.solver import TableSet

# The solver is compiled (numba): it is imported when tables are opened or solved, so that
# asking what the exact play offers (its class) loads no compiler.

_TABLES: dict[tuple[int, str, str], TableSet] = {}
_LOCK = threading.Lock()

MAX_BLANKS_5X5 = 1
"""The most blank cubes a 5x5 table holds: the 5x5 tables are endgames only (more needs far more memory)."""
ENDGAME_ATTEMPTS = 10_000
QUIET_PLIES = 3
"""Judged games from random endgame boards start only where perfect play lasts longer than this."""


def state_sides(state: Any) -> tuple[int, int, int]:
    """``(size, me, opp)``: board side and the cubes of the side to move and of its opponent."""
    game = getattr(state, "game", None)
    if getattr(game, "name", None) != "quixo":
        raise TypeError(f"not a Quixo state: {state!r}")
    return int(game.size), int(state.a), int(state.b)  # type: ignore[union-attr]


def tables_for(size: int, directory: Path | str | None = None, rulebook: str = "official") -> TableSet:
    """The tables of a board size and rulebook: 3x3 solved in memory on first use (a few
    milliseconds), 4x4 and 5x5 read from ``directory`` (default: the user cache folder)."""
    from boardlab.games.quixo.solver import QuixoTables, solve_in_memory

    key = (size, str(directory) if directory is not None else "", rulebook)
    with _LOCK:
        if key not in _TABLES:
            if size == 3 and directory is None:
                _TABLES[key] = solve_in_memory(3, rulebook=rulebook)
            else:
                _TABLES[key] = QuixoTables(size, directory, rulebook=rulebook)
        return _TABLES[key]


def _tables_of(state: Any, tables: TableSet | None) -> TableSet:
    size, _, _ = state_sides(state)
    rulebook = state.game.rules
    if tables is None:
        return tables_for(size, rulebook=rulebook)
    if tables.rulebook != rulebook or tables.size != size:
        raise ValueError(
            f"tables of {tables.size}x{tables.size} Quixo under the {tables.rulebook} rules cannot judge "
            f"a {size}x{size} position under the {rulebook} rules"
        )
    return tables


def position_value(state: Any, tables: TableSet | None = None) -> tuple[int, int | None]:
    """``(WIN | DRAW | LOSS, plies to the end)`` for the side to move. A draw has no distance
    (None): perfect play never ends it, only a ply cap would (the tables store 0 for it)."""
    _, me, opp = state_sides(state)
    value, depth = _tables_of(state, tables).value(me, opp)
    return value, None if value == DRAW else depth


def move_values(state: Any, tables: TableSet | None = None) -> list[MoveValue]:
    """Every legal move with its perfect-play value for the mover (empty once the game is
    over); a drawn move's depth is None, as a draw never ends under perfect play."""
    tables = _tables_of(state, tables)
    out = []
    for action in state.legal_indices():
        child = state.play_index(action)
        _, me, opp = state_sides(child)
        value, depth = tables.value(me, opp)
        out.append(MoveValue(action, -value, None if value == DRAW else depth + 1))
    return out


def best_moves(state: Any, tables: TableSet | None = None) -> list[MoveValue]:
    """The moves that win fastest, else draw, else lose slowest."""
    values = move_values(state, tables)
    best = set(best_of(values))
    return [v for v in values if v.action in best]


def perfect_move(state: Any, rng: Any, tables: TableSet | None = None) -> int:
    """A best move's action index, chosen at random among the best with ``rng``.

    ``rng`` is a ``numpy.random.Generator`` or a ``random.Random``.
    """
    best = best_moves(state, tables)
    if not best:
        raise ValueError("the game is over: there is no move to choose")
    if hasattr(rng, "integers"):
        pick = int(rng.integers(len(best)))
    else:
        pick = rng.randrange(len(best))
    return best[pick].action


def covers(state: Any, tables: TableSet | None = None) -> bool:
    """True if the tables hold this position (always on 3x3 and a built 4x4; 5x5 endgames)."""
    _, me, opp = state_sides(state)
    return _tables_of(state, tables).covers(me, opp)


def _solve_command(size: int, rulebook: str, folder: Any = None) -> str:
    """The command that builds the tables into ``folder`` (a Path; ``--dir`` only where it is not
    where the tables go by default)."""
    from boardlab.games.quixo.solver import solve_dir_flag

    spec = "quixo" if rulebook == "official" else f"quixo:rules={rulebook}"
    command = f"boardlab solve {spec} --size {size}" + (" --blanks 1" if size == 5 else "")
    return command + solve_dir_flag(folder, size, rulebook)


class QuixoTablesPlay(ExactPlay):
    """Exact Quixo play from the retrograde tables of the game's size and rulebook.

    3x3 is solved in memory when no folder is given; 4x4 and 5x5 need their tables built,
    at least the full-board classes. Positions with more blanks than the tables reach are
    not covered (5x5: boards with at most one blank)."""

    lookup: ClassVar[bool] = True
    pieces_label = "cubes"

    def __init__(self, game: Game, tables: TableSet) -> None:
        super().__init__(game)
        self.table_set = tables
        size, rulebook = int(game.size), str(game.rules)  # type: ignore[attr-defined]
        self.endgames_only = not tables.covers(*game.initial_words())
        self.title = f"the Quixo {size}x{size} tables" + (" (endgames)" if self.endgames_only else "")
        if rulebook != "official":
            self.title += f", {rulebook} rules"

    @classmethod
    def open(cls, game: Game, *, tables: Path | str | None = None, limit: int = DEFAULT_LIMIT) -> ExactPlay:
        size, rulebook = int(game.size), str(game.rules)  # type: ignore[attr-defined]
        table_set = tables_for(size, tables, rulebook)
        cells = size * size
        if not any(table_set.has_class(a, cells - a) for a in range(cells + 1)):
            folder = getattr(table_set, "directory", "memory")
            endgames = " (endgames only: boards with one blank cube or none)" if size == 5 else ""
            raise ExactPlayError(
                f"the {size}x{size} Quixo tables are not built in {folder}; "
                f"run `{_solve_command(size, rulebook, getattr(table_set, 'directory', None))}`{endgames}"
            )
        return cls(game, table_set)

    @classmethod
    def covers_only(cls, game: Game) -> str | None:
        size = int(game.size)  # type: ignore[attr-defined]
        if size != 5:
            return None
        return "the 5x5 Quixo tables cover endgames only (boards with at most one blank cube)"

    def warm(self) -> None:
        """Read the moves of one position the tables hold (loading the compiled index code and
        a table). Where none is found to warm on, the first answer pays for the loading instead."""
        try:
            state = self.start(random.Random(0))
        except ExactPlayError:
            return
        self.move_values(state)

    def uncovered(self, state: Any) -> str | None:
        if (foreign := self.foreign(state)) is not None:
            return foreign
        if covers(state, self.table_set):
            return None
        size = int(state.game.size)
        blanks = counted(size * size - (int(state.a) | int(state.b)).bit_count(), "blank cube")
        return (
            f"the {size}x{size} Quixo tables built here do not cover boards with {blanks}; "
            "hybrid plays such positions, and reads the tables once the game reaches them"
        )

    def uncovered_run(self, states: Sequence[Any]) -> str | None:
        if not states or any(self.foreign(s) is not None or covers(s, self.table_set) for s in states):
            return super().uncovered_run(states)
        blanks = sorted({self._blanks(state) for state in states})
        low, high = blanks[0], blanks[-1]
        boards = counted(low, "blank cube") if low == high else f"{low} to {high} blank cubes"
        return f"boards of {boards}; the tables {self._reach()}"

    def _blanks(self, state: Any) -> int:
        return int(self.game.size) ** 2 - self.pieces(state)  # type: ignore[attr-defined]

    def _reach(self) -> str:
        """The boards the tables hold, by their most blank cubes (blank cubes never come back:
        a table of B blanks is built after those of fewer)."""
        cells = int(self.game.size) ** 2  # type: ignore[attr-defined]
        most = max((b for b in range(cells + 1) if self._holds_boards_with(b)), default=0)
        return "hold full boards only" if most == 0 else f"reach {counted(most, 'blank cube')}"

    def move_values(self, state: Any) -> list[MoveValue]:
        self.check_game(state)
        return move_values(state, self.table_set)

    def position_value(self, state: Any) -> Value:
        self.check_game(state)
        # the tables ignore the ply cap: a game it ended is a draw, whatever they say
        return final_value(state) or Value(*position_value(state, self.table_set))

    def pieces(self, state: Any) -> int:
        return (int(state.a) | int(state.b)).bit_count()

    def start(self, rng: random.Random) -> Any:
        """The empty board, or where the tables hold endgames only a random board they cover
        (every cube X or O at random, one blank or none, either side to move) whose game is
        not decided within :data:`QUIET_PLIES` plies (most such boards have a win in 1)."""
        if not self.endgames_only:
            return self.game.initial()
        cells = int(self.game.size) ** 2  # type: ignore[attr-defined]
        built = [blanks for blanks in (0, 1) if self._holds_boards_with(blanks)]
        if not built:
            raise ExactPlayError("the tables hold no board with one blank cube or none to start from")
        for _ in range(ENDGAME_ATTEMPTS):
            blanks = rng.choice(built)
            blank = rng.randrange(cells) if blanks else -1
            x = sum(1 << i for i in range(cells) if i != blank and rng.random() < 0.5)
            o = ((1 << cells) - 1) & ~x & ~(1 << blank if blank >= 0 else 0)
            to_move = rng.randrange(2)
            me, opp = (x, o) if to_move == 0 else (o, x)
            state = self.game.state(me, opp, to_move, (cells - blanks) // 2 * 2 + to_move)
            if state.is_over or not self.table_set.covers(me, opp):  # a class not built
                continue
            value, depth = position_value(state, self.table_set)
            if value == DRAW or (depth is not None and depth > QUIET_PLIES):
                return state
        raise ExactPlayError("found no open endgame position to start from")

    def _holds_boards_with(self, blanks: int) -> bool:
        """True if some class of boards with ``blanks`` blank cubes is built."""
        cubes = int(self.game.size) ** 2 - blanks  # type: ignore[attr-defined]
        return any(self.table_set.has_class(a, cubes - a) for a in range(cubes + 1))


__all__ = [
    "MAX_BLANKS_5X5",
    "QuixoTablesPlay",
    "best_moves",
    "covers",
    "move_values",
    "perfect_move",
    "position_value",
    "state_sides",
    "tables_for",
]
