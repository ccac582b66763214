"""The decision API: limits in, decisions out, the same for every agent."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.agents import Agent, make_agent
from boardlab.agents.decision import Decision, Limit, LimitError, SearchInfo
from boardlab.games import new_game


@pytest.mark.parametrize(
    "bad",
    [{"time": 0}, {"time": -1.0}, {"time": float("nan")}, {"depth": 0}, {"nodes": 2.5}, {"iterations": True}],
)
def test_a_limit_refuses_budgets_that_are_not_positive(bad: dict) -> None:
    with pytest.raises(LimitError):
        Limit(**bad)


def test_a_call_limit_overrides_the_default_only_where_it_is_set() -> None:
    default = Limit(time=1.0, depth=6)
    merged = Limit(depth=3).over(default)
    assert merged == Limit(time=1.0, depth=3)
    assert Limit().over(default) == default
    assert Limit.from_options(time=0, depth=4, iterations=0) == Limit(depth=4)
    assert Limit().is_open and not Limit(nodes=5).is_open


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
