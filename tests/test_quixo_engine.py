"""The Quixo engine against known perft counts and a plain reference implementation."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import numpy as np
import pytest
import quixo_reference as ref
from numba import njit

from boardlab.games.base import GameOverError
from boardlab.games.quixo import Move, Push, State
from boardlab.games.quixo import kernel as qk

Triple = tuple[int, int, int]


def triples(moves: list[Move]) -> list[Triple]:
    """Engine moves as reference ``(x, y, push)`` triples."""
    return [(m.x, m.y, int(m.push)) for m in moves]


def engine_move(move: Triple, size: int) -> Move:
    """A reference move as an engine Move."""
    x, y, push = move
    return Move(x, y, Push(push), size)


def engine_perft(state: State, depth: int) -> int:
    """Engine perft from a State, through the compiled kernel."""
    me, opp = state.words
    return int(qk.perft(state.kernel.ctx, np.int64(me), np.int64(opp), np.int64(depth)))


def reference_game(size: int, seed: int) -> list[tuple[ref.Board, int]]:
    """Every position ``(board, side to move)`` of a seeded random game, played by the reference."""
    rng = random.Random(seed)
    board, player = ref.empty_board(size), ref.X
    positions = [(board, player)]
    while not ref.is_finished(board):
        board = ref.play(board, player, rng.choice(ref.legal_moves(board, player)))
        player = 1 - player
        positions.append((board, player))
    return positions


# --- perft --------------------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "expected"), [(1, 44), (2, 1_836), (3, 76_596), (4, 3_018_100)])
def test_engine_perft_from_empty_5x5(depth: int, expected: int) -> None:
    ctx = qk.kernel(5).ctx
    assert qk.perft(ctx, np.int64(0), np.int64(0), np.int64(depth)) == expected


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (3, [20, 356, 6_332, 99_648]),
        (4, [32, 952, 28_312, 778_744]),
        (5, [44, 1_836, 76_596]),
    ],
)
def test_reference_perft_agrees_with_engine_from_empty(size: int, expected: list[int]) -> None:
    ctx = qk.kernel(size).ctx
    for depth, count in enumerate(expected, start=1):
        assert ref.perft(ref.empty_board(size), ref.X, depth) == count
        assert qk.perft(ctx, np.int64(0), np.int64(0), np.int64(depth)) == count


def test_perft_depth_zero_and_finished_root_are_single_leaves() -> None:
    won = State.from_text("XXXXX/...../...../OOOO./..... O 9")
    assert won.is_over
    for depth in range(4):
        assert engine_perft(won, depth) == 1
        assert ref.perft(won.board(), won.to_move, depth) == 1
    assert engine_perft(State.initial(4), 0) == 1


# (size, seed, ply taken from the start or, if negative, from the end of the game, depth)
MIDGAME_CASES = [
    (3, 1, 2, 4),
    (3, 2, 4, 4),
    (3, 3, -3, 4),
    (3, 4, -2, 4),
    (4, 5, 5, 3),
    (4, 6, 10, 3),
    (4, 7, -3, 3),
    (4, 8, 7, 4),
    (5, 9, 6, 3),
    (5, 10, 15, 3),
    (5, 11, 10, 3),
    (5, 9, 30, 3),
    (5, 12, -3, 3),
    (5, 13, -2, 3),
]


@pytest.mark.parametrize(("size", "seed", "ply", "depth"), MIDGAME_CASES)
def test_perft_from_midgame_positions(size: int, seed: int, ply: int, depth: int) -> None:
    positions = reference_game(size, seed)
    index = ply if ply >= 0 else len(positions) - 1 + ply
    board, player = positions[index]
    state = State.from_board(board, player, index)
    assert not state.is_over
    expected = ref.perft(board, player, depth)
    assert engine_perft(state, depth) == expected
    assert engine_perft(state, 1) == len(ref.legal_moves(board, player))


# --- random games in lockstep -------------------------------------------------------------


def play_lockstep(size: int, ply_cap: int, rng: random.Random) -> int | None:
    """Play one random game with the engine and the reference side by side; return the winner."""
    state = State.initial(size, ply_cap=ply_cap)
    board, player, result = ref.empty_board(size), ref.X, None
    while result is None and state.ply < ply_cap:
        engine_moves = triples(state.legal_moves())
        reference_moves = ref.legal_moves(board, player)
        assert len(engine_moves) == len(set(engine_moves))
        assert set(engine_moves) == set(reference_moves), state.to_text()
        move = rng.choice(sorted(reference_moves))
        state = state.play(engine_move(move, size))
        board = ref.play(board, player, move)
        result = ref.winner(board, player)
        player = 1 - player
        assert state.board() == board, (state.to_text(), move)
        assert (state.to_move, state.winner) == (player, result), (state.to_text(), move)
    assert state.is_over
    assert state.is_draw == (result is None)
    assert state.legal_moves() == []
    with pytest.raises(GameOverError):
        state.play_index(0)
    return result


@pytest.mark.parametrize(
    ("size", "games", "ply_cap"),
    [(3, 1_000, 200), (4, 500, 200), (5, 300, 200), (3, 300, 8), (4, 200, 15), (5, 150, 30)],
)
def test_random_games_in_lockstep_with_reference(size: int, games: int, ply_cap: int) -> None:
    rng = random.Random(size * 1_000 + ply_cap)
    outcomes = Counter(play_lockstep(size, ply_cap, rng) for _ in range(games))
    assert sum(outcomes.values()) == games
    if ply_cap == 200:
        assert outcomes[ref.X] > 0
        assert outcomes[ref.O] > 0
    else:
        assert outcomes[None] > 0


# --- the winning rules, by hand -----------------------------------------------------------

# X takes e3 and pushes it in at a3: column a becomes all X and the O cube shifted from a3
# to b3 completes column b for O.
BOTH_LINES = "XO.../XO.../O..../XO.../XO... X 10"
# The same push without X's column: only O's line is completed, by X's own move.
ONLY_OPPONENT_LINE = "XO.../.O.../O..../XO.../XO... X 10"
# X takes e3 and pushes it in at e1, completing the top row.
PLAIN_WIN = "XXXX./.O.../..O../...../O.... X 8"


def reference_position(text: str) -> tuple[ref.Board, int]:
    """Read position text into a reference board and side to move (independent of the engine)."""
    cells, side, _ply = text.split()
    rows = cells.split("/")
    board = [[{"X": ref.X, "O": ref.O, ".": ref.BLANK}[c] for c in row] for row in rows]
    return board, "XO".index(side)


@pytest.mark.parametrize(
    ("text", "move", "winner"),
    [(BOTH_LINES, "e3a3", ref.O), (ONLY_OPPONENT_LINE, "e3a3", ref.O), (PLAIN_WIN, "e3e1", ref.X)],
)
def test_hand_built_wins(text: str, move: str, winner: int) -> None:
    board, player = reference_position(text)
    assert not ref.is_finished(board)
    reference_move = triples([Move.parse(move)])[0]
    after = ref.play(board, player, reference_move)
    assert ref.winner(after, player) == winner

    state = State.from_text(text)
    assert not state.is_over
    played = state.play(move)
    assert played.board() == after
    assert played.winner == winner
    assert played.is_over and not played.is_draw
    with pytest.raises(GameOverError):
        played.play("a1a5")


def test_both_lines_on_the_board() -> None:
    board, player = reference_position(BOTH_LINES)
    after = ref.play(board, player, (4, 2, ref.LEFT))
    assert ref.has_line(after, ref.X) and ref.has_line(after, ref.O)


def test_mover_loses_on_a_diagonal_too() -> None:
    # 3x3: O takes the blank c2 and pushes it in at a2; X's cube on a2 slides to b2 and
    # completes X's diagonal a1-b2-c3.
    text = "X.O/X../O.X O 5"
    board, player = reference_position(text)
    after = ref.play(board, player, (2, 1, ref.LEFT))
    assert ref.winner(after, player) == ref.X
    state = State.from_text(text).play("c2a2")
    assert state.board() == after
    assert state.winner == ref.X


def test_win_on_the_last_ply_before_the_cap_is_a_win() -> None:
    state = State.from_text(PLAIN_WIN, ply_cap=9).play("e3e1")
    assert state.ply == 9
    assert state.winner == ref.X
    assert not state.is_draw


@pytest.mark.parametrize(("size", "ply_cap"), [(3, 1), (3, 4), (4, 6), (5, 8)])
def test_draw_by_ply_cap(size: int, ply_cap: int) -> None:
    # Too few plies for a line of `size` cubes, so the cap ends the game.
    state = State.initial(size, ply_cap=ply_cap)
    rng = random.Random(ply_cap)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_moves()))
    assert state.ply == ply_cap
    assert state.is_draw
    assert state.winner is None
    assert state.legal_moves() == []
    with pytest.raises(GameOverError):
        state.play(Move(0, 0, Push.RIGHT, size))


# --- random playouts and random games -----------------------------------------------------


@njit
def _numba_draws(seed: int, bounds: np.ndarray) -> np.ndarray:
    np.random.seed(seed)
    out = np.empty(bounds.shape[0], dtype=np.int64)
    for i in range(bounds.shape[0]):
        out[i] = np.random.randint(bounds[i])
    return out


@cache
def numba_random_matches_numpy() -> bool:
    """True if numba's seeded ``randint`` stream equals NumPy's legacy one (so for numba 0.68)."""
    bounds = np.array([44, 20, 3, 32, 7, 41, 2, 39] * 8, dtype=np.int64)
    stream = np.random.RandomState(7)
    expected = [stream.randint(b) for b in bounds]
    return list(_numba_draws(7, bounds)) == expected


needs_numpy_stream = pytest.mark.skipif(
    "not numba_random_matches_numpy()", reason="numba's seeded random stream differs from NumPy's"
)


def kernel_order(size: int) -> list[Triple]:
    """The move shapes in the order the kernels list them (random picks index into it)."""
    return [(x, y, push) for x, y, push in qk.move_list(size)]


def random_reference_move(board: ref.Board, player: int, stream: np.random.RandomState) -> Triple:
    """The move a kernel's random pick makes, given the same random stream."""
    order = kernel_order(len(board))
    moves = sorted(ref.legal_moves(board, player), key=order.index)
    return moves[stream.randint(len(moves))]


