"""The game contract, checked unchanged against every registered game.

The checks ship in the package (:mod:`boardlab.games.conformance`), so that a game of another
package can run them on itself; here hypothesis drives them over many seeds and texts, and
``check_game`` runs them all on every registered variant. A new game is done when it passes:
the Python face and the compiled kernel agree move by move, finished positions have no moves,
symmetries commute with play and map masks and observations consistently, texts round-trip,
equal positions hash equal, bad input raises the game's error classes, and every generic agent
plays it and refuses it once it is over.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.agents import list_agents, make_agent
from boardlab.agents.base import Agent, NotAStateError
from boardlab.games import GAMES, available_games, parse_game
from boardlab.games import conformance as contract
from boardlab.games.base import Game, GameOverError, Reason, State
from boardlab.games.conformance import ConformanceError, check_game
from boardlab.games.tictactoe import TicTacToe

VARIANTS = {
    "quixo": ["quixo", "quixo:size=4", "quixo:rules=course", "quixo:size=3,ply_cap=40"],
    "connect4": ["connect4", "connect4:width=8,height=7", "connect4:width=4,height=4,connect=3"],
    "tictactoe": ["tictactoe"],
    "nim": ["nim", "nim:piles=2-3-4,k=2,misere=false", "nim:piles=5-5,misere=true,k=3"],
}
SPECS = [spec for name in available_games() for spec in VARIANTS.get(name, [name])]


def test_every_registered_game_is_checked_here() -> None:
    assert set(available_games()) == set(GAMES), "a registered game fails to import"
    assert set(VARIANTS) >= set(GAMES), "add the new game's variants to VARIANTS"


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


@pytest.mark.parametrize(
    ("broken", "message"),
    [(ForgetfulTicTacToe(), "does not round-trip"), (LenientTicTacToe(), "parse_move")],
)
def test_check_game_names_a_broken_promise(broken: Game, message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(broken, games=3)


# --- every agent on every game -------------------------------------------------------------

QUICK_SETTINGS = {
    "minimax": "minimax:depth=2",
    "alphabeta": "alphabeta:depth=3",
    "mcts": "mcts:iters=200,rollouts=2",
    "hybrid": "hybrid:time=0.05,search=(alphabeta:depth=2)",
    "openspiel": "openspiel:sims=50",
}


@pytest.mark.parametrize("name", sorted(GAMES))
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
    for name in sorted(GAMES)
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
        agent.choose("X.O/.../... O 2")
    for state in finished_positions(game):
        with pytest.raises(GameOverError, match="first-move was asked to move in a finished game"):
            agent.act(state)
        with pytest.raises(GameOverError, match="finished game"):
            agent.choose(state)
