"""Tic-Tac-Toe: rules, notation, texts, kernel properties and the perfect agent."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from rich.text import Text

from boardlab.agents import Agent, make_agent
from boardlab.agents.perfect import PerfectAgent
from boardlab.games import Outcome, Reason, parse_game
from boardlab.games.base import (
    DRAW,
    LOSS,
    ONGOING,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
    transform_observations,
)
from boardlab.games.small_solver import solve
from boardlab.games.tictactoe import Cell, State, TicTacToe

GAME = TicTacToe()


def reachable() -> list[State]:
    """Every position reachable from the empty board (finished ones included), once each."""
    seen = {GAME.initial().words: GAME.initial()}
    frontier = [GAME.initial()]
    while frontier:
        nxt = []
        for state in frontier:
            for action in state.legal_indices():
                child = state.play_index(action)
                if child.words not in seen:
                    seen[child.words] = child
                    nxt.append(child)
        frontier = nxt
    return list(seen.values())  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def positions() -> list[State]:
    return reachable()


def test_registry_and_metadata() -> None:
    game = parse_game("tictactoe")
    assert game == GAME
    assert game.spec == "tictactoe"
    assert game.title == "Tic-Tac-Toe"
    assert game.evaluations == ("lines",)
    assert "b2" in game.notation_help


def test_5478_legal_positions(positions: list[State]) -> None:
    assert len(positions) == 5478
    # the same boards are exactly those the position checks accept among all 3^9 fillings
    accepted = 0
    for cells in itertools.product("XO.", repeat=9):
        try:
            GAME.parse_position("".join(cells))
        except PositionParseError:
            continue
        accepted += 1
    assert accepted == 5478


def test_empty_board_is_a_draw() -> None:
    solution = solve(GAME.initial())
    assert len(solution) == 5478
    assert solution.value(GAME.initial()) == DRAW
    assert solution.depth(GAME.initial()) == 9


def test_status_rules() -> None:
    won = GAME.parse_position("XXX/OO./... O 5")
    assert won.status == LOSS and won.winner == 0 and won.is_over
    assert won.outcome is not None and won.outcome.detail == "three in a row"
    drawn = GAME.parse_position("XOX/XOO/OXX")
    assert drawn.status == DRAW and drawn.is_draw
    assert drawn.outcome is not None and drawn.outcome.detail == "full board"
    won_on_full = GAME.parse_position("XOX/OXO/XOX")
    assert won_on_full.status == LOSS and won_on_full.winner == 0


def test_notation() -> None:
    assert str(Cell(1, 1)) == "b2"
    assert [str(GAME.move_of(a)) for a in range(9)] == [c + r for r in "123" for c in "abc"]
    for action in range(9):
        assert GAME.parse_action(str(action + 1)) == action
        assert GAME.parse_action(str(GAME.move_of(action))) == action
        assert GAME.action_of(GAME.move_of(action)) == action
    assert GAME.parse_action(" B3 ") == 7
    state = GAME.initial().play("5")
    assert state.to_text() == ".../.X./... O 1"


@pytest.mark.parametrize("text", ["", "d1", "a4", "a0", "0", "10", "b", "b22", "2b", "a1a2", "x", "١"])
def test_bad_move_text(text: str) -> None:
    with pytest.raises(MoveParseError):
        GAME.parse_action(text)


def test_illegal_moves_and_game_over() -> None:
    state = GAME.initial().play("b2")
    with pytest.raises(IllegalMoveError, match="taken"):
        state.play("b2")
    with pytest.raises(IllegalMoveError):
        state.play(Cell(3, 0))
    with pytest.raises(IllegalMoveError):
        state.play_index(9)
    with pytest.raises(IllegalMoveError):
        GAME.action_of((1, 1))
    over = GAME.parse_position("XXX/OO./...")
    assert over.legal_moves() == []
    with pytest.raises(GameOverError):
        over.play("c3")
    with pytest.raises(GameOverError):
        over.parse_move("c3")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "X.O/.X./..",  # 8 cells
        "X.O/.X./....",  # 10 cells
        "X.O/.Z./...",  # bad symbol
        "XX./.../...",  # two X, no O
        "O../.../...",  # O first
        "X../.../... X",  # X to move after X played
        ".../.../... O",  # O to move on the empty board
        "X../.../... O 2",  # ply does not count the stones
        "X../.../... O -1",
        "X../.../... O x",
        "X../.../... Q",
        "XXX/OOO/... X",  # both lines
        "X.. O 1 extra",
        "XXX/OO./... X",  # the counts say O is to move
    ],
)
def test_bad_position_text(text: str) -> None:
    with pytest.raises(PositionParseError):
        GAME.parse_position(text)


@pytest.mark.parametrize("masks", [(1.5, 0), (1, True), ("1", 0), (None, 0)])
def test_positions_from_masks_take_integers_only(masks: tuple[object, object]) -> None:
    with pytest.raises(PositionParseError, match="cell masks must be integers"):
        GAME.from_masks(*masks)  # type: ignore[arg-type]
    assert GAME.from_masks(np.int64(1), np.int64(2)).to_text() == "XO./.../... X 2"


def test_position_parsing_details() -> None:
    state = GAME.parse_position("x.o/.x./...")
    assert state.to_move == 1 and state.ply == 3
    assert state.to_text() == "X.O/.X./... O 3"
    assert GAME.parse_position("X.O.X.... O 3") == state
    assert state.x_cells == 0b000010001 and state.o_cells == 0b100
    assert state.board() == [[0, -1, 1], [-1, 0, -1], [-1, -1, -1]]


def test_text_round_trip(positions: list[State]) -> None:
    for state in positions:
        again = GAME.parse_position(state.to_text())
        assert again == state and again.status == state.status


def test_kernel_properties(positions: list[State]) -> None:
    kernel = GAME.kernel
    ctx = kernel.ctx
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    for state in positions:
        a, b = np.int64(state.a), np.int64(state.b)
        status = kernel.status(ctx, a, b)
        n = kernel.gen_moves(ctx, a, b, buf)
        assert status != ONGOING or n > 0
        obs = state.observation()
        for sym in range(kernel.num_symmetries):
            sa, sb = kernel.symmetry(ctx, a, b, sym)
            assert kernel.status(ctx, sa, sb) == status
            assert kernel.evaluate(ctx, sa, sb, 0) == kernel.evaluate(ctx, a, b, 0)
            assert kernel.symmetry(ctx, sa, sb, kernel.sym_inverse[sym]) == (a, b)
            image = np.zeros(kernel.obs_shape, dtype=np.float32)
            kernel.observe(ctx, sa, sb, image)
            assert np.array_equal(image, transform_observations(kernel, obs, sym))
            if status != ONGOING:
                continue
            for action in buf[:n]:
                played = kernel.symmetry(ctx, *kernel.play(ctx, a, b, action), sym)
                assert played == kernel.play(ctx, sa, sb, kernel.action_maps[sym, action])


def test_observation_and_evaluation() -> None:
    state = GAME.parse_position("X.O/.X./... O 3")
    obs = state.observation()
    assert obs.shape == (2, 3, 3) and obs.dtype == np.float32
    assert obs[0].tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 0]]  # O, to move
    assert obs[1].tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    kernel = GAME.kernel
    x_ahead = kernel.evaluate(kernel.ctx, np.int64(state.a), np.int64(state.b), 0)
    assert x_ahead < 0  # O is to move and X has the better lines
    assert kernel.evaluate(kernel.ctx, np.int64(0), np.int64(0), 0) == 0.0


def test_views() -> None:
    state = GAME.parse_position("XXX/OO./... O 5")
    view = state.to_json()
    assert view["cells"] == [[0, 0, 0], [1, 1, -1], [-1, -1, -1]]
    assert view["win_line"] == [[0, 0], [1, 0], [2, 0]]
    assert view["legal"] == [] and view["outcome"]["winner"] == 0
    assert GAME.initial().to_json()["win_line"] == []
    rendered = state.render(last_move=Cell(2, 0))
    assert isinstance(rendered, Text) and "X X X" in rendered.plain
    assert str(state).splitlines()[0].split() == ["a", "b", "c"]


def naive_winner(board: list[list[str]]) -> str | None:
    lines = [[(x, y) for x in range(3)] for y in range(3)]
    lines += [[(x, y) for y in range(3)] for x in range(3)]
    lines += [[(i, i) for i in range(3)], [(2 - i, i) for i in range(3)]]
    for line in lines:
        marks = {board[y][x] for x, y in line}
        if len(marks) == 1 and "." not in marks:
            return marks.pop()
    return None


def test_lockstep_with_naive_reference() -> None:
    rng = random.Random(7)
    for _ in range(300):
        state = GAME.initial()
        board = [["."] * 3 for _ in range(3)]
        turn = "X"
        while True:
            winner = naive_winner(board)
            empties = [(x, y) for y in range(3) for x in range(3) if board[y][x] == "."]
            over = winner is not None or not empties
            assert state.is_over == over
            assert state.cells() == "".join("".join(row) for row in board)
            assert state.to_move == "XO".index(turn)
            if over:
                assert state.winner == (None if winner is None else "XO".index(winner))
                break
            assert [(m.x, m.y) for m in state.legal_moves()] == empties
            x, y = rng.choice(empties)
            board[y][x] = turn
            turn = "O" if turn == "X" else "X"
            state = state.play(Cell(x, y))


def never_loses(state: State, side: int, agent: Agent, seen: set[tuple[int, int]]) -> None:
    """Walk every line of the opponent against the agent's answers; fail on a loss."""
    if state.is_over:
        assert state.winner in (None, side), state.to_text()
        return
    if state.words in seen:
        return
    seen.add(state.words)
    if state.to_move == side:
        never_loses(state.play(agent.choose(state)), side, agent, seen)
    else:
        for action in state.legal_indices():
            never_loses(state.play_index(action), side, agent, seen)


