"""Perfect Quixo play from the solved tables: move values, best moves, a perfect move.

A move's value is the value of the position it leads to, seen from the mover: won in d
plies if the opponent is then lost in d - 1, and so on. The best moves win fastest, else
draw, else lose slowest; :func:`perfect_move` picks among them at random.

Works on protocol-v2 Quixo ``State`` objects (``a``, ``b`` words, ``game.size`` and
``game.rules``): the tables of the game's rulebook are used. Moves are the state's own action
indices, played with ``state.play_index``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.games.quixo.solver import DRAW, LOSS, WIN, QuixoTables, TableSet, solve_in_memory

_VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}
_TABLES: dict[tuple[int, str, str], TableSet] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True, order=True)
class MoveValue:
    """The perfect-play outcome of one move, for the side that plays it."""

    action: int
    value: int  # WIN / DRAW / LOSS for the mover
    depth: int  # plies to the end of the game, counting this move

    @property
    def name(self) -> str:
        """``win``, ``draw`` or ``loss``."""
        return _VALUE_NAMES[self.value]

    def rank(self) -> tuple[int, int]:
        """Larger is better: win fastest, then draw, then lose slowest."""
        if self.value == WIN:
            return (2, -self.depth)
        if self.value == DRAW:
            return (1, 0)
        return (0, self.depth)


def state_sides(state: Any) -> tuple[int, int, int]:
    """``(size, me, opp)``: board side and the cubes of the side to move and of its opponent."""
    game = getattr(state, "game", None)
    if getattr(game, "name", None) != "quixo":
        raise TypeError(f"not a Quixo state: {state!r}")
    return int(game.size), int(state.a), int(state.b)  # type: ignore[union-attr]


def tables_for(size: int, directory: Path | str | None = None, rulebook: str = "official") -> TableSet:
    """The tables of a board size and rulebook: 3x3 solved in memory on first use (a few
    milliseconds), 4x4 and 5x5 read from ``directory`` (default: the user cache folder)."""
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


def position_value(state: Any, tables: TableSet | None = None) -> tuple[int, int]:
    """``(WIN | DRAW | LOSS, plies to the end)`` for the side to move."""
    _, me, opp = state_sides(state)
    return _tables_of(state, tables).value(me, opp)


def move_values(state: Any, tables: TableSet | None = None) -> list[MoveValue]:
    """Every legal move with its perfect-play value for the mover (empty once the game is over)."""
    tables = _tables_of(state, tables)
    out = []
    for action in state.legal_indices():
        child = state.play_index(action)
        _, me, opp = state_sides(child)
        value, depth = tables.value(me, opp)
        out.append(MoveValue(action, -value, depth + 1))
    return out


def best_moves(state: Any, tables: TableSet | None = None) -> list[MoveValue]:
    """The moves that win fastest, else draw, else lose slowest."""
    values = move_values(state, tables)
    if not values:
        return []
    top = max(v.rank() for v in values)
    return [v for v in values if v.rank() == top]


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


def quixo_best_actions(state: Any, limit: int = 0) -> list[int]:
    """The optimal actions of a position, for the ``perfect`` agent's back-end (``limit`` unused)."""
    return [m.action for m in best_moves(state)]


def quixo_refusal(game: Any, limit: int = 0) -> str | None:
    """Why the perfect agent cannot play a Quixo variant, or None when it can.

    3x3 is solved on the spot. 4x4 and 5x5 need their tables built (4x4 in full, 5x5 its
    endgames); the agent then plays the positions they cover (see :func:`quixo_uncovered`).
    """
    rulebook = str(getattr(game, "rules", "official"))
    size = int(getattr(game, "size", 0))
    if size == 3:
        return None
    cells = size * size
    if any(tables_for(size, rulebook=rulebook).has_class(a, cells - a) for a in range(cells + 1)):
        return None
    spec = "quixo" if rulebook == "official" else f"quixo:rules={rulebook}"
    command = f"boardlab solve {spec} --size {size}" + (" --blanks 1" if size == 5 else "")
    return f"perfect: the {size}x{size} Quixo tables are not built yet; run `{command}`"


def quixo_uncovered(state: Any) -> str | None:
    """Why the tables built cannot play this position (5x5 with many blanks), or None."""
    if covers(state):
        return None
    size = state.game.size
    blanks = size * size - (int(state.a) | int(state.b)).bit_count()
    return (
        f"perfect: the {size}x{size} Quixo tables built here do not cover boards with {blanks} blank "
        "cubes; hybrid plays such positions, and reads the tables once the game reaches them"
    )
