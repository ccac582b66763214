"""The game protocol: what every game offers to searches, learners, the arena and the UIs.

A game has two faces.

**The compiled face** is a :class:`Kernel`: numba functions over a position held in two
``int64`` *state words* ``(a, b)`` whose meaning the game defines (Quixo: the cubes of the side
to move and of its opponent; Connect Four: the stones of the side to move and all stones;
Nim: the piles packed in bit fields). The side to move is implied: every position is seen
by the side about to move, which keeps negamax and learning code side-relative. Moves are
*actions*, integers in a fixed range ``[0, num_actions)`` that also index policy vectors.

- ``status(ctx, a, b) -> int``: :data:`WIN` / :data:`DRAW` / :data:`LOSS` for the side to
  move in a finished position (by the rules: a line, a full board, no legal move, ...),
  else :data:`ONGOING`. Every search asks it before generating moves; a position whose
  status is ``ONGOING`` has at least one legal move.
- ``gen_moves(ctx, a, b, out) -> n``: writes the legal actions into ``out``, returns how many.
- ``play(ctx, a, b, action) -> (a, b)``: the position after ``action``, seen by the side to
  move next.
- ``evaluate(ctx, a, b, eval_id) -> float``: a heuristic value for the side to move (ids
  index ``Kernel.evaluations``).
- ``symmetry(ctx, a, b, sym) -> (a, b)``: the position seen through symmetry ``sym``
  (0 is the identity); ``Kernel.action_maps[sym, action]`` is the image of an action and
  ``Kernel.cell_maps[sym]`` gathers the cells of an observation plane.
- ``observe(ctx, a, b, out)``: fills a float32 array of ``Kernel.obs_shape``
  (planes, rows, columns) from the mover's view.
- ``may_win(ctx, a, b) -> bool`` (optional): False only when the side to move surely has no
  move that wins at once; searches that look for such moves skip the others.
- ``count_moves(ctx, a, b) -> n`` (optional): the number of legal actions, without listing
  them (perft counts its last ply with it).

Generic helpers built here on top of a kernel: :func:`~boardlab.games.hashing.position_hash` (a
64-bit hash of the state words, the same whatever a table stores), :func:`build_canonical` (the hash of the
symmetry-reduced position and the symmetry reaching it), legal-action masks and batched
observations and symmetries for learners.

**The Python face** is an immutable :class:`State` made by a :class:`Game`. A ``Game`` is a
frozen dataclass whose fields are the game's options (``quixo:size=4``,
``connect4:width=8,height=7``); it holds the metadata generic code reads instead of naming a
game: title, notation help, evaluations, text and JSON views, terminal rendering.
"""

from __future__ import annotations

import enum
import functools
import numbers
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

import numpy as np
from rich.text import Text

from boardlab.core.console import notebook_html, ply_count
from boardlab.core.spec import SpecError, check_options, spec_text, with_article

Integer = int | np.integer[Any]
"""An action or symmetry as callers may give it: a Python or a NumPy integer (``bool`` is
refused at run time by :func:`checked_action` and :func:`checked_symmetry`)."""

LOSS, DRAW, WIN, ONGOING = -1, 0, 1, 2
"""Kernel status codes, for the side to move."""


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


class GameOptionError(GameError, SpecError):
    """An unknown game, or a game option outside what the game accepts."""


def checked_action(action: Any, count: int) -> int:
    """``action`` as a Python int when it is an integer in ``0..count - 1`` (NumPy integers are;
    ``bool`` is not), else IllegalMoveError: the one check of an action given to a game."""
    if isinstance(action, bool) or not isinstance(action, int | np.integer) or not 0 <= action < count:
        raise IllegalMoveError(f"action {_shown_value(action)} is not in 0..{count - 1}")
    return int(action)


def checked_symmetry(sym: Any, count: int) -> int:
    """``sym`` as a Python int when it is an integer in ``0..count - 1`` (NumPy integers are;
    ``bool`` is not), else ValueError: the check of a symmetry given to a game."""
    if isinstance(sym, bool) or not isinstance(sym, int | np.integer) or not 0 <= sym < count:
        accepted = (
            "0 (the game's only symmetry is the identity)" if count == 1 else f"an integer in 0..{count - 1}"
        )
        raise ValueError(f"symmetry must be {accepted}, got {_shown_value(sym)}")
    return int(sym)


