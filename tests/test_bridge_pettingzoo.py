"""The PettingZoo bridge: PettingZoo's own API and seed tests on every game and variant, and
the environment's games checked against boardlab's rules move by move."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from boardlab.games import GameOptionError, parse_game
from boardlab.interop.pettingzoo import (
    AGENTS,
    IllegalActionError,
    RenderModeError,
    UnknownAgentError,
    env,
    raw_env,
)
from boardlab.interop.views import (
    BACKGROUND,
    BORDER_PIXELS,
    CELL_PIXELS,
    FILLED,
    GRID,
    PLAYER_COLOURS,
    planes_for,
    rgb_picture,
)

VARIANTS = (
    "tictactoe",
    "connect4",
    "connect4:width=5,height=4,connect=3",
    "nim",
    "nim:piles=3-4-5,misere=false",
    "nim:piles=2-6,k=3",
    "quixo:size=3",
    "quixo:size=4",
    "quixo",
    "quixo:size=3,rules=course",
    "quixo:size=4,rules=course",
    "quixo:rules=course",
)


@pytest.mark.parametrize("spec", VARIANTS)
def test_pettingzoo_api_and_seed_tests(spec: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the classic games' warnings (dict observations, zeros)
        api_test(env(spec), num_cycles=300, verbose_progress=False)
        seed_test(lambda: env(spec), num_cycles=100)


@given(spec=st.sampled_from(VARIANTS), seed=st.integers(0, 2**31 - 1))
def test_environment_plays_boardlab_rules(spec: str, seed: int) -> None:
    board = env(spec)
    board.reset(seed=seed)
    state = parse_game(spec).initial()
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    for agent in board.agent_iter():
        observation, reward, termination, truncation, _ = board.last()
        totals[agent] += reward
        if termination or truncation:
            assert state.is_over and not observation["action_mask"].any()
            board.step(None)
            continue
        assert agent == AGENTS[state.to_move]
        np.testing.assert_array_equal(observation["action_mask"], state.legal_mask().astype(np.int8))
        np.testing.assert_array_equal(observation["observation"], state.observation())
        waiting = board.observe(AGENTS[1 - state.to_move])
        assert not waiting["action_mask"].any()
        planes = state.observation()
        np.testing.assert_array_equal(waiting["observation"], planes if len(planes) == 1 else planes[::-1])
        action = int(rng.choice(state.legal_indices()))
        state = state.play_index(action)
        board.step(action)
    winner = state.outcome.winner
    expected = {a: 0.0 for a in AGENTS} if winner is None else {AGENTS[winner]: 1.0, AGENTS[1 - winner]: -1.0}
    assert totals == expected


def test_an_illegal_move_loses_for_the_mover_only() -> None:
    board = env("connect4")
    board.reset()
    for _ in range(6):
        board.step(3)  # fills column 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board.step(3)
    assert all(board.terminations.values())
    assert board.rewards == {"player_0": -1.0, "player_1": 0.0}
    _, reward, termination, _, _ = board.last()
    assert termination and reward == -1.0


def test_the_raw_environment_refuses_an_illegal_action() -> None:
    board = raw_env("tictactoe")
    board.reset()
    board.step(4)
    with pytest.raises(IllegalActionError, match="cannot play action 4"):
        board.step(4)
    with pytest.raises(IllegalActionError):
        board.step(9)
    with pytest.raises(IllegalActionError):
        board.step("b2")
    with pytest.raises(IllegalActionError):
        board.step(True)  # a bool is not an action, though Python counts it as 1


def test_a_capped_game_is_truncated_with_no_reward() -> None:
    board = env("quixo:size=5,ply_cap=2")
    board.reset()
    board.step(0)
    board.step(int(np.flatnonzero(board.observe("player_1")["action_mask"])[0]))
    assert all(board.truncations.values()) and not any(board.terminations.values())
    assert board.rewards == {"player_0": 0.0, "player_1": 0.0}
    for _ in range(2):  # each truncated agent steps out with None, as in PettingZoo's loop
        board.step(None)
    assert board.agents == []


def test_bad_game_or_render_mode_is_refused() -> None:
    with pytest.raises(GameOptionError, match="unknown game"):
        env("chess")
    with pytest.raises(GameOptionError):
        env("quixo:size=6")
    with pytest.raises(RenderModeError, match="human, ansi, rgb_array"):
        env("quixo", render_mode="pygame")


def test_observing_an_unknown_agent_names_it() -> None:
    board = env("tictactoe")
    board.reset()
    for agent in ("player_9", 0, None):
        for ask in (board.observe, board.observation_space, board.action_space):
            with pytest.raises(
                UnknownAgentError, match=f"unknown agent '{agent}'; the agents are player_0, player_1"
            ):
                ask(agent)
    assert board.action_space("player_1").n == 9


@pytest.mark.parametrize("game", [5, None, ["nim"]])
def test_a_game_that_is_not_a_spec_string_is_named_as_such(game: object) -> None:
    shown = type(game).__name__
    with pytest.raises(GameOptionError, match=f"a game spec is a string such as .*, got {shown}$"):
        env(game)  # type: ignore[arg-type]


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    text_board = env("tictactoe", render_mode="ansi")
    text_board.reset()
    text_board.step(4)
    text = text_board.render()
    assert "X" in text and "O to move" in text

    picture_board = env("connect4", render_mode="rgb_array")
    picture_board.reset()
    empty = picture_board.render()
    picture_board.step(0)
    picture_board.step(6)
    picture = picture_board.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    changed = np.argwhere((picture != empty).any(axis=2))
    assert len(changed) > 0
    # X's stone bottom left, O's bottom right, in two different colours
    bottom = picture[-5]
    assert tuple(bottom[5]) == PLAYER_COLOURS[0] and tuple(bottom[-6]) == PLAYER_COLOURS[1]
    picture_board.step(1)  # O to move now: the colours stay with the players
    assert tuple(picture_board.render()[-5][5]) == PLAYER_COLOURS[0]

    human_board = env("nim", render_mode="human")
    human_board.reset()
    human_board.step(0)
    assert "(1)" in capsys.readouterr().out


def _cell_centres(picture: np.ndarray, rows: int, columns: int) -> list[list[tuple[int, ...]]]:
    step = CELL_PIXELS + BORDER_PIXELS
    middle = BORDER_PIXELS + CELL_PIXELS // 2
    return [
        [tuple(picture[middle + r * step, middle + c * step]) for c in range(columns)] for r in range(rows)
    ]


@pytest.mark.parametrize(
    ("game", "moves"),
    [
        ("tictactoe", ["b2", "a1", "c1"]),
        ("tictactoe", ["b2", "a1"]),
        ("connect4:width=5,height=4", ["3", "2", "3"]),
    ],
)
def test_the_picture_shows_each_players_pieces_in_their_colour_on_a_grid(game: str, moves: list[str]) -> None:
    state = parse_game(game).initial()
    for move in moves:
        state = state.play(state.parse_move(move))
    board = state.to_text().split()[0].split("/")  # the rows, top first: X, O or .
    picture = rgb_picture(state)
    rows, columns = len(board), len(board[0])
    step = CELL_PIXELS + BORDER_PIXELS
    assert picture.shape == (rows * step + BORDER_PIXELS, columns * step + BORDER_PIXELS, 3)
    colour_of = {"X": PLAYER_COLOURS[0], "O": PLAYER_COLOURS[1], ".": BACKGROUND}
    assert _cell_centres(picture, rows, columns) == [[colour_of[mark] for mark in row] for row in board]
    assert tuple(picture[0, 0]) == tuple(picture[-1, -1]) == GRID  # the grid around the cells


def test_the_picture_of_nim_fills_one_cell_per_object() -> None:
    state = parse_game("nim:piles=2-4").initial().play_index(0)  # takes one from the first pile
    piles = [int(n) for n in state.to_text().split()[0].split("-")]
    rows, columns = state.observation().shape[1:]
    picture = rgb_picture(state)
    filled = [[colour == FILLED for colour in row] for row in _cell_centres(picture, rows, columns)]
    assert [sum(row) for row in filled] == piles
    assert all(
        colour in (FILLED, BACKGROUND) for row in _cell_centres(picture, rows, columns) for colour in row
    )


@pytest.mark.parametrize("game", ["tictactoe", "nim"])
def test_each_players_view_shows_its_own_pieces_first(game: str) -> None:
    state = parse_game(game).initial()
    state = state.play_index(state.legal_indices()[0])
    mover, waiting = planes_for(state, state.to_move), planes_for(state, 1 - state.to_move)
    assert np.array_equal(mover, state.observation())
    expected = state.observation() if state.observation().shape[0] == 1 else state.observation()[::-1]
    assert np.array_equal(waiting, expected)
    if game == "tictactoe":  # the first player's one piece is in its own first plane
        assert planes_for(state, 0)[0].sum() == 1 and planes_for(state, 0)[1].sum() == 0


@pytest.mark.parametrize("action", [9, 99, -1])
def test_an_action_outside_the_space_is_refused_and_nothing_is_played(action: int) -> None:
    board = env("tictactoe")
    board.reset()
    with pytest.raises(AssertionError, match="not in action space"):
        board.step(action)
    assert board.unwrapped.state_now.ply == 0 and not any(board.terminations.values())
