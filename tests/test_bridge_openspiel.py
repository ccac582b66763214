"""The OpenSpiel bridge: boardlab's rules against OpenSpiel's C++ games over many random games,
boardlab's games as OpenSpiel Python games, and OpenSpiel's bots as a boardlab agent."""

from __future__ import annotations

import pickle
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts as python_mcts
from open_spiel.python.algorithms import minimax

from boardlab.agents import AgentSpecError, make_agent
from boardlab.agents.decision import Limit
from boardlab.arena import match
from boardlab.games import DRAW, LOSS, WIN, GameOptionError, exact_play, parse_game
from boardlab.games.tictactoe import TicTacToe
from boardlab.interop.openspiel import (
    NotAPositionError,
    OpenSpielBridgeError,
    SpielState,
    from_native_action,
    has_native,
    max_game_length,
    native_game,
    native_state,
    register_games,
    spiel_game,
    spiel_state_for,
    to_native_action,
)
from boardlab.interop.views import planes_for

RANDOM_GAMES = 1000


def _returns(state) -> list[float]:  # type: ignore[no-untyped-def]
    outcome = state.outcome
    if outcome is None or outcome.winner is None:
        return [0.0, 0.0]
    return [1.0, -1.0] if outcome.winner == 0 else [-1.0, 1.0]


@pytest.mark.parametrize("spec", ["connect4", "tictactoe", "nim", "nim:piles=2-3-6,misere=false"])
def test_boardlab_and_openspiel_agree_on_every_ply_of_random_games(spec: str) -> None:
    """Legal actions, the end and the returns agree at every ply of 1,000 random games; every
    25th game also rebuilds OpenSpiel's state from boardlab's position at each ply."""
    game = parse_game(spec)
    theirs_game = native_game(game)
    rng = np.random.default_rng(2026)
    plies = 0
    for number in range(RANDOM_GAMES):
        ours, theirs = game.initial(), theirs_game.new_initial_state()
        while True:
            assert ours.is_over == theirs.is_terminal()
            if ours.is_over:
                assert theirs.returns() == _returns(ours)
                break
            legal = sorted(ours.legal_indices())
            assert sorted(from_native_action(game, a) for a in theirs.legal_actions()) == legal
            if number % 25 == 0:
                rebuilt = native_state(ours)
                assert sorted(rebuilt.legal_actions()) == sorted(theirs.legal_actions())
                if game.name != "nim":  # Nim's rebuilt state may take the piles in fewer moves
                    assert str(rebuilt) == str(theirs)
            action = int(rng.choice(legal))
            ours = ours.play_index(action)
            theirs.apply_action(to_native_action(game, action))
            plies += 1
    assert plies > RANDOM_GAMES * 4


VARIANTS = (
    "tictactoe",
    "connect4",
    "connect4:width=5,height=4",
    "nim",
    "nim:piles=3-4-5,misere=false,k=2",
    "quixo:size=3",
    "quixo:size=4,rules=course",
    "quixo",
)


@pytest.mark.parametrize("spec", VARIANTS)
def test_boardlab_games_pass_openspiels_random_simulation_test(spec: str) -> None:
    game = spiel_game(spec)
    assert game.num_distinct_actions() == parse_game(spec).kernel.num_actions
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@dataclass(frozen=True)
class EndlessTicTacToe(TicTacToe):
    """Names no bound on the length of its games."""

    @property
    def max_plies(self) -> None:
        return None


def test_openspiel_is_told_each_games_bound_and_a_game_without_one_is_refused() -> None:
    assert [max_game_length(parse_game(s)) for s in ("tictactoe", "connect4:width=5,height=4", "nim")] == [
        9,
        20,
        16,
    ]
    with pytest.raises(OpenSpielBridgeError, match="names no bound on the length of its games"):
        max_game_length(EndlessTicTacToe())


def test_registered_games_load_from_openspiel_strings() -> None:
    assert set(register_games()) >= {
        "boardlab_quixo",
        "boardlab_connect4",
        "boardlab_tictactoe",
        "boardlab_nim",
    }
    game = pyspiel.load_game("boardlab_nim(piles=3;4;5,misere=false)")
    assert game.new_initial_state().position.game == parse_game("nim:piles=3-4-5,misere=false")
    quixo = pyspiel.load_game("boardlab_quixo(size=4,rules=course)")
    assert quixo.num_distinct_actions() == 32 and quixo.max_game_length() == 200
    with pytest.raises(GameOptionError, match="size=6 is not accepted"):
        pyspiel.load_game("boardlab_quixo(size=6)")


