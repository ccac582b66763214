"""Connect Four: the bitboard kernel against known counts and a naive reference, and the API."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from connect4_reference import DIRECTIONS, ReferenceGame
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.games import DRAW, LOSS, ONGOING, parse_game
from boardlab.games.base import (
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
    legal_mask,
    observe_batch,
    transform_actions,
    transform_observations,
)
from boardlab.games.connect4 import STONE_STYLES, Column, ConnectFour, ConnectFourState
from boardlab.games.connect4 import kernel as ck

# (width, height, connect): the standard board, 8x7 which uses all 64 bits, small boards
SIZES = [(7, 6, 4), (8, 7, 4), (4, 4, 3), (4, 4, 4), (5, 4, 4), (6, 5, 5), (10, 4, 4), (3, 3, 2)]
DISTINCT = [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275, 558186]

I64 = np.int64


@pytest.fixture(scope="module")
def game() -> ConnectFour:
    return ConnectFour()


def play_random(game: ConnectFour, seed: int, plies: int | None = None) -> ConnectFourState:
    """A position after random moves from the empty board (to the end when ``plies`` is None)."""
    rng = np.random.default_rng(seed)
    state: ConnectFourState = game.initial()  # type: ignore[assignment]
    while not state.is_over and (plies is None or state.ply < plies):
        state = state.play_index(int(rng.choice(state.legal_indices())))
    return state


# --- counts from the empty 7x6 board -------------------------------------------------------------


def test_distinct_positions_per_ply(game: ConnectFour) -> None:
    counts = ck.count_positions(game.kernel.ctx, 9)
    assert counts.tolist() == DISTINCT


def test_distinct_positions_match_python_sets(game: ConnectFour) -> None:
    kernel = game.kernel
    level = {(0, 0)}
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    for ply in range(1, 6):
        nxt = set()
        for a, b in level:
            if kernel.status(kernel.ctx, I64(a), I64(b)) != ONGOING:
                continue
            for m in buf[: kernel.gen_moves(kernel.ctx, I64(a), I64(b), buf)]:
                x, y = kernel.play(kernel.ctx, I64(a), I64(b), m)
                nxt.add((int(x), int(y)))
        level = nxt
        assert len(level) == DISTINCT[ply]


def test_random_games_are_seeded(game: ConnectFour) -> None:
    ctx = game.kernel.ctx
    total = ck.random_games(ctx, 200, 7)
    assert total == ck.random_games(ctx, 200, 7)
    assert 7 * 200 <= total <= 42 * 200


def test_position_keys_round_trip() -> None:
    for width, height, k in SIZES:
        g = ConnectFour(width, height, k)
        for seed in range(5):
            state = play_random(g, seed)
            key = ck.position_key(g.kernel.ctx, I64(state.a), I64(state.b))
            assert tuple(map(int, ck.words_of_key(g.kernel.ctx, key))) == (state.a, state.b)


# --- lockstep with the naive reference -----------------------------------------------------------


def _check_against_reference(state: ConnectFourState, ref: ReferenceGame) -> None:
    assert state.board() == ref.rows_top_first()
    assert state.legal_indices() == ref.legal_moves()
    assert state.is_over == ref.is_over()
    assert state.winner == ref.winner
    assert state.is_draw == (ref.is_over() and ref.winner is None)
    expected = LOSS if ref.winner is not None else DRAW if ref.is_full() else ONGOING
    assert state.status == expected
    assert state.to_move == ref.to_move
    assert state.heights() == [ref.column_height(c) for c in range(ref.width)]


@settings(max_examples=40)
@given(size=st.sampled_from(SIZES), choices=st.lists(st.integers(0, 1000), min_size=64, max_size=64))
def test_random_games_match_reference(size: tuple[int, int, int], choices: list[int]) -> None:
    game = ConnectFour(*size)
    ref = ReferenceGame(*size)
    state: ConnectFourState = game.initial()  # type: ignore[assignment]
    for choice in choices:
        _check_against_reference(state, ref)
        if state.is_over:
            break
        legal = state.legal_indices()
        action = legal[choice % len(legal)]
        state = state.play_index(action)
        ref.play(action)
    _check_against_reference(state, ref)


@settings(max_examples=30)
@given(size=st.sampled_from(SIZES), seed=st.integers(0, 10**6))
def test_winning_cells_match_reference(size: tuple[int, int, int], seed: int) -> None:
    game = ConnectFour(*size)
    rng = np.random.default_rng(seed)
    state = play_random(game, seed, plies=int(rng.integers(0, game.width * game.height)))
    ctx = game.kernel.ctx
    for stones in (state.a, state.a ^ state.b):
        if ck.has_line(ctx, I64(stones)):
            continue  # a won game: every cell "completes" the line already there
        cells = int(ck.winning_cells(ctx, I64(stones), I64(state.b)))
        for col, row in itertools.product(range(game.width), range(game.height)):
            bit = 1 << ck.bit(game.width, game.height, col, row)
            if state.b & bit:
                assert not cells & bit
                continue
            wins = bool(ck.has_line(ctx, I64(stones | bit)))
            assert bool(cells & bit) == wins, (col, row)


def _naive_windows(rows: list[list[int]], player: int, k: int, own: int) -> int:
    """Windows of ``k`` cells holding ``own`` stones of ``player`` and empty elsewhere."""
    height, width = len(rows), len(rows[0])
    count = 0
    for col, row in itertools.product(range(width), range(height)):
        for dc, dr in DIRECTIONS:
            cells = [(col + i * dc, row + i * dr) for i in range(k)]
            if not all(0 <= c < width and 0 <= r < height for c, r in cells):
                continue
            values = [rows[r][c] for c, r in cells]
            if values.count(player) == own and values.count(-1) == k - own:
                count += 1
    return count


@settings(max_examples=30)
@given(size=st.sampled_from(SIZES), seed=st.integers(0, 10**6))
def test_threes_evaluation_counts_windows(size: tuple[int, int, int], seed: int) -> None:
    game = ConnectFour(*size)
    k = game.connect
    state = play_random(game, seed, plies=seed % (game.width * game.height))
    if state.is_over:
        return
    rows = state.board()
    me = state.to_move

    def side(player: int) -> int:
        twos = _naive_windows(rows, player, k, k - 2) if k >= 3 else 0
        return 100 * _naive_windows(rows, player, k, k - 1) + twos

    value = state.kernel.evaluate(state.kernel.ctx, I64(state.a), I64(state.b), ck.EVAL_THREES)
    assert value == side(me) - side(1 - me)


# --- symmetry, observation and evaluation properties -----------------------------------------------


@settings(max_examples=25)
@given(size=st.sampled_from(SIZES), seed=st.integers(0, 10**6))
def test_mirror_commutes_with_play_and_observation(size: tuple[int, int, int], seed: int) -> None:
    game = ConnectFour(*size)
    kernel = game.kernel
    ctx = kernel.ctx
    state = play_random(game, seed, plies=seed % (game.width * game.height))
    a, b = I64(state.a), I64(state.b)
    assert kernel.sym_inverse.tolist() == [0, 1]
    for sym in range(kernel.num_symmetries):
        sa, sb = kernel.symmetry(ctx, a, b, sym)
        assert kernel.status(ctx, sa, sb) == state.status
        assert kernel.symmetry(ctx, sa, sb, kernel.sym_inverse[sym]) == (a, b)
        mirrored = state.transform(sym)
        assert np.array_equal(
            mirrored.observation(), transform_observations(kernel, state.observation(), sym)
        )
        assert np.array_equal(mirrored.legal_mask(), transform_actions(kernel, state.legal_mask(), sym))
        if state.is_over:
            continue
        for m in state.legal_indices():
            after = kernel.symmetry(ctx, *kernel.play(ctx, a, b, m), sym)
            assert after == kernel.play(ctx, sa, sb, kernel.action_maps[sym, m])
        for eval_id in range(len(kernel.evaluations)):
            assert kernel.evaluate(ctx, a, b, eval_id) == kernel.evaluate(ctx, sa, sb, eval_id)


def test_generic_helpers(game: ConnectFour) -> None:
    state = game.parse_position("1123")
    mirrored = game.parse_position("7765")
    assert state.transform(1) == mirrored
    assert state.canonical_key() == mirrored.canonical_key() != game.parse_position("1124").canonical_key()
    assert state.position_hash() != mirrored.position_hash()
    assert legal_mask(game.kernel, state.a, state.b).tolist() == [True] * 7
    full = game.parse_position("444444")
    assert legal_mask(game.kernel, full.a, full.b).tolist() == [True] * 3 + [False] + [True] * 3
    batch = observe_batch(game.kernel, np.array([state.words, mirrored.words]))
    assert np.array_equal(batch[1], transform_observations(game.kernel, batch[0], 1))


def test_observation_planes(game: ConnectFour) -> None:
    state = game.parse_position("4453")  # X: d1 e1, O: c1 d2; X to move
    obs = state.observation()
    assert obs.shape == (2, 6, 7) and obs.dtype == np.float32
    assert obs[0].sum() == 2 and obs[0, 5, 3] == 1 and obs[0, 5, 4] == 1
    assert obs[1].sum() == 2 and obs[1, 5, 2] == 1 and obs[1, 4, 3] == 1
    garbage = np.full((2, 6, 7), 7.0, dtype=np.float32)
    game.kernel.observe(game.kernel.ctx, I64(state.a), I64(state.b), garbage)
    assert np.array_equal(garbage, obs)


def test_ongoing_positions_have_moves_and_full_board_draws() -> None:
    # 4x4 with connect=4 can fill up without a line
    game = ConnectFour(4, 4, 4)
    draws = 0
    for seed in range(300):
        state = play_random(game, seed)
        if state.is_draw:
            draws += 1
            assert state.b == int(game.kernel.ctx[0][ck.BOARD_IDX])
            assert state.outcome is not None and state.outcome.detail == "full board"
    assert draws > 0


def test_threats_sees_immediate_wins(game: ConnectFour) -> None:
    ctx = game.kernel.ctx
    win_next = game.parse_position("112233")  # X to move completes 1-2-3-4 on the bottom row
    assert ck.evaluate(ctx, I64(win_next.a), I64(win_next.b), ck.EVAL_THREATS) == ck.BIG
    quiet = game.parse_position("2233")  # an open two for X: no threat yet
    assert abs(ck.evaluate(ctx, I64(quiet.a), I64(quiet.b), ck.EVAL_THREATS)) < ck.BIG
    lost = game.parse_position("33445")  # O to move; X threatens both 2 and 6 on the bottom row
    assert ck.evaluate(ctx, I64(lost.a), I64(lost.b), ck.EVAL_THREATS) == -ck.BIG


def test_evaluations_are_finite_and_named(game: ConnectFour) -> None:
    assert game.evaluations == ("threats", "threes", "patterns")
    ctx = game.kernel.ctx
    for seed in range(50):
        state = play_random(game, seed, plies=seed % 30)
        if state.is_over:
            continue
        for eval_id in range(3):
            assert np.isfinite(ck.evaluate(ctx, I64(state.a), I64(state.b), eval_id))


# --- moves, texts and views ------------------------------------------------------------------------


def test_moves(game: ConnectFour) -> None:
    assert str(Column(3)) == "4"
    assert game.move_of(3) == Column(3)
    assert game.action_of(Column(6)) == 6
    assert game.parse_action(" 4\n") == 3
    for bad in ("0", "8", "x", "", "4a", "-1", "٤"):
        with pytest.raises(MoveParseError):
            game.parse_action(bad)
    for bad_move in (Column(7), Column(-1), 3, "4"):
        with pytest.raises(IllegalMoveError):
            game.action_of(bad_move)
    state = game.parse_position("444444")
    assert not state.is_legal(Column(3))
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        state.play("4")
    with pytest.raises(IllegalMoveError):
        state.parse_move("4")


def test_won_game(game: ConnectFour) -> None:
    state = game.parse_position("1122334")
    assert state.is_over and state.winner == 0 and state.status == LOSS
    assert state.outcome is not None and state.outcome.detail == "four in a row"
    assert state.legal_moves() == []
    assert game.json_view(state)["win_cells"] == [[0, 5], [1, 5], [2, 5], [3, 5]]
    with pytest.raises(GameOverError):
        state.play("5")


@pytest.mark.parametrize("size", SIZES)
def test_position_text_round_trips(size: tuple[int, int, int]) -> None:
    game = ConnectFour(*size)
    for seed in range(20):
        state = play_random(game, seed, plies=None if seed % 2 else seed)
        text = state.to_text()
        back = game.parse_position(text)
        assert back == state and back.status == state.status
        assert back.to_text() == text


def test_move_sequences(game: ConnectFour) -> None:
    state = game.parse_position("4453")
    assert state.to_text() == "......./......./......./......./...O.../..OXX.. X 4"
    assert game.parse_position(" 4 4 5 3 ") == state
    wide = ConnectFour(10, 4)
    assert wide.parse_position("10 3 4").heights() == [0, 0, 1, 1, 0, 0, 0, 0, 0, 1]
    assert wide.parse_position("10").heights()[9] == 1


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("44444444", IllegalMoveError, "ply 7: column 4 is full"),
        ("48", MoveParseError, "ply 2"),
        ("40", MoveParseError, "ply 2"),
        ("11223344", GameOverError, "ply 8"),
        ("", PositionParseError, "empty"),
        ("abc", PositionParseError, "rows"),
        ("......./......./......./......./......./X...... X 1", PositionParseError, "side to move is O"),
        ("......./......./......./......./X....../....... O 1", PositionParseError, "above an empty"),
        ("......./......./......./......./......./XX..... O 2", PositionParseError, "one more"),
        ("......./......./......./......./......./X...... O 5", PositionParseError, "ply"),
        ("......./......./......./......./......./X...... O x", PositionParseError, "ply"),
        ("......./......./......./......./......./X...... Z", PositionParseError, "X or O"),
        ("......./......./......./......./......./X.....Q O", PositionParseError, "X, O or"),
        ("......./......./......./......./......./X...... O 1 2", PositionParseError, "expected"),
        ("......./......./......./......./OOOO.../XXXX... X 8", PositionParseError, "already has"),
        ("......./......./......X/......X/OOO.OOX/XXXXOOX O 15", PositionParseError, "no single last"),
    ],
)
def test_bad_positions(game: ConnectFour, text: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        game.parse_position(text)
    with pytest.raises(PositionParseError):
        game.parse_position(text)


def _reachable_boards(width: int, height: int, connect: int) -> set[str]:
    """The board texts of every position the naive reference reaches from the empty board."""
    seen: set[str] = set()
    frontier = [ReferenceGame(width, height, connect)]
    while frontier:
        ref = frontier.pop()
        text = "/".join("".join(".XO"[cell + 1] for cell in row) for row in ref.rows_top_first())
        if text in seen:
            continue
        seen.add(text)
        for col in ref.legal_moves():
            child = ReferenceGame(width, height, connect, [row[:] for row in ref.board], ref.to_move)
            child.play(col)
            frontier.append(child)
    return seen


@pytest.mark.parametrize("size", [(3, 3, 3), (3, 4, 3)])
def test_a_board_is_read_exactly_when_a_game_reaches_it(size: tuple[int, int, int]) -> None:
    width, height, connect = size
    game = ConnectFour(width, height, connect)
    columns = [
        "".join(stones).ljust(height, ".")
        for n in range(height + 1)
        for stones in itertools.product("XO", repeat=n)
    ]
    read = set()
    for board in itertools.product(columns, repeat=width):  # every board that obeys gravity
        text = "/".join("".join(column[row] for column in board) for row in reversed(range(height)))
        try:
            game.parse_position(text)
        except PositionParseError:
            continue
        read.add(text)
    assert read == _reachable_boards(width, height, connect)


def test_a_board_whose_stones_cannot_be_dropped_in_turn_is_refused(game: ConnectFour) -> None:
    # counts, gravity and lines are fine, but O dropped the last stone and none of O's is on top
    with pytest.raises(PositionParseError, match="no game reaches this board"):
        game.parse_position("......./......./......./......./..X.X../..O.O.. X 4")
    with pytest.raises(PositionParseError, match="no game reaches"):
        game.parse_position("......./......./......./......./...X.../...O... X 2")
    # X's first stone must lie on the bottom row: here every one of X's stones is above an O
    with pytest.raises(PositionParseError, match="no game reaches"):
        game.parse_position("......./......./......./...X.../..XXX../..OOO.. O 7")


def test_views(game: ConnectFour) -> None:
    state = game.parse_position("4453")
    lines = game.board_text(state).splitlines()
    assert lines[-1] == "1 2 3 4 5 6 7" and lines[-2] == ". . O X X . ."
    rendered = game.render(state, last_move=Column(2))
    assert rendered.plain.splitlines() == lines
    assert [str(span.style) for span in rendered.spans].count("bold yellow reverse") == 1
    assert game.render(state, last_move=2).spans == rendered.spans
    assert "reverse" not in str(game.render(state).spans)
    assert "underline" not in str(rendered.spans)
    won = game.parse_position("4455667")  # X's four on the bottom row, columns 4-7
    underlined = [s for s in game.render(won, last_move=7).spans if "underline" in str(s.style)]
    assert len(underlined) == 4 and all(str(s.style).startswith(STONE_STYLES[0]) for s in underlined)
    assert won.render(7).plain.splitlines()[-2].endswith("X X X X")
    view = state.to_json()
    assert view["cells"][-1] == "..OXX.." and view["heights"] == [0, 0, 1, 2, 1, 0, 0]
    assert view["board"][-1] == [-1, -1, 1, 0, 0, -1, -1]
    assert view["win_cells"] == [] and view["legal"] == [str(c) for c in range(1, 8)]
    # the help shown at a move prompt says how to write a move, not a whole game (not one move there)
    assert game.notation_help == "A move is a column number, 1-7 from the left (e.g. 4)."


# --- options -------------------------------------------------------------------------------------


def test_options_and_spec() -> None:
    game = parse_game("connect4:width=8,height=7")
    assert isinstance(game, ConnectFour) and (game.width, game.height, game.connect) == (8, 7, 4)
    assert game.spec == "connect4:width=8,height=7"
    assert game.title == "Connect Four 8x7"
    assert parse_game("connect4").spec == "connect4"
    assert parse_game("connect4:connect=3").title == "Connect Four 7x6, 3 in a row"
    assert parse_game("connect4:width=5,connect=5").win_detail == "five in a row"
    assert game.kernel.name == "connect4-8x7-4" and game.kernel.obs_shape == (2, 7, 8)
    assert game.kernel.action_maps.shape == (2, 8) and game.kernel.cell_maps.shape == (2, 56)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("connect4:width=9,height=7", "at most 64"),
        ("connect4:width=16,height=4", "at most 64"),
        ("connect4:connect=8", "never be reached"),
        ("connect4:width=1", "at least 2"),
        ("connect4:connect=1", "at least 2"),
        ("connect4:depth=3", "unknown option"),
    ],
)
def test_bad_options(spec: str, words: str) -> None:
    with pytest.raises(GameOptionError, match=words):
        parse_game(spec)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"width": 1}, "at least 2"),
        ({"width": "7"}, "whole number"),
        ({"height": 7.0}, "whole number"),
        ({"connect": True}, "whole number"),
        ({"width": 9, "height": 7}, "at most 64"),
    ],
)
def test_a_game_built_directly_with_bad_options_raises_a_game_option_error(
    options: dict[str, object], words: str
) -> None:
    with pytest.raises(GameOptionError, match=words):
        ConnectFour(**options)  # type: ignore[arg-type]
