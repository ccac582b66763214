"""The Gymnasium bridge: Gymnasium's environment checker on every registered environment, the
episode against boardlab's rules and the opponent, and bad input."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.agents import make_agent
from boardlab.games import GameOptionError, GameOverError, parse_game
from boardlab.interop.gymnasium import (
    ENVIRONMENTS,
    BoardlabEnv,
    EnvOptionError,
    IllegalActionError,
    OpponentSpecError,
    UnplayableSideError,
)


@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_gymnasium_checker_passes(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make(env_id).unwrapped)  # also renders in every mode through the spec


@pytest.mark.parametrize(
    ("env_id", "game", "opponent"),
    [
        ("boardlab/Quixo-v0", "quixo", "alphabeta:depth=2"),
        ("boardlab/Quixo-v0", "quixo:size=4,rules=course", "greedy"),
        ("boardlab/ConnectFour-v0", "connect4:width=5,height=4", "greedy"),
        ("boardlab/Nim-v0", "nim:piles=3-4-5,misere=false,k=2", "greedy"),
    ],
)
def test_checker_passes_on_variants_and_searching_opponents(env_id: str, game: str, opponent: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make(env_id, game=game, opponent=opponent).unwrapped)


@settings(max_examples=40)
@given(
    env_id=st.sampled_from(sorted(ENVIRONMENTS)),
    side=st.sampled_from([0, 1, None]),
    seed=st.integers(0, 2**31 - 1),
)
def test_an_episode_follows_the_rules_and_the_opponent(env_id: str, side: int | None, seed: int) -> None:
    env = gymnasium.make(env_id, opponent="greedy", side=side).unwrapped
    observation, info = env.reset(seed=seed)
    learner = info["side"]
    assert side is None or learner == side
    rng = np.random.default_rng(seed)
    # the opponent is rebuilt from the seed the environment drew, so the same moves are expected
    replay = parse_game(ENVIRONMENTS[env_id]).initial()
    reward, terminated, truncated = 0.0, False, False
    while not (terminated or truncated):
        state = env.position
        assert state.to_move == learner
        np.testing.assert_array_equal(info["action_mask"], state.legal_mask().astype(np.int8))
        np.testing.assert_array_equal(observation, state.observation())
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        replay = state.play_index(action)
        if not replay.is_over:
            assert info["opponent_move"] is not None
            replay = replay.play(replay.parse_move(info["opponent_move"]))
        assert replay == env.position
    outcome = env.position.outcome
    expected = 0.0 if outcome.winner is None else 1.0 if outcome.winner == learner else -1.0
    assert reward == expected and not info["action_mask"].any()


def test_the_opponent_is_the_agent_of_its_spec_seeded_from_the_reset() -> None:
    env = gymnasium.make("boardlab/Quixo-v0", opponent="random", side=1).unwrapped
    env.reset(seed=5)
    # Gymnasium's generator for seed 5 is numpy's default_rng(5); the opponent's seed is its first draw
    agent = make_agent("random", seed=int(np.random.default_rng(5).integers(2**31)))
    start = parse_game("quixo").initial()
    assert env.position == start.play(agent.act(start).move)


def test_a_seeded_reset_replays_the_same_games() -> None:
    def episode(seed: int) -> list[str]:
        env = gymnasium.make("boardlab/ConnectFour-v0", opponent="random").unwrapped
        _, info = env.reset(seed=seed)
        moves, done = [], False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            _, _, terminated, truncated, info = env.step(action)
            moves.append(str(info["opponent_move"]))
            done = terminated or truncated
        return moves

    assert episode(7) == episode(7)


def test_without_a_side_the_learner_plays_both_sides_drawn_from_the_seed() -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0").unwrapped
    sides = [env.reset(seed=seed)[1]["side"] for seed in range(12)]
    assert set(sides) == {0, 1}
    assert [env.reset(seed=seed)[1]["side"] for seed in range(12)] == sides
    for seed, side in enumerate(sides):  # the opponent has moved first where the learner is second
        env.reset(seed=seed)
        assert env.position.ply == side


def test_a_reset_after_an_illegal_action_starts_a_playable_episode() -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0", side=0).unwrapped
    env.reset(seed=1)
    env.step(4)
    _, reward, terminated, _, info = env.step(4)  # the centre is taken
    assert reward == -1.0 and terminated and not info["action_mask"].any()
    _, info = env.reset(seed=2)
    assert info["action_mask"].sum() == 9 and info["opponent_move"] is None  # nothing from before
    _, _, terminated, _, info = env.step(4)
    assert not terminated and "illegal_action" not in info


def test_a_step_after_the_game_ended_is_refused_until_a_reset() -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0", side=0, opponent="random").unwrapped
    _, info = env.reset(seed=3)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    with pytest.raises(GameOverError, match=r"call reset\(\) first"):
        env.step(0)


def test_a_game_cut_by_the_ply_cap_is_truncated_with_no_reward() -> None:
    env = gymnasium.make("boardlab/Quixo-v0", game="quixo:ply_cap=2", side=0).unwrapped
    _, info = env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert not info["action_mask"].any()


def test_an_action_is_a_whole_number_or_a_0_d_array_of_one() -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0", side=0, opponent="random").unwrapped
    env.reset(seed=0)
    env.step(np.array(4))  # what a policy network's argmax gives
    assert env.position.ply == 2  # the move and the opponent's answer
    for action in (True, np.bool_(False), 4.0, np.array([4]), -1, 9):
        with pytest.raises(IllegalActionError, match=r"an action is a whole number in 0\.\.8"):
            env.step(action)


def test_an_illegal_action_loses_or_raises() -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0", side=0).unwrapped
    env.reset(seed=1)
    taken = int(np.flatnonzero(env.position.observation()[1].ravel())[0]) if env.position.ply else None
    _, _, _, _, info = env.step(4)
    occupied = 4 if taken is None else taken
    _, reward, terminated, truncated, info = env.step(occupied)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not info["action_mask"].any()
    with pytest.raises(GameOverError):
        env.step(0)

    strict = gymnasium.make("boardlab/TicTacToe-v0", side=0, illegal="raise").unwrapped
    strict.reset(seed=1)
    strict.step(4)
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step(4)
    with pytest.raises(IllegalActionError, match=r"0\.\.8"):
        strict.step(9)


def test_bad_input_gets_one_clear_error() -> None:
    with pytest.raises(OpponentSpecError, match="opponent 'nosuch': unknown agent 'nosuch'"):
        gymnasium.make("boardlab/Quixo-v0", opponent="nosuch")
    with pytest.raises(OpponentSpecError, match="unknown option 'dpth'"):
        gymnasium.make("boardlab/Quixo-v0", opponent="alphabeta:dpth=2")
    with pytest.raises(OpponentSpecError, match="nim"):
        gymnasium.make("boardlab/Quixo-v0", opponent="nimga")
    with pytest.raises(GameOptionError):
        gymnasium.make("boardlab/Quixo-v0", game="quixo:size=9")
    with pytest.raises(ValueError, match="side"):
        gymnasium.make("boardlab/Quixo-v0", side=2)
    with pytest.raises(ValueError, match="illegal must be one of lose, raise, got 'forfeit'"):
        gymnasium.make("boardlab/Quixo-v0", illegal="forfeit")


@pytest.mark.parametrize("side", [1.0, True, "1", np.float64(0.0)])
def test_a_side_is_a_whole_zero_or_one(side: object) -> None:
    with pytest.raises(ValueError, match=r"side must be 0 .*, 1 or None"):
        gymnasium.make("boardlab/TicTacToe-v0", side=side)
    _, info = gymnasium.make("boardlab/TicTacToe-v0", side=np.int64(1)).reset(seed=0)
    assert info["side"] == 1 and type(info["side"]) is int


def test_an_id_plays_its_own_game_and_its_variants_only() -> None:
    with pytest.raises(
        GameOptionError, match="plays quixo: game= picks one of its variants, not nim; boardlab/Nim-v0"
    ):
        gymnasium.make("boardlab/Quixo-v0", game="nim")
    with pytest.raises(GameOptionError, match="plays nim"):
        gymnasium.make("boardlab/Nim-v0", game=parse_game("tictactoe"))
    assert gymnasium.make("boardlab/Nim-v0", game="nim:piles=2-3").unwrapped.game == parse_game(
        "nim:piles=2-3"
    )
    assert BoardlabEnv(game="connect4").game.name == "connect4"  # the bare class plays any game


def test_the_opponent_is_given_as_a_spec() -> None:
    with pytest.raises(OpponentSpecError, match="got an agent: give its spec, opponent='greedy'"):
        gymnasium.make("boardlab/TicTacToe-v0", opponent=make_agent("greedy", seed=0))
    with pytest.raises(OpponentSpecError, match="opponent is an agent spec such as 'greedy', got int"):
        gymnasium.make("boardlab/TicTacToe-v0", opponent=3)


def test_rgb_and_text_pictures() -> None:
    env = gymnasium.make("boardlab/Quixo-v0", render_mode="rgb_array", side=0).unwrapped
    env.reset(seed=0)
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.shape[2] == 3
    text_env = gymnasium.make("boardlab/Nim-v0", render_mode="ansi").unwrapped
    text_env.reset(seed=0)
    assert "to move" in text_env.render()


@pytest.mark.parametrize(
    ("env_id", "game", "opponent", "ending"),
    [
        ("boardlab/Nim-v0", "nim:piles=2,misere=false", "optimal", "1:2"),
        ("boardlab/Quixo-v0", "quixo:size=3,ply_cap=1", "random", "a1a3"),
    ],
)
def test_a_variant_whose_opening_can_end_the_game_is_refused_for_the_second_side(
    env_id: str, game: str, opponent: str, ending: str
) -> None:
    # a reset there could hand the learner a finished game: no mask, no end signal, no move
    for side in (1, None):
        with pytest.raises(UnplayableSideError, match=f"its opening move {ending} ends the game.*use side=0"):
            gymnasium.make(env_id, game=game, side=side, opponent=opponent)
    env = gymnasium.make(env_id, game=game, side=0, opponent=opponent)
    env.reset(seed=0)
    with pytest.raises(UnplayableSideError, match=r"options\['side'\]=1: the opponent moves first"):
        env.reset(seed=0, options={"side": 1})
    _, info = env.reset(seed=0)  # the docs' loop runs to its end
    terminated = truncated = False
    while not (terminated or truncated):
        assert info["action_mask"].any()
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, truncated, info = env.step(action)


@pytest.mark.parametrize(
    "game",
    [
        "nim:piles=1,misere=true",
        "nim:piles=3,misere=false",
        "nim:piles=1-1,misere=false",
        "nim:piles=2-2,misere=false,k=1",
        "nim:piles=1-2",
        "quixo:size=3,ply_cap=2",
        "tictactoe",
        "connect4:width=4,height=4",
    ],
)
def test_a_reset_always_leaves_the_learner_a_move(game: str) -> None:
    position = parse_game(game).initial()
    opening_ends = any(position.play_index(i).is_over for i in position.legal_indices())
    for side in (0, 1, None):
        try:
            env = BoardlabEnv(game=game, side=side, opponent="random")
        except UnplayableSideError:
            assert opening_ends and side != 0
            continue
        assert not opening_ends or side == 0
        for seed in range(20):
            _, info = env.reset(seed=seed)
            assert not env.position.is_over and info["action_mask"].any()
            assert env.position.to_move == info["side"]


def test_reset_options_set_the_side_of_one_episode() -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0", side=1, opponent="random")
    _, info = env.reset(seed=0, options={"side": 0})
    assert info["side"] == 0 and info["action_mask"].sum() == 9
    _, info = env.reset(seed=0)  # the next episode is the environment's side again
    assert info["side"] == 1 and info["action_mask"].sum() == 8
    _, info = env.reset(seed=0, options={})
    assert info["side"] == 1
    drawn = [env.reset(seed=seed, options={"side": None})[1]["side"] for seed in range(12)]
    assert set(drawn) == {0, 1}
    assert [env.reset(seed=seed, options={"side": None})[1]["side"] for seed in range(12)] == drawn


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bogus": 1}, "unknown reset option 'bogus'; accepted: side"),
        ({"side": 0, 3: 1}, "unknown reset option '3'; accepted: side"),
        ("side", "reset options are a dict such as {'side': 0}, got str"),
        ({"side": 2}, r"options\['side'\] must be 0 \(the learner moves first\), 1 or None \(drawn\), got 2"),
        ({"side": True}, r"options\['side'\] must be 0 .*got True \(bool\)"),
    ],
)
def test_a_reset_option_it_does_not_take_is_refused(options: object, message: str) -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0", side=0)
    env.reset(seed=0)
    env.step(4)
    with pytest.raises(EnvOptionError, match=message):
        env.reset(seed=1, options=options)
    assert env.unwrapped.position.ply == 2  # the refused reset changed nothing


def test_action_masks_are_the_legal_actions_as_booleans() -> None:
    env = gymnasium.make("boardlab/TicTacToe-v0", side=1, opponent="random")
    _, info = env.reset(seed=3)
    masks = env.get_wrapper_attr("action_masks")  # how sb3-contrib reaches it through the wrappers
    assert masks().dtype == np.bool_ and masks().shape == (9,)
    np.testing.assert_array_equal(masks(), info["action_mask"].astype(bool))
    assert masks().sum() == 8
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(masks())[0]))
        np.testing.assert_array_equal(masks(), info["action_mask"].astype(bool))
        done = terminated or truncated
    assert not masks().any()


@pytest.mark.parametrize("game", [5, 2.0, ["nim"]])
def test_a_game_that_is_not_a_spec_string_is_named_as_such(game: object) -> None:
    shown = type(game).__name__
    with pytest.raises(GameOptionError, match=f"game= is a game spec, a string such as .*, got {shown}$"):
        gymnasium.make("boardlab/TicTacToe-v0", game=game)
    with pytest.raises(GameOptionError, match=f"got {shown}$"):
        BoardlabEnv(game=game)
