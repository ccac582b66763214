"""What a third-party agent answers is held to the contract: a Decision of a legal move object
whose policy, if any, is one finite, non-negative number per action. Anything else forfeits the
agent's game, naming it, wherever it plays: a match, the browser's games and analysis, the
course adapter, the oracle; and what it prints never reaches the engine protocol."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from forfeits import Raised
from typer.testing import CliRunner

from boardlab.agents.base import AGENTS, Agent, make_agent, register
from boardlab.agents.decision import Decision, Limit
from boardlab.arena import match
from boardlab.arena.oracle import AgentFailure, judge_for, measure, play_judged_game
from boardlab.games import Reason, parse_game
from boardlab.games.quixo import Move, Push, State
from boardlab.games.tictactoe import Cell
from boardlab.interop.course import CoursePlayerAgent, as_course_player
from boardlab.interop.engine_server import serve_engine
from boardlab.play import agent_pool
from boardlab.play.agent_pool import AgentWorker
from boardlab.play.referee import AgentForfeit, answer_fault, shown_move
from boardlab.play.session import Session
from boardlab.ui.cli import app
from boardlab.ui.web.analysis import Analyst
from boardlab.ui.web.hall import WebGame

CONNECT4_ACTIONS = 7


class WrongPolicyAgent(Agent):
    """Plays a legal move with a policy of three entries, whatever the game."""

    name = "test-wrong-policy"

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return Decision(state.legal_moves()[0], policy=np.ones(3))


class TextAgent(Agent):
    """Answers its move in notation, not as a move object."""

    name = "test-text"

    def choose(self, state: Any) -> Any:
        return str(state.legal_moves()[0])


class TakenCellAgent(Agent):
    """Answers the centre of the Tic-Tac-Toe board, taken or not."""

    name = "test-taken-cell"

    def choose(self, state: Any) -> Any:
        return Cell(1, 1)


class RaisingAgent(Agent):
    """Raises in every move."""

    name = "test-raising"

    def choose(self, state: Any) -> Any:
        raise RuntimeError("out of ideas")


class ExitingAgent(Agent):
    """Calls sys.exit(3) in every move."""

    name = "test-exiting"

    def choose(self, state: Any) -> Any:
        sys.exit(3)


class SlowAgent(Agent):
    """Thinks for a minute, in Python, then moves."""

    name = "test-slow"

    def choose(self, state: Any) -> Any:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.01)
        return state.legal_moves()[0]


class IllegalQuixoAgent(Agent):
    """Answers a move that takes the centre cube, never legal."""

    name = "test-illegal-quixo"

    def choose(self, state: Any) -> Any:
        return Move(2, 2, Push.TOP, state.size)


TEST_AGENTS = (
    WrongPolicyAgent,
    TextAgent,
    TakenCellAgent,
    RaisingAgent,
    ExitingAgent,
    SlowAgent,
    IllegalQuixoAgent,
)


@pytest.fixture(autouse=True)
def test_agents() -> Iterator[None]:
    for cls in TEST_AGENTS:
        register(cls)
    yield
    for cls in TEST_AGENTS:
        AGENTS.unregister(cls.name)


def _loser(record: Any) -> str:
    return str(record.second_spec if record.winner == 0 else record.first_spec)


# --- the contract, where it is checked -------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "problem"),
    [
        (np.ones((2, 2)), "a policy is a 1-D array"),
        ([0.5, float("nan")], "finite numbers"),
        ([0.5, -0.1], "non-negative"),
        (["a", "b"], "a policy is an array of numbers"),
    ],
)
def test_a_decision_refuses_a_policy_of_another_form(policy: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Decision(Cell(0, 0), policy=policy)


def test_a_policy_of_another_length_than_the_action_space_is_the_agents_fault() -> None:
    state = parse_game("connect4").initial()
    fault = answer_fault(state, Decision(state.legal_moves()[0], policy=np.ones(3)))
    assert fault == (
        f"answered a bad policy: a policy has one entry per action of the game ({CONNECT4_ACTIONS}), got 3"
    )
    assert answer_fault(state, Decision(state.legal_moves()[0], policy=np.full(7, 1 / 7))) is None


def test_a_wrong_policy_forfeits_the_match_game_naming_the_agent() -> None:
    run = match("test-wrong-policy", "random", 2, game="connect4", opening_plies=0, workers=0)
    for record in run.records:
        assert record.outcome.reason is Reason.FORFEIT and _loser(record) == "test-wrong-policy"
        assert "a policy has one entry per action of the game (7), got 3" in record.outcome.detail


def test_a_worker_refuses_a_wrong_policy_as_an_error_not_a_decision() -> None:
    state = parse_game("connect4").initial()
    request = {"kind": "act", "key": "k", "game": "connect4", "position": state.to_text()}
    reply = agent_pool.act(AgentWorker(), {**request, "agent": "test-wrong-policy"}, lambda message: None)
    assert reply == {
        "error": "answered a bad policy: a policy has one entry per action of the game (7), got 3"
    }


def test_a_move_in_notation_is_refused_saying_how_to_make_a_move_object() -> None:
    session = Session(parse_game("connect4").initial(), (make_agent("test-text"), None))
    assert session.agent_move() is None
    assert session.outcome is not None and session.outcome.reason is Reason.FORFEIT
    assert (
        session.outcome.detail
        == "answered the text '1'; an agent returns a move object (state.parse_move('1'))"
    )


def test_a_move_object_is_shown_in_the_games_notation_legal_or_not() -> None:
    session = Session(parse_game("tictactoe").initial(), (None, make_agent("test-taken-cell")))
    session.play("b2")
    assert session.agent_move() is None
    assert session.outcome is not None and session.outcome.detail == "answered b2, not a legal move"
    quixo = State.initial()
    assert shown_move(Move(0, 3, Push.TOP, 5), quixo) == str(Move(0, 3, Push.TOP, 5))
    assert shown_move(object(), quixo).startswith("<object object at")  # not a move: its repr
    assert shown_move("a1", quixo) == "'a1'"


# --- the browser's games and analysis ---------------------------------------------------------


class _Pool:
    """A think pool whose workers answer ``answer(request)`` at once."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def ask(
        self, request: dict[str, Any], limit: Any, queue_seconds: float = 60.0, setup_seconds: Any = None
    ) -> Any:
        return self.answer(request)


