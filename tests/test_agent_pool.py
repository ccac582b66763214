"""The agent pool (play/agent_pool.py) on its own: decisions and checks answered by worker
processes, a failing request answered with its own words, an agent that hangs or dies stopping
its worker only, and the web's table adding exact analysis."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from broken_players import module_spec, write_module
from broken_players import spec as broken_spec
from forfeits import Raised

from boardlab.agents.base import AGENTS, Agent, register
from boardlab.agents.decision import Decision, Limit
from boardlab.games import exact_play, parse_game
from boardlab.play import agent_pool
from boardlab.play.agent_pool import AgentPool, AgentWorker, Busy, Overrun, ThinkError, WorkerDied
from boardlab.ui.web.workers import think_pool

TTT = parse_game("tictactoe")
QUIXO = parse_game("quixo")  # the game of the broken course players


class FailingAgent(Agent):
    """Raises when asked for a move."""

    name = "pool-test-fails"

    def choose(self, state: Any) -> Any:
        raise RuntimeError("no move today")


class IllegalAgent(Agent):
    """Answers a move of an occupied square."""

    name = "pool-test-illegal"

    def choose(self, state: Any) -> Any:
        return state.game.move_of(0)


class DepthAgent(Agent):
    """Plays the legal move whose rank is the depth of the limit it is given (first without one)."""

    name = "pool-test-depth"

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        depth = 0 if limit is None or limit.depth is None else limit.depth
        return Decision(state.legal_moves()[depth])


TEST_AGENTS = (FailingAgent, IllegalAgent, DepthAgent)


@pytest.fixture
def test_agents() -> Iterator[None]:
    for cls in TEST_AGENTS:
        register(cls)
    yield
    for cls in TEST_AGENTS:
        AGENTS.unregister(cls.name)


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


@pytest.mark.timeout(120)
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


def test_a_worker_keeps_the_agents_last_used_and_drops_the_oldest() -> None:
    worker = AgentWorker()
    first = worker.agent("k0", TTT, "random", 1)
    assert worker.agent("k0", TTT, "random", 1) is first
    for k in range(1, agent_pool.AGENTS_PER_WORKER):
        worker.agent(f"k{k}", TTT, "random", 1)
    worker.agent("k0", TTT, "random", 1)  # used again: now the newest
    worker.agent("new", TTT, "random", 1)
    assert len(worker.agents) == agent_pool.AGENTS_PER_WORKER
    assert "k1" not in worker.agents and worker.agent("k0", TTT, "random", 1) is first


@pytest.mark.usefixtures("test_agents")
def test_a_decision_request_is_answered_in_the_worker_s_terms() -> None:
    worker, sent = AgentWorker(), []
    request = act("pool-test-depth", "X........", "d")
    legal = [str(move) for move in TTT.parse_position("X........").legal_moves()]
    limited = agent_pool.act(worker, {**request, "limit": {"depth": 2}}, sent.append)
    assert limited["decision"]["move"] == legal[2]
    assert agent_pool.act(worker, request, sent.append)["decision"]["move"] == legal[0]
    assert sent == [{"started": True}] * 2
    illegal = agent_pool.act(worker, act("pool-test-illegal", "X........", "i"), sent.append)
    assert list(illegal) == ["error"] and str(illegal["error"]).endswith(", not a legal move")
    failed = agent_pool.act(worker, act("pool-test-fails", key="f"), sent.append)
    assert failed == {"error": Raised("raised RuntimeError: no move today", "test_agent_pool.py", "choose")}
    assert "f" not in worker.agents
    sent.clear()
    refused = agent_pool.act(worker, act("nosuch", key="n"), sent.append)
    assert str(refused["error"]).startswith("failed to start: ") and "nosuch" in str(refused["error"])
    assert sent == []


def test_an_agent_that_cannot_be_built_is_refused_without_waiting_for_its_move(pool: AgentPool) -> None:
    with pytest.raises(ThinkError, match=r"^failed to start: .*nosuch") as refused:
        pool.ask(act("nosuch", key="nosuch"), 60.0)
    assert not isinstance(refused.value, Overrun)


@pytest.mark.timeout(120)
def test_a_request_waits_for_a_free_worker_only_as_long_as_it_is_told(pool: AgentPool) -> None:
    taken = pool._free.get()
    try:
        with pytest.raises(Busy, match=r"every worker stayed busy for 0\.05 s"):
            pool.ask(act("random"), 10.0, queue_seconds=0.05)
    finally:
        pool._free.put(taken)


def test_a_worker_killed_while_idle_fails_the_next_request_and_is_replaced() -> None:
    agents = AgentPool(1, name="pool-test-worker")
    try:
        victim = agents._slots[0].process
        victim.kill()
        victim.join()
        with pytest.raises(WorkerDied):
            agents.ask(act("random"), 10.0)
        assert agents.replaced == 1 and "decision" in agents.ask(act("random"), 10.0)
    finally:
        agents.close()
    left = [p for p in multiprocessing.active_children() if p.name == "pool-test-worker"]
    assert left == []


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least one worker, got 0"):
        AgentPool(0)


@pytest.mark.timeout(120)
def test_a_request_may_allow_less_time_to_start_than_the_pool(pool: AgentPool, tmp_path: Path) -> None:
    hangs = module_spec(write_module(tmp_path, "hangs"), import_timeout=5.0)
    request = act(hangs, QUIXO.initial().to_text(), "hangs", "quixo")
    with pytest.raises(Overrun, match=r"^did not start within 0\.2 s \(stopped\)$"):
        pool.ask(request, 10.0, setup_seconds=0.2)
    assert "decision" in pool.ask(act("random"), 10.0)


@pytest.mark.timeout(120)
def test_a_pool_closed_while_a_request_is_in_flight_starts_no_worker() -> None:
    agents = AgentPool(1, name="pool-test-closing")
    failures: list[BaseException] = []

    def ask() -> None:
        try:
            agents.ask(broken("HangingPlayer"), 60.0)
        except ThinkError as err:
            failures.append(err)

    asking = threading.Thread(target=ask)
    asking.start()
    while agents._free.qsize():  # the request has taken the only worker
        time.sleep(0.01)
    agents.close()
    asking.join(30)
    assert not asking.is_alive() and len(failures) == 1
    left = [p for p in multiprocessing.active_children() if p.name == "pool-test-closing"]
    assert left == []
