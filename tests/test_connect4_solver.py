"""The exact Connect Four solver: the public benchmark positions (a sample), a brute force on
small boards, the book, the perfect agent, the oracle and the CLI."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from boardlab.agents import make_agent, perfect
from boardlab.agents.decision import Limit
from boardlab.agents.perfect import PerfectAgent
from boardlab.arena.oracle import game_positions, move_accuracy
from boardlab.core.inputs import InputFileError
from boardlab.games import OutOfTime, exact_play
from boardlab.games.base import LOSS, ONGOING
from boardlab.games.connect4 import ConnectFour
from boardlab.games.connect4 import solver as c4
from boardlab.games.connect4.solver import Book, Solver, SolverError
from boardlab.games.exact import Value
from boardlab.games.tictactoe import TicTacToe
from boardlab.ui import connect4_cli
from boardlab.ui.cli import app
from boardlab.ui.connect4_cli import _waiting
from scripts import load_script

DATA = c4.benchmark_sets_folder()
# (file, how many of its first positions): End-Easy, Middle-Easy, Begin-Easy
SAMPLE = (("Test_L3_R1", 40), ("Test_L2_R1", 30), ("Test_L1_R1", 12))


@pytest.fixture(scope="session")
def game() -> ConnectFour:
    return ConnectFour()


SHIPPED_STONES = Book.load(c4.SHIPPED_BOOK).stones
BEYOND_BOOK = "4435261"[:SHIPPED_STONES]
"""A position the shipped book scores but whose children it does not hold: its best moves take
the solver seconds or more."""


@pytest.fixture(scope="session")
def solver() -> Solver:
    """A 7 x 6 solver without a book (the book would answer the early positions), warmed."""
    solver = Solver(7, 6, tt_log2=20, book=False)
    solver.solve(ConnectFour().parse_position("2252576253462244111563365343671351441"))  # compiled code
    return solver


def sample() -> list[tuple[str, int]]:
    if not DATA.is_dir():
        return []
    out = []
    for name, count in SAMPLE:
        lines = (DATA / name).read_text().split("\n")[:count]
        out += [(moves, int(score)) for moves, score in (line.split() for line in lines)]
    return out


@pytest.mark.skipif(not DATA.is_dir(), reason=f"benchmark positions not found in {DATA}")
def test_benchmark_sample_strong_and_weak(game: ConnectFour, solver: Solver) -> None:
    positions = sample()
    assert len(positions) == sum(count for _, count in SAMPLE)
    for moves, score in positions:
        state = game.parse_position(moves)
        solver.reset()
        assert solver.solve(state) == score, moves
        solver.reset()
        assert solver.solve(state, weak=True) == np.sign(score), moves


# --- a brute force on small boards ---------------------------------------------------------


def brute_force(game: ConnectFour, a: int, b: int, memo: dict[tuple[int, int], int]) -> int:
    """The score by plain minimax over the game's kernel (no pruning, every position once)."""
    if (a, b) in memo:
        return memo[(a, b)]
    kernel = game.kernel
    status = kernel.status(kernel.ctx, np.int64(a), np.int64(b))
    half = (game.width * game.height + 1) // 2
    stones = b.bit_count()
    if status == LOSS:
        value = -(half - (stones - 1) // 2)
    elif status != ONGOING:
        value = 0
    else:
        buf = np.empty(game.width, dtype=np.int64)
        value = -99
        for i in range(kernel.gen_moves(kernel.ctx, np.int64(a), np.int64(b), buf)):
            x, y = kernel.play(kernel.ctx, np.int64(a), np.int64(b), buf[i])
            value = max(value, -brute_force(game, int(x), int(y), memo))
    memo[(a, b)] = value
    return value


def random_state(game: ConnectFour, rng: random.Random, plies: int) -> object:
    state = game.initial()
    while state.ply < plies and not state.is_over:
        state = state.play_index(rng.choice(state.legal_indices()))
    return state


@pytest.mark.parametrize(("width", "height", "start"), [(4, 4, 0), (5, 3, 0), (8, 7, 46), (2, 31, 50)])
def test_solver_matches_brute_force_on_other_boards(width: int, height: int, start: int) -> None:
    """4x4, 5x3 (an odd number of cells), 8x7 (every bit of the word) and 2x31 (long shifts)."""
    game = ConnectFour(width=width, height=height)
    solver = Solver(width, height, tt_log2=16)
    memo: dict[tuple[int, int], int] = {}
    rng = random.Random(width * 100 + height)
    lines = 0
    for _ in range(25):
        state = random_state(game, rng, start + rng.randrange(0, 8))
        expected = brute_force(game, state.a, state.b, memo)
        if lines < 5 and expected != 0:  # a perfect line keeps the score to the end of the game
            lines += 1
            words, score = (state.a, state.b), expected
            for col in solver.principal_variation(state):
                words = solver.play(words, col)
                score = -score
                assert brute_force(game, *words, memo) == score, state.to_text()
            assert solver.final_score(words) == score
        solver.reset()
        assert solver.solve(state) == expected, state.to_text()
        assert solver.solve(state, weak=True) == np.sign(expected)
        if not state.is_over:
            scores = solver.analyze(state)
            children = [
                None if s is None else -brute_force(game, *solver.play(state, c), memo)
                for c, s in enumerate(scores)
            ]
            assert scores == children
            assert solver.analyze(state, weak=True) == [None if s is None else np.sign(s) for s in children]


def test_solver_refuses_what_it_cannot_solve() -> None:
    with pytest.raises(SolverError, match="lines of 4 only"):
        Solver(7, 6, connect=5)
    with pytest.raises(SolverError, match="lines of 4 only"):
        Solver.for_game(ConnectFour(width=4, height=4, connect=3))
    with pytest.raises(SolverError, match="at most 64"):
        Solver(9, 7)
    for width, height in ((5, 12), (13, 4), (0, 6), (7, 0)):  # 65 bits, 65 bits, no cells
        with pytest.raises(SolverError, match="at most 64"):
            Solver(width, height, tt_log2=10, book=False)
    with pytest.raises(SolverError, match="5x4 position"):
        Solver(7, 6, tt_log2=12, book=False).solve(ConnectFour(width=5, height=4).initial())
    with pytest.raises(SolverError, match="7x5 position"):  # the same width: other bit positions
        Solver(7, 6, tt_log2=12, book=False).playable(ConnectFour(width=7, height=5).initial())
    with pytest.raises(SolverError, match="cannot solve 'tictactoe'"):
        Solver.for_game(TicTacToe())


# --- the answers around the score ----------------------------------------------------------


def test_analysis_best_moves_and_line_agree(game: ConnectFour, solver: Solver) -> None:
    state = game.parse_position("2252576253462244111563365343671351441")  # Middle-Easy ply 37
    score = solver.solve(state)
    scores = solver.analyze(state)
    assert max(s for s in scores if s is not None) == score
    assert solver.best_moves(state) == [c for c, s in enumerate(scores) if s == score]
    line = solver.principal_variation(state)
    end = state
    for col in line:
        end = end.play_index(col)
    assert end.is_over
    # the line keeps the score: the winner wins with the stone the score announces
    if score == 0:
        assert end.is_draw
    else:
        winner = state.to_move if score > 0 else 1 - state.to_move
        winner_stones = (end.ply + 1) // 2 if winner == 0 else end.ply // 2
        assert end.winner == winner and 22 - abs(score) == winner_stones


def test_finished_games_and_weak_scores(game: ConnectFour, solver: Solver) -> None:
    won = game.parse_position("1212121")  # X's four in column 1 with its 4th stone
    assert solver.solve(won) == -18 and solver.solve(won, weak=True) == -1
    assert solver.analyze(won) == [None] * 7 and solver.playable(won) == []
    assert solver.final_score(won) == -18 and solver.final_score(game.initial()) is None
    full = game.parse_position("444444")  # column 4 is full
    for state, col in ((full, 3), (won, 0), (game.initial(), 7), (game.initial(), -1)):
        with pytest.raises(SolverError, match=f"column {col + 1} cannot be played"):
            solver.move_scores_at_least(state, col, 0, node_limit=10_000)
    assert c4.score_text(18, 6) == "win with its 4th stone (1 more)"
    assert c4.score_text(18, 7) == "win with its 4th stone (1 more)"  # O to move has 3 stones
    assert c4.column_order(7) == [3, 2, 4, 1, 5, 0, 6] and c4.column_order(6) == [2, 3, 1, 4, 0, 5]
    assert c4.score_text(-1, 11) == "loss to the opponent's 21st stone"
    assert c4.score_text(0, 3) == "draw"


def test_node_limit_gives_up_and_resumes(game: ConnectFour) -> None:
    solver = Solver(7, 6, tt_log2=20, book=False)
    state = game.parse_position("44444432222")  # a draw: about 4.5 million nodes
    solver.reset()
    assert solver.solve(state, node_limit=1000) is None and solver.nodes == 1001
    for _ in range(60):  # the table keeps what earlier attempts proved
        score = solver.solve(state, node_limit=300_000)
        if score is not None:
            break
    assert score == 0 and solver.nodes < 10_000_000


def test_a_search_past_the_quick_nodes_goes_on_to_its_end(
    game: ConnectFour, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search longer than QUICK_NODES moves to a stoppable helper thread and still answers."""
    solver = Solver(7, 6, tt_log2=16, book=False)
    state = game.parse_position("2531276566711153")  # Middle-Medium: about 100,000 nodes
    solver.reset()
    score = solver.solve(state)
    best = solver.best_moves(state, score)
    monkeypatch.setattr(c4, "QUICK_NODES", 500)
    solver.reset()
    assert solver.solve(state) == score and solver.nodes > 500
    solver.reset()
    assert solver.move_scores_at_least(state, best[0], score) is True and solver.nodes > 500
    assert solver.move_scores_at_least(state, best[0], score + 1) is False


def test_reset_is_cold_and_the_epoch_wraps(game: ConnectFour) -> None:
    solver = Solver(7, 6, tt_log2=16, book=False)
    state = game.parse_position("2531276566711153")  # Middle-Medium: about 100,000 nodes
    solver.reset()
    first = solver.solve(state)
    cold = solver.nodes
    solver.count_from_zero()
    assert solver.solve(state) == first and solver.nodes < cold  # warm: the root's bounds
    solver.reset()
    assert solver.solve(state) == first and solver.nodes == cold
    solver.meta[c4.M_EPOCH] = solver.prm[c4.P_EPOCH_MASK]
    solver.reset()  # the epoch wraps: the table is cleared
    assert solver.meta[c4.M_EPOCH] == 1 and not solver.tt.any()


def test_a_built_book_lives_in_the_tables_folder_and_is_read_where_it_is_as_deep_as_the_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed package may be read-only: a book built goes where Quixo's tables go, and is
    read there rather than the small book in the package, unless it is shallower."""
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    c4.default_book.cache_clear()
    try:
        shipped = c4.default_book()
        assert shipped is not None and shipped.stones == 5  # nothing built yet: the package's
        for stones in (shipped.stones - 1, shipped.stones, shipped.stones + 1):
            read = max(stones, shipped.stones)  # the built one where they are as deep
            built = Book(7, 6, stones, np.array([1], np.int64), np.array([0], np.int8))
            built.save(tmp_path / "connect4-book-7x6.npz")
            c4.default_book.cache_clear()
            book = c4.default_book()
            assert book is not None and (book.width, book.height, book.stones) == (7, 6, read)
            assert len(book) == (1 if read == stones else len(shipped))
        assert Solver(7, 6, tt_log2=10).book is book and Solver(5, 4, tt_log2=10).book is None
    finally:
        c4.default_book.cache_clear()
    monkeypatch.delenv("BOARDLAB_TABLES")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert (
        c4.default_book_path()
        == tmp_path / "home" / ".cache" / "boardlab" / "tables" / "connect4-book-7x6.npz"
    )


def test_the_shipped_book_gives_the_published_values_of_the_start() -> None:
    """The first player wins 7x6 Connect Four (Allis; Allen, 1988), scoring 1 with perfect play,
    and the first moves score -2 -1 0 1 0 -1 -2 from the left (the published analysis)."""
    book = Book.load(c4.SHIPPED_BOOK)
    assert (book.width, book.height, book.stones) == (7, 6, 5)
    solver = Solver(7, 6, tt_log2=10, book=book)
    start = ConnectFour().initial()
    assert solver.solve(start) == 1
    assert solver.analyze(start) == [-2, -1, 0, 1, 0, -1, -2]
    # every move's score up to the fifth stone, each position's score its best child's
    for moves in ("4", "44", "43", "17", "444", "435", "176", "4444", "1234", "7653"):
        state = ConnectFour().play_moves(moves)
        scores = [s for s in solver.analyze(state) if s is not None]
        assert solver.solve(state) == max(scores)
    assert solver.nodes < 1000  # read from the book, not searched


def test_book_on_a_small_board(tmp_path: Path) -> None:
    path = tmp_path / "book.npz"
    book = c4.build_book(5, 4, 3, path)
    loaded = Book.load(path)
    assert (loaded.width, loaded.height, loaded.stones) == (5, 4, 3) and len(loaded) == len(book)
    assert np.array_equal(loaded.keys, book.keys) and np.array_equal(loaded.scores, book.scores)
    # every position up to 3 stones, one per mirror pair
    assert len(book) == sum(len(c4.positions_at(5, 4, n)) for n in range(4))
    with_book = Solver(5, 4, tt_log2=16, book=loaded)
    without = Solver(5, 4, tt_log2=16, book=False)
    for stones in (0, 2, 4):
        for words in c4.positions_at(5, 4, stones)[:20]:
            with_book.reset()
            without.reset()
            assert with_book.solve(words) == without.solve(words)
    for width, height in ((7, 6), (5, 3), (6, 4)):  # a book serves its own board only
        with pytest.raises(SolverError, match="a 5x4 book cannot serve"):
            Solver(width, height, tt_log2=10, book=loaded)
    for fields, phrase in _REFUSED_BOOKS:
        np.savez(tmp_path / "odd.npz", **fields)
        with pytest.raises(InputFileError, match=phrase):
            Book.load(tmp_path / "odd.npz")


def _book_file(size: list[int], keys: list[int], scores: list[int]) -> dict[str, np.ndarray]:
    return {"size": np.array(size), "keys": np.array(keys), "scores": np.int8(scores)}


_REFUSED_BOOKS = [
    ({"keys": np.arange(3)}, "has no array 'size'"),
    (_book_file([5, 4, 3], [3, 1], [0, 0]), "sorted"),
    (_book_file([9, 7, 4], [1], [0]), "is not a book's"),  # more than 64 bits
    (_book_file([5, 4, 21], [1], [0]), "is not a book's"),  # more stones than cells
    (_book_file([5, 4, 3], [1, 1], [0, 0]), "sorted and distinct"),
    (_book_file([-2, -2, 0], [1], [0]), "size"),
    (_book_file([5, 4, 3], [1], [12]), "scores"),  # 5 x 4: no score is larger than 20 // 2 + 1
    (_book_file([5, 4, 3], [1], [-12]), "scores"),
]
"""Book files that must be refused, and a phrase of the refusal."""


def test_a_deeper_book_on_4x4_agrees_with_the_solver(tmp_path: Path) -> None:
    """8 stones on 4 x 4: wins come from the 7th stone on, so some positions the book derives
    have finished children; each ongoing position is there once per mirror pair."""
    path = tmp_path / "book.npz"
    book = c4.build_book(4, 4, 8, path)
    assert [p.name for p in tmp_path.iterdir()] == ["book.npz"]  # the partial file is gone
    with_book = Solver(4, 4, tt_log2=12, book=book)
    without = Solver(4, 4, tt_log2=12, book=False)
    game = ConnectFour(width=4, height=4)
    # a naive reference: a position as its columns' stacks of stones, one of each mirror pair
    Stacks = tuple[tuple[int, ...], ...]
    level: dict[Stacks, tuple[Stacks, Any]] = {((),) * 4: (((),) * 4, game.initial())}
    for stones in range(9):
        ongoing = [state for _, state in level.values() if not state.is_over]
        positions = c4.positions_at(4, 4, stones)
        assert len(positions) == len(ongoing)
        for words in positions:
            assert with_book.solve(words) == without.solve(words)
        following: dict[Stacks, tuple[Stacks, Any]] = {}
        for stacks, state in level.values():
            for col in [] if state.is_over else state.legal_indices():
                child = tuple((*s, state.to_move) if c == col else s for c, s in enumerate(stacks))
                following.setdefault(min(child, child[::-1]), (child, state.play_index(col)))
        level = following


class _Ticking:
    """A clock a minute further at each look: the book build saves its partial file after
    every position it solves."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 60.0
        return self.now


def test_a_killed_book_build_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = c4.build_book(4, 4, 4, tmp_path / "whole.npz")
    path = tmp_path / "book.npz"
    monkeypatch.setattr(c4, "time", _Ticking())

    def killed_after_ten(done: int, total: int) -> None:
        if done == 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        c4.build_book(4, 4, 4, path, progress=killed_after_ten)
    partial = tmp_path / "book.npz.partial.npz"
    _assert_part_of(np.load(partial), whole, at_least=10)
    assert not path.exists()
    resumed = c4.build_book(4, 4, 4, path)
    assert np.array_equal(resumed.keys, whole.keys) and np.array_equal(resumed.scores, whole.scores)
    assert not partial.exists()
    # a partial file of another build at the same path is refused, not merged
    with pytest.raises(KeyboardInterrupt):
        c4.build_book(5, 4, 3, path, progress=killed_after_ten)
    with pytest.raises(InputFileError, match=r"holds a build of another book \(\[5, 4, 3\]"):
        c4.build_book(4, 4, 4, path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_interrupted_book_build_keeps_what_it_solved_since_its_last_save(
    tmp_path: Path, jobs: int
) -> None:
    path = tmp_path / "book.npz"

    def interrupted_after_seven(done: int, total: int) -> None:
        if done == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # within 30 s of the start: no save on the clock yet
        c4.build_book(4, 4, 4, path, progress=interrupted_after_seven, jobs=jobs)
    whole = c4.build_book(4, 4, 4, tmp_path / "whole.npz")
    _assert_part_of(np.load(tmp_path / "book.npz.partial.npz"), whole, at_least=7)
    assert np.array_equal(c4.build_book(4, 4, 4, path, jobs=3).scores, whole.scores)  # resumed


def _assert_part_of(partial: Any, whole: Book, at_least: int) -> None:
    """The positions of a partial build: at least ``at_least``, each scored as in ``whole``."""
    keys, scores = partial["keys"].tolist(), partial["scores"].tolist()
    assert len(keys) >= at_least
    truth = dict(zip(whole.keys.tolist(), whole.scores.tolist(), strict=True))
    assert all(truth[key] == score for key, score in zip(keys, scores, strict=True))


def test_solvers_at_once_build_the_same_book(tmp_path: Path) -> None:
    one = c4.build_book(4, 4, 6, tmp_path / "one.npz")
    many = c4.build_book(4, 4, 6, tmp_path / "many.npz", jobs=3)
    assert np.array_equal(one.keys, many.keys) and np.array_equal(one.scores, many.scores)
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        c4.build_book(4, 4, 6, tmp_path / "none.npz", jobs=0)


# --- the perfect agent and the oracle --------------------------------------------------------


def test_perfect_agent_plays_the_solver_s_moves(game: ConnectFour, solver: Solver) -> None:
    assert PerfectAgent.supports(game) and not PerfectAgent.supports(ConnectFour(connect=3))
    agent = make_agent("perfect", seed=3, game=game)
    state = game.parse_position("2252576253462244111563365343671351441")
    best = solver.best_moves(state)
    for _ in range(3):
        decision = agent.act(state)
        assert decision.move.index in best
        assert decision.info is not None and decision.info.engine == "exact"
        assert decision.policy is not None and sorted(np.flatnonzero(decision.policy)) == best
        assert decision.value == np.sign(solver.solve(state))
    assert sorted(exact_play(game).best_actions(state)) == best


def test_perfect_falls_back_to_alpha_beta_out_of_time(game: ConnectFour) -> None:
    state = game.parse_position(BEYOND_BOOK)
    with pytest.raises(OutOfTime):
        exact_play(game).best_actions(state, seconds=0.04)
    decision = make_agent("perfect", seed=1, game=game).act(state, Limit(time=0.05))
    assert decision.move.index in state.legal_indices() and decision.value is None
    assert decision.info is not None and decision.info.engine == "alphabeta" and decision.info.depth > 0


@pytest.mark.parametrize(("spent", "left"), [(0.03, 0.02), (0.06, 0.05 * (1 - perfect.SOLVE_SHARE))])
def test_perfect_out_of_time_gives_alphabeta_what_the_solver_left(
    game: ConnectFour, monkeypatch: pytest.MonkeyPatch, spent: float, left: float
) -> None:
    # at time=0.05 alpha-beta got the whole 0.05 s again after the solver (a move took 0.087 s); the
    # agent's clock is faked so that the solver has spent `spent` of the move's time when it gives up
    agent = make_agent("perfect", seed=1, game=game)
    given: list[float] = []
    monkeypatch.setattr(agent, "_alphabeta", lambda state, seconds: given.append(seconds))
    agent.prepare(game)
    clock = iter([100.0, 100.0 + spent])
    monkeypatch.setattr(perfect, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    agent.act(game.parse_position(BEYOND_BOOK), Limit(time=0.05))
    assert given == [pytest.approx(left)]


@pytest.mark.parametrize("seconds", [None, 2.0])
def test_perfect_gives_the_solver_its_share_of_the_move_s_time(
    game: ConnectFour, monkeypatch: pytest.MonkeyPatch, seconds: float | None
) -> None:
    # without a time limit the move's time is the solver's default; alpha-beta keeps the rest
    from boardlab.games.connect4.exact import PERFECT_SECONDS, ConnectFourSolverPlay

    asked: list[float | None] = []

    def best_actions(self: Any, state: Any, seconds: float | None = None) -> list[int]:
        asked.append(seconds)
        return [state.legal_indices()[0]]

    monkeypatch.setattr(ConnectFourSolverPlay, "best_actions", best_actions)
    state = game.parse_position("2252576253462244111563365343671351441")
    make_agent("perfect", seed=1, game=game).act(state, Limit(time=seconds))
    move_time = PERFECT_SECONDS if seconds is None else seconds
    assert asked == [pytest.approx(perfect.SOLVE_SHARE * move_time)]


def test_move_accuracy(game: ConnectFour) -> None:
    positions = game_positions(game, ["random", "greedy"], games=4, seed=2, min_ply=16)
    assert positions and all(p.ply >= 16 for p in positions)
    perfect = move_accuracy("perfect", positions)
    assert perfect.positions == len([p for p in positions if not p.is_over])
    assert perfect.kept == perfect.positions and perfect.thrown == 0
    assert perfect.kept_share == 1.0
    rand = move_accuracy("random", positions, seed=5)
    assert rand.kept < rand.positions and rand.kept <= rand.kept_outcome
    assert rand.won == perfect.won and 0 <= rand.thrown <= rand.won
    # the same judgement from every column's exact score (the agent replays its choices)
    agent = make_agent("random", seed=5, game=game)
    solver = Solver.for_game(game)
    kept = kept_outcome = thrown = 0
    for state in positions:
        scores = solver.analyze(state)
        best = max(s for s in scores if s is not None)
        chosen = scores[agent.choose(state).index]
        kept += chosen == best
        kept_outcome += np.sign(chosen) == np.sign(best)
        thrown += best > 0 and chosen <= 0
    assert (rand.kept, rand.kept_outcome, rand.thrown) == (kept, kept_outcome, thrown)


# --- the CLI ----------------------------------------------------------------------------------


def game_of_moves(moves: str) -> Any:
    return ConnectFour().play_moves(moves)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_cli_solve_and_analyze() -> None:
    moves = "2252576253462244111563365343671351441"
    code, out = run("solve", "connect4", moves)
    assert code == 0, out
    assert "score       -1" in out and "best moves  6" in out and "perfect play 6" in out
    code, out = run("solve", "connect4", moves, "--weak")
    assert code == 0 and "loss for O" in out
    assert "best moves  6, 7  (keep the loss)" in out  # a lost position: every move keeps the loss
    code, out = run("analyze", "--game", "connect4", moves)
    assert code == 0, out
    assert "full" in out and "best" in out and "-2" in out
    best = [line.split("│")[1].strip() for line in out.splitlines() if "best" in line and "│" in line]
    assert best == ["6"]  # column 6 scores -1, column 7 -2
    # the board form, with or without the row separators, is the same position
    board = game_of_moves(moves).to_text()
    for text in (board, board.replace("/", "")):
        code, out = run("solve", "connect4", text)
        assert code == 0 and "score       -1" in out and "best moves  6" in out, out
    code, out = run("analyze", "--game", "connect4", "1212121")
    assert code == 0 and "game over: X wins" in out, out
    code, out = run("solve", "connect4", "1212121")
    assert code == 0 and "game over" in out and "-18" in out


def test_analyze_gives_the_solver_its_seconds_then_a_search_answers() -> None:
    """An early position the solver does not settle within --seconds is analysed by a search,
    saying why; within the time, every column's exact score."""
    code, out = run("analyze", "--game", "connect4", BEYOND_BOOK, "--seconds", "0.1")
    assert code == 0, out
    assert "no exact value: the solver settled not every move within 0.1 s" in " ".join(out.split())
    assert "alphabeta, up to 0.1 s of search" in out and "best move" in out  # the same --seconds
    code, out = run("analyze", "--game", "connect4", "2252576253462244111563365343671351", "--seconds", "5")
    assert code == 0 and "score of each column" in out and "no exact value" not in out, out


def test_scores_within_a_time_are_the_scores_or_nothing(solver: Solver) -> None:
    rng = random.Random(5)
    for _ in range(6):
        state = ConnectFour().initial()
        for _ in range(rng.randrange(14, 24)):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        if state.is_over:
            continue
        assert solver.analyze_within(state, 30.0) == solver.analyze(state)
        assert solver.analyze_within(state, 30.0, weak=True) == solver.analyze(state, weak=True)
    solver.reset()
    assert solver.analyze_within(ConnectFour().play_moves("443"), 0.05) is None  # minutes of work


def test_the_wait_for_an_early_position_names_the_command_that_builds_a_book(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`boardlab solve connect4` on an early position without a book says that an opening book
    would answer it, naming the command that builds one, which does."""
    hint = _waiting(Solver(7, 6, tt_log2=10, book=False), ConnectFour().play_moves("44"))
    commands = re.findall(r"`boardlab ([^`]+)`", hint)
    assert len(commands) == 1 and "minutes" in hint
    assert _waiting(Solver(7, 6, tt_log2=10, book=False), ConnectFour().initial()) == hint
    shipped = Solver(7, 6, tt_log2=10, book=Book.load(c4.SHIPPED_BOOK))
    # the book answers a position's best moves where it holds the position's children
    early = ("", "4", "44", "444", "4444", "44444")
    warned = [_waiting(shipped, ConnectFour().play_moves(moves)) == hint for moves in early]
    assert warned == [len(moves) >= SHIPPED_STONES for moves in early]
    built: list[tuple[Any, ...]] = []
    monkeypatch.setattr(connect4_cli, "build_book", lambda *args, **kw: built.append(args) or [])
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    code, out = run(*commands[0].split())
    assert code == 0, out
    assert built == [(7, 6, SHIPPED_STONES + 1, tmp_path / "connect4-book-7x6.npz")]  # deeper than shipped


def test_the_book_goes_into_the_folder_named_with_the_solvers_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    built: list[tuple[Any, ...]] = []
    monkeypatch.setattr(
        connect4_cli, "build_book", lambda *args, **kw: built.append((*args, kw["jobs"])) or []
    )
    code, out = run("solve", "connect4", "--book", "2", "--dir", str(tmp_path), "-j", "3")
    assert code == 0, out
    assert built == [(7, 6, 2, tmp_path / "connect4-book-7x6.npz", 3)]
    assert "Building the Connect Four opening book (2 stones, 3 solvers at once)" in out
    monkeypatch.setattr(os, "cpu_count", lambda: 5)
    code, out = run("solve", "connect4", "--book", "2", "--dir", str(tmp_path))
    assert code == 0 and built[-1][-1] == 5, out  # one a core by default


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("solve", "connect4", "4444444"), "ply 7: column 4 is full"),
        (("solve", "connect4", "12121212"), "ply 8: the game is already over"),
        (("solve", "connect4", "448"), "ply 3: '8' is not a column 1-7"),
        (("solve", "connect4", "44a3"), "ply 3: 'a' is not a column 1-7"),
        (("analyze", "--game", "connect4", "4x"), "ply 2"),
        (("solve", "connect4:connect=5", "44"), "lines of 4 only"),
        (("solve", "quixo", "44"), "a Quixo solve takes no position"),
        (("solve", "connect4", "--book", "9"), "--book must be in 0..8 stones"),
        (("solve", "connect4", "--book", "2", "--jobs", "0"), "--jobs must be at least 1, got 0"),
        (("solve", "connect4", "44", "--jobs", "2"), "--jobs is for building the Connect Four book"),
        (("solve", "quixo", "--jobs", "2"), "--jobs is for building the Connect Four book"),
        (("solve", "connect4:width=8", "--book", "2"), "is for Connect Four on 7x6, not connect4:width=8"),
        (("solve", "connect4", "44", "--book", "2"), "it takes no position"),
        (("solve", "quixo", "--book", "2"), "--book builds the Connect Four opening book"),
        (("solve", "connect4", "44", "--dir", "."), "--dir is where"),
        (("solve", "connect4:width=99", "4"), "width"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    code, out = run(*args)
    assert code == 2, out
    assert message in out and out.strip().startswith("Error:") and len(out.strip().splitlines()) == 1


def test_a_win_scores_half_the_cells_plus_one_minus_the_winners_stones_on_any_board() -> None:
    # docs/solvers.md: (W * H + 1) // 2 + 1 minus the winner's stones; 4x4: 9 - 4 for a win
    # with the 4th stone, and the opponent's loss to come is the negative
    game = ConnectFour(width=4, height=4)
    state = game.parse_position("121212")
    exact = exact_play(game)
    assert exact.position_value(state).score == 5
    assert [m.score for m in exact.move_values(state)] == [5, 0, -5, -5]


def test_the_move_that_fills_the_board_keeps_the_draw() -> None:
    game = ConnectFour(width=4, height=4)
    state = game.play_moves("432131114423423")  # one cell left, in column 2, and no line
    solver = Solver(4, 4, tt_log2=10, book=False)
    assert solver.solve(state) == 0 and solver.analyze(state) == [None, 0, None, None]
    assert solver.best_moves(state) == [1] and solver.principal_variation(state) == [1]
    assert exact_play(game).best_actions(state) == [1]


def test_a_finished_game_has_no_best_moves_rather_than_running_out_of_time() -> None:
    game = ConnectFour(width=4, height=4)
    state = game.parse_position("1212121")  # X's four in column 1
    assert state.is_over
    assert exact_play(game).best_actions(state, seconds=0.5) == []
    assert exact_play(game).position_value(state) == Value(LOSS, 0, -5)  # over: 0 plies to go
    # best moves come centre first, as the solver tries them
    best = exact_play(game).best_actions(game.initial(), seconds=5)
    assert len(best) > 1 and best == sorted(best, key=c4.column_order(4).index)


@pytest.mark.parametrize("book", [True, "book.npz"])
def test_book_that_is_no_book_is_refused(book: object) -> None:
    with pytest.raises(SolverError, match="book must be a Book, None or False"):
        Solver(5, 4, tt_log2=10, book=book)


@pytest.mark.timeout(120)
def test_sigterm_stops_a_book_build_of_two_solvers_at_once(tmp_path: Path) -> None:
    """Three-stone positions take a minute each here: the signal finds both solvers deep in a
    search, and the build ends within seconds, saying so, with status 143."""
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()"]
    args = ["solve", "connect4", "--book", "3", "--dir", str(tmp_path), "-j", "2"]
    process = subprocess.Popen(
        [*command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert process.stdout is not None
    try:
        heading = process.stdout.readline()
        assert heading.startswith("Building the Connect Four opening book (3 stones, 2 solvers"), heading
        time.sleep(2)  # both searches under way
        process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()  # a build the signal did not stop must not run on
        process.wait()
    assert process.returncode == 143 and time.monotonic() - started < 10, err
    assert err.strip().splitlines()[-1] == "Terminated.", err
    assert not (tmp_path / "connect4-book-7x6.npz").exists()


def test_the_book_benchmark_compares_solver_counts_on_equal_books(capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("benchmarks/connect4_book.py")
    args = [
        "--width",
        "4",
        "--height",
        "4",
        "--stones",
        "5",
        "--rounds",
        "1",
        "--jobs",
        "1",
        "3",
        "--tt",
        "12",
    ]
    assert script.main(args) == 0
    out = capsys.readouterr().out
    assert "4x4 book of 5 stones" in out and "books equal: yes" in out
    assert re.search(r"│\s+3 │.*│\s+\d+\.\d\dx │", out), out
