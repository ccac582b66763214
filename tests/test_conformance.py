"""The game contract, checked unchanged against every game boardlab ships.

The checks ship in the package (:mod:`boardlab.games.conformance`), so that a game of another
package runs them on itself (``check_game(MyGame())``, as tests/test_plugin_game.py does for the
Hexapawn example); here hypothesis drives them over many seeds and texts, and ``check_game``
runs them all on every variant listed in ``VARIANTS``. Games that other installed packages
register are theirs to check: they are not part of this suite. A new game is done when it passes:
the Python face and the compiled kernel agree move by move, finished positions have no moves,
symmetries commute with play and map masks and observations consistently, texts round-trip,
equal positions hash equal, bad input raises the game's error classes, and every generic agent
plays it and refuses it once it is over.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.agents import list_agents, make_agent
from boardlab.agents.base import Agent, NotAStateError
from boardlab.games import GAMES, available_games, parse_game, tictactoe
from boardlab.games import conformance as contract
from boardlab.games.base import (
    DRAW,
    LOSS,
    ONGOING,
    Game,
    GameOverError,
    Kernel,
    MoveParseError,
    Reason,
    State,
)
from boardlab.games.conformance import ConformanceError, check_game
from boardlab.games.tictactoe import TicTacToe
from boardlab.games.tictactoe.layout import FULL

VARIANTS = {
    "quixo": ["quixo", "quixo:size=4", "quixo:rules=course", "quixo:size=3,ply_cap=40"],
    "connect4": ["connect4", "connect4:width=8,height=7", "connect4:width=4,height=4,connect=3"],
    "tictactoe": ["tictactoe"],
    "nim": ["nim", "nim:piles=2-3-4,k=2,misere=false", "nim:piles=5-5,misere=true,k=3"],
}
SPECS = [spec for name in sorted(VARIANTS) for spec in VARIANTS[name]]
SHIPPED = sorted(VARIANTS)
"""The games of this suite: boardlab's own (each with its variants above)."""


def boardlab_games() -> set[str]:
    """The games boardlab's own metadata registers (those of other installed packages left out)."""
    return {ep.name for ep in entry_points(group=GAMES.group) if ep.module.split(".")[0] == "boardlab"}


def test_every_game_boardlab_ships_is_checked_here() -> None:
    assert set(VARIANTS) == boardlab_games(), "add the new game's variants to VARIANTS"
    assert set(VARIANTS) <= set(available_games()), "a game boardlab ships fails to import"


@pytest.fixture(params=SPECS, scope="module")
def game(request: pytest.FixtureRequest) -> Game:
    return parse_game(request.param)


def test_check_game_passes(game: Game) -> None:
    check_game(game, games=5)


# --- play: Python face and kernel in lockstep --------------------------------------------


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_random_games_agree_with_the_kernel(game: Game, seed: int) -> None:
    contract.check_play(game, seed)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_finished_positions_have_no_moves_and_others_have_some(game: Game, seed: int) -> None:
    contract.check_finished_positions(game, seed)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_outcomes_name_a_winner_or_a_draw_and_why(game: Game, seed: int) -> None:
    contract.check_outcome(game, seed)


# --- symmetries ---------------------------------------------------------------------------


@given(seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 10**6))
@settings(max_examples=20)
def test_symmetries_commute_with_play_and_map_masks_and_observations(
    game: Game, seed: int, pick: int
) -> None:
    contract.check_symmetries(game, seed, pick)


def test_symmetry_tables_are_permutations(game: Game) -> None:
    contract.check_symmetry_tables(game)


# --- observations, hashing, text ----------------------------------------------------------


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_observations_have_the_declared_shape_from_the_movers_view(game: Game, seed: int) -> None:
    contract.check_observations(game, seed)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_texts_round_trip_and_equal_positions_hash_equal(game: Game, seed: int) -> None:
    contract.check_texts(game, seed)


def test_different_positions_hash_differently(game: Game) -> None:
    contract.check_hashes(game)


def test_views_for_people(game: Game) -> None:
    contract.check_views(game)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_a_grid_names_cells_on_it_for_every_legal_move(game: Game, seed: int) -> None:
    contract.check_grid(game, seed)


def test_the_grid_games_draw_a_grid_and_nim_does_not() -> None:
    drawn = {name: parse_game(name).grid(parse_game(name).initial()) is not None for name in SHIPPED}
    assert drawn == {"quixo": True, "connect4": True, "tictactoe": True, "nim": False}


