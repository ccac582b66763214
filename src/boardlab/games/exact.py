"""Exact play: what a solved game, or a solver given time, knows about positions.

An :class:`ExactPlay` answers, for the positions it covers, the perfect-play value of a
position for the side to move (:data:`WIN`, :data:`DRAW` or :data:`LOSS`, the plies to the
end where known, and the game's own exact score where it has one), the value of each legal
move, and the best moves: the fastest win, else any draw, else the slowest loss. Generic code
(the ``perfect`` agent, the oracle, ``boardlab analyze``, a searching agent's endgames) asks a
game's registry entry for it (:func:`boardlab.games.exact_play`) and never names a game.

A game registers its providers, :class:`ExactPlay` subclasses, in the order they are tried.
Each says what kind of answer it gives:

- ``knows_depth``: moves are ranked by distance or score (a closed-form rule knows only
  win, draw or loss);
- ``lookup``: answers are read from tables solved ahead (a lookup, cheap enough for every
  move of a search), as opposed to a solve on demand;
- ``closed_form``: answers come from a formula, at once, for every position.

:class:`SmallSolverPlay` is the provider of any small acyclic game: it solves every position
reachable from the start with :mod:`boardlab.games.small_solver`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from boardlab.core.spec import with_article
from boardlab.games.base import DRAW, LOSS, WIN, Game, GameError
from boardlab.games.small_solver import DEFAULT_LIMIT, Solution, SolverError, count_positions

VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}


class ExactPlayError(GameError):
    """No exact play for a game variant (none registered, tables not built, too large)."""


class UncoveredPosition(ExactPlayError):
    """A position outside what an exact play covers (e.g. 5x5 Quixo with many blanks)."""


class OutOfTime(ExactPlayError):
    """The budget ran out before any best move was proven."""


def depth_rank(value: int, depth: int | None) -> tuple[int, int]:
    """Larger is better for the mover: the fastest win, then any draw, then the slowest loss
    (an unknown depth ranks all moves of one value alike)."""
    plies = 0 if depth is None else depth
    if value == WIN:
        return (2, -plies)
    if value == DRAW:
        return (1, 0)
    return (0, plies)


@dataclass(frozen=True)
class Value:
    """The perfect-play value of a position for the side to move.

    ``depth`` is the number of plies to the end under perfect play (0: the game is over),
    None where the exact play does not know it; ``score`` is the game's own exact score
    where it has one (Connect Four: larger the sooner a win comes).
    """

    value: int
    depth: int | None = None
    score: int | None = None

    @property
    def name(self) -> str:
        """``win``, ``draw`` or ``loss``."""
        return VALUE_NAMES[self.value]


@dataclass(frozen=True)
class MoveValue:
    """The perfect-play value of one move for the side that plays it.

    ``depth`` counts the plies to the end with this move included; ``score`` is the game's
    exact score of the move where it has one. :attr:`rank` orders the moves of one position.
    """

    action: int
    value: int
    depth: int | None = None
    score: int | None = None

    @property
    def name(self) -> str:
        """``win``, ``draw`` or ``loss``."""
        return VALUE_NAMES[self.value]

    @property
    def rank(self) -> tuple[int, ...]:
        """Larger is better; equal ranks are equally perfect (the score where there is one,
        else :func:`depth_rank`)."""
        if self.score is not None:
            return (self.score,)
        return depth_rank(self.value, self.depth)


def best_of(values: Sequence[MoveValue]) -> list[int]:
    """The actions of the best-ranked moves, in the order given."""
    if not values:
        return []
    top = max(v.rank for v in values)
    return [v.action for v in values if v.rank == top]


def cut_by_cap(value: int, depth: int | None, plies_left: int | None) -> bool:
    """True when a value solved without a ply cap is a draw under a cap ``plies_left`` plies
    away (None: no cap): a win or loss that perfect play reaches only after the cap (the winner
    cannot force it sooner, and the other side cannot win at all). A value without a depth is
    left as it is."""
    return plies_left is not None and value != DRAW and depth is not None and depth > plies_left


def value_under_cap(state: Any, value: Value) -> int:
    """The position's value for the mover under its game's ply cap (the exact play's values
    hold without it, see :func:`cut_by_cap`; its best moves stay best under it: the fastest win,
    the slowest loss)."""
    cap = getattr(state.game, "ply_cap", None)
    return (
        DRAW
        if cut_by_cap(value.value, value.depth, None if cap is None else cap - state.ply)
        else value.value
    )


def distance_under_cap(state: Any, value: Value) -> int | None:
    """The plies to the end of a position's exact value under its game's ply cap (see
    :func:`value_under_cap`): its depth where it is a win or a loss there, else None (a draw,
    or a depth not known)."""
    return None if value_under_cap(state, value) == DRAW else value.depth


def under_cap(values: Sequence[MoveValue], plies_left: int | None) -> list[MoveValue]:
    """Move values solved without a ply cap, under a cap ``plies_left`` plies away (see
    :func:`cut_by_cap`); values with the game's own score are left as they are."""
    return [
        MoveValue(v.action, DRAW) if v.score is None and cut_by_cap(v.value, v.depth, plies_left) else v
        for v in values
    ]