def _wrong_policy(request: dict[str, Any]) -> dict[str, Any]:
    if request["kind"] == "check":
        return {}
    state = parse_game(request["game"]).parse_position(request["position"])
    return {"decision": {"move": str(state.legal_moves()[0]), "policy": [1.0, 1.0, 1.0]}, "seconds": 0.01}


@pytest.mark.timeout(60)
def test_a_web_game_whose_agent_answers_a_wrong_policy_ends_by_forfeit_naming_it() -> None:
    start = parse_game("connect4").initial()
    web_game = WebGame("g", start, [], ("random", None), 0.5, _Pool(_wrong_policy), seed=0)  # type: ignore[arg-type]
    web_game.running = True
    web_game.agent_turns(pace=0)
    view = web_game.view
    assert view["thinking"] is None and not web_game.running
    assert view["outcome"]["reason"] == "forfeit" and view["outcome"]["winner"] == 1
    assert view["outcome_text"].startswith("O wins (random forfeits: answered a bad policy: ")


@pytest.mark.timeout(60)
def test_any_error_while_a_web_games_agent_thinks_ends_the_game_saying_why() -> None:
    start = parse_game("tictactoe").initial()
    web_game = WebGame("g", start, [], ("random", None), 0.5, _Pool(_wrong_policy), seed=0)  # type: ignore[arg-type]

    def broken(limit: Any = None) -> Any:
        raise IndexError("list index out of range")

    web_game.session.agent_move = broken  # type: ignore[method-assign]
    web_game.running = True
    web_game.agent_turns(pace=0)
    assert web_game.view["thinking"] is None and not web_game.running
    said = r"O wins \(random forfeits: raised IndexError: list index out of range"
    assert re.fullmatch(
        said + r" \(at test_agent_answers.py:\d+, in broken\)\)", web_game.view["outcome_text"]
    )