def replay_playout(board: ref.Board, player: int, max_plies: int, seed: int) -> tuple[int, int]:
    """What ``random_playout`` should return, replayed by the reference."""
    stream = np.random.RandomState(seed)
    start, ply = player, 0
    while ply < max_plies and not ref.is_finished(board):
        board = ref.play(board, player, random_reference_move(board, player, stream))
        player, ply = 1 - player, ply + 1
    result = ref.winner(board, 1 - player)
    return (0 if result is None else 1 if result == start else -1), ply


@needs_numpy_stream
@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_playout_matches_a_reference_replay(size: int) -> None:
    ctx = qk.kernel(size).ctx
    for seed in range(6):
        positions = reference_game(size, 30_000 + seed)
        for board, player in (positions[0], positions[len(positions) // 2]):
            me, opp = State.from_board(board, player).words
            for cap in (200, 5):
                result, plies = qk.random_playout(ctx, np.int64(me), np.int64(opp), cap, seed)
                assert (result, plies) == replay_playout(board, player, cap, seed)


@needs_numpy_stream
def test_random_games_match_a_reference_replay() -> None:
    for size, games, cap in [(3, 20, 200), (4, 10, 200), (5, 10, 200), (5, 10, 12)]:
        stream = np.random.RandomState(size + cap)
        total = 0
        for _ in range(games):
            board, player = ref.empty_board(size), ref.X
            for _ply in range(cap):
                board = ref.play(board, player, random_reference_move(board, player, stream))
                player = 1 - player
                total += 1
                if ref.is_finished(board):
                    break
        assert qk.random_games(qk.kernel(size).ctx, games, cap, size + cap) == total


@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_playout_invariants_and_determinism(size: int) -> None:
    ctx = qk.kernel(size).ctx
    for seed in range(40):
        positions = reference_game(size, 10_000 + seed)
        board, player = positions[len(positions) // 2]
        me, opp = State.from_board(board, player).words
        for cap in (0, 1, 7, 200):
            result, plies = qk.random_playout(ctx, np.int64(me), np.int64(opp), cap, seed)
            assert result in (-1, 0, 1)
            assert 0 <= plies <= cap
            assert plies == cap or result != 0
            again = qk.random_playout(ctx, np.int64(me), np.int64(opp), cap, seed)
            assert (result, plies) == tuple(again)


@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_playout_from_a_finished_position_reports_its_result(size: int) -> None:
    ctx = qk.kernel(size).ctx
    for seed in range(30):
        board, player = reference_game(size, 20_000 + seed)[-1]
        winner = ref.winner(board, 1 - player)
        assert winner is not None
        me, opp = State.from_board(board, player).words
        expected = 1 if winner == player else -1
        assert tuple(qk.random_playout(ctx, np.int64(me), np.int64(opp), 50, seed)) == (expected, 0)


@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_games_totals(size: int) -> None:
    ctx = qk.kernel(size).ctx
    shortest = 2 * size - 1  # the first player needs `size` cubes before any line exists
    for seed in range(5):
        total = qk.random_games(ctx, 50, 200, seed)
        assert 50 * shortest <= total <= 50 * 200
        assert qk.random_games(ctx, 50, 200, seed) == total
    assert qk.random_games(ctx, 30, shortest - 1, 3) == 30 * (shortest - 1)
    assert qk.random_games(ctx, 0, 200, 3) == 0
    totals = {qk.random_games(ctx, 20, 200, seed) for seed in range(10)}
    assert len(totals) > 1