def final_value(state: Any) -> Value | None:
    """The value of a finished position for the side to move (depth 0), None while the game
    goes on."""
    outcome = state.outcome
    if outcome is None:
        return None
    value = DRAW if outcome.winner is None else WIN if outcome.winner == state.to_move else LOSS
    return Value(value, 0)


def value_of_moves(values: Sequence[MoveValue]) -> Value:
    """A position's value from the values of its moves (at least one)."""
    best = max(values, key=lambda v: v.rank)
    return Value(best.value, best.depth, best.score)


class ExactPlay(ABC):
    """Perfect-play knowledge of one game variant (see the module notes).

    Subclasses implement :meth:`open` (refusing variants they cannot serve with
    :class:`ExactPlayError`), :meth:`move_values` and, where cheaper than from the moves,
    :meth:`position_value` and :meth:`best_actions`, each refusing another variant's position
    with :meth:`check_game` first.
    """

    knows_depth: ClassVar[bool] = True
    lookup: ClassVar[bool] = False
    closed_form: ClassVar[bool] = False
    default_seconds: ClassVar[float | None] = None
    """The budget of a best-move search when the caller gives none (None: answers at once)."""

    title: str = "exact play"
    """What answers, for reports (e.g. ``the Quixo 4x4 tables``)."""
    pieces_label: str = "plies"
    """What :meth:`pieces` counts."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def warm(self) -> None:
        """Compile (or load from the cache) what an answer runs, so that a timed answer pays
        for thinking only; nothing to do by default."""
        return None

    @classmethod
    @abstractmethod
    def open(cls, game: Game, *, tables: Path | str | None = None, limit: int = DEFAULT_LIMIT) -> ExactPlay:
        """The exact play of ``game``; ExactPlayError when this provider cannot serve it.

        ``tables`` is the folder of solved tables (default: where the game keeps them);
        ``limit`` the most positions a solve on demand may hold.
        """

    # coverage --------------------------------------------------------------------------------

    @classmethod
    def covers_only(cls, game: Game) -> str | None:
        """What part of ``game`` this provider covers when it can never cover a whole game
        (its first position), however much is built: e.g. ``the 5x5 Quixo tables cover only
        boards with at most one blank cube``; None when whole games may be covered. Answered
        without opening anything."""
        return None

    def foreign(self, state: Any) -> str | None:
        """Why ``state`` is not a position of this game variant, or None when it is one.

        Variants that play by the same rules (the same kernel) count as one: the exact play of
        ``quixo`` serves ``quixo:ply_cap=100``, whose cap its answers ignore anyway.
        """
        game = getattr(state, "game", None)
        if not isinstance(game, Game):
            given = with_article(type(state).__name__)
            return f"the exact play of {self.game.spec} answers its positions, not {given}"
        if game.kernel.name != self.game.kernel.name:
            return (
                f"a {game.spec} position is outside the exact play of {self.game.spec} ({self.title}); "
                f"open the exact play of {game.spec}"
            )
        return None

    def check_game(self, state: Any) -> None:
        """UncoveredPosition when ``state`` is not a position of this game variant (every
        answer checks this first: another game's position would be read as garbage)."""
        reason = self.foreign(state)
        if reason is not None:
            raise UncoveredPosition(reason)

    def uncovered(self, state: Any) -> str | None:
        """Why ``state`` is out of reach, or None when it is covered (by default: every
        position of the game variant; a subclass that covers less gives :meth:`foreign`'s
        reason first, then its own)."""
        return self.foreign(state)

    def uncovered_run(self, states: Sequence[Any]) -> str | None:
        """One short reason for consecutive positions that are all out of reach for one kind
        of reason, said at once (a review's run of moves not judged: 5x5 Quixo's ``boards of
        20 to 25 blank cubes; the tables reach 1 blank cube``); None where some
        is covered or their reasons differ in kind. By default: the reason they all give, where
        it is one."""
        reasons = {self.uncovered(state) for state in states}
        return reasons.pop() if len(reasons) == 1 else None

    def covers(self, state: Any) -> bool:
        """True if the values of ``state`` and of its moves are known here."""
        return self.uncovered(state) is None

    def check_covered(self, state: Any) -> None:
        """UncoveredPosition, saying why, when ``state`` is not covered."""
        reason = self.uncovered(state)
        if reason is not None:
            raise UncoveredPosition(reason)

    # answers ---------------------------------------------------------------------------------

    @abstractmethod
    def move_values(self, state: Any) -> list[MoveValue]:
        """Every legal move of a covered position with its value for the mover, in the order
        of ``state.legal_indices()`` (empty once the game is over).

        Implementations call :meth:`check_game` first. For a position of the variant that is
        not covered the answer is undefined: callers ask :meth:`covers` first."""

    def position_value(self, state: Any) -> Value:
        """The value of a covered position for the side to move (of a finished one: its
        outcome, whatever ended it, e.g. a ply cap the answers otherwise ignore)."""
        self.check_game(state)
        return final_value(state) or value_of_moves(self.move_values(state))

    def best_actions(self, state: Any, seconds: float | None = None) -> list[int]:
        """The best moves of a covered, ongoing position (at least one; by default in the
        order of ``state.legal_indices()``; none once the game is over). An exact play that
        searches spends at most about ``seconds`` (default :attr:`default_seconds`) and may
        return only the best moves it proved in time; OutOfTime when it proved none."""
        return best_of(self.move_values(state))

    # judging ---------------------------------------------------------------------------------

    def start(self, rng: random.Random) -> Any:
        """A covered position to start judged games from (the first position by default)."""
        return self.game.initial()

    def pieces(self, state: Any) -> int:
        """How far the game has come, for accuracy by stage (default: the ply)."""
        return int(state.ply)


class SmallSolverPlay(ExactPlay):
    """Any small acyclic game, solved in full from its first position on first use."""

    _solutions: ClassVar[dict[tuple[Game, int], Solution]] = {}

    def __init__(self, game: Game, solution: Solution) -> None:
        super().__init__(game)
        self.solution = solution
        self.title = f"a full solve ({len(solution):,} positions)"

    @classmethod
    def open(cls, game: Game, *, tables: Path | str | None = None, limit: int = DEFAULT_LIMIT) -> ExactPlay:
        cls.check_size(game, limit)
        key = (game, limit)
        if key not in cls._solutions:
            solution = Solution(game.kernel, limit)
            try:
                solution.result(game.initial())
            except SolverError as err:
                raise ExactPlayError(f"no exact play for {game.spec}: {err}") from None
            cls._solutions[key] = solution
        return cls(game, cls._solutions[key])

    @classmethod
    def check_size(cls, game: Game, limit: int) -> None:
        """ExactPlayError when ``game`` has more than ``limit`` positions from its start, told
        before any solve: the positions are counted compiled (a second or two where the solve
        would take a minute to fill its table; :func:`~boardlab.games.small_solver.count_positions`).
        A game that knows its size without counting overrides this (Nim, from its piles)."""
        if (game, limit) in cls._solutions:
            return  # solved already: it fitted
        start = game.initial()
        count = count_positions(game.kernel, start.a, start.b, limit)
        if count is not None and count > limit:
            raise ExactPlayError(
                f"no exact play for {game.spec}: {game.kernel.name} has more than {limit:,} "
                "positions from its start; too many for the small solver"
            )

    def move_values(self, state: Any) -> list[MoveValue]:
        self.check_game(state)
        try:
            values = self.solution.move_values(state)
        except SolverError as err:  # a position beyond the first solve that needs too much
            raise UncoveredPosition(str(err)) from None
        return [MoveValue(action, value, depth) for action, (value, depth) in values.items()]

    def position_value(self, state: Any) -> Value:
        self.check_game(state)
        try:
            value, depth = self.solution.result(state)
        except SolverError as err:
            raise UncoveredPosition(str(err)) from None
        return Value(value, depth)


__all__ = [
    "DRAW",
    "LOSS",
    "VALUE_NAMES",
    "WIN",
    "ExactPlay",
    "ExactPlayError",
    "MoveValue",
    "OutOfTime",
    "SmallSolverPlay",
    "UncoveredPosition",
    "Value",
    "best_of",
    "cut_by_cap",
    "depth_rank",
    "distance_under_cap",
    "final_value",
    "under_cap",
    "value_of_moves",
    "value_under_cap",
]
