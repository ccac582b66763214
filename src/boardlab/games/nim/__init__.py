"""Nim: players take turns taking objects from one pile; the last object decides.

Options: ``piles`` (the starting piles, written ``1-3-5-7`` in specs), ``k`` (at most ``k``
objects per move; 0 = no limit) and ``misere`` (true by default: whoever takes the last
object loses; false: whoever takes it wins). Example: ``nim:piles=3-4-5,k=3,misere=false``.

Move notation: ``PILE:COUNT`` with piles numbered from 1, e.g. ``2:3`` takes 3 objects from
the second pile (:class:`Take` holds the 0-based pile index).

Position text: the piles joined by ``-``, then optionally the side to move and the ply, e.g.
``"1-3-5-7 X 0"``. A position has as many piles as the game, none larger than its largest
starting pile.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from rich.text import Text

from boardlab.core.console import counted
from boardlab.core.spec import option
from boardlab.games import base
from boardlab.games.base import (
    GameOptionError,
    IllegalMoveError,
    Integer,
    Kernel,
    MoveParseError,
    PositionParseError,
    checked_action,
    checked_side_and_ply,
    parse_side_and_ply,
)
from boardlab.games.nim.layout import EVALUATIONS, max_piles, pack, unpack

# The compiled kernel (numba) is imported where it is used: naming a game and listing its
# options and evaluations load no compiler.

MAX_PILE = 1000
"""The largest starting pile accepted (it bounds the action space and the observation)."""
MAX_MARKS = 50
"""The most marks a pile is drawn with in a terminal; larger piles are drawn to scale."""
SYMBOLS = "XO"
DEFAULT_PILES = (1, 3, 5, 7)

NOTATION_HELP = (
    "A move is PILE:COUNT, piles numbered from 1: 2:3 takes 3 objects from the second pile. "
    "Take at least one object, from a single pile{limit}. {rule}"
)


@dataclass(frozen=True, slots=True)
class Take:
    """The move that takes ``count`` objects from pile ``pile`` (0-based; printed 1-based)."""

    pile: int
    count: int

    def __str__(self) -> str:
        return f"{self.pile + 1}:{self.count}"

    @classmethod
    def parse(cls, text: str) -> Take:
        """Read ``PILE:COUNT`` (pile from 1); MoveParseError naming what is accepted."""
        clean = text.strip() if isinstance(text, str) else ""
        pile, colon, count = clean.partition(":")
        pile, count = pile.strip(), count.strip()
        if not colon or not _is_number(pile) or not _is_number(count) or int(pile) < 1 or int(count) < 1:
            raise MoveParseError(
                f"cannot read move {str(text)[:20]!r}: expected PILE:COUNT with piles numbered from 1, "
                "e.g. '2:3' takes 3 objects from pile 2"
            )
        return cls(int(pile) - 1, int(count))


def _game_of(game: Nim, piles: Any) -> str:
    """`` (a game of these piles: --game nim:piles=3-4-5)`` (``game``'s other options kept) for
    piles that make one, else "": a position of another count of piles is most often meant as
    the start of such a game."""
    if not isinstance(piles, list | tuple) or not all(type(p) is int for p in piles):
        return ""
    try:
        other = replace(game, piles=tuple(piles))
    except ValueError:  # piles no game starts from (too many, too large): no suggestion
        return ""
    return f" (a game of these piles: --game {other.spec})"


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 9


@dataclass(frozen=True)
class Nim(base.Game):
    """Nim with the given starting piles, an optional move limit ``k`` and misère or normal play."""

    name: ClassVar[str] = "nim"
    exact_play: ClassVar[tuple[str, ...]] = (
        "boardlab.games.nim.exact:NimSolverPlay",
        "boardlab.games.nim.exact:NimRule",
    )
    display_name: ClassVar[str] = "Nim"

    piles: tuple[int, ...] = option(DEFAULT_PILES, "starting piles", minimum=0, maximum=MAX_PILE)
    k: int = option(0, "most objects taken per move (0: no limit)", minimum=0, maximum=MAX_PILE)
    misere: bool = option(True, "whoever takes the last object loses (false: wins)")

    def __post_init__(self) -> None:
        if not isinstance(self.piles, tuple | list) or any(
            isinstance(p, bool) or not isinstance(p, int) for p in self.piles
        ):
            raise GameOptionError(f"nim: piles must be whole numbers like 1-3-5-7, got {self.piles!r}")
        object.__setattr__(self, "piles", tuple(int(p) for p in self.piles))
        super().__post_init__()
        if not self.piles or max(self.piles) < 1:
            raise GameOptionError("nim: piles must hold at least one object, e.g. piles=1-3-5-7")
        most = max_piles(max(self.piles))
        if len(self.piles) > most:
            raise GameOptionError(
                f"nim: {len(self.piles)} piles of up to {max(self.piles)} objects do not fit the state "
                f"(at most {most} piles of that size)"
            )

    @property
    def max_plies(self) -> int:
        """Every move takes at least one object."""
        return max(1, sum(self.piles))

    @property
    def title(self) -> str:
        limit = f", at most {self.k} per move" if self.k else ""
        play = "misère" if self.misere else "normal play"
        return f"Nim {'-'.join(map(str, self.piles))} ({play}{limit})"

    @property
    def win_detail(self) -> str:  # type: ignore[override]
        """How a game was won: depends on the play convention."""
        return "left the last object to the opponent" if self.misere else "took the last object"

    @property
    def notation_help(self) -> str:
        limit = f", at most {self.k}" if self.k else ""
        rule = (
            "Whoever takes the last object loses." if self.misere else "Whoever takes the last object wins."
        )
        return NOTATION_HELP.format(limit=limit, rule=rule)

    @property
    def max_pile(self) -> int:
        """The largest starting pile (no pile of a position may exceed it)."""
        return max(self.piles)

    @property
    def max_take(self) -> int:
        """The most objects one move may take (the action space has that many per pile)."""
        return min(self.k, self.max_pile) if self.k else self.max_pile

    @property
    def state_class(self) -> type[State]:
        return State

    @property
    def evaluations(self) -> tuple[str, ...]:
        return EVALUATIONS  # the kernel's, named without compiling it

    def build_kernel(self) -> Kernel:
        from boardlab.games.nim.kernel import build_kernel  # compiled code: loaded at its first use

        return build_kernel(self.piles, self.k, self.misere)

    def initial_words(self) -> tuple[int, int]:
        return pack(self.piles, self.max_pile)

    # moves ----------------------------------------------------------------------------------

    def move_of(self, action: Integer) -> Take:
        action = checked_action(action, len(self.piles) * self.max_take)
        return Take(action // self.max_take, action % self.max_take + 1)

    def action_of(self, move: Any) -> int:
        if not isinstance(move, Take) or isinstance(move.pile, bool) or isinstance(move.count, bool):
            raise IllegalMoveError(f"{move!r} is not a Nim move (Take(pile, count))")
        if not 0 <= move.pile < len(self.piles):
            raise IllegalMoveError(f"move {move}: there are piles 1..{len(self.piles)}")
        if not 1 <= move.count <= self.max_take:
            raise IllegalMoveError(f"move {move}: a move takes 1 to {self.max_take} objects in this game")
        return move.pile * self.max_take + move.count - 1

    def parse_action(self, text: str) -> int:
        return self.action_of(Take.parse(text))

    # positions ------------------------------------------------------------------------------

    def position_text(self, state: base.State) -> str:
        return f"{'-'.join(map(str, piles_of(state)))} {SYMBOLS[state.to_move]} {state.ply}"

    def parse_position(self, text: str) -> State:
        """Read ``PILES [X|O] [PLY]`` (see the module docstring)."""
        fields = text.split() if isinstance(text, str) else []
        if not 1 <= len(fields) <= 3:
            raise PositionParseError(
                f"cannot read position {str(text)[:60]!r}: expected 'PILES [X|O] [PLY]' like '1-3-5-7 X 0'"
            )
        parts = fields[0].split("-")
        if not all(_is_number(p) for p in parts):
            raise PositionParseError(f"piles must be whole numbers joined by '-', got {fields[0][:40]!r}")
        piles = [int(p) for p in parts]
        to_move, ply = parse_side_and_ply(fields[1:], SYMBOLS)
        return self.from_piles(piles, to_move, ply)

    def from_piles(self, piles: list[int] | tuple[int, ...], to_move: int = 0, ply: int = 0) -> State:
        """A position from its piles (whole numbers), the side to move (0 or 1) and the ply;
        PositionParseError if they do not fit this game."""
        if not isinstance(piles, list | tuple) or len(piles) != len(self.piles):
            raise PositionParseError(
                f"this game has {len(self.piles)} piles, got {str(piles)[:40]}{_game_of(self, piles)}"
            )
        if any(isinstance(p, bool) or not isinstance(p, int | np.integer) for p in piles):
            raise PositionParseError(f"piles must be whole numbers, got {str(list(piles))[:60]}")
        if any(not 0 <= p <= self.max_pile for p in piles):
            raise PositionParseError(f"piles must hold 0 to {self.max_pile} objects, got {list(piles)}")
        to_move, ply = checked_side_and_ply(to_move, ply)
        a, b = pack(tuple(int(p) for p in piles), self.max_pile)
        return self.state(a, b, to_move, ply)  # type: ignore[return-value]

    def board_text(self, state: base.State) -> str:
        return self.render(state).plain

    def render(self, state: base.State, last_move: Any = None) -> Text:
        """The piles as rows of marks, the objects taken by the last move shown faded; piles of
        more than :data:`MAX_MARKS` objects are drawn to scale, a mark for several objects (the
        counts beside them stay exact), so that every row fits a terminal's line."""
        taken = {last_move.pile: last_move.count} if isinstance(last_move, Take) else {}
        piles = piles_of(state)
        widest = max(p + taken.get(i, 0) for i, p in enumerate(piles))
        per_mark = max(1, -(-widest // MAX_MARKS))  # objects a mark stands for (1 up to MAX_MARKS)
        text = Text()
        if per_mark > 1:
            text.append(f"(a mark stands for up to {per_mark} objects)\n", style="dim")
        for i, p in enumerate(piles):
            text.append(f"{i + 1:>3} ", style="dim")
            text.append("|" * -(-p // per_mark), style="bold yellow")
            if i in taken:
                text.append("x" * -(-taken[i] // per_mark), style="dim red")
            elif not p:
                text.append("-", style="dim")
            text.append(f"  ({p})", style="dim")
            if i < len(self.piles) - 1:
                text.append("\n")
        return text

    def json_view(self, state: base.State) -> dict[str, Any]:
        return {
            "piles": piles_of(state),
            "start": list(self.piles),
            "k": self.k,
            "misere": self.misere,
        }


def piles_of(state: base.State) -> list[int]:
    """The piles of a Nim position."""
    game: Nim = state.game  # type: ignore[assignment]
    return unpack(state.a, state.b, len(game.piles), game.max_pile)


@dataclass(frozen=True)
class State(base.State):
    """An immutable Nim position (see :class:`boardlab.games.base.State`)."""

    @property
    def piles(self) -> list[int]:
        """The number of objects in each pile."""
        return piles_of(self)

    def illegal_reason(self, action: int) -> str:
        move = self.game.move_of(action)
        left = self.piles[move.pile]
        return f"move {move}: pile {move.pile + 1} holds {counted(left, 'object')}"