def _shown_value(value: Any) -> str:
    """A value for an error message: a number as it reads (``9``, ``1.5``, ``True``), anything
    else quoted as Python writes it (``'9'``, ``None``), at most 20 characters."""
    try:
        text = str(value) if isinstance(value, numbers.Number) else repr(value)
    except Exception:  # a caller's object whose repr fails
        text = with_article(type(value).__name__)
    return text if len(text) <= 20 else text[:17] + "..."


# --- outcomes ------------------------------------------------------------------------------


class Reason(enum.StrEnum):
    """Why a game ended."""

    RULE = "rule"  # won by the game's rules (a line, the last object, ...)
    DRAW = "draw"  # drawn by the game's rules (full board, ...)
    PLY_CAP = "ply_cap"
    REPETITION = "repetition"
    RESIGNATION = "resignation"
    FORFEIT = "forfeit"
    TIME = "time"  # a game clock ran out


@dataclass(frozen=True)
class Outcome:
    """The result of a game: the winning colour (0 first, 1 second; None for a draw) and why."""

    winner: int | None
    reason: Reason
    detail: str = ""

    def __post_init__(self) -> None:
        if self.winner not in (None, 0, 1):
            raise ValueError(f"winner must be 0, 1 or None, got {self.winner!r}")
        object.__setattr__(self, "reason", Reason(self.reason))

    @property
    def is_draw(self) -> bool:
        """True when nobody won."""
        return self.winner is None

    def score_for(self, colour: int) -> float:
        """1, 0.5 or 0 for the player of ``colour``."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == colour else 0.0

    def text(self, symbols: Sequence[str] = ("X", "O")) -> str:
        """A short human sentence: ``X wins (a complete line)``, ``draw (full board)``,
        ``draw (ply cap: 200 plies)``, ``O wins (resignation)``. An end by the game's rules is
        told by its detail alone; any other end names its reason."""
        head = "draw" if self.winner is None else f"{symbols[self.winner]} wins"
        if self.reason in (Reason.RULE, Reason.DRAW):
            return f"{head} ({self.detail})" if self.detail else head
        why = "on time" if self.reason is Reason.TIME else self.reason.value.replace("_", " ")
        return f"{head} ({why}{': ' + self.detail if self.detail else ''})"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"winner": self.winner, "reason": self.reason.value, "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        """Read what :meth:`to_json` wrote."""
        return cls(data["winner"], Reason(data["reason"]), data.get("detail", ""))


# --- the compiled face -----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Kernel:
    """The compiled rules of one game with its options (see the module docstring).

    ``name`` is unique per game and options (it keys the compile caches). ``action_maps``
    has shape ``(num_symmetries, num_actions)``; ``cell_maps`` has shape
    ``(num_symmetries, rows * columns)`` with ``transformed.flat[c] = plane.flat[cell_maps[s, c]]``
    for each observation plane; ``sym_inverse[s]`` undoes symmetry ``s``.
    """

    name: str
    ctx: tuple[Any, ...]
    num_actions: int
    obs_shape: tuple[int, int, int]
    evaluations: tuple[str, ...]
    status: Callable[..., int]
    gen_moves: Callable[..., int]
    play: Callable[..., tuple[int, int]]
    evaluate: Callable[..., float]
    symmetry: Callable[..., tuple[int, int]]
    observe: Callable[..., None]
    action_maps: np.ndarray
    cell_maps: np.ndarray
    sym_inverse: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    may_win: Callable[..., bool] | None = None
    count_moves: Callable[..., int] | None = None
    reweigh: Callable[[str, Any], tuple[Any, ...]] | None = None
    """``reweigh(eval_name, document)``: a ``ctx`` whose fitted evaluation ``eval_name`` reads
    its weights from ``document`` (the game's weights file, as parsed JSON) instead of the
    shipped ones; ValueError when the evaluation has no weights or the document is not
    theirs. None for games without fitted evaluations."""
    value_symmetries: tuple[int, ...] | None = None
    """The symmetries that keep every position's result, where only some do (None: all of
    them). Quixo under the course rules gives a push completing lines of both colours to the
    first line in a scan order that only the identity and the main-diagonal transpose keep.
    Exact tables (the alpha-beta transposition table, the tabular learners) share entries
    only across these; learners that augment data use all the board's symmetries."""

    @property
    def num_symmetries(self) -> int:
        """How many symmetries the game has (1: only the identity)."""
        return int(self.action_maps.shape[0])

    @property
    def kept_symmetries(self) -> tuple[int, ...]:
        """The symmetries that keep every position's result: ``value_symmetries``, or all."""
        if self.value_symmetries is None:
            return tuple(range(self.num_symmetries))
        return self.value_symmetries