def test_a_registered_game_reads_back_from_the_string_openspiel_writes_of_it() -> None:
    game = spiel_game("nim:piles=3-4-5,misere=false")
    assert game.get_parameters()["piles"] == "3;4;5"  # a list as OpenSpiel writes one
    assert pyspiel.load_game(str(game)).boardlab == parse_game("nim:piles=3-4-5,misere=false")


@pytest.mark.parametrize(
    ("spec", "native"),
    [("nim", True), ("nim:piles=2-5,misere=false", True), ("nim:k=2", False), ("connect4:width=6", False)],
)
def test_only_games_openspiel_has_are_set_up_in_its_own_game(spec: str, native: bool) -> None:
    position = parse_game(spec).initial()
    position = position.play_index(position.legal_indices()[0])
    state = spiel_state_for(position, engine="auto")
    assert has_native(position.game) is native
    assert isinstance(state, SpielState) is not native
    ours = [from_native_action(position.game, a) if native else a for a in state.legal_actions()]
    assert sorted(ours) == sorted(position.legal_indices())


@pytest.mark.parametrize("spec", ["tictactoe", "nim:piles=3-4-5,misere=false", "quixo:size=4,rules=course"])
def test_registered_games_pickle_as_openspiels_own_python_games_do(spec: str) -> None:
    game = spiel_game(spec)
    again = pickle.loads(pickle.dumps(game))
    assert again == game and again.boardlab == parse_game(spec)
    assert again.new_initial_state().legal_actions() == game.new_initial_state().legal_actions()


def test_a_pickled_game_loads_where_no_game_was_registered_yet() -> None:
    script = (
        "import pickle, sys; print(pickle.loads(sys.stdin.buffer.read()).new_initial_state().legal_actions())"
    )
    data = pickle.dumps(spiel_game("nim:piles=1-2"))
    result = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == "[0, 2, 3]"  # Nim 1-2: take 1 of the first, 1 or 2 of the second


@pytest.mark.parametrize("spec", ["quixo:size=4", "connect4:width=5,height=4"])
def test_each_player_observes_the_planes_from_its_own_view(spec: str) -> None:
    position = parse_game(spec).initial().play_index(0)
    state = spiel_state_for(position)
    views = [np.array(state.observation_tensor(player)) for player in (0, 1)]
    for player, seen in enumerate(views):
        assert np.array_equal(seen, planes_for(position, player).ravel())
    assert not np.array_equal(views[0], views[1])


def test_a_positions_state_takes_boardlabs_numbers_unless_openspiels_own_game_is_asked_for() -> None:
    position = parse_game("nim").initial().play("4:2")  # 1-3-5-5: Nim's numbers differ in OpenSpiel
    move = position.parse_move("2:1")
    action = position.move_index(move)
    state = spiel_state_for(position)
    assert isinstance(state, SpielState) and state.position == position
    state.apply_action(action)
    assert state.position == position.play(move)
    native = spiel_state_for(position, engine="native")
    assert not hasattr(native, "position")
    native.apply_action(to_native_action(position.game, action))
    assert native.legal_actions() == sorted(
        to_native_action(position.game, a) for a in position.play(move).legal_indices()
    )
    for engine in ("python", "auto", "native"):  # Quixo: OpenSpiel has no C++ game of it
        if engine == "native":
            with pytest.raises(OpenSpielBridgeError, match="OpenSpiel has no C\\+\\+ game for quixo"):
                spiel_state_for(parse_game("quixo").initial(), engine=engine)
        else:
            assert isinstance(spiel_state_for(parse_game("quixo").initial(), engine=engine), SpielState)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            "X.O.O.X.. O 5",
            r"takes a boardlab State, .*not 'X\.O\.O\.X\.\. O 5' \(str\) \(read a position's text with "
            r"parse_game\(SPEC\)\.parse_position\(text\)\)$",
        ),
        (None, r"takes a boardlab State, .*not None \(NoneType\)$"),
        (TicTacToe(), r"not .*\(TicTacToe\)$"),
    ],
)
def test_something_that_is_not_a_position_is_refused_as_such(given: object, message: str) -> None:
    with pytest.raises(NotAPositionError, match=message):
        spiel_state_for(given)  # type: ignore[arg-type]
    assert issubclass(NotAPositionError, TypeError)


