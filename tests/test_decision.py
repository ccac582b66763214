"""The decision API: limits in, decisions out, the same for every agent."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardlab.agents import Agent, make_agent
from boardlab.agents.decision import Decision, Limit, LimitError, SearchInfo, call_limit
from boardlab.games import new_game, parse_game


@pytest.mark.parametrize(
    "bad",
    [
        {"time": 0},
        {"time": -1.0},
        {"time": float("nan")},
        {"time": "1"},
        {"time": True},
        {"depth": 0},
        {"depth": 3.0},
        {"depth": np.bool_(True)},
        {"nodes": 2.5},
        {"iterations": True},
        {"iterations": "100"},
    ],
)
def test_a_limit_refuses_budgets_that_are_not_positive(bad: dict) -> None:
    (name,) = bad
    article = "an" if name == "iterations" else "a"
    with pytest.raises(LimitError, match=f"^{article} {name} limit is a positive"):
        Limit(**bad)


def test_a_limit_takes_numpy_numbers_and_keeps_them_as_pythons() -> None:
    limit = Limit(
        time=np.float32(0.5),
        depth=np.int64(3),
        nodes=np.uint32(1000),
        iterations=np.int8(7),
        clock=np.float64(9.5),
        increment=np.int16(0),
        moves_to_go=np.int32(40),
    )
    assert limit == Limit(
        time=0.5, depth=3, nodes=1000, iterations=7, clock=9.5, increment=0.0, moves_to_go=40
    )
    assert [type(v) for v in vars(limit).values()] == [float, int, int, int, float, float, int]
    assert Limit(time=2).time == 2.0


@pytest.mark.parametrize(
    "spec", ["random", "minimax:depth=1", "alphabeta:depth=1", "mcts:iters=10", "perfect"]
)
@pytest.mark.parametrize("limit", [5, 0.5, "5", {"time": 1}])
def test_an_agent_refuses_a_limit_that_is_not_a_limit(spec: str, limit: object) -> None:
    agent = make_agent(spec, seed=1)
    with pytest.raises(LimitError, match="a limit is a Limit or None"):
        agent.act(new_game("tictactoe"), limit)  # type: ignore[arg-type]


def test_a_call_limit_overrides_the_default_only_where_it_is_set() -> None:
    default = Limit(time=1.0, depth=6)
    merged = Limit(depth=3).over(default)
    assert merged == Limit(time=1.0, depth=3)
    assert Limit().over(default) == default
    assert Limit.from_options(time=0, depth=4, iterations=0) == Limit(depth=4)
    assert Limit().is_open and not Limit(nodes=5).is_open


_budgets = st.fixed_dictionaries(
    {},
    optional={
        "time": st.floats(0.001, 100.0),
        "depth": st.integers(1, 50),
        "nodes": st.integers(1, 10**9),
        "iterations": st.integers(1, 10**6),
    },
)


@given(limit=_budgets, default=_budgets)
def test_a_limit_is_open_only_without_budgets_and_merges_dimension_by_dimension(
    limit: dict[str, Any], default: dict[str, Any]
) -> None:
    assert Limit(**limit).is_open == (not limit)
    merged = call_limit(Limit(**limit), Limit(**default))
    assert merged == Limit(**{**default, **limit})
    assert call_limit(None, Limit(**default)) == Limit(**default)


def test_a_decision_value_lies_between_loss_and_win() -> None:
    with pytest.raises(ValueError):
        Decision("a1e1", value=1.5)


def test_a_decision_reads_back_as_json() -> None:
    state = new_game("tictactoe")
    move = state.legal_moves()[0]
    policy = np.zeros(9)
    policy[0] = 1.0
    data = Decision(move, policy=policy, value=0.0, info=SearchInfo(depth=2, pv=(str(move),))).to_json()
    assert data["move"] == str(move) and data["policy"][0] == 1.0 and data["info"]["pv"] == [str(move)]


def test_an_agent_class_must_answer_something() -> None:
    with pytest.raises(TypeError, match="act\\(\\) or choose\\(\\)"):

        class Silent(Agent):
            name = "silent"


def test_an_agent_written_with_choose_alone_also_acts() -> None:
    class First(Agent):
        name = "first"

        def choose(self, state):  # type: ignore[no-untyped-def]
            return state.legal_moves()[0]

    state = new_game("nim")
    decision = First().act(state, Limit(time=1.0))
    assert decision.move == state.legal_moves()[0] and decision.policy is None


@pytest.mark.parametrize(
    ("spec", "limit"),
    [
        ("alphabeta:depth=4", Limit(depth=4)),
        ("alphabeta:time=0.5", Limit(time=0.5)),
        ("mcts:iters=300", Limit(iterations=300)),
        ("hybrid:time=0.2", Limit(time=0.2)),
        ("minimax:depth=2", Limit(depth=2)),
        ("random", Limit()),
    ],
)
def test_a_spec_budget_is_the_agents_default_limit(spec: str, limit: Limit) -> None:
    agent = make_agent(spec, seed=1)
    assert agent.limit == limit


def test_minimax_searches_to_the_depth_a_call_asks_for() -> None:
    agent = make_agent("minimax:depth=1", seed=3)
    state = new_game("tictactoe")
    shallow = agent.act(state)
    deep = agent.act(state, Limit(depth=3))
    assert shallow.info is not None and deep.info is not None
    assert (shallow.info.depth, deep.info.depth) == (1, 3)
    assert deep.info.nodes > shallow.info.nodes
    assert state.is_legal(deep.move)


def _replayed(state, pv):  # type: ignore[no-untyped-def]
    """The position after a principal variation given in notation (AssertionError if illegal)."""
    for text in pv:
        moves = [m for m in state.legal_moves() if str(m) == text]
        assert moves, f"{text} is not legal in {state}"
        state = state.play(moves[0])
    return state


def test_alphabeta_acts_to_the_depth_asked_with_its_line_and_no_value_unless_proven() -> None:
    state = new_game("quixo")
    for _ in range(8):
        state = state.play(state.legal_moves()[len(state.legal_moves()) // 3])
    agent = make_agent("alphabeta:depth=2", seed=1)
    shallow = agent.act(state)
    agent.new_game()  # else the position and the move just played count as the game's, repeated
    deep = agent.act(state, Limit(depth=4))
    assert shallow.info is not None and deep.info is not None
    assert (shallow.info.depth, deep.info.depth, deep.info.engine) == (2, 4, "alphabeta")
    assert deep.info.nodes > shallow.info.nodes and deep.value is None
    assert deep.info.pv[0] == str(deep.move) and 2 <= len(deep.info.pv) <= 4
    _replayed(state, deep.info.pv)
    assert agent.choose(state) in state.legal_moves() and agent.last is not None


def test_alphabeta_values_are_proven_wins_and_losses() -> None:
    from test_agents import lost_position

    from boardlab.games.quixo import State

    won = State.from_text("XXXX./OO.../O..../O..../..... X")
    decision = make_agent("alphabeta:depth=3", seed=0).act(won)
    assert decision.value == 1.0 and decision.info is not None and decision.info.pv == (str(decision.move),)
    assert won.play(decision.move).winner == 0
    lost = make_agent("alphabeta:depth=3", seed=0).act(lost_position())
    assert lost.value == -1.0


def test_alphabeta_stops_near_a_node_limit() -> None:
    state = new_game("connect4")
    agent = make_agent("alphabeta", seed=1)
    depth_one = agent.act(state, Limit(depth=1)).info
    assert depth_one is not None
    for budget in (2_000, 20_000):
        agent.new_game()
        info = agent.act(state, Limit(nodes=budget)).info
        assert info is not None
        # the count is checked at every node: at most one node past the limit
        assert depth_one.nodes < info.nodes <= budget + 1
    agent.new_game()
    small, large = (agent.act(state, Limit(nodes=n)).info for n in (2_000, 200_000))
    assert small is not None and large is not None and large.depth > small.depth


def test_alphabeta_acts_within_a_time_limit() -> None:
    state = new_game("connect4")
    decision = make_agent("alphabeta:depth=3", seed=1).act(state, Limit(time=0.05, depth=40))
    assert decision.info is not None and decision.info.depth >= 1
    assert state.is_legal(decision.move)


def test_hybrid_says_which_engine_decided() -> None:
    from test_agents import lost_position, random_position

    agent = make_agent("hybrid:time=30,tables=false,search=(alphabeta:depth=3)", seed=0)
    hopeful = agent.act(random_position(1, 6))
    assert hopeful.info is not None and hopeful.info.engine == "alphabeta" == agent.last_engine
    assert hopeful.info.depth == 3 and hopeful.value is None
    doomed = lost_position()
    handed = agent.act(doomed, Limit(time=0.2))  # depth 3 bounds the search above, not the time
    assert handed.info is not None and handed.info.engine == "mcts" == agent.last_engine
    assert handed.value == -1.0 and doomed.is_legal(handed.move)
    assert make_agent("hybrid:search=(alphabeta:depth=5)").limit == Limit(time=1.0, depth=5)


@pytest.mark.parametrize("spec", ["alphabeta:depth=4", "mcts:iters=300", "hybrid:time=0.2"])
def test_a_search_line_stops_where_the_ply_cap_ends_the_game(spec: str) -> None:
    game = parse_game("quixo:ply_cap=5")
    state = game.initial()
    for notation in ("a1e1", "e5a5", "a2e2", "e4a4"):
        state = state.play(notation)
    decision = make_agent(spec, seed=2, game=game).act(state)  # the last move before the cap
    assert state.is_legal(decision.move)
    assert decision.info is not None and len(decision.info.pv) == 1
    line = state.legal_indices()[:3]
    assert state.line_notation(line) == (str(state.move_from_index(line[0])),)