def build_canonical(kernel: Kernel) -> Any:
    """A compiled ``canonical(ctx, a, b) -> (hash, sym)``: the hash of the smallest image of
    the position over the symmetries that keep results (``Kernel.value_symmetries``), and the
    symmetry that gives it."""
    from boardlab.games.hashing import position_hash
    from boardlab.games.jit import cached_njit  # loads numba: only when a search needs it

    symmetry = kernel.symmetry
    others = np.array([s for s in kernel.kept_symmetries if s], dtype=np.int64)

    @cached_njit
    def canonical(ctx, a, b):  # type: ignore[no-untyped-def]
        best_a, best_b, best_sym = a, b, 0
        for s in others:
            x, y = symmetry(ctx, a, b, s)
            if x < best_a or (x == best_a and y < best_b):
                best_a, best_b, best_sym = x, y, s
        return position_hash(best_a, best_b), best_sym

    return canonical


_COMPILED: dict[tuple[Callable[..., Any], str], Any] = {}


def compiled_for(kernel: Kernel, builder: Callable[[Kernel], Any]) -> Any:
    """``builder(kernel)``, built once per process and kernel: the one compile cache of the
    generic compiled code (canonical keys, searches) closed over a game's kernel."""
    key = (builder, kernel.name)
    if key not in _COMPILED:
        _COMPILED[key] = builder(kernel)
    return _COMPILED[key]


def compiled_canonical(kernel: Kernel) -> Any:
    """The compiled canonical-key function of a kernel."""
    return compiled_for(kernel, build_canonical)


def legal_mask(kernel: Kernel, a: int, b: int) -> np.ndarray:
    """A boolean vector over the action space, True at the legal actions (none once over)."""
    mask = np.zeros(kernel.num_actions, dtype=np.bool_)
    if kernel.status(kernel.ctx, np.int64(a), np.int64(b)) == ONGOING:
        buf = np.empty(kernel.num_actions, dtype=np.int64)
        mask[buf[: kernel.gen_moves(kernel.ctx, np.int64(a), np.int64(b), buf)]] = True
    return mask


def observe_batch(kernel: Kernel, words: np.ndarray) -> np.ndarray:
    """Observations of many positions: ``words`` of shape (n, 2) gives (n, *obs_shape) float32."""
    words = np.asarray(words, dtype=np.int64).reshape(-1, 2)
    out = np.zeros((len(words), *kernel.obs_shape), dtype=np.float32)
    for i, (a, b) in enumerate(words):
        kernel.observe(kernel.ctx, a, b, out[i])
    return out


def transform_observations(kernel: Kernel, planes: np.ndarray, sym: int) -> np.ndarray:
    """Observations (..., planes, rows, columns) seen through symmetry ``sym``."""
    shape = planes.shape
    flat = planes.reshape(*shape[:-2], shape[-2] * shape[-1])
    return flat[..., kernel.cell_maps[sym]].reshape(shape)


def transform_actions(kernel: Kernel, vectors: np.ndarray, sym: int) -> np.ndarray:
    """Per-action vectors (..., num_actions), e.g. policies or masks, under symmetry ``sym``."""
    out = np.empty_like(vectors)
    out[..., kernel.action_maps[sym]] = vectors
    return out


# --- the Python face -------------------------------------------------------------------------