def test_an_unknown_engine_is_refused() -> None:
    with pytest.raises(OpenSpielBridgeError, match="engine must be one of python, native, auto, got 'nativ'"):
        spiel_state_for(parse_game("nim").initial(), engine="nativ")


def test_a_state_is_made_only_from_a_position_of_its_own_game() -> None:
    with pytest.raises(OpenSpielBridgeError, match="a connect4 position is not a tictactoe one"):
        spiel_game("tictactoe").state_of(parse_game("connect4").initial())
    with pytest.raises(OpenSpielBridgeError, match="is not a nim:piles=1-2 one"):
        spiel_game("nim:piles=1-2").state_of(parse_game("nim").initial())


def test_a_state_made_from_a_position_counts_moves_from_its_ply() -> None:
    position = parse_game("quixo:size=4").initial().play_index(0).play_index(0)
    state = spiel_state_for(position)
    assert (state.move_number(), state.history()) == (2, [])  # the moves before are not known
    state.apply_action(state.legal_actions()[0])
    assert (state.move_number(), len(state.history())) == (3, 1)
    assert state.clone().move_number() == 3
    assert spiel_game("quixo:size=4").new_initial_state().move_number() == 0
    native = spiel_state_for(parse_game("tictactoe").initial().play("b2").play("a1"), engine="native")
    assert native.move_number() == 2 and sorted(native.history()) == [0, 4]


@pytest.mark.parametrize(
    ("spec", "moves"),
    [("tictactoe", ["c3", "a1", "b3", "b1", "a3"]), ("connect4", ["1", "2", "1", "2", "1", "2", "1"])],
)
def test_a_finished_position_is_an_ended_state_or_one_clear_refusal(spec: str, moves: list[str]) -> None:
    position = parse_game(spec).initial()
    for move in moves:
        position = position.play(position.parse_move(move))
    assert position.outcome is not None and position.outcome.winner == 0
    state = spiel_state_for(position)  # OpenSpiel's Python game takes any position
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    with pytest.raises(
        OpenSpielBridgeError, match=r"the game is over in .*: OpenSpiel's own game is set up only"
    ):
        spiel_state_for(position, engine="native")


def test_openspiels_alpha_beta_on_boardlabs_tictactoe_agrees_with_boardlabs_solver() -> None:
    game, exact = spiel_game("tictactoe"), exact_play("tictactoe")
    rng = np.random.default_rng(4)
    for _ in range(6):
        state = game.new_initial_state()
        for _ in range(3):
            state.apply_action(int(rng.choice(state.legal_actions())))
        value, _ = minimax.alpha_beta_search(game, state)
        assert value == exact.position_value(state.position).value