def test_the_analysis_of_an_agent_answering_a_wrong_policy_is_no_server_error() -> None:
    def exact(request: dict[str, Any]) -> dict[str, Any]:
        return {"exact": None, "why": "no exact value here"}

    analyst = Analyst(_Pool(exact), _Pool(_wrong_policy), agent="greedy")  # type: ignore[arg-type]
    state = parse_game("connect4").initial().play(parse_game("connect4").initial().parse_move("4"))
    answer = analyst.analyze(state)
    assert answer["search"]["move"] == "1" and "policy_moves" not in answer["search"]


# --- the course adapter -------------------------------------------------------------------------


def test_the_course_players_forfeit_names_the_agent_and_shows_moves_in_notation() -> None:
    from course_standin import Game

    with pytest.raises(AgentForfeit) as raised:
        as_course_player("test-raising").make_move(Game())
    assert raised.value.detail == Raised(
        "test-raising forfeits: raised RuntimeError: out of ideas", "test_agent_answers.py", "choose"
    )
    with pytest.raises(AgentForfeit) as illegal:
        as_course_player("test-illegal-quixo").make_move(Game())
    assert (
        illegal.value.detail
        == f"test-illegal-quixo forfeits: answered {Move(2, 2, Push.TOP)}, not a legal move"
    )


def test_a_course_player_answering_a_boardlab_move_sees_it_in_notation() -> None:
    class AnswersAMove:
        def make_move(self, game: Any) -> Any:
            return Move(0, 3, Push.TOP, 5)

    agent = CoursePlayerAgent(player=AnswersAMove(), attempts=1)
    with pytest.raises(AgentForfeit, match=r"last: answered a4a1, not a legal move \(expected"):
        agent.choose(State.initial())


