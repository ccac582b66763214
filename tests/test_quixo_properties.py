"""Properties of Quixo positions and moves, checked on generated positions and boards."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
import quixo_reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.games.base import MoveParseError, PositionParseError, compiled_canonical
from boardlab.games.hashing import position_hash
from boardlab.games.quixo import Move, Push, State, all_moves
from boardlab.games.quixo import kernel as qk

SIZES = (3, 4, 5)
Triple = tuple[int, int, int]


def triples(moves: list[Move]) -> set[Triple]:
    """Engine moves as a set of reference ``(x, y, push)`` triples."""
    return {(m.x, m.y, int(m.push)) for m in moves}


def counts(state: State) -> tuple[int, int, int]:
    """Blank cubes, the side to move's cubes and the other side's cubes."""
    me, opp = state.words
    return state.blanks, me.bit_count(), opp.bit_count()


def play_choices(size: int, choices: list[int]) -> list[State]:
    """The positions of a game whose moves are picked by ``choices`` (modulo the move count)."""
    states = [State.initial(size)]
    for choice in choices:
        if states[-1].is_over:
            break
        moves = states[-1].legal_moves()
        states.append(states[-1].play(moves[choice % len(moves)]))
    return states


@st.composite
def played_positions(draw: st.DrawFn) -> State:
    """A position reached from the empty board by a drawn sequence of legal moves."""
    size = draw(st.sampled_from(SIZES))
    return play_choices(size, draw(st.lists(st.integers(0, 43), max_size=40)))[-1]


@st.composite
def ongoing_positions(draw: st.DrawFn) -> State:
    """The last position before the end of a drawn sequence of moves (the game goes on)."""
    size = draw(st.sampled_from(SIZES))
    states = play_choices(size, draw(st.lists(st.integers(0, 43), max_size=40)))
    return next(state for state in reversed(states) if not state.is_over)


@st.composite
def boards(draw: st.DrawFn, sizes: tuple[int, ...] = SIZES) -> ref.Board:
    """Any arrangement of cubes, reachable in a game or not (blanks twice as likely)."""
    size = draw(st.sampled_from(sizes))
    cells = draw(st.lists(st.sampled_from([-1, -1, 0, 1]), min_size=size * size, max_size=size * size))
    return [cells[y * size : (y + 1) * size] for y in range(size)]


# --- moves and results against the reference ----------------------------------------------


@given(boards(), st.integers(0, 1))
@settings(max_examples=300)
def test_every_move_on_any_board_matches_the_reference(board: ref.Board, to_move: int) -> None:
    state = State.from_board(board, to_move)
    previous_mover = 1 - to_move
    assert state.board() == board
    assert state.winner == ref.winner(board, previous_mover)
    assert state.is_over == ref.is_finished(board)
    if state.is_over:
        assert state.legal_moves() == []
        return
    moves = state.legal_moves()
    assert triples(moves) == set(ref.legal_moves(board, to_move))
    assert len(moves) == len(set(moves))
    for move in moves:
        triple = (move.x, move.y, int(move.push))
        assert ref.is_legal(board, to_move, triple)
        after = ref.play(board, to_move, triple)
        child = state.play(move)
        assert child.board() == after
        assert child.winner == ref.winner(after, to_move)
        assert child.to_move == 1 - to_move
        assert child.ply == state.ply + 1


@given(played_positions())
@settings(max_examples=200)
def test_legal_moves_of_played_positions_match_the_reference(state: State) -> None:
    board = state.board()
    if state.is_over:
        assert ref.is_finished(board) or state.is_draw
        assert state.legal_moves() == []
        return
    legal = triples(state.legal_moves())
    assert legal == set(ref.legal_moves(board, state.to_move))
    me, opp = state.words
    assert qk.count_moves(state.kernel.ctx, np.int64(me), np.int64(opp)) == len(legal)
    for x, y, push in itertools.product(range(state.size), range(state.size), Push):
        move = Move(x, y, push, state.size)
        if (x, y, int(push)) in legal:
            assert state.is_legal(move)
        elif ref.on_border(state.size, x, y) and int(push) in ref.push_ends(state.size, x, y):
            assert not state.is_legal(move)


# --- cube counts --------------------------------------------------------------------------


@given(ongoing_positions(), st.integers(0, 43))
def test_cube_counts_after_a_move(state: State, choice: int) -> None:
    moves = state.legal_moves()
    move = moves[choice % len(moves)]
    blanks, mine, theirs = counts(state)
    source_blank = state.board()[move.y][move.x] == ref.BLANK
    after = state.play(move)
    new_blanks, new_theirs, new_mine = counts(after)  # sides swap after the move
    assert new_blanks <= blanks
    assert new_theirs == theirs
    assert new_mine == mine + (1 if source_blank else 0)
    assert new_blanks == blanks - (1 if source_blank else 0)


# --- symmetries ---------------------------------------------------------------------------


def cell_permutation(size: int, sym: int) -> list[int]:
    """Where the engine's symmetry ``sym`` sends each cell, found one cube at a time."""
    perm = []
    for cell in range(size * size):
        image = State.from_masks(1 << cell, 0, size=size).transform(sym).x_cubes
        assert image.bit_count() == 1
        perm.append(image.bit_length() - 1)
    return perm