# --- bad input ----------------------------------------------------------------------------


@given(text=st.text(max_size=30))
@settings(max_examples=60)
def test_any_move_text_is_a_move_or_a_game_error(game: Game, text: str) -> None:
    contract.check_move_text(game, text)


@given(text=st.text(max_size=60))
@settings(max_examples=60)
def test_any_position_text_is_a_position_or_a_parse_error(game: Game, text: str) -> None:
    contract.check_position_text(game, text)


def test_bad_moves_raise_the_games_error_classes(game: Game) -> None:
    contract.check_bad_moves(game)


def test_a_position_that_is_not_a_text_is_a_parse_error(game: Game) -> None:
    contract.check_bad_positions(game)


def test_only_an_integer_in_range_is_an_action(game: Game) -> None:
    contract.check_bad_actions(game)


def test_only_an_integer_in_range_is_a_symmetry(game: Game) -> None:
    contract.check_bad_symmetries(game)


def test_a_game_built_with_a_bad_option_raises_a_game_option_error(game: Game) -> None:
    contract.check_bad_options(game)


# --- the checks catch broken games ---------------------------------------------------------


@dataclass(frozen=True)
class ForgetfulTicTacToe(TicTacToe):
    """Reads every position back as the empty board."""

    def parse_position(self, text: str) -> State:
        return self.initial()


@dataclass(frozen=True)
class LenientTicTacToe(TicTacToe):
    """Accepts any junk as a move: the first legal one."""

    def parse_action(self, text: str) -> int:
        try:
            return super().parse_action(text)
        except Exception:
            return 0


@dataclass(frozen=True)
class UnreadableTicTacToe(TicTacToe):
    """Reads only digits, though its moves print as cells like 'b2'."""

    def parse_action(self, text: str) -> int:
        if isinstance(text, str) and text.strip()[:1].isalpha():
            raise MoveParseError(f"cannot read move {text!r}")
        return super().parse_action(text)


@dataclass(frozen=True)
class MirroredTicTacToe(TicTacToe):
    """Gives each move the action of the cell mirrored through the centre."""

    def action_of(self, move: Any) -> int:
        return 8 - super().action_of(move)


@dataclass(frozen=True)
class NulTicTacToe(TicTacToe):
    """Reads a move with NUL bytes around it."""

    def parse_action(self, text: str) -> int:
        return super().parse_action(text.strip("\x00") if isinstance(text, str) else text)


@dataclass(frozen=True)
class RashTicTacToe(TicTacToe):
    """Reads a given ply with ``int``: junk there is a ValueError."""

    def parse_position(self, text: str) -> tictactoe.State:
        fields = text.split() if isinstance(text, str) else []
        if len(fields) == 3:
            int(fields[2])
        return super().parse_position(text)


class TakenState(tictactoe.State):
    """Cannot say why an action is illegal (a game's own message, broken)."""

    def illegal_reason(self, action: int) -> str:
        return {0: "cell a1 is already taken"}[action]


class SharedObservationState(tictactoe.State):
    """Hands out its one observation array to every caller."""

    @functools.cached_property
    def _planes(self) -> np.ndarray:
        return super().observation()

    def observation(self) -> np.ndarray:
        return self._planes


@dataclass(frozen=True)
class TakenTicTacToe(TicTacToe):
    @property
    def state_class(self) -> type[tictactoe.State]:
        return TakenState


@dataclass(frozen=True)
class SharedObservationTicTacToe(TicTacToe):
    @property
    def state_class(self) -> type[tictactoe.State]:
        return SharedObservationState


@dataclass(frozen=True)
class LastMoveTicTacToe(TicTacToe):
    """Fails to draw the board with its last move once the game is over."""

    def render(self, state: State, last_move: Any = None) -> Any:
        if state.is_over and last_move is not None:
            raise ZeroDivisionError("division by zero")
        return super().render(state, last_move)


@dataclass(frozen=True)
class BlindViewTicTacToe(TicTacToe):
    """A JSON view that shows X's stones only."""

    def json_view(self, state: State) -> dict[str, Any]:
        view = super().json_view(state)
        return {**view, "cells": [[max(c, -1) if c == 0 else -1 for c in row] for row in view["cells"]]}


@dataclass(frozen=True)
class ShortTicTacToe(TicTacToe):
    """Claims its games last at most eight plies."""

    @property
    def max_plies(self) -> int:
        return 8


