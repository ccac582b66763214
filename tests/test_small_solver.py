"""The small-game solver against a deliberately naive negamax, hand positions and refusals."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from boardlab.games.base import DRAW, LOSS, ONGOING, WIN, Game, Kernel, PositionParseError
from boardlab.games.nim import Nim
from boardlab.games.small_solver import Solution, SolverError, count_positions, solve
from boardlab.games.tictactoe import TicTacToe

TTT = TicTacToe()

# --- naive references: plain Python, one recursion, the same (value, depth) convention --------

LINES = [[(x, y) for x in range(3)] for y in range(3)]
LINES += [[(x, y) for y in range(3)] for x in range(3)]
LINES += [[(i, i) for i in range(3)], [(2 - i, i) for i in range(3)]]


def better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """True if result ``a`` is better than ``b`` for the mover: fast wins, slow losses."""
    if a[0] != b[0]:
        return a[0] > b[0]
    if a[0] == WIN:
        return a[1] < b[1]
    return a[1] > b[1]


@cache
def ttt_negamax(board: str, me: str) -> tuple[int, int]:
    """(value, plies to the end) for ``me`` to move on a 9-character board."""
    rows = [list(board[3 * y : 3 * y + 3]) for y in range(3)]
    other = "O" if me == "X" else "X"
    if any(all(rows[y][x] == other for x, y in line) for line in LINES):
        return LOSS, 0
    if "." not in board:
        return DRAW, 0
    best = (-2, 0)
    for i, cell in enumerate(board):
        if cell == ".":
            value, depth = ttt_negamax(board[:i] + me + board[i + 1 :], other)
            option = (-value, depth + 1)
            if best[0] == -2 or better(option, best):
                best = option
    return best


def nim_negamax(piles: tuple[int, ...], k: int, misere: bool) -> tuple[int, int]:
    if sum(piles) == 0:
        return (WIN if misere else LOSS), 0
    best = (-2, 0)
    for i, p in enumerate(piles):
        for t in range(1, (min(k, p) if k else p) + 1):
            value, depth = nim_negamax((*piles[:i], p - t, *piles[i + 1 :]), k, misere)
            option = (-value, depth + 1)
            if best[0] == -2 or better(option, best):
                best = option
    return best


# --- against the references ---------------------------------------------------------------


def test_tictactoe_against_naive_negamax() -> None:
    solution = solve(TTT.initial())
    checked = 0
    for cells in itertools.product("XO.", repeat=9):
        board = "".join(cells)
        try:
            state = TTT.parse_position(board)
        except PositionParseError:
            continue
        if board.count("X") + board.count("O") < 2:
            continue  # the naive recursion from the first plies is slow; the rest covers them
        assert solution.result(state) == ttt_negamax(board, "XO"[state.to_move]), board
        checked += 1
    assert checked == 5478 - 1 - 9
    assert solution.result(TTT.initial()) == (DRAW, 9)


@pytest.mark.parametrize(("k", "misere"), [(0, False), (0, True), (2, False), (2, True), (3, True)])
def test_nim_against_naive_negamax(k: int, misere: bool) -> None:
    game = Nim(piles=(2, 3, 4), k=k, misere=misere)
    solution = solve(game.initial())
    assert len(solution) == 3 * 4 * 5
    for piles in itertools.product(range(3), range(4), range(5)):
        assert solution.result(game.from_piles(piles)) == nim_negamax(piles, k, misere), piles


# --- hand positions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "depth"),
    [
        ("XXX/OO./... O 5", LOSS, 0),  # finished: O has lost
        ("XOX/XOO/OXX O 9", DRAW, 0),  # full board
        ("XX./O../O.. X 4", WIN, 1),  # c1 at once
        ("X.X/.O./O.X O 5", LOSS, 2),  # two threats: O moves, X wins
        ("XOX/XOO/OX. X 8", DRAW, 1),  # the last cell draws
        ("X../.../... O 1", DRAW, 8),
    ],
)
def test_tictactoe_hand_positions(text: str, value: int, depth: int) -> None:
    state = TTT.parse_position(text)
    solution = solve(state)
    assert (solution.value(state), solution.depth(state)) == (value, depth)


@pytest.mark.parametrize(
    ("piles", "k", "misere", "value", "depth"),
    [
        ((1,), 0, True, LOSS, 1),  # must take the last object
        ((3,), 0, False, WIN, 1),  # takes all three
        ((3,), 2, False, LOSS, 2),
        ((6,), 2, False, LOSS, 4),  # the loser takes one at a time
        ((5,), 2, False, WIN, 3),  # take 2, then answer 3 - t
        ((2, 2), 0, True, LOSS, 3),  # to (1, 2), then (1, 0), then the last object
        ((0, 0), 0, True, WIN, 0),
    ],
)
def test_nim_hand_positions(piles: tuple[int, ...], k: int, misere: bool, value: int, depth: int) -> None:
    game = Nim(piles=tuple(max(p, 1) for p in piles), k=k, misere=misere)
    state = game.from_piles(piles)
    assert solve(state).result(state) == (value, depth)


def test_move_values_and_best_actions() -> None:
    state = TTT.parse_position("XX./O../O.. X 4")
    solution = solve(state)
    values = solution.move_values(state)
    assert set(values) == set(state.legal_indices())
    assert solution.best_actions(state) == [TTT.parse_action("c1")]
    assert sorted(v for v, _ in values.values()) == sorted(
        -solution.value(state.play_index(a)) for a in state.legal_indices()
    )
    # every first move draws, so every first move is best
    empty = TTT.initial()
    assert solution.best_actions(empty) == list(range(9))
    assert all(result == (DRAW, 9) for result in solution.move_values(empty).values())
    over = TTT.parse_position("XXX/OO./...")
    assert solution.best_actions(over) == [] and solution.move_values(over) == {}
    # a lost position: O blocks c1 and loses in 4 plies rather than 2
    lost = TTT.parse_position(".X./..X/OOX O 5")
    assert solution.result(lost) == (LOSS, 4)
    assert [str(TTT.move_of(a)) for a in solution.best_actions(lost)] == ["c1"]
    # X wins at once with one move and in 3 plies with two others: only the fastest is best
    fast = TTT.parse_position(".../OOX/..X X 4")
    wins = {a: d for a, (v, d) in solution.move_values(fast).items() if v == WIN}
    assert sorted(wins.values()) == [1, 3, 3]
    assert solution.best_actions(fast) == [a for a, d in wins.items() if d == 1]


def test_queries_extend_the_table() -> None:
    solution = Solution(TTT.kernel)
    late = TTT.parse_position("XOX/XOO/OX. X 8")
    assert solution.value(late) == DRAW and len(solution) == 2
    assert solution.value(TTT.initial()) == DRAW and len(solution) == 5478
    assert solution.result((late.a, late.b)) == (DRAW, 1)
    with pytest.raises(SolverError, match="not nim"):
        solution.value(Nim().initial())


# --- refusals -------------------------------------------------------------------------------


def test_refuses_too_many_positions() -> None:
    with pytest.raises(SolverError, match="more than 1,000"):
        solve(TTT.initial(), limit=1000)
    with pytest.raises(SolverError):
        solve(Nim(piles=(20, 20, 20)).initial(), limit=1000)


@pytest.mark.parametrize(("game", "positions"), [(TTT, 5478), (Nim(piles=(2, 3, 4)), 60)])
def test_the_limit_is_the_most_positions_a_solve_may_hold(game: Game, positions: int) -> None:
    """A game of exactly ``limit`` positions is solved; one more than the limit is refused."""
    assert len(solve(game.initial(), limit=positions)) == positions
    with pytest.raises(SolverError, match=f"more than {positions - 1:,} positions"):
        solve(game.initial(), limit=positions - 1)


@pytest.mark.parametrize(
    "game", [TTT, Nim(piles=(2, 3, 4)), Nim(piles=(3, 5), k=2, misere=False)], ids=lambda g: g.spec
)
def test_the_compiled_count_is_the_table_a_solve_fills(game: Game) -> None:
    start = game.initial()
    positions = len(solve(start, limit=10**6))
    assert count_positions(game.kernel, start.a, start.b, 10**6) == positions
    assert count_positions(game.kernel, start.a, start.b, positions) == positions
    assert count_positions(game.kernel, start.a, start.b, positions - 1) == positions  # limit + 1: stopped
    assert count_positions(game.kernel, start.a, start.b, 10) == 11


def test_a_kernel_numba_cannot_compile_is_not_counted() -> None:
    assert count_positions(cyclic_kernel(), 0, 0, 100) is None


def cyclic_kernel() -> Kernel:
    """A toy game in plain Python: from 0 go to 1 or 2, from 1 back to 0; 2 is lost."""

    def status(ctx: object, a: int, b: int) -> int:
        return LOSS if a == 2 else ONGOING

    def gen_moves(ctx: object, a: int, b: int, out: np.ndarray) -> int:
        moves = [1, 2] if a == 0 else [0]
        out[: len(moves)] = moves
        return len(moves)

    def play(ctx: object, a: int, b: int, action: int) -> tuple[int, int]:
        return action, b

    identity = np.arange(3, dtype=np.int64).reshape(1, 3)
    return Kernel(
        name="cycle",
        ctx=(),
        num_actions=3,
        obs_shape=(1, 1, 1),
        evaluations=("none",),
        status=status,
        gen_moves=gen_moves,
        play=play,
        evaluate=lambda ctx, a, b, e: 0.0,
        symmetry=lambda ctx, a, b, s: (a, b),
        observe=lambda ctx, a, b, out: None,
        action_maps=identity,
        cell_maps=np.zeros((1, 1), dtype=np.int64),
    )


def test_refuses_cycles() -> None:
    solution = Solution(cyclic_kernel())
    assert solution.result((2, 0)) == (LOSS, 0)
    with pytest.raises(SolverError, match="repeat"):
        solution.result((0, 0))