@pytest.mark.parametrize("side", [0, 1])
def test_perfect_agent_never_loses(side: int) -> None:
    for seed in (1, 2):
        never_loses(GAME.initial(), side, PerfectAgent(seed=seed), set())


@pytest.mark.parametrize("side", [0, 1])
def test_the_default_agent_never_loses_to_any_line_of_play(side: int) -> None:
    # every line of the opponent, the perfect player's among them
    never_loses(GAME.initial(), side, make_agent("hybrid:time=0.05", seed=3, game=GAME), set())


def test_perfect_agent_wins_fastest() -> None:
    # X wins at once with c1; b2 also wins, two plies later: the agent must take c1
    state = GAME.parse_position("XX./O../O.. X 4")
    moves = solve(state).move_values(state)
    assert moves[GAME.parse_action("c1")] == (1, 1)
    assert moves[GAME.parse_action("b2")] == (1, 3)
    for seed in range(5):
        assert str(PerfectAgent(seed=seed).choose(state)) == "c1"
    assert PerfectAgent.supports(GAME)


@pytest.mark.parametrize("winner", [0, 1, None])
def test_an_outcome_scores_its_winner_and_reads_back_whole(winner: int | None) -> None:
    outcome = Outcome(winner, Reason.FORFEIT if winner is not None else Reason.DRAW, "a detail")
    scores = [outcome.score_for(0), outcome.score_for(1)]
    assert scores == ([0.5, 0.5] if winner is None else [float(winner == 0), float(winner == 1)])
    assert Outcome.from_json(outcome.to_json()) == outcome
    head = "draw" if winner is None else f"{'XO'[winner]} wins"
    assert outcome.text() == (f"{head} (forfeit: a detail)" if winner is not None else f"{head} (a detail)")