def test_openspiels_mcts_plays_boardlab_quixo() -> None:
    game = spiel_game("quixo:size=3")
    rng = np.random.RandomState(0)
    bot = python_mcts.MCTSBot(game, 1.4, 50, python_mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    for _ in range(4):
        action = bot.step(state)
        assert action in state.position.legal_indices()
        state.apply_action(action)
    planes = np.asarray(state.observation_tensor(state.current_player())).reshape(2, 3, 3)
    np.testing.assert_array_equal(planes, state.position.observation())


@pytest.mark.parametrize(
    ("spec", "game"),
    [
        ("openspiel:sims=200", "connect4"),
        ("openspiel:sims=200", "nim"),
        ("openspiel:sims=50", "quixo:size=3"),
        ("openspiel:sims=50,engine=python", "tictactoe"),
        ("openspiel:bot=alphabeta,depth=2", "quixo:size=3"),
        ("openspiel:bot=random", "quixo"),
    ],
)
def test_the_agent_answers_legal_moves_with_a_policy(spec: str, game: str) -> None:
    agent = make_agent(spec, seed=3, game=parse_game(game))
    state = parse_game(game).initial()
    rng = np.random.default_rng(1)
    for _ in range(3):
        state = state.play_index(int(rng.choice(state.legal_indices())))
        if state.is_over:
            break
        decision = agent.act(state)
        assert state.is_legal(decision.move)
        if decision.policy is not None:
            assert decision.policy.shape == (state.kernel.num_actions,)
            assert decision.policy.sum() == pytest.approx(1.0)
            assert not decision.policy[~state.legal_mask()].any()
            assert np.argmax(decision.policy) == state.move_index(decision.move)


@pytest.mark.parametrize(
    ("spec", "limit", "depth"),
    [
        ("openspiel:bot=alphabeta,depth=3", None, 3),
        ("openspiel:bot=alphabeta,depth=0", None, 9),  # to the end: no game is longer than 9 plies
        ("openspiel:bot=alphabeta,depth=2,engine=python", None, 2),
    ],
)
def test_alphabeta_says_the_depth_it_searched_and_no_node_count(spec: str, limit: Any, depth: int) -> None:
    game = parse_game("tictactoe")
    info = make_agent(spec, seed=0, game=game).act(game.initial(), limit).info
    assert (info.depth, info.nodes) == (depth, None)  # OpenSpiel's alpha-beta counts no nodes


def test_alphabeta_under_a_time_limit_says_the_depth_it_reached() -> None:
    game = parse_game("tictactoe")
    agent = make_agent("openspiel:bot=alphabeta,depth=0", seed=0, game=game)
    info = agent.act(game.parse_position("XO./.X./... O 3"), Limit(time=5.0)).info
    assert 1 <= info.depth <= 9 and info.nodes is None


def test_mcts_counts_its_simulations_and_says_no_depth() -> None:
    game = parse_game("connect4")
    info = make_agent("openspiel:sims=50", seed=0, game=game).act(game.initial()).info
    assert (info.depth, info.nodes) == (0, 50)
    info = make_agent("openspiel:bot=random", seed=0, game=game).act(game.initial()).info
    assert (info.depth, info.nodes) == (0, None)


def test_the_agent_finds_the_winning_nim_move() -> None:
    state = parse_game("nim:piles=1-2-5,misere=false").initial()  # nim-sum 6: take 2 from the pile of 5
    for spec in ("openspiel:bot=alphabeta,depth=0", "openspiel:sims=2000"):
        move = make_agent(spec, seed=0, game=state.game).act(state).move
        assert str(move) == "3:2", spec


class _FakeClock:
    """A stand-in for OpenSpiel's bots and the agent's clock: MCTS costs a millisecond a
    simulation, alpha-beta ten times more a ply deeper, and their answers name what they ran."""

    def __init__(self) -> None:
        self.now = 0.0
        self.runs: list[tuple[int, int | None]] = []

    def perf_counter(self) -> float:
        return self.now

    def run_bot(self, state, bot, *, simulations, depth, **_):  # type: ignore[no-untyped-def]
        from boardlab.interop.openspiel import BotAnswer

        self.runs.append((simulations, depth))
        self.now += simulations / 1000 if bot == "mcts" else 0.001 * 10 ** (depth or 0)
        return BotAnswer(state.legal_indices()[0], None, 0.0, simulations)


def _paced_agent(spec: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, _FakeClock]:
    from boardlab.interop import openspiel_agent

    clock = _FakeClock()
    agent = make_agent(spec, seed=0, game=parse_game("connect4"))
    monkeypatch.setattr(openspiel_agent, "time", clock)
    monkeypatch.setattr(agent.bridge, "run_bot", clock.run_bot)
    return agent, clock


def test_mcts_fits_its_simulations_to_a_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first short search measures the speed (1,000 a second here); each search then fills
    most of the time left, and a count given beside the time caps it."""
    agent, clock = _paced_agent("openspiel:time=0.5", monkeypatch)
    state = parse_game("connect4").initial()
    agent.act(state)
    assert clock.runs == [(16, None), (387, None)]  # 0.8 x (0.5 s - 16 ms) x 1,000/s
    agent.act(state)
    assert clock.runs[2:] == [(400, None)]
    agent.act(state, Limit(time=0.5, iterations=100))
    assert clock.runs[3:] == [(100, None)]
    agent.act(state, Limit(iterations=30))
    assert clock.runs[4:] == [(30, None)]


class _StoppingEarly(_FakeClock):
    """The fake bots, but as OpenSpiel's MCTS does with one legal move: it stops at once."""

    def run_bot(self, state, bot, *, simulations, depth, **kw):  # type: ignore[no-untyped-def]
        from boardlab.interop.openspiel import BotAnswer

        if len(state.legal_indices()) > 1:
            return super().run_bot(state, bot, simulations=simulations, depth=depth, **kw)
        self.runs.append((simulations, depth))
        self.now += 1e-6
        return BotAnswer(state.legal_indices()[0], None, 0.0, 2)


def test_mcts_measures_the_speed_again_for_a_new_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that stopped early (one legal move) does not set the speed, and a position
    before the one measured (the next game's start, new_game called or not) is measured again:
    the last move of a game once paced the next game's first to a million times its time."""
    from boardlab.interop import openspiel_agent

    clock = _StoppingEarly()
    game = parse_game("tictactoe")
    agent = make_agent("openspiel:time=0.5", seed=0, game=game)
    monkeypatch.setattr(openspiel_agent, "time", clock)
    monkeypatch.setattr(agent.bridge, "run_bot", clock.run_bot)
    agent.act(game.parse_position("XOX/.O./.X. O 5"))
    assert clock.runs == [(16, None), (387, None)]
    agent.act(game.parse_position("XOX/XOO/OX. X 8"))
    assert clock.runs[2:] == [(400, None)]  # stopped at once: 2 simulations
    for _ in range(2):
        agent.act(game.initial())
        assert clock.runs[3:] == [(16, None), (387, None)]
        del clock.runs[3:]
        agent.new_game()


def test_alphabeta_deepens_while_the_next_depth_fits_the_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Depths 1, 2, 3 cost 0.01, 0.1 and 1 s: with 0.5 s the third is not begun, with 2 s it
    is, and the depth limit stops it first."""
    agent, clock = _paced_agent("openspiel:bot=alphabeta,depth=0,time=0.5", monkeypatch)
    state = parse_game("connect4").initial()
    agent.act(state)
    assert clock.runs == [(0, 1), (0, 2)]
    agent.act(state, Limit(time=2.0))
    assert clock.runs[2:] == [(0, 1), (0, 2), (0, 3)]
    agent.act(state, Limit(time=2.0, depth=1))
    assert clock.runs[5:] == [(0, 1)]


class _UnevenDepths(_FakeClock):
    """Alpha-beta as OpenSpiel's runs on Quixo 4x4: 5 ms, 10 ms, then 93 ms and 300 ms."""

    COSTS = (0.005, 0.010, 0.093, 0.300, 3.0)

    def run_bot(self, state, bot, *, simulations, depth, **_):  # type: ignore[no-untyped-def]
        from boardlab.interop.openspiel import BotAnswer

        self.runs.append((simulations, depth))
        self.now += self.COSTS[depth - 1]
        return BotAnswer(state.legal_indices()[0], None, 0.0, 0)


@pytest.mark.parametrize("seconds", [0.1, 0.2, 0.5, 1.0])
def test_alphabeta_does_not_begin_the_expensive_depth_after_a_cheap_one(
    seconds: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cheap ply (10 ms after 5 ms) does not promise a cheap next one: the search keeps
    within its time, where it once began depth 3 with 0.1 s and took 0.108 s."""
    from boardlab.interop import openspiel_agent

    clock = _UnevenDepths()
    state = parse_game("quixo:size=4").initial()
    agent = make_agent("openspiel:bot=alphabeta,depth=0", seed=0, game=state.game)
    monkeypatch.setattr(openspiel_agent, "time", clock)
    monkeypatch.setattr(agent.bridge, "run_bot", clock.run_bot)
    agent.act(state, Limit(time=seconds))
    assert clock.now <= seconds
    assert clock.runs[:2] == [(0, 1), (0, 2)]


def test_the_next_depths_cost_takes_the_largest_growth_seen() -> None:
    from boardlab.interop.openspiel_agent import next_depth_cost

    assert next_depth_cost([0.01], 30) == pytest.approx(0.02)
    assert next_depth_cost([0.005, 0.010], 32) == pytest.approx(0.16)  # 5 ms x 32 root moves
    assert next_depth_cost([0.005, 0.010, 0.093], 32) == pytest.approx(0.093**2 / 0.010)
    assert next_depth_cost([0.005, 0.010, 0.093, 0.1], 32) == pytest.approx(0.093 * 0.1 / 0.010)
    # three depths timed: their growth, not the root moves, stands for the growth over two plies
    assert next_depth_cost([0.01, 0.012, 0.013], 40) == pytest.approx(0.026)


def test_a_time_limit_gives_mcts_more_than_the_measuring_search() -> None:
    state = parse_game("connect4").initial()
    agent = make_agent("openspiel:time=0.3", seed=0, game=state.game)  # ample for 16 simulations
    for _ in range(2):
        decision = agent.act(state)
        assert state.is_legal(decision.move)
        assert decision.info.nodes > 16
        state = state.play(decision.move)


def test_a_time_limit_alone_is_not_capped_at_the_default_simulations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 1,000 simulations stand in only where neither a count nor a time is given."""
    agent, clock = _paced_agent("openspiel:time=5", monkeypatch)
    agent.act(parse_game("connect4").initial())
    assert clock.runs == [(16, None), (3987, None)]  # 0.8 x (5 s - 16 ms) x 1,000/s


def test_the_random_bot_answers_at_once_under_a_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    agent, clock = _paced_agent("openspiel:bot=random,time=0.5", monkeypatch)
    agent.act(parse_game("connect4").initial())
    assert len(clock.runs) == 1  # one call: nothing to deepen or to pace


def test_the_decision_carries_the_bots_value_and_an_illegal_answer_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from boardlab.interop.openspiel import BotAnswer, OpenSpielBridgeError

    state = parse_game("connect4").initial()
    agent = make_agent("openspiel:sims=10", seed=0, game=state.game)
    answers = iter([BotAnswer(3, None, 0.25, 10), BotAnswer(99, None, 0.0, 10)])
    monkeypatch.setattr(agent.bridge, "run_bot", lambda *args, **kwargs: next(answers))
    decision = agent.act(state)
    assert (str(decision.move), decision.value, decision.info.score) == (
        str(state.move_from_index(3)),
        0.25,
        0.25,
    )
    with pytest.raises(OpenSpielBridgeError, match="answered action 99"):
        agent.act(state)


def test_mcts_runs_one_simulation_at_least_when_the_time_is_nearly_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent, clock = _paced_agent("openspiel:time=0.5", monkeypatch)
    state = parse_game("connect4").initial()
    agent.act(state)  # measures the speed
    agent.act(state, Limit(time=0.0001))
    assert clock.runs[-1] == (1, None)


def test_the_measuring_search_is_no_longer_than_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    agent, clock = _paced_agent("openspiel:time=0.5", monkeypatch)
    agent.act(parse_game("connect4").initial(), Limit(time=0.5, iterations=10))
    assert clock.runs == [(10, None)]


def test_bad_agent_specs_are_refused() -> None:
    with pytest.raises(AgentSpecError, match="bot"):
        make_agent("openspiel:bot=cfr")
    with pytest.raises(AgentSpecError, match="engine=native"):
        make_agent("openspiel:engine=native", game=parse_game("quixo"))
    with pytest.raises(AgentSpecError, match="engine=native"):
        make_agent("openspiel:engine=native", game=parse_game("connect4:width=8"))


def test_an_arena_match_against_an_openspiel_bot() -> None:
    # perfect players on both sides: each game ends as its random opening's perfect-play value
    run = match("perfect", "openspiel:bot=alphabeta,depth=0", 4, game="tictactoe", workers=0, seed=2)
    exact = exact_play("tictactoe")
    assert run.complete
    for record in run.records:
        opening = parse_game("tictactoe").initial()
        for move in record.opening:
            opening = opening.play(move)
        value = exact.position_value(opening).value  # for X, to move after two plies
        assert record.outcome.winner == {WIN: 0, DRAW: None, LOSS: 1}[value]
    # OpenSpiel's MCTS beats a random player at Connect Four
    run = match("openspiel:sims=300", "random", 4, game="connect4", workers=0, opening_plies=0)
    assert run.summary().points[0].sum() >= 3


def test_without_openspiel_the_agents_still_list_and_the_agent_names_the_extra() -> None:
    script = (
        "import sys; sys.modules['pyspiel'] = None\n"  # as if open_spiel were not installed
        "from boardlab.agents import AgentSpecError, list_agents, make_agent\n"
        "assert 'openspiel' in {cls.name for cls in list_agents()}\n"
        "try:\n"
        "    make_agent('openspiel:sims=10')\n"
        "except AgentSpecError as err:\n"
        "    print(err)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.strip()
        == "openspiel: the agent needs the bridges extra: pip install 'boardlab[bridges]'"
    )