# --- the oracle ------------------------------------------------------------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("spec", "detail"),
    [("test-raising", "raised RuntimeError: out of ideas"), ("test-exiting", "called sys.exit(3)")],
)
def test_the_oracle_ends_with_one_line_naming_an_agent_that_raises_or_exits(
    spec: str, detail: str, tmp_path: Path
) -> None:
    args = [
        "oracle",
        spec,
        "--game",
        "tictactoe",
        "--games",
        "2",
        "--opponents",
        "random",
        "--out",
        str(tmp_path),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and lines[0].startswith(f"Error: {spec} forfeited at ply ")
        and re.search(re.escape(detail) + r" \(at test_agent_answers.py:\d+, in choose\)$", lines[0])
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.timeout(60)
def test_the_oracle_stops_an_agent_past_its_time_per_move() -> None:
    tic = time.monotonic()
    with pytest.raises(AgentFailure, match=r"^test-slow forfeited .*: no move within 0\.3 s \(stopped\)$"):
        measure("test-slow", "tictactoe", opponents=["random"], games=1, move_timeout=0.3)
    assert time.monotonic() - tic < 30
    game = parse_game("tictactoe")
    slow = make_agent("test-slow")
    with pytest.raises(AgentFailure, match=r"no move within 0\.2 s"):
        start = game.initial()
        play_judged_game(game, slow, make_agent("random"), 0, start, judge_for(game), {}, limits=(0.2, None))


def test_the_oracle_refuses_a_move_timeout_out_of_range(tmp_path: Path) -> None:
    args = ["oracle", "random", "--game", "tictactoe", "--move-timeout", "-1", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and result.stderr.startswith("Error: --move-timeout must be 0 (no limit)")


# --- the engine command ----------------------------------------------------------------------------


CHATTY_ENGINE = """
import sys
from boardlab.agents.base import Agent, register
from boardlab.ui.cli import main

class Chatty(Agent):
    name = "test-chatty"

    def choose(self, state):
        print("DEBUG: thinking")
        return state.legal_moves()[0]

register(Chatty)
sys.argv = ["boardlab", "engine", "test-chatty", "--seed", "0"]
main()
"""


@pytest.mark.timeout(300)
def test_what_an_engines_agent_prints_goes_to_stderr_not_into_the_protocol(tmp_path: Path) -> None:
    script = tmp_path / "chatty_engine.py"
    script.write_text(textwrap.dedent(CHATTY_ENGINE))
    commands = "boardlab 1\ngame tictactoe\nnewgame\nposition .../.../... X 0\ngo\nquit\n"
    done = subprocess.run(
        [sys.executable, str(script)],
        input=commands,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["name boardlab test-chatty", "ready", "ready", "move a1"]
    assert "DEBUG: thinking" in done.stderr


ENGINE_COMMANDS = ("boardlab 1", "game tictactoe", "newgame", "position .../.O./X.. X 2", "go", "quit")


@pytest.mark.parametrize(
    ("agent", "detail"),
    [
        ("test-taken-cell", "answered b2, not a legal move"),
        ("test-text", "answered the text 'a1'; an agent returns a move object (state.parse_move('a1'))"),
        (
            "test-wrong-policy",
            "answered a bad policy: a policy has one entry per action of the game (9), got 3",
        ),
        ("test-raising", "raised RuntimeError: out of ideas"),
        ("test-exiting", "called sys.exit(3)"),
    ],
)
def test_an_engines_agent_answering_what_the_referee_forfeits_sends_no_move(agent: str, detail: str) -> None:
    out = io.StringIO()
    with pytest.raises(AgentForfeit) as raised:
        serve_engine(agent, [c + "\n" for c in ENGINE_COMMANDS], out, 0)
    raising = detail.startswith(("raised", "called"))  # said with where the agent's code raised it
    assert raised.value.detail == (Raised(detail, "test_agent_answers.py", "choose") if raising else detail)
    assert out.getvalue().splitlines() == [f"name boardlab {agent}", "ready", "ready"]  # no move line


MISBEHAVING_ENGINE = """
import sys
import numpy as np
from boardlab.agents.base import Agent, register
from boardlab.agents.decision import Decision
from boardlab.games.tictactoe import Cell
from boardlab.ui.cli import main

class TakenCell(Agent):
    name = "test-taken-cell"

    def choose(self, state):
        return Cell(1, 1)

class WrongPolicy(Agent):
    name = "test-wrong-policy"

    def act(self, state, limit=None):
        return Decision(state.legal_moves()[0], policy=np.ones(3))

register(TakenCell)
register(WrongPolicy)
sys.argv = ["boardlab", "engine", sys.argv[1], "--seed", "0"]
main()
"""


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("agent", "detail"),
    [
        ("test-taken-cell", "answered b2, not a legal move"),
        (
            "test-wrong-policy",
            "answered a bad policy: a policy has one entry per action of the game (9), got 3",
        ),
    ],
)
def test_the_engine_command_ends_in_one_line_with_status_1_rather_than_send_a_bad_answer(
    agent: str, detail: str, tmp_path: Path
) -> None:
    script = tmp_path / "misbehaving_engine.py"
    script.write_text(MISBEHAVING_ENGINE)
    done = subprocess.run(
        [sys.executable, str(script), agent],
        input="".join(c + "\n" for c in ENGINE_COMMANDS),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.splitlines() == [f"name boardlab {agent}", "ready", "ready"]  # the peer sees it exit
    assert done.stderr == f"Error: {agent}: {detail}\n"


# --- a script read from standard input --------------------------------------------------------------


STDIN_MATCH = """
from boardlab.arena import ArenaError, match
try:
    match("random", "greedy", 2, game="tictactoe", workers=2)
except ArenaError as err:
    print("refused:", err)
"""


@pytest.mark.timeout(300)
def test_a_match_from_a_script_on_stdin_is_refused_in_one_line_before_any_worker(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-"],
        input=STDIN_MATCH,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines() == [
        "refused: worker processes cannot import this program's main module again (it was read from <stdin>, "
        "not a file): run it from a file, or play in this process (workers=0)"
    ]