@dataclass(frozen=True)
class Game(ABC):
    """One game with its options: the factory of its states and the metadata about it.

    Subclasses are frozen dataclasses whose fields, declared with :func:`boardlab.core.spec.option`,
    are the options of the game's spec; they set the class variables and implement the
    abstract methods. An option outside what it accepts raises GameOptionError, whether the
    game comes from a spec or is built directly (``Quixo(size=7)``). ``ply_cap`` (None: no cap)
    ends a game as a draw after that many plies.
    """

    name: ClassVar[str] = ""
    display_name: ClassVar[str] = ""
    symbols: ClassVar[tuple[str, str]] = ("X", "O")
    win_detail: ClassVar[str] = ""
    draw_detail: ClassVar[str] = ""
    perft_ended_leaves: ClassVar[bool] = True
    """How the game's published perft counts take a game that ends before the depth: as a
    leaf (True), or not at all, counting move sequences of exactly the depth (False)."""
    exact_play: ClassVar[tuple[str, ...]] = ()
    """The game's exact-play providers (:class:`~boardlab.games.exact.ExactPlay` subclasses) as
    ``module:Name``, tried in order; a module is imported only when exact play is asked for."""

    def __post_init__(self) -> None:
        try:
            check_options(self, self.name)
        except SpecError as err:  # a game built directly, not from a spec: the same error
            raise GameOptionError(str(err)) from None

    @property
    def spec(self) -> str:
        """The spec string that rebuilds this game, e.g. ``connect4:width=8``."""
        return spec_text(self.name, self)

    @property
    def title(self) -> str:
        """A short human title, e.g. ``Connect Four 7x6``."""
        return self.display_name

    @property
    def ply_cap(self) -> int | None:
        """Plies after which a game is drawn (None: the rules end every game)."""
        return None

    @property
    def max_plies(self) -> int | None:
        """An upper bound on the plies of a game from the first position (the ply cap by
        default; None where no bound is known), for tools that ask for one (OpenSpiel)."""
        return self.ply_cap

    @property
    def notation_help(self) -> str:
        """How moves are written, for help screens."""
        return ""

    @property
    def kernel(self) -> Kernel:
        """The compiled rules (built once per process and options)."""
        return _kernel_of(self)

    @property
    def evaluations(self) -> tuple[str, ...]:
        """Names of the heuristic evaluations for alpha-beta, the default first."""
        return self.kernel.evaluations

    @abstractmethod
    def build_kernel(self) -> Kernel:
        """Build the compiled rules for these options."""

    @property
    @abstractmethod
    def state_class(self) -> type[State]:
        """The State subclass of this game."""

    @abstractmethod
    def initial_words(self) -> tuple[int, int]:
        """The state words of the starting position."""

    def initial(self) -> State:
        """The starting position."""
        a, b = self.initial_words()
        return self.state(a, b, 0, 0)

    def state(self, a: int, b: int, to_move: int, ply: int) -> State:
        """A position from its state words (seen by the side to move), that side and the ply."""
        status = int(self.kernel.status(self.kernel.ctx, np.int64(a), np.int64(b)))
        return self.state_class(self, int(a), int(b), int(to_move), int(ply), status)

    # moves -------------------------------------------------------------------------------

    @abstractmethod
    def move_of(self, action: Integer) -> Any:
        """The move object for an action (printing it gives its notation); IllegalMoveError for
        anything but an integer in ``0..num_actions - 1`` (check it with :func:`checked_action`)."""

    @abstractmethod
    def action_of(self, move: Any) -> int:
        """The action of a move object; IllegalMoveError for an object that is not a move here."""

    @abstractmethod
    def parse_action(self, text: str) -> int:
        """The action written as ``text``; MoveParseError when it is not a move's notation."""

    def move_texts(self, text: str) -> list[str]:
        """The moves of a text holding several, each in notation: separated by blanks or
        commas (a game whose moves can be written together, as Connect Four's columns, reads
        that form too)."""
        return [move for move in re.split(r"[\s,]+", text) if move]

    # positions ---------------------------------------------------------------------------

    @abstractmethod
    def position_text(self, state: State) -> str:
        """A one-line text of a position that :meth:`parse_position` reads back."""

    @abstractmethod
    def parse_position(self, text: str) -> State:
        """The position written by :meth:`position_text`; PositionParseError otherwise."""

    @abstractmethod
    def board_text(self, state: State) -> str:
        """A plain multi-line picture of the board."""

    def render(self, state: State, last_move: Any = None) -> Text:
        """The board for a terminal (rich Text); games may colour it and show the last move."""
        return Text(self.board_text(state))

    @abstractmethod
    def json_view(self, state: State) -> dict[str, Any]:
        """What a web board needs to draw the position (JSON-ready)."""

    def grid(self, state: State) -> list[list[int]] | None:
        """The board as rows from the top, each cell -1 (empty) or the colour (0 for the first
        player, 1 for the second) of the piece on it: what lets a page that knows nothing of
        the game draw it and take its moves by clicks (with :meth:`move_cells`). None (the
        default) for a board that is not such a grid."""
        return None

    def winning_cells(self, state: State) -> tuple[tuple[int, int], ...]:
        """The cells ``(x, y)`` of :meth:`grid` that won a finished game (the line or lines of a
        game of lines), for a board to ring; empty while the game goes on, and (the default)
        where no cells show the win."""
        return ()

    def move_cells(self, state: State, move: Any) -> tuple[tuple[int, int], ...]:
        """The cells ``(x, y)`` of :meth:`grid` (``x`` from the left, ``y`` from the top) a player
        points at to make the legal ``move`` in ``state``, in that order: one cell for a
        placement, a piece's cell then its target for a step. Empty (the default) for a game
        without a grid."""
        return ()