@dataclass(frozen=True)
class OffGridTicTacToe(TicTacToe):
    """Names the cells of its moves one column to the right (off the grid on the right edge)."""

    def move_cells(self, state: State, move: Any) -> tuple[tuple[int, int], ...]:
        return ((move.x + 1, move.y),)


@dataclass(frozen=True)
class TransposedCellsTicTacToe(TicTacToe):
    """Names the cells of its moves with x and y swapped."""

    def move_cells(self, state: State, move: Any) -> tuple[tuple[int, int], ...]:
        return ((move.y, move.x),)


@dataclass(frozen=True)
class NumpyGridTicTacToe(TicTacToe):
    """Gives its grid cells as numpy integers, which no JSON encoder takes."""

    def grid(self, state: State) -> list[list[int]]:
        return [list(np.array(row, dtype=np.int64)) for row in super().grid(state)]


@dataclass(frozen=True)
class BlindGridTicTacToe(TicTacToe):
    """A grid that shows every stone as X's."""

    def grid(self, state: State) -> list[list[int]]:
        return [[min(c, 0) for c in row] for row in super().grid(state)]


@dataclass(frozen=True)
class EagerLinesTicTacToe(TicTacToe):
    """Rings the centre before anyone has won."""

    def winning_cells(self, state: State) -> tuple[tuple[int, int], ...]:
        return super().winning_cells(state) or ((1, 1),)


@dataclass(frozen=True)
class LosersLineTicTacToe(TicTacToe):
    """Rings the empty cells of a won game instead of the winner's line."""

    def winning_cells(self, state: State) -> tuple[tuple[int, int], ...]:
        if state.winner is None:
            return ()
        rows = self.grid(state)
        return tuple((x, y) for y, row in enumerate(rows) for x, v in enumerate(row) if v != state.winner)


@dataclass(frozen=True)
class ClicklessTicTacToe(TicTacToe):
    """Draws a grid but names no cell for its moves."""

    def move_cells(self, state: State, move: Any) -> tuple[tuple[int, int], ...]:
        return ()


def with_kernel(label: str, **changes: Any) -> Game:
    """Tic-Tac-Toe whose kernel has ``changes`` (functions or tables) in place of its own."""

    @dataclass(frozen=True)
    class Changed(TicTacToe):
        def build_kernel(self) -> Kernel:
            return dataclasses.replace(super().build_kernel(), name=f"tictactoe-{label}", **changes)

    return Changed()


def _kernel() -> Kernel:
    return TicTacToe().kernel


def _status(change: Callable[[int, int, int], int]) -> Callable[..., int]:
    # the kernel's status, changed by ``change(status, me, opp)``
    return lambda ctx, me, opp: change(int(_kernel().status(ctx, me, opp)), int(me), int(opp))


