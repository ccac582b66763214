"""What every game offers: errors, the compiled-kernel bundle and the state protocol.

A game has two faces. The Python face is an immutable ``State`` with legal moves, play,
outcome and text round-trips, used by agents' glue code, the arena and the UIs. The
compiled face is a :class:`Kernel`: numba functions over side-relative integer states
``(me, opp)`` that the generic searches (alpha-beta, MCTS, playouts) call in their hot loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, runtime_checkable


class GameError(ValueError):
    """Base class of every error raised for bad game input."""


class IllegalMoveError(GameError):
    """A well-formed move that the rules do not allow in this position."""


class MoveParseError(GameError):
    """A move text that does not follow the game's notation."""


class PositionParseError(GameError):
    """A position text that cannot be read."""


class GameOverError(GameError):
    """A move was asked of a finished game."""


@dataclass(frozen=True)
class Kernel:
    """The compiled rules of one game, as numba functions over side-relative states.

    A state is two ``int64`` masks ``(me, opp)``: the cubes/stones of the side to move and
    of its opponent. Every function takes the game's constant tables ``ctx`` first.

    - ``gen_moves(ctx, me, opp, out) -> n``: writes legal move indices into ``out``.
    - ``play(ctx, me, opp, move) -> (me, opp)``: the position after ``move``, seen by the
      side that moves next (the masks are swapped).
    - ``status(ctx, me, opp) -> int``: +1 if the side to move has already won, -1 if it has
      lost, 0 if the game goes on (draws by ply cap are handled by callers).
    - ``evaluate(ctx, me, opp, eval_id) -> float``: heuristic value for the side to move.
    - ``canonical(ctx, me, opp) -> (key, sym)``: a key shared by symmetric positions and the
      symmetry that maps this position to the canonical one.
    - ``map_move(ctx, sym, move) -> move``: a move index transformed by a symmetry.
    - ``inverse_sym(ctx, sym) -> sym``: the symmetry undoing ``sym``.
    """

    name: str
    ctx: tuple[Any, ...]
    max_moves: int
    gen_moves: Callable[..., int]
    play: Callable[..., tuple[int, int]]
    status: Callable[..., int]
    evaluate: Callable[..., float]
    canonical: Callable[..., tuple[int, int]]
    map_move: Callable[..., int]
    inverse_sym: Callable[..., int]
    evaluations: tuple[str, ...]


@runtime_checkable
class GameState(Protocol):
    """The Python face of a position, shared by all games."""

    @property
    def to_move(self) -> int:
        """0 for the first player, 1 for the second."""
        ...

    @property
    def ply(self) -> int:
        """Number of moves played so far."""
        ...

    @property
    def is_over(self) -> bool:
        """True once the game has a result."""
        ...

    @property
    def winner(self) -> int | None:
        """0 or 1 for a finished, won game; None while playing or for a draw."""
        ...

    @property
    def kernel(self) -> Kernel:
        """The compiled rules used by searches."""
        ...

    @property
    def sides(self) -> tuple[int, int]:
        """The side-relative kernel state ``(me, opp)``."""
        ...

    def legal_moves(self) -> Sequence[Any]:
        """Legal moves in a fixed order (empty once the game is over)."""
        ...

    def play(self, move: Any) -> Self:
        """A new state with ``move`` played; raises IllegalMoveError if it is not legal."""
        ...

    def move_index(self, move: Any) -> int:
        """The kernel index of a move."""
        ...

    def move_from_index(self, index: int) -> Any:
        """The move for a kernel index."""
        ...

    def parse_move(self, text: str) -> Any:
        """A legal move from its notation; raises MoveParseError or IllegalMoveError."""
        ...
