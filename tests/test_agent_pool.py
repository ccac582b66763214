"""The agent pool (play/agent_pool.py) on its own: decisions and checks answered by worker
processes, a failing request answered with its own words, an agent that hangs or dies stopping
its worker only, and the web's table adding exact analysis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from broken_players import spec as broken_spec

from boardlab.games import exact_play, parse_game
from boardlab.play.agent_pool import AgentPool, Overrun, ThinkError, WorkerDied
from boardlab.ui.web.workers import think_pool

TTT = parse_game("tictactoe")
QUIXO = parse_game("quixo")  # the game of the broken course players


@pytest.fixture(scope="module")
def pool() -> Iterator[AgentPool]:
    agents = AgentPool(1)
    yield agents
    agents.close()


def act(spec: str, position: str = ".........", key: str = "k", game: str = "tictactoe") -> dict[str, object]:
    return {"kind": "act", "key": key, "game": game, "agent": spec, "seed": 1, "position": position}


def broken(player: str) -> dict[str, object]:
    return act(broken_spec(player, attempts=1), QUIXO.initial().to_text(), player, "quixo")


def test_a_worker_answers_with_a_legal_decision_and_its_thinking_time(pool: AgentPool) -> None:
    state = TTT.parse_position("XO.......")
    reply = pool.ask(act("greedy", state.to_text()), 10.0)
    move = reply["decision"]["move"]
    assert move in [str(m) for m in state.legal_moves()] and reply["seconds"] >= 0
    assert pool.ask({"kind": "check", "game": "tictactoe", "agent": "random"}, 10.0) == {"ok": True}


def test_a_request_that_fails_gets_one_line_and_the_worker_stays(pool: AgentPool) -> None:
    replaced = pool.replaced
    with pytest.raises(ThinkError, match="unknown request"):
        pool.ask({"kind": "exact", "game": "tictactoe", "position": "........."}, 10.0)
    with pytest.raises(ThinkError, match="nosuch") as refused:
        pool.ask({"kind": "check", "game": "tictactoe", "agent": "nosuch"}, 10.0)
    assert "\n" not in str(refused.value)
    assert not isinstance(refused.value, (Overrun, WorkerDied))
    assert pool.replaced == replaced


def test_an_agent_that_hangs_or_dies_loses_its_worker_only(pool: AgentPool) -> None:
    replaced = pool.replaced
    with pytest.raises(Overrun, match="no answer within"):
        pool.ask(broken("HangingPlayer"), 0.05)
    with pytest.raises(WorkerDied, match="process ended"):
        pool.ask(broken("DyingPlayer"), 5.0)
    assert pool.replaced == replaced + 2
    assert "decision" in pool.ask(act("random"), 10.0)


def test_the_web_pool_answers_exact_analysis_as_the_exact_play() -> None:
    web = think_pool(1)
    try:
        state = TTT.parse_position("XX.OO....")
        reply = web.ask({"kind": "exact", "game": "tictactoe", "position": state.to_text()}, 10.0)
        assert "decision" in web.ask(act("random"), 10.0)
    finally:
        web.close()
    exact = exact_play(TTT)
    expected = {str(state.move_from_index(v.action)): v.name for v in exact.move_values(state)}
    assert {m["move"]: m["value"] for m in reply["exact"]["moves"]} == expected
    assert reply["exact"]["value"] == "win"
    best = {m["move"] for m in reply["exact"]["moves"] if m["best"]}
    assert best == {str(state.move_from_index(a)) for a in exact.best_actions(state)}