def _observe_ones(ctx: Any, me: int, opp: int, out: np.ndarray) -> None:
    for cell in range(9):
        if me >> cell & 1:
            out[0, cell // 3, cell % 3] = 1.0
        if opp >> cell & 1:
            out[1, cell // 3, cell % 3] = 1.0


def _observe_mover_twice(ctx: Any, me: int, opp: int, out: np.ndarray) -> None:
    _kernel().observe(ctx, me, me, out)


def _play_writing_ctx(ctx: Any, me: int, opp: int, cell: int) -> tuple[int, int]:
    ctx[2][0] += 1.0
    return _kernel().play(ctx, me, opp, cell)


def _rows_only(ctx: Any, me: int, opp: int) -> int:
    rows = [0b111, 0b111000, 0b111000000]
    if any(int(opp) & r == r for r in rows):
        return LOSS
    return DRAW if int(me) | int(opp) == FULL else ONGOING


def _quarter_turn_only() -> dict[str, Any]:
    # the identity and a quarter turn, without the turns they compose to
    kernel = _kernel()
    return {"action_maps": kernel.action_maps[[0, 1]], "cell_maps": kernel.cell_maps[[0, 1]]}


def _repeated_symmetry() -> np.ndarray:
    maps = _kernel().action_maps.copy()
    maps[3] = maps[1]
    return maps


BROKEN_GAMES: list[tuple[Callable[[], Game], str]] = [
    (ForgetfulTicTacToe, "does not round-trip"),
    (LenientTicTacToe, "parse_move"),
    (UnreadableTicTacToe, "move text 'a1' does not read back: MoveParseError"),
    (MirroredTicTacToe, r"action_of\(move_of\(0\)\) is not 0"),
    (NulTicTacToe, r"parse_move\('a1\\x00'\) raised nothing"),
    (RashTicTacToe, "raised ValueError, not PositionParseError"),
    (TakenTicTacToe, r"play_index\(\d\) in .* raised KeyError, not IllegalMoveError"),
    (SharedObservationTicTacToe, "observation\\(\\) shares its array"),
    (LastMoveTicTacToe, "drawing it .* raised ZeroDivisionError"),
    (BlindViewTicTacToe, "have the same JSON view"),
    (ShortTicTacToe, "a game reached ply 9, past max_plies 8"),
    (OffGridTicTacToe, r"move c\d: \(3, \d\) is not a cell \(x, y\) of the 3x3 grid"),
    (NumpyGridTicTacToe, "grid cells must be the ints -1, 0 or 1"),
    (ClicklessTicTacToe, "no cells for a legal move"),
    (TransposedCellsTicTacToe, r"the last of its cells \(\(\d, \d\),\) holds no piece of the mover"),
    (EagerLinesTicTacToe, r"winning cells \(\(1, 1\),\) where nobody has won"),
    (LosersLineTicTacToe, "no winning cell .* holds a piece of the winner"),
    (
        lambda: with_kernel("stuck", status=_status(lambda s, me, opp: ONGOING if s == DRAW else s)),
        "no legal move",
    ),
    (
        lambda: with_kernel("over", status=_status(lambda s, me, opp: LOSS if me | opp == 0 else s)),
        "already finished",
    ),
    (lambda: with_kernel("pass", play=lambda ctx, me, opp, cell: (opp, me)), "without ending"),
    (lambda: with_kernel("repeat", action_maps=_repeated_symmetry()), "repeats a row"),
    (lambda: with_kernel("half", sym_inverse=np.zeros(8, dtype=np.int64)), r"sym_inverse\[1\] does not undo"),
    (
        lambda: with_kernel("r90", sym_inverse=np.zeros(2, dtype=np.int64), **_quarter_turn_only()),
        "symmetry 1 then 1 is none of the game's symmetries",
    ),
    (lambda: with_kernel("ones", observe=_observe_ones), "leaves cells of a used buffer unwritten"),
    (lambda: with_kernel("twice", observe=_observe_mover_twice), "equal observations but differ"),
    (
        lambda: with_kernel("nan", evaluate=lambda ctx, me, opp, e: float("nan")),
        "evaluation 'lines' gives nan",
    ),
    (lambda: with_kernel("corner", evaluate=lambda ctx, me, opp, e: float(me & 1)), "changes under symmetry"),
    (lambda: with_kernel("count", count_moves=lambda ctx, me, opp: 9), "count_moves gives 9, gen_moves 8"),
    (lambda: with_kernel("never", may_win=lambda ctx, me, opp: False), "may_win is False but action"),
    (lambda: with_kernel("writes", play=_play_writing_ctx), r"wrote to the ctx tables \[2\]"),
]


@pytest.mark.parametrize(("broken", "message"), BROKEN_GAMES)
def test_check_game_names_a_broken_promise(broken: Callable[[], Game], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(broken(), games=3)


def test_a_grid_that_does_not_show_the_whole_board_is_named() -> None:
    with pytest.raises(ConformanceError, match="have the same grid"):
        contract.check_views_keep_the_board(BlindGridTicTacToe())


def test_symmetries_keep_the_result_of_every_position_of_a_game() -> None:
    """A rule that only rows win is not symmetric; the first position (pick 0) does not show it,
    the finished ones do."""
    rows_only = with_kernel("rows", status=_rows_only)
    with pytest.raises(ConformanceError, match="symmetry 1 changes the result"):
        for seed in range(10):
            contract.check_symmetries(rows_only, seed, pick=0)


# --- every agent on every game -------------------------------------------------------------

FIRST_MOVE_ENGINE = shlex.join([sys.executable, str(Path(__file__).parent / "protocol_engines.py"), "play"])
"""A program speaking the engine protocol that plays the first legal move (tests/protocol_engines.py)."""
QUICK_SETTINGS = {
    "minimax": "minimax:depth=2",
    "alphabeta": "alphabeta:depth=3",
    "mcts": "mcts:iters=200,rollouts=2",
    "hybrid": "hybrid:time=0.05,search=(alphabeta:depth=2)",
    "openspiel": "openspiel:sims=50",
    "engine": f"engine:cmd=({FIRST_MOVE_ENGINE})",
}


@pytest.mark.parametrize("name", SHIPPED)
def test_every_agent_plays_every_game_it_supports(name: str) -> None:
    game = parse_game(VARIANTS[name][-1])
    for cls in list_agents():
        if cls.name == "course" or not cls.supports(game):
            continue
        agent = make_agent(QUICK_SETTINGS.get(cls.name, cls.name), seed=1, game=game)
        agent.new_game()
        state = game.initial()
        for _ in range(6):
            if state.is_over:
                break
            move = agent.choose(state)
            assert move in state.legal_moves(), f"{cls.name} played an illegal move"
            state = state.play(move)


@functools.cache
def finished_positions(game: Game) -> tuple[State, ...]:
    """A position that the rules ended and, for a game with a ply cap option, one the cap ended."""
    ends = (contract.random_line(game, seed)[-1] for seed in range(100))
    ruled = next(e for e in ends if e.outcome is not None and e.outcome.reason in (Reason.RULE, Reason.DRAW))
    if "ply_cap" not in {f.name for f in dataclasses.fields(game)}:
        return (ruled,)
    capped = contract.random_line(dataclasses.replace(game, ply_cap=2), seed=0)[-1]
    assert capped.outcome is not None and capped.outcome.reason == Reason.PLY_CAP
    return ruled, capped


def quick_agent(name: str, game: Game) -> Agent:
    """Agent ``name`` with small settings; the course agent around a stand-in player class."""
    if name == "course":
        from course_standin import FirstLegalPlayer

        from boardlab.interop.course import CoursePlayerAgent

        return CoursePlayerAgent(seed=1, player=FirstLegalPlayer)
    return make_agent(QUICK_SETTINGS.get(name, name), seed=1, game=game)


AGENTS_ON_GAMES = [
    (VARIANTS[name][-1], cls.name)
    for name in SHIPPED
    for cls in list_agents()
    if cls.supports(parse_game(VARIANTS[name][-1]))
]


@pytest.mark.parametrize(("spec", "name"), AGENTS_ON_GAMES)
def test_every_agent_refuses_a_finished_game(spec: str, name: str) -> None:
    game = parse_game(spec)
    agent = quick_agent(name, game)
    for state in finished_positions(game):
        with pytest.raises(GameOverError, match="finished game"):
            agent.act(state)
        with pytest.raises(GameOverError, match="finished game"):
            agent.choose(state)


ONE_GAME_PER_AGENT = list({name: (spec, name) for spec, name in AGENTS_ON_GAMES}.values())


@pytest.mark.parametrize(("spec", "name"), ONE_GAME_PER_AGENT)
def test_every_agent_refuses_what_is_not_a_state(spec: str, name: str) -> None:
    """A position's text, a number or None is refused with one clear error, not an
    AttributeError from deep inside the agent."""
    game = parse_game(spec)
    agent = quick_agent(name, game)
    for thing in (game.initial().to_text(), 5, None):
        with pytest.raises(NotAStateError, match=f"agent {name} decides for a game's State"):
            agent.act(thing)
        with pytest.raises(TypeError, match="not "):
            agent.choose(thing)


class FirstMoveAgent(Agent):
    """An agent written as a package outside boardlab would write one: ``choose`` only."""

    name = "first-move"

    def choose(self, state: Any) -> Any:
        return state.legal_moves()[0]


class FirstActionAgent(FirstMoveAgent):
    """The same with ``act``, calling the parent's ``choose``."""

    def act(self, state: Any, limit: Any = None) -> Any:
        return super().act(state, limit)


@pytest.mark.parametrize("cls", [FirstMoveAgent, FirstActionAgent])
def test_an_agent_from_elsewhere_refuses_a_finished_game_too(cls: type[Agent]) -> None:
    game = parse_game("quixo:size=3,ply_cap=40")
    agent = cls(seed=0)
    assert agent.choose(game.initial()) in game.initial().legal_moves()
    with pytest.raises(NotAStateError, match="first-move decides for a game's State"):
        agent.choose("X.O/.../... X 2")
    for state in finished_positions(game):
        with pytest.raises(GameOverError, match="first-move was asked to move in a finished game"):
            agent.act(state)
        with pytest.raises(GameOverError, match="finished game"):
            agent.choose(state)