def as_key(board: ref.Board) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(row) for row in board)


@pytest.mark.parametrize("size", SIZES)
def test_engine_symmetries_are_the_eight_symmetries_of_the_square(size: int) -> None:
    labels = [[y * size + x for x in range(size)] for y in range(size)]
    expected = {as_key(image) for image in ref.symmetric_images(labels)}
    found = set()
    for sym in range(8):
        perm = cell_permutation(size, sym)
        image = [[0] * size for _ in range(size)]
        for cell, target in enumerate(perm):
            image[target // size][target % size] = cell
        found.add(as_key(image))
    assert len(expected) == 8
    assert found == expected


@pytest.mark.parametrize("size", SIZES)
def test_move_transform_follows_the_cells(size: int) -> None:
    kernel = qk.kernel(size)
    for sym in range(8):
        perm = cell_permutation(size, sym)
        inverse = int(kernel.sym_inverse[sym])
        for move in all_moves(size):
            image = move.transform(sym)
            source = perm[move.y * size + move.x]
            dx, dy = move.destination
            assert (image.x, image.y) == (source % size, source // size)
            assert image.destination == (perm[dy * size + dx] % size, perm[dy * size + dx] // size)
            assert image.transform(inverse) == move


@given(ongoing_positions(), st.integers(0, 43), st.integers(0, 7))
@settings(max_examples=200)
def test_symmetry_commutes_with_play(state: State, choice: int, sym: int) -> None:
    moves = state.legal_moves()
    move = moves[choice % len(moves)]
    image = state.transform(sym)
    assert as_key(image.board()) in {as_key(b) for b in ref.symmetric_images(state.board())}
    assert move.transform(sym) in image.legal_moves()
    played_then_turned = state.play(move).transform(sym)
    turned_then_played = image.play(move.transform(sym))
    assert turned_then_played == played_then_turned
    assert turned_then_played.board() == played_then_turned.board()
    assert turned_then_played.winner == played_then_turned.winner
    assert turned_then_played.is_over == played_then_turned.is_over


@given(played_positions())
def test_legal_moves_transform_with_the_board(state: State) -> None:
    for sym in range(8):
        image = state.transform(sym)
        assert set(image.legal_moves()) == {m.transform(sym) for m in state.legal_moves()}
        assert image.winner == state.winner


# --- canonical keys -----------------------------------------------------------------------


@given(played_positions())
def test_canonical_key_is_shared_by_all_symmetric_images(state: State) -> None:
    keys = {state.transform(sym).canonical_key() for sym in range(8)}
    assert keys == {state.canonical_key()}
    me, opp = state.words
    ctx = state.kernel.ctx
    key, sym = compiled_canonical(state.kernel)(ctx, np.int64(me), np.int64(opp))
    image = state.transform(int(sym))
    assert position_hash(np.int64(image.a), np.int64(image.b)) == key
    # the canonical image is the smallest of the images, compared as (a, b)
    assert (image.a, image.b) == min((state.transform(s).a, state.transform(s).b) for s in range(8))


MASK64 = 2**64 - 1


def _splitmix64_finaliser(x: int) -> int:
    """The splitmix64 finaliser on unsigned 64-bit integers (Steele, Lea and Flood 2014)."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def test_the_reference_finaliser_gives_splitmix64s_published_first_output() -> None:
    # splitmix64 seeded with 0 first outputs the finaliser of its increment, the golden gamma
    assert _splitmix64_finaliser(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF


@given(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1))
def test_position_hash_is_splitmix64_of_both_words(a: int, b: int) -> None:
    expected = _splitmix64_finaliser(_splitmix64_finaliser(a & MASK64) ^ (b & MASK64))
    assert int(position_hash(np.int64(a), np.int64(b))) & MASK64 == expected


@st.composite
def board_pairs(draw: st.DrawFn) -> tuple[ref.Board, ref.Board]:
    """A board and either a symmetric image of it, the image with one cell changed, or any board."""
    first = draw(boards())
    size = len(first)
    kind = draw(st.sampled_from(["image", "changed", "any"]))
    if kind == "any":
        return first, draw(boards(sizes=(size,)))
    second = ref.copy_board(draw(st.sampled_from(ref.symmetric_images(first))))
    if kind == "changed":
        x, y = draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))
        second[y][x] = draw(st.sampled_from([v for v in (-1, 0, 1) if v != second[y][x]]))
    return first, second


@given(board_pairs(), st.integers(0, 1), st.integers(0, 1))
@settings(max_examples=300)
def test_canonical_keys_equal_exactly_for_symmetric_positions(
    pair: tuple[ref.Board, ref.Board], first_side: int, second_side: int
) -> None:
    # keys are side-relative: a position is the same whichever colour the mover plays
    first, second = pair
    first_key = State.from_board(first, first_side).canonical_key()
    second_key = State.from_board(second, second_side).canonical_key()
    same = ref.are_symmetric(_mover_view(first, first_side), _mover_view(second, second_side))
    assert (first_key == second_key) == same


def _mover_view(board: ref.Board, side: int) -> ref.Board:
    """The board with the mover's cubes as 0 and the opponent's as 1."""
    return [[v if v < 0 or side == 0 else 1 - v for v in row] for row in board]


def test_canonical_keys_partition_all_3x3_boards_like_the_reference() -> None:
    key_to_class: dict[int, tuple[tuple[int, ...], ...]] = {}
    for cells in itertools.product((-1, 0, 1), repeat=9):
        board = [list(cells[0:3]), list(cells[3:6]), list(cells[6:9])]
        orbit = min(as_key(image) for image in ref.symmetric_images(board))
        key = State.from_board(board, 0).canonical_key()
        assert key_to_class.setdefault(key, orbit) == orbit
    orbits = set(key_to_class.values())
    assert len(orbits) == len(key_to_class)
    # Burnside's count of 3-colourings of the 3x3 board up to symmetry
    assert len(orbits) == (3**9 + 2 * 3**3 + 3**5 + 4 * 3**6) // 8


# --- round trips --------------------------------------------------------------------------


@given(played_positions())
def test_text_and_board_round_trips(state: State) -> None:
    from_text = State.from_text(state.to_text())
    assert from_text == state
    assert from_text.winner == state.winner
    from_board = State.from_board(state.board(), state.to_move, state.ply)
    assert from_board == state
    assert from_board.winner == state.winner
    rows = "/".join(state.cells()[y * state.size : (y + 1) * state.size] for y in range(state.size))
    assert State.from_text(f"{rows.lower()} {'xo'[state.to_move]} {state.ply}") == state


@given(boards(), st.integers(0, 1), st.integers(0, 500))
def test_round_trips_of_any_board(board: ref.Board, to_move: int, ply: int) -> None:
    state = State.from_board(board, to_move, ply)
    assert State.from_masks(state.x_cubes, state.o_cubes, to_move, ply, len(board)) == state
    if not count_fits(len(board), state.x_cubes.bit_count(), state.o_cubes.bit_count(), to_move, ply):
        return  # refused as text (see the tests of the side and ply below)
    assert State.from_text(state.to_text()) == state
    assert State.from_text(state.to_text()).winner == state.winner


# --- the side to move and the ply against the cube counts ----------------------------------


@functools.cache
def reachable_counts(size: int, plies: int) -> tuple[frozenset[tuple[int, int]], ...]:
    """The (X cubes, O cubes) counts that the counting rule reaches at each ply up to ``plies``.

    Played out ply by ply rather than solved: the mover turns a blank cube (one must be left)
    to its symbol, or, once it holds a cube, may take one of its own instead; X moves first.
    """
    at = [frozenset({(0, 0)})]
    for ply in range(plies):
        mover = ply % 2
        after = set()
        for counts in at[-1]:
            if sum(counts) < size * size:
                after.add((counts[0] + (mover == 0), counts[1] + (mover == 1)))
            if counts[mover]:
                after.add(counts)
        at.append(frozenset(after))
    return tuple(at)


def count_fits(size: int, n_x: int, n_o: int, to_move: int, ply: int) -> bool:
    """True when a game can have these counts with ``to_move`` to move at ``ply``."""
    if ply % 2 != to_move:
        return False
    # past 2 * size**2 plies the counts reached stay the same from one ply to the next of its parity
    horizon = 2 * size * size + 2
    capped = ply if ply <= horizon else horizon - (horizon - ply) % 2
    return (n_x, n_o) in reachable_counts(size, horizon)[capped]


def written(state: State, side: int, ply: int | None) -> str:
    """The text of ``state``'s board with another side to move and ply (none: left out)."""
    return f"{state.cells()} {'XO'[side]}" + ("" if ply is None else f" {ply}")


@st.composite
def long_played_positions(draw: st.DrawFn) -> State:
    """A position after up to 120 random legal moves, under either rulebook and a cap past them."""
    size = draw(st.sampled_from(SIZES))
    rules = draw(st.sampled_from(["official", "course"]))
    state = State.initial(size, ply_cap=1000, rules=rules)
    for choice in draw(st.lists(st.integers(0, 43), max_size=120)):
        if state.is_over:
            break
        moves = state.legal_moves()
        state = state.play(moves[choice % len(moves)])
    return state


@given(long_played_positions())
@settings(max_examples=200)
def test_every_played_position_is_read_back_and_fits_its_counts(state: State) -> None:
    game = state.game
    assert game.parse_position(state.to_text()) == state
    n_x, n_o = state.x_cubes.bit_count(), state.o_cubes.bit_count()
    assert count_fits(state.size, n_x, n_o, state.to_move, state.ply)
    # without the ply: the first ply that fits, of the same parity, no later than the game's
    first = game.parse_position(written(state, state.to_move, None))
    assert (first.words, first.to_move) == (state.words, state.to_move)
    assert first.ply <= state.ply and first.ply % 2 == state.ply % 2
    assert count_fits(state.size, n_x, n_o, state.to_move, first.ply)
    assert first.ply < 2 or not count_fits(state.size, n_x, n_o, state.to_move, first.ply - 2)
    # the other side at the same ply, or the same side one ply away, is no position
    for side, ply in ((1 - state.to_move, state.ply), (state.to_move, state.ply + 1)):
        with pytest.raises(PositionParseError, match="X moves at even plies and O at odd ones"):
            game.parse_position(written(state, side, ply))


@st.composite
def sparse_boards(draw: st.DrawFn) -> ref.Board:
    """Boards of a few cubes at most, the empty one included (the counts of early plies)."""
    size = draw(st.sampled_from(SIZES))
    cells = [-1] * (size * size)
    for cell, value in draw(
        st.lists(st.tuples(st.integers(0, size * size - 1), st.integers(0, 1)), max_size=4)
    ):
        cells[cell] = value
    return [cells[y * size : (y + 1) * size] for y in range(size)]


@given(
    boards() | sparse_boards(),
    st.integers(0, 1),
    st.integers(0, 12) | st.integers(0, 60) | st.integers(0, 10**6),
)
@settings(max_examples=400)
def test_a_text_is_read_exactly_when_a_game_can_have_its_counts(
    board: ref.Board, side: int, ply: int
) -> None:
    size = len(board)
    state = State.from_board(board, side, ply)
    n_x, n_o = state.x_cubes.bit_count(), state.o_cubes.bit_count()
    text = written(state, side, ply)
    try:
        read = State.from_text(text)
    except PositionParseError as error:
        assert not count_fits(size, n_x, n_o, side, ply), f"{text!r} refused: {error}"
        assert "\n" not in str(error)
        # the advice names sides and plies that are read back
        advice = str(error).partition("; write ")[2]
        for fit in advice.split(" or ") if advice else []:
            fit_side, fit_ply = fit.split()
            assert State.from_text(f"{state.cells()} {fit}").ply == int(fit_ply)
            assert count_fits(size, n_x, n_o, "XO".index(fit_side), int(fit_ply))
        if not advice:
            assert not any(
                count_fits(size, n_x, n_o, s, p) for s in (0, 1) for p in range(2 * size * size + 3)
            )
        return
    assert count_fits(size, n_x, n_o, side, ply), f"{text!r} read"
    assert read == state


@pytest.mark.parametrize("size", SIZES)
def test_every_move_notation_round_trips(size: int) -> None:
    moves = all_moves(size)
    assert len(moves) == {3: 20, 4: 32, 5: 44}[size]
    assert {(m.x, m.y, int(m.push)) for m in moves} == set(ref.legal_moves(ref.empty_board(size), ref.X))
    names = set()
    for move in moves:
        text = str(move)
        names.add(text)
        assert Move.parse(text, size) == move
        assert Move.parse(f"  {text.upper()} ", size) == move
        assert text[:2] == f"{'abcde'[move.x]}{move.y + 1}"
        after = ref.play(ref.empty_board(size), ref.X, (move.x, move.y, int(move.push)))
        crosses = [(x, y) for y in range(size) for x in range(size) if after[y][x] == ref.X]
        assert crosses == [("abcde".index(text[2]), int(text[3]) - 1)]
    assert len(names) == len(moves)


@given(st.sampled_from(SIZES), st.text(max_size=6) | st.from_regex(r"\A[a-fA-F][0-6][a-fA-F][0-6]\Z"))
@settings(max_examples=300)
def test_any_move_text_parses_or_raises_a_parse_error(size: int, text: str) -> None:
    try:
        move = Move.parse(text, size)
    except MoveParseError:
        return
    assert move in all_moves(size)
    assert str(move) == text.strip().lower()


@given(st.text(alphabet="XOxo./ 0123456789-\u00b2", max_size=40) | st.text(max_size=12))
@settings(max_examples=300)
def test_any_position_text_reads_or_raises_a_parse_error(text: str) -> None:
    try:
        state = State.from_text(text)
    except PositionParseError:
        return
    assert State.from_text(state.to_text()) == state


# --- the course rules: only the identity and the transpose keep every result ----------------


@given(boards(), st.integers(0, 1))
@settings(max_examples=300)
def test_course_results_and_keys_are_kept_by_the_value_symmetries(board: ref.Board, to_move: int) -> None:
    state = State.from_board(board, to_move, rules="course")
    kept = state.kernel.kept_symmetries
    assert kept == (0, qk.TRANSPOSE)
    for sym in kept:
        assert state.transform(sym).winner == state.winner
    keys = {state.transform(sym).canonical_key() for sym in kept}
    assert keys == {state.canonical_key()}


def test_a_course_result_that_a_mirror_reverses_keeps_the_images_apart() -> None:
    # X's top row comes first in the scan order; mirrored top to bottom, O's does
    state = State.from_text("XXXXX/O.XO./.XO.X/X.OX./OOOOO X", rules="course")
    mirror = state.transform(5)
    assert (state.winner, mirror.winner, state.transform(qk.TRANSPOSE).winner) == (0, 1, 0)
    assert state.canonical_key() != mirror.canonical_key()
    official = State.from_text("XXXXX/O.XO./.XO.X/X.OX./OOOOO X")
    assert official.kernel.kept_symmetries == tuple(range(8))
    assert official.canonical_key() == official.transform(5).canonical_key()