@functools.cache
def _kernel_of(game: Game) -> Kernel:
    return game.build_kernel()


@dataclass(frozen=True, repr=False)
class State:
    """An immutable position: the game, its state words, the side to move and the ply.

    ``status`` is the kernel status for the side to move (kept so that it is computed once).
    Build states with :meth:`Game.initial`, :meth:`Game.parse_position` or :meth:`play`.
    Its ``repr`` names the game and gives the position text; a notebook draws the board.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # a game's state class is a dataclass too, whose generated repr (the state words) would
        # replace this one: set here, before the decorator runs, it is kept
        super().__init_subclass__(**kwargs)
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = State.__repr__  # type: ignore[method-assign]

    def __repr__(self) -> str:
        try:
            text = self.to_text()
        except Exception:  # a game of one's own whose position text fails: the words then
            text = f"a={self.a}, b={self.b}, to_move={self.to_move}, ply={self.ply}"
        return f"<{self.game.spec} position {text!r}>"

    def _repr_html_(self) -> str:
        """The board as the terminal shows it, in colour, for notebooks (Jupyter, VS Code)."""
        return notebook_html(self.render(), Text(self.to_text(), style="dim"))

    game: Game
    a: int
    b: int
    to_move: int = 0
    ply: int = 0
    status: int = field(default=ONGOING, compare=False)

    # the compiled face ---------------------------------------------------------------------

    @property
    def kernel(self) -> Kernel:
        """The compiled rules used by searches."""
        return self.game.kernel

    @property
    def words(self) -> tuple[int, int]:
        """The state words ``(a, b)`` of the kernel."""
        return self.a, self.b

    def position_hash(self) -> int:
        """A 64-bit hash of the position (its state words)."""
        from boardlab.games.hashing import position_hash

        return int(position_hash(np.int64(self.a), np.int64(self.b)))

    def canonical_key(self) -> int:
        """A 64-bit key shared by the position's images under the symmetries that keep
        results (all of the board's unless ``Kernel.value_symmetries`` says otherwise)."""
        key, _ = compiled_canonical(self.kernel)(self.kernel.ctx, np.int64(self.a), np.int64(self.b))
        return int(key)

    # the result ----------------------------------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        if self.status == WIN or self.status == LOSS:
            winner = self.to_move if self.status == WIN else 1 - self.to_move
            return Outcome(winner, Reason.RULE, self.game.win_detail)
        if self.status == DRAW:
            return Outcome(None, Reason.DRAW, self.game.draw_detail)
        cap = self.game.ply_cap
        if cap is not None and self.ply >= cap:
            return Outcome(None, Reason.PLY_CAP, ply_count(cap))
        return None

    @property
    def is_over(self) -> bool:
        """True once the game has a result."""
        return self.outcome is not None

    @property
    def winner(self) -> int | None:
        """0 or 1 for a won game; None while playing or for a draw."""
        outcome = self.outcome
        return None if outcome is None else outcome.winner

    @property
    def is_draw(self) -> bool:
        """True for a finished game that nobody won."""
        outcome = self.outcome
        return outcome is not None and outcome.winner is None

    # moves ---------------------------------------------------------------------------------

    def legal_indices(self) -> list[int]:
        """The legal actions in the kernel's order; empty once the game is over."""
        return list(self._legal)

    @functools.cached_property
    def _legal(self) -> tuple[int, ...]:
        if self.is_over:
            return ()
        kernel = self.kernel
        buf = np.empty(kernel.num_actions, dtype=np.int64)
        n = kernel.gen_moves(kernel.ctx, np.int64(self.a), np.int64(self.b), buf)
        return tuple(buf[:n].tolist())

    def legal_moves(self) -> list[Any]:
        """The legal moves in the kernel's order; empty once the game is over."""
        return [self.game.move_of(i) for i in self._legal]

    def legal_mask(self) -> np.ndarray:
        """Booleans over the action space, True at the legal actions."""
        mask = np.zeros(self.kernel.num_actions, dtype=np.bool_)
        mask[list(self._legal)] = True
        return mask

    def move_index(self, move: Any) -> int:
        """The action of a move."""
        return self.game.action_of(move)

    def move_from_index(self, index: Integer) -> Any:
        """The move of an action; IllegalMoveError unless it is an integer in ``0..num_actions - 1``."""
        return self.game.move_of(index)

    def is_legal(self, move: Any) -> bool:
        """True if ``move`` may be played here."""
        try:
            return self.game.action_of(move) in self._legal
        except GameError:
            return False

    def parse_move(self, text: str) -> Any:
        """A legal move from its notation; MoveParseError, IllegalMoveError or GameOverError."""
        action = self.game.parse_action(text)
        self._check_legal(action)
        return self.game.move_of(action)

    def play(self, move: Any) -> Self:
        """The position after ``move`` (a move object or its notation)."""
        action = self.game.parse_action(move) if isinstance(move, str) else self.game.action_of(move)
        return self.play_index(action)

    def play_index(self, index: int) -> Self:
        """The position after the action ``index``; IllegalMoveError unless it is legal."""
        self._check_legal(index)
        kernel = self.kernel
        a, b = kernel.play(kernel.ctx, np.int64(self.a), np.int64(self.b), index)
        return self._at(int(a), int(b), 1 - self.to_move, self.ply + 1)

    def line_notation(self, actions: Sequence[int]) -> tuple[str, ...]:
        """A line of actions from this position as moves in the game's notation, cut where the
        game ends: a search's line may run past the ply cap, which compiled kernels do not see."""
        moves, state = [], self
        for action in actions:
            if state.is_over:
                break
            moves.append(str(state.move_from_index(action)))
            state = state.play_index(action)
        return tuple(moves)

    def _check_legal(self, action: int) -> None:
        if self.is_over:
            raise GameOverError("the game is over; no more moves can be played")
        checked_action(action, self.kernel.num_actions)
        if action not in self._legal:
            raise IllegalMoveError(self.illegal_reason(action))

    def illegal_reason(self, action: int) -> str:
        """Why a well-formed action is not legal here (games may say more)."""
        return f"move {self.game.move_of(action)} is not legal in this position"

    # learning ------------------------------------------------------------------------------

    def observation(self) -> np.ndarray:
        """The observation planes from the mover's view, float32 of shape ``obs_shape``."""
        out = np.zeros(self.kernel.obs_shape, dtype=np.float32)
        self.kernel.observe(self.kernel.ctx, np.int64(self.a), np.int64(self.b), out)
        return out

    def transform(self, sym: Integer) -> Self:
        """This position seen through symmetry ``sym`` (an integer in ``0..num_symmetries - 1``,
        else ValueError); side to move and ply are kept, and the result is read from the image
        (a symmetry outside ``Kernel.value_symmetries`` can change it)."""
        sym = checked_symmetry(sym, self.kernel.num_symmetries)
        a, b = self.kernel.symmetry(self.kernel.ctx, np.int64(self.a), np.int64(self.b), sym)
        return self._at(int(a), int(b), self.to_move, self.ply)

    def _at(self, a: int, b: int, to_move: int, ply: int) -> Self:
        # a position of this game, of this State class (the game's ``state_class``)
        state = self.game.state(a, b, to_move, ply)
        assert isinstance(state, type(self))
        return state

    # text ----------------------------------------------------------------------------------

    def to_text(self) -> str:
        """The position as one line of text (read back by the game's ``parse_position``)."""
        return self.game.position_text(self)

    def to_json(self) -> dict[str, Any]:
        """A JSON view of the position for web boards and logs."""
        outcome = self.outcome
        return {
            "game": self.game.spec,
            "text": self.to_text(),
            "to_move": self.to_move,
            "ply": self.ply,
            "legal": [str(m) for m in self.legal_moves()],
            "outcome": None if outcome is None else outcome.to_json(),
            **self.game.json_view(self),
        }

    def render(self, last_move: Any = None) -> Text:
        """The board for a terminal."""
        return self.game.render(self, last_move)

    def __str__(self) -> str:
        return self.game.board_text(self)


def parse_side_and_ply(fields: Sequence[str], symbols: Sequence[str] = ("X", "O")) -> tuple[int, int]:
    """The side to move and the ply from the optional trailing fields of a position text
    (``X``/``O`` and a non-negative whole number; 0 and 0 when absent)."""
    to_move = 0
    if len(fields) > 0:
        side = fields[0].upper()
        if side not in symbols:
            raise PositionParseError(f"side to move must be {' or '.join(symbols)}, got {fields[0][:20]!r}")
        to_move = list(symbols).index(side)
    ply = 0
    if len(fields) > 1:
        if not (fields[1].isascii() and fields[1].isdigit()) or len(fields[1]) > 9:
            raise PositionParseError(f"ply must be a non-negative integer, got {fields[1][:20]!r}")
        ply = int(fields[1])
    return to_move, ply


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def checked_masks(what: str, *masks: Any) -> tuple[int, ...]:
    """Bit masks as Python ints when each is an integer (NumPy integers are; ``bool`` is not),
    else PositionParseError naming ``what`` they are (e.g. ``"cube masks"``)."""
    if not all(_is_integer(m) for m in masks):
        raise PositionParseError(f"{what} must be integers, got {', '.join(str(m)[:20] for m in masks)}")
    return tuple(int(m) for m in masks)


def checked_side_and_ply(to_move: Any, ply: Any) -> tuple[int, int]:
    """``(to_move, ply)`` as Python ints when the side is 0 or 1 and the ply a non-negative
    integer (NumPy integers are; ``bool`` and ``1.5`` are not), else PositionParseError: the
    check of a position built from numbers rather than read from a text."""
    if not _is_integer(to_move) or to_move not in (0, 1):
        raise PositionParseError(f"side to move must be 0 or 1, got {str(to_move)[:20]!r}")
    if not _is_integer(ply) or ply < 0:
        raise PositionParseError(f"ply must be a non-negative integer, got {str(ply)[:20]!r}")
    return int(to_move), int(ply)


def symmetry_table_inverse(action_maps: np.ndarray) -> np.ndarray:
    """``inverse[s]``: the symmetry undoing ``s``, found from the action permutations."""
    count = action_maps.shape[0]
    identity = np.arange(action_maps.shape[1])
    inverse = np.zeros(count, dtype=np.int64)
    for s in range(count):
        for t in range(count):
            if np.array_equal(action_maps[t][action_maps[s]], identity):
                inverse[s] = t
                break
    return inverse


__all__ = [
    "DRAW",
    "LOSS",
    "ONGOING",
    "WIN",
    "Game",
    "GameError",
    "GameOptionError",
    "GameOverError",
    "IllegalMoveError",
    "Kernel",
    "MoveParseError",
    "Outcome",
    "PositionParseError",
    "Reason",
    "State",
    "build_canonical",
    "checked_action",
    "checked_masks",
    "checked_side_and_ply",
    "checked_symmetry",
    "compiled_canonical",
    "compiled_for",
    "legal_mask",
    "observe_batch",
    "parse_side_and_ply",
    "symmetry_table_inverse",
    "transform_actions",
    "transform_observations",
]
