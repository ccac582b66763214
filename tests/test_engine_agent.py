"""The engine agent: a program in any language speaking boardlab's text protocol.

What boardlab sends, line by line; every way an engine can misbehave ending as a forfeit with
one line saying what it did, and never a hang; the engine's process gone once its agent is
dropped, its holder exits or is killed, or its worker's games end; the C example compiled and
playing a match in worker processes, legal on random positions; the spec's errors in one line.
"""

from __future__ import annotations

import gc
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from reliability import session_members
from typer.testing import CliRunner

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.agents.decision import Limit
from boardlab.agents.greedy import classify_moves
from boardlab.arena import match, validate_config
from boardlab.arena.play import GameRecord
from boardlab.arena.schedule import ArenaError, TournamentConfig, player_name
from boardlab.arena.store import Store
from boardlab.games import Reason, parse_game
from boardlab.interop.engine import EngineAgent, engine_command, game_line, go_line, read_info
from boardlab.play import agent_pool
from boardlab.play.clock import TimeControl
from boardlab.play.referee import AgentForfeit, AgentProcess
from boardlab.play.session import Session
from boardlab.ui.cli import app
from boardlab.ui.web.hall import WebInputError, check_agent

ROOT = Path(__file__).resolve().parents[1]
ENGINES = Path(__file__).resolve().parent / "protocol_engines.py"
C_ENGINE = ROOT / "examples" / "engines" / "connect4_engine.c"
WIDE = {"COLUMNS": "200"}
UNFLUSHED = "nothing read from it: does it flush its output after each line?"
REFUSED = "failed to start: engine refused the game tictactoe: this engine plays nothing today"


def engine_spec(behaviour: str, *extra: str, options: str = "") -> str:
    """The spec of the test engine with ``behaviour`` (see tests/protocol_engines.py)."""
    command = shlex.join([sys.executable, str(ENGINES), behaviour, *extra])
    return f"engine:cmd=({command})" + (f",{options}" if options else "")


def alive(pid: int) -> bool:
    """True while process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    """True once process ``pid`` is gone (within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def pids_in(folder: Path) -> list[int]:
    """The process ids the test engines started with ``--pids folder`` wrote there."""
    return [int(p.name) for p in folder.iterdir()]


# --- the protocol's lines -------------------------------------------------------------------


def test_go_lines_write_each_dimension_of_the_limit_in_a_fixed_order() -> None:
    assert go_line(Limit()) == "go"
    assert go_line(Limit(time=1.5, depth=6)) == "go time 1.5 depth 6"
    assert go_line(Limit(clock=12.3456, increment=0.0, moves_to_go=5)) == (
        "go clock 12.346 increment 0 movestogo 5"
    )
    assert go_line(Limit(nodes=1000, iterations=50, time=2)) == "go time 2 nodes 1000 iterations 50"


@pytest.mark.parametrize(
    ("spec", "line"),
    [
        ("connect4", "connect4:width=7,height=6,connect=4"),
        ("tictactoe", "tictactoe"),
        ("quixo:size=4", "quixo:size=4,ply_cap=200,rules=official"),
        ("nim:piles=1-3-5,misere=false", "nim:piles=1-3-5,k=0,misere=false"),
    ],
)
def test_the_game_line_writes_every_option_out(spec: str, line: str) -> None:
    game = parse_game(spec)
    assert game_line(game) == line
    assert parse_game(line) == game


@pytest.mark.parametrize(
    ("words", "problem"),
    [
        ("value 1.5", "info value must be a number in [-1, 1], got '1.5'"),
        ("value nan", "info value must be a number in [-1, 1]"),
        ("depth -1", "info depth must be a whole number >= 0"),
        ("nodes", "info field 'nodes' has no value"),
        ("depth 2 depth 3", "info field 'depth' given twice"),
        ("score cp 30", "unknown info field 'score' (accepted: value, depth, nodes, pv)"),
        ("value high", "info value must be a number in [-1, 1], got 'high'"),
        ("depth \u00b2", "info depth must be a whole number >= 0, got '\u00b2'"),  # a digit, not 0-9
        ("nodes 1234567890123456789", "info nodes must be a whole number >= 0"),  # over what a store keeps
    ],
)
def test_bad_info_lines_are_refused_saying_why(words: str, problem: str) -> None:
    with pytest.raises(ValueError) as caught:
        read_info(words.split())
    assert str(caught.value).startswith(problem)


def test_an_info_line_gives_any_of_its_fields_and_the_pv_takes_the_rest() -> None:
    info = read_info(["nodes", "12", "value", "-0.5", "pv", "a1", "b2", "c3"])
    assert (info.value, info.depth, info.nodes, info.pv) == (-0.5, None, 12, ("a1", "b2", "c3"))
    assert read_info(["value", "-1", "nodes", "999999999999999999"]) == read_info(
        ["nodes", "999999999999999999", "value", "-1.0"]
    )
    assert read_info(["value", "1", "depth", "0"]).value == 1.0  # the bounds are values too


# --- a transcript ---------------------------------------------------------------------------


@pytest.mark.timeout(60)
def test_boardlab_sends_the_handshake_the_game_each_position_and_its_limit(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    agent = make_agent(engine_spec("play", "--log", str(log), options="depth=3"), game="tictactoe")
    tictactoe, nim = parse_game("tictactoe"), parse_game("nim:piles=1-2")
    agent.prepare(tictactoe)
    agent.new_game()
    first = agent.act(tictactoe.initial(), Limit(time=0.5))
    later = tictactoe.initial().play("a1").play("b2")
    agent.act(later, Limit(clock=12.5, increment=0.1, moves_to_go=5))
    agent.new_game()
    agent.act(nim.initial())  # another game: told before its first position
    assert isinstance(agent, EngineAgent)
    agent.close()
    assert log.read_text().splitlines() == [
        "boardlab 1",
        "game tictactoe",
        "newgame",
        "position .../.../... X 0",
        "go time 0.5 depth 3",
        "position X../.O./... X 2",
        "go clock 12.5 increment 0.1 movestogo 5 depth 3",
        "game nim:piles=1-2,k=0,misere=true",
        "newgame",
        "position 1-2 X 0",
        "go depth 3",
        "quit",
    ]
    assert str(first.move) == "a1" and first.value == 0.25
    assert first.info is not None and (first.info.depth, first.info.nodes, first.info.pv) == (1, 1, ("a1",))
    assert first.info.score == 0.25 and first.info.engine == "protocol-test"  # the name from its handshake


@pytest.mark.timeout(60)
def test_games_of_the_same_game_name_it_once_and_start_each_with_newgame(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    agent = make_agent(engine_spec("play", "--log", str(log)))
    game = parse_game("tictactoe")
    for _ in range(2):
        agent.prepare(game)  # as the terminal prepares its agents for each game
        agent.new_game()
        agent.act(game.initial())
    agent.close()
    assert log.read_text().splitlines()[1:-1] == [
        "game tictactoe",
        "newgame",
        "position .../.../... X 0",
        "go",
        "newgame",
        "position .../.../... X 0",
        "go",
    ]


@pytest.mark.timeout(60)
def test_a_clock_replaces_the_specs_time_per_move(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    agent = make_agent(engine_spec("play", "--log", str(log), options="time=2"))
    state = parse_game("tictactoe").initial()
    agent.act(state, Limit(clock=30, increment=1))
    agent.act(state, Limit(clock=30, time=0.5))  # a call's own time per move goes along
    agent.act(state)
    agent.close()
    gos = [line for line in log.read_text().splitlines() if line.startswith("go")]
    assert gos == ["go clock 30 increment 1", "go time 0.5 clock 30", "go time 2"]


@pytest.mark.timeout(120)
def test_an_untimed_arena_game_sends_a_bare_go_and_the_engine_decides(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    run = match(
        engine_spec("play", "--log", str(log)), "random", 2, game="tictactoe", opening_plies=0, workers=0
    )
    assert run.complete and all(record.outcome.reason is not Reason.FORFEIT for record in run.records)
    gos = [line for line in log.read_text().splitlines() if line.startswith("go")]
    assert gos and set(gos) == {"go"}


@pytest.mark.timeout(60)
def test_a_session_on_a_clock_passes_the_clock_as_it_is_with_the_moves_to_go(tmp_path: Path) -> None:
    logs = [tmp_path / "x.log", tmp_path / "o.log"]
    agents = [make_agent(engine_spec("play", "--log", str(log))) for log in logs]
    session = Session(
        parse_game("tictactoe").initial(),
        agents,
        time_control=TimeControl.parse("3/10+0.5"),
        timer=lambda: 0.0,  # every move takes no time: the clocks are exact
    )
    assert session.prepare_agents() is None
    outcome = session.run()
    assert session.moves == ["a1", "b1", "c1", "a2", "b2", "c2", "a3"] and outcome.winner == 0
    gos = [[line for line in log.read_text().splitlines() if line.startswith("go")] for log in logs]
    assert gos[0] == [
        "go clock 10 increment 0.5 movestogo 3",
        "go clock 10.5 increment 0.5 movestogo 2",
        "go clock 11 increment 0.5 movestogo 1",
        "go clock 21.5 increment 0.5 movestogo 3",  # the period's base again after 3 moves
    ]
    assert gos[1] == [
        "go clock 10 increment 0.5 movestogo 3",
        "go clock 10.5 increment 0.5 movestogo 2",
        "go clock 11 increment 0.5 movestogo 1",
    ]


# --- misbehaviour ---------------------------------------------------------------------------


def loser(record: GameRecord) -> str:
    """The spec of the side that lost ``record``."""
    return record.second_spec if record.winner == 0 else record.first_spec


MISBEHAVIOURS = [  # in a game: how each forfeit's detail starts, CELL standing for the engine's move
    ("exits", "", "engine exited (exit code 3) before answering 'go': giving up"),
    ("hangs", "time=0.2", "no move within its 0.2 s and 1 s of grace (stopped)"),
    (
        "garbage",
        "",
        "engine sent 'bestmove e2e4' after go (expected info or move NOTATION; "
        "write debug output to stderr or start the line with #)",
    ),
    ("unreadable", "", "answered 'zz', not a legal move: cannot read move 'zz': expected a cell like 'b2'"),
    ("repeats", "", "answered 'CELL', not a legal move: cell CELL is already taken"),
    ("twice", "", "engine sent 'move CELL' unasked (after its last answer)"),
    ("bad-info", "", "engine sent 'info value 7': info value must be a number in [-1, 1], got '7'"),
    ("move-extra", "", "engine sent 'move CELL CELL' after go (expected info or move NOTATION; write debug"),
    # the info line of its first move is read at its second
    (
        "info-after",
        "",
        "engine sent 'info depth 1 nodes 1 value 0.25 pv CELL' unasked (after its last answer)",
    ),
    ("long-line", "", "engine sent a line of over 65536 bytes ('# xxxxx"),
    ("closes", "", "engine exited (signal 9 (SIGKILL)) before answering 'go'"),  # its output ended: stopped
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("behaviour", "options", "detail"), MISBEHAVIOURS)
def test_each_misbehaviour_forfeits_with_one_line_saying_what_it_did(
    behaviour: str, options: str, detail: str, tmp_path: Path
) -> None:
    spec = engine_spec(*behaviour.split(), "--pids", str(tmp_path), options=options)
    run = match(spec, "random", 2, game="tictactoe", opening_plies=0, workers=0)
    assert run.complete and len(run.records) == 2
    for record in run.records:
        assert record.outcome.reason is Reason.FORFEIT and loser(record) == player_name(spec)  # its one text
        assert re.match(re.escape(detail).replace("CELL", "[a-c][1-3]"), record.outcome.detail), (
            record.outcome
        )
        assert "\n" not in record.outcome.detail
    gc.collect()
    assert all(wait_gone(pid) for pid in pids_in(tmp_path))  # hung, refused or failed: none left


START_FAILURES = [  # behaviour, options, the forfeit's whole detail
    ("refuses", "", REFUSED),
    (
        "dies",
        "",
        "failed to start: engine exited (exit code 2) before answering 'boardlab 1': cannot load weights",
    ),
    # nothing at all read: its output is most likely waiting in its buffer
    ("silent", "start=0.5", "failed to start: no ready within 0.5 s (stopped); " + UNFLUSHED),
    ("unflushed", "start=0.5", "failed to start: no ready within 0.5 s (stopped); " + UNFLUSHED),
    # its name and comments came, the ready comes too late: flushing is not the problem
    ("play --ready-delay 3", "start=0.5", "failed to start: no ready within 0.5 s (stopped)"),
    (
        "bad-hello",
        "",
        "failed to start: engine sent 'hello' in its handshake (expected name TEXT or ready; "
        "write debug output to stderr or start the line with #)",
    ),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("behaviour", "options", "detail"), START_FAILURES)
def test_each_failure_at_its_start_forfeits_with_one_line_saying_what_it_did(
    behaviour: str, options: str, detail: str, tmp_path: Path
) -> None:
    agent = make_agent(engine_spec(*behaviour.split(), "--pids", str(tmp_path), options=options))
    with pytest.raises(AgentForfeit) as caught:
        agent.prepare(parse_game("tictactoe"))
    assert caught.value.detail == detail
    assert all(wait_gone(pid) for pid in pids_in(tmp_path))


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("behaviour", "options", "detail"), START_FAILURES)
def test_an_engine_failing_at_its_start_is_refused_before_any_game(
    behaviour: str, options: str, detail: str, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    spec = engine_spec(*behaviour.split(), "--pids", str(pids), options=options)
    db = tmp_path / "games.sqlite"
    with pytest.raises(ArenaError) as caught:
        match(spec, "random", 40, game="tictactoe", store=db, workers=0)
    message = str(caught.value)  # the command (a long one shortened), the game, the forfeit's detail
    assert message.startswith(
        f"engine: cmd '{shlex.join([sys.executable, str(ENGINES), behaviour.split()[0]])}"
    )
    assert message.endswith(f"' cannot play tictactoe: {detail}") and "\n" not in message
    assert len(pids_in(pids)) == 1 and all(wait_gone(pid) for pid in pids_in(pids))  # started once
    with closing(Store(db)) as store:
        assert store.tournaments() == []


@pytest.mark.timeout(60)
def test_an_engine_is_started_once_before_play_however_often_its_command_checks_it(tmp_path: Path) -> None:
    spec = engine_spec("play", "--pids", str(tmp_path))
    config = TournamentConfig(specs=(spec, "random"), games_per_pair=2, game="tictactoe")
    for _ in range(2):  # as a command validates, then runs
        validate_config(config)
    assert len(pids_in(tmp_path)) == 1 and all(wait_gone(pid) for pid in pids_in(tmp_path))  # quit after
    run = match(spec, "random", 2, game="tictactoe", opening_plies=0, workers=0)
    assert all(record.outcome.reason is not Reason.FORFEIT for record in run.records)


@pytest.mark.timeout(60)
def test_an_engine_hanging_on_a_game_clock_is_stopped_at_the_clock_and_loses_on_time() -> None:
    agent = make_agent(engine_spec("hangs"))
    session = Session(parse_game("tictactoe").initial(), [agent, None], time_control=TimeControl(0.3))
    assert session.prepare_agents() is None
    assert isinstance(agent, EngineAgent) and agent.pid is not None
    assert session.agent_move() is None
    assert session.outcome is not None and session.outcome.reason is Reason.TIME
    assert session.outcome.detail == "no move with 0.30 s left on its clock and 1 s of grace (stopped)"
    assert agent.pid is None  # stopped with its forfeit, not when its agent is dropped


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("limit", "detail"),
    [
        (Limit(clock=0.3, time=5), "no move with 0.30 s left on its clock and 1 s of grace (stopped)"),
        (Limit(clock=60, time=0.2), "no move within its 0.2 s and 1 s of grace (stopped)"),
    ],
)
def test_a_hung_engine_is_stopped_at_the_sooner_of_its_clock_and_its_time(limit: Limit, detail: str) -> None:
    agent = make_agent(engine_spec("hangs"))
    with pytest.raises(AgentForfeit) as caught:
        agent.act(parse_game("tictactoe").initial(), limit)
    assert caught.value.detail == detail


@pytest.mark.timeout(60)
@pytest.mark.parametrize("limit", [Limit(clock=0.2), Limit(time=0.2)])
def test_a_move_a_little_late_is_taken_within_the_grace(limit: Limit) -> None:
    """Half a second late, within the grace of a second: the move comes back (the referee, who
    keeps the clock, decides whether it was in time), not a forfeit."""
    agent = make_agent(engine_spec("play", "--move-delay", "0.5"))
    state = parse_game("tictactoe").initial()
    agent.prepare(state.game)
    assert str(agent.act(state, limit).move) == "a1"


@pytest.mark.timeout(60)
def test_an_engine_writing_megabytes_to_stderr_plays_on(tmp_path: Path) -> None:
    run = match(engine_spec("chatty"), "random", 2, game="tictactoe", opening_plies=0, workers=0)
    assert all(record.outcome.reason is not Reason.FORFEIT for record in run.records)


@pytest.mark.timeout(60)
def test_a_program_that_cannot_be_run_forfeits_at_its_start(tmp_path: Path) -> None:
    program = tmp_path / "not-a-program"
    program.write_text("neither a binary nor a script with #!\n")
    program.chmod(0o755)
    agent = make_agent(f"engine:cmd={program}")
    with pytest.raises(
        AgentForfeit, match=r"^failed to start: cannot run '.*not-a-program': Exec format error"
    ):
        agent.prepare(parse_game("nim"))


@pytest.mark.timeout(60)
def test_an_engine_gone_before_it_is_asked_forfeits_as_one_that_exits_when_asked(tmp_path: Path) -> None:
    """Whether boardlab finds an exit by a write that fails or by an answer that never comes is
    a race; the forfeit says the same either way."""
    agent = make_agent(engine_spec("leaves", "--pids", str(tmp_path)))
    game = parse_game("nim")
    agent.prepare(game)
    state = game.initial()
    state = state.play(agent.act(state).move)
    assert all(wait_gone(pid) for pid in pids_in(tmp_path))  # exited after its move: nothing can be sent
    with pytest.raises(AgentForfeit) as caught:
        agent.act(state)
    assert caught.value.detail == "engine exited (exit code 3) before answering 'go': done after one move"


@pytest.mark.timeout(60)
def test_after_a_failure_the_agent_forfeits_again_until_prepared_with_a_fresh_engine(tmp_path: Path) -> None:
    agent = make_agent(engine_spec("exits", "--pids", str(tmp_path)))
    game = parse_game("nim")
    agent.prepare(game)
    state = game.initial()
    state = state.play(agent.act(state).move)
    for _ in range(2):  # the same forfeit each time, the engine not asked again
        with pytest.raises(AgentForfeit) as caught:
            agent.act(state)
        assert caught.value.detail == "engine exited (exit code 3) before answering 'go': giving up"
    agent.prepare(game)  # a new program, which plays its first move again
    assert state.is_legal(agent.act(state).move)
    assert len(pids_in(tmp_path)) == 2


@pytest.mark.timeout(60)
def test_an_engine_failing_its_start_in_a_child_process_says_failed_to_start_once() -> None:
    with pytest.raises(AgentForfeit) as caught:
        AgentProcess("tictactoe", engine_spec("refuses"), 0, 10.0).close()
    assert caught.value.detail == REFUSED


@pytest.mark.timeout(60)
def test_an_engine_failing_its_start_in_an_agent_worker_says_failed_to_start_once() -> None:
    state = parse_game("tictactoe").initial()
    request = {"key": "k", "game": "tictactoe", "position": state.to_text(), "agent": engine_spec("refuses")}
    assert agent_pool.act(agent_pool.AgentWorker(), request, lambda _: None) == {"error": REFUSED}


@pytest.mark.timeout(60)
def test_analyze_with_an_engine_failing_its_start_says_failed_to_start_once() -> None:
    args = ["analyze", "--game", "tictactoe", "--agent", engine_spec("refuses"), "--seconds", "1"]
    result = CliRunner().invoke(app, args, env=WIDE)
    assert result.exit_code == 1, result.output
    assert result.stderr.count("failed to start") == 1 and result.stderr.rstrip().endswith(REFUSED)


# --- what an engine written in C or Rust may do, and still play -----------------------------

PLAYS_ON = [  # behaviour, options, value, depth, nodes, pv of each decision (MOVE: its move; None: not sent)
    ("crlf", "", 0.25, 1, 1, ("MOVE",), "protocol-test"),
    ("spaces", "", 0.25, 1, 1, ("MOVE",), "protocol-test"),
    ("garbled", "", 0.25, 1, 1, ("MOVE",), "protocol-test \ufffd\ufffd"),  # bytes not UTF-8 replaced
    ("bare-move", "", None, 0, None, ("MOVE",), "protocol-test"),  # no info: the move is the pv
    ("infos", "", -1.0, 2, 10, ("MOVE", "x", "y"), "protocol-test"),  # each field from its last line
    ("long-pv", "", None, 9, None, ("MOVE",) * 64, "protocol-test"),  # the pv cut to 64 moves
    ("after-move", "", 0.25, 1, 1, ("MOVE",), "protocol-test"),  # a comment after its move is no answer
    ("play --ready-delay 1", "start=3", 0.25, 1, 1, ("MOVE",), "protocol-test"),  # ready, in time
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("behaviour", "options", "value", "depth", "nodes", "pv", "name"), PLAYS_ON)
def test_an_engine_writing_its_lines_its_own_way_plays_a_whole_game(
    behaviour: str,
    options: str,
    value: float | None,
    depth: int,
    nodes: int | None,
    pv: tuple[str, ...],
    name: str,
) -> None:
    agent = make_agent(engine_spec(*behaviour.split(), options=options))
    state = parse_game("tictactoe").initial()
    agent.prepare(state.game)
    agent.new_game()
    while not state.is_over:  # both sides: the first empty cell each time
        decision = agent.act(state, Limit(time=5))
        move = str(decision.move)
        assert decision.value == value and decision.info is not None
        assert (decision.info.depth, decision.info.nodes, decision.info.engine) == (depth, nodes, name)
        assert decision.info.pv == tuple(move if m == "MOVE" else m for m in pv)
        state = state.play(decision.move)
    assert state.outcome is not None and state.outcome.winner == 0  # a1 b1 c1 a2 b2 c2 a3: X's diagonal
    agent.close()


@pytest.mark.timeout(60)
def test_a_decision_carries_the_seconds_measured_and_no_nodes_where_the_engine_sent_none() -> None:
    agent = make_agent(engine_spec("bare-move", "--move-delay", "0.3"))
    state = parse_game("tictactoe").initial()
    decision = agent.act(state, Limit(time=5))
    assert decision.info is not None and decision.info.nodes is None
    assert decision.info.seconds >= 0.3  # the engine sends no time: the wait for its move
    assert decision.to_json()["info"]["nodes"] is None
    agent.close()


# --- the engine's process never outlives its agent ----------------------------------------------


@pytest.mark.timeout(60)
def test_a_hung_engine_started_by_a_wrapper_forfeits_all_the_same(tmp_path: Path) -> None:
    """A wrapper (a shell script, ``cargo run``) runs the engine as its child: stopping the
    wrapper leaves the engine holding the pipes. The forfeit comes all the same."""
    pids = tmp_path / "pids"
    pids.mkdir()
    wrapper = tmp_path / "engine.sh"
    engine = shlex.join([sys.executable, str(ENGINES), "hangs", "--pids", str(pids)])
    wrapper.write_text(f"#!/bin/sh\n{engine}\nexit $?\n")
    wrapper.chmod(0o755)
    agent = make_agent(f"engine:cmd={wrapper}")
    caught: list[AgentForfeit] = []

    def act() -> None:
        with pytest.raises(AgentForfeit) as forfeit:
            agent.act(parse_game("tictactoe").initial(), Limit(time=0.2))
        caught.append(forfeit.value)

    acting = threading.Thread(target=act, daemon=True)  # a hang fails the test, not the run
    try:
        acting.start()
        acting.join(30)
        assert not acting.is_alive(), "the agent hung stopping its engine"
        [forfeit] = caught
        assert forfeit.detail == "no move within its 0.2 s and 1 s of grace (stopped)"
    finally:
        for pid in pids_in(pids):  # the engine itself outlives its wrapper: it ignores its input's end
            os.kill(pid, signal.SIGKILL)
        acting.join(30)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("behaviour", ["play", "hangs"])
def test_the_engine_is_gone_once_its_agent_is_dropped(behaviour: str, tmp_path: Path) -> None:
    agent = make_agent(engine_spec(behaviour, "--pids", str(tmp_path)))
    agent.prepare(parse_game("tictactoe"))
    [pid] = pids_in(tmp_path)
    assert alive(pid) and isinstance(agent, EngineAgent) and agent.pid == pid
    del agent  # a hung engine ignores quit and the end of its input: it is killed
    gc.collect()
    assert not alive(pid)


HOLDER = """
import sys, time
from boardlab.games import parse_game
from boardlab.interop.engine import EngineAgent
agent = EngineAgent(settings=EngineAgent.Settings(cmd=sys.argv[1]))
agent.prepare(parse_game("tictactoe"))
print(agent.pid, flush=True)
if sys.argv[2] == "wait":
    time.sleep(3600)
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("end", ["exits", "killed"])
def test_the_engine_is_gone_once_the_process_holding_it_exits_or_is_killed(end: str) -> None:
    cmd = shlex.join([sys.executable, str(ENGINES), "play"])
    how = "wait" if end == "killed" else "exit"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, cmd, how], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        pid = int(holder.stdout.readline())
        if end == "killed":  # nothing of the holder runs: the engine sees its input end
            holder.send_signal(signal.SIGKILL)
        holder.wait(60)
        assert wait_gone(pid)
    finally:
        holder.kill()
        holder.wait()


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture
def command_env() -> dict[str, str]:
    """The environment of boardlab's commands run here (wide, for whole table rows)."""
    return {**os.environ, **WIDE}


def run_boardlab(
    env: dict[str, str], *args: str, cwd: Path, stdin: str = ""
) -> tuple[int, str, str, list[int]]:
    """``boardlab ARGS`` in a session of its own: its exit status, output, errors and the
    processes of its session still alive once it has exited (killed then)."""
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", *args]
    process = subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(stdin, timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    left = [pid for pid in session_members(process.pid) if not wait_gone(pid, 5)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return process.returncode, out, err, left


def exported(env: dict[str, str], db: Path) -> list[dict]:
    """The games stored in ``db``, as ``boardlab export`` writes them."""
    status, out, err, _ = run_boardlab(env, "export", str(db), cwd=db.parent)
    assert status == 0, err
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture(scope="module")
def c_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C example, compiled."""
    program = tmp_path_factory.mktemp("c-engine") / "connect4_engine"
    subprocess.run(
        ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(program), str(C_ENGINE)],
        check=True,
        timeout=120,
    )
    return program


@pytest.mark.timeout(300)
def test_the_c_engine_plays_a_tournament_in_worker_processes(
    c_engine: Path, command_env: dict[str, str], tmp_path: Path
) -> None:
    spec = "engine:cmd=./connect4_engine"
    (tmp_path / "connect4_engine").symlink_to(c_engine)
    args = ["tournament", spec, "greedy", "random", "--gauntlet", "--game", "connect4", "-n", "6"]
    args += ["-j", "2", "--db", "games.sqlite", "--out", "out"]
    status, out, err, left = run_boardlab(command_env, *args, cwd=tmp_path)
    assert status == 0, out + err
    assert not left, f"processes left behind: {left}"
    games = exported(command_env, tmp_path / "games.sqlite")
    assert len(games) == 12
    assert all(game["outcome"]["reason"] != "forfeit" for game in games), games
    against_random = [g for g in games if "random" in (g["first_spec"], g["second_spec"])]
    engine_wins = [
        g for g in against_random if g["outcome"]["winner"] == [g["first_spec"], g["second_spec"]].index(spec)
    ]
    assert len(engine_wins) >= 5, against_random


def random_open_position(game: Any, rng: random.Random, least: int, most: int) -> Any:
    """The position after ``least`` to ``most - 1`` random moves from the start, or None where
    the game ended on the way."""
    state = game.initial()
    for _ in range(rng.randrange(least, most)):
        if state.is_over:
            return None
        state = state.play(rng.choice(state.legal_moves()))
    return None if state.is_over else state


@pytest.mark.timeout(120)
def test_every_move_of_the_c_engine_on_random_positions_is_legal_and_takes_a_win(c_engine: Path) -> None:
    agent = make_agent(f"engine:cmd={c_engine}", game="connect4")
    game = parse_game("connect4")
    agent.prepare(game)
    rng = random.Random(0)
    checked = 0
    while checked < 300:
        state = random_open_position(game, rng, 0, 36)
        if state is None:
            continue
        agent.new_game()
        decision = agent.act(state, Limit(time=1))
        assert state.is_legal(decision.move)
        me, opp = state.words
        wins = classify_moves(state.kernel, me, opp)[0]
        if wins:
            assert state.move_index(decision.move) in wins, state.to_text()
            assert decision.value == 1.0
        assert decision.info is not None and decision.info.engine == "c4-example"
        checked += 1


def wins_in_two(state: Any) -> set[Any]:
    """The moves after which the side to move wins with its next move, whatever the reply."""

    def wins_now(after: Any) -> bool:
        me, opp = after.words
        return not after.is_over and bool(classify_moves(after.kernel, me, opp)[0])

    def forced(after: Any) -> bool:
        return not after.is_over and all(wins_now(after.play(r)) for r in after.legal_moves())

    return {m for m in state.legal_moves() if forced(state.play(m))}


@pytest.mark.timeout(120)
def test_the_c_engine_finds_every_win_in_two(c_engine: Path) -> None:
    """Six plies of search see a win two moves ahead (a double threat, say): where neither side
    wins at once, the engine plays a move that wins whatever the reply."""
    agent = make_agent(f"engine:cmd={c_engine}", game="connect4")
    game = parse_game("connect4")
    rng = random.Random(1)
    checked = 0
    while checked < 25:
        state = random_open_position(game, rng, 6, 30)
        if state is None:
            continue
        me, opp = state.words
        if classify_moves(state.kernel, me, opp)[0] or classify_moves(state.kernel, opp, me)[0]:
            continue  # a win at once, or a threat to block: not the question here
        winning = wins_in_two(state)
        if not winning:
            continue
        agent.new_game()
        decision = agent.act(state, Limit(time=5))
        assert decision.move in winning and decision.value == 1.0, state.to_text()
        checked += 1


@pytest.mark.timeout(60)
def test_the_c_engine_refuses_another_game(c_engine: Path) -> None:
    agent = make_agent(f"engine:cmd={c_engine}")
    with pytest.raises(
        AgentForfeit, match=r"refused the game connect4:width=8,height=7,connect=4: this engine"
    ):
        agent.prepare(parse_game("connect4:width=8,height=7"))


@pytest.mark.timeout(120)
def test_a_hung_engine_in_a_worker_is_stopped_with_its_worker(
    command_env: dict[str, str], tmp_path: Path
) -> None:
    # no time per move: the engine is waited for, until the arena's watchdog stops the worker
    pids = tmp_path / "pids"
    pids.mkdir()
    spec = engine_spec("hangs", "--pids", str(pids))
    args = ["match", spec, "random", "--game", "tictactoe", "-n", "1", "-j", "1", "--move-timeout", "1"]
    status, out, err, left = run_boardlab(
        command_env, *args, "--db", "games.sqlite", "--out", "out", cwd=tmp_path
    )
    assert status == 0, out + err
    assert not left, f"processes left behind: {left}"
    [game] = exported(command_env, tmp_path / "games.sqlite")
    assert (
        game["outcome"]["reason"] == "forfeit" and game["outcome"]["detail"] == "no move within 1 s (stopped)"
    )
    assert pids_in(pids) and not any(alive(pid) for pid in pids_in(pids))


@pytest.mark.timeout(120)
def test_a_person_plays_the_engine_in_the_terminal(command_env: dict[str, str], tmp_path: Path) -> None:
    engine = engine_spec("play")
    args = ["play", "--game", "tictactoe", "--agent", engine, "--hints", engine, "--human-first"]
    status, out, err, left = run_boardlab(command_env, *args, cwd=tmp_path, stdin="b2\nhint\nc1\na3\n")
    assert status == 0, out + err
    assert not left, f"processes left behind: {left}"
    text = " ".join(out.split())
    assert "the engine protocol-test" in text and "decided by its" not in text  # its handshake's name
    assert "you win" in text  # b2 c1 a3 against a1 b1, the first empty cells: a diagonal


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "command",
    [
        ["match", "ENGINE", "random", "--game", "connect4", "-n", "40", "--db", "games.sqlite"],
        [
            "tournament",
            "ENGINE",
            "greedy",
            "random",
            "--gauntlet",
            "--game",
            "connect4",
            "--db",
            "games.sqlite",
        ],
        ["play", "--game", "connect4", "--agent", "ENGINE"],
        ["oracle", "ENGINE", "--game", "connect4", "--games", "2"],
    ],
)
def test_every_command_refuses_an_engine_that_crashes_at_its_start_with_one_line(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = engine_spec("dies")
    args = [spec if word == "ENGINE" else word for word in command]
    result = CliRunner().invoke(app, args, input="4\n", env=WIDE)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("Error: engine: cmd ") and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.rstrip().endswith(
        "cannot play connect4: failed to start: engine exited (exit code 2) before answering 'boardlab 1': "
        "cannot load weights"
    )
    if (tmp_path / "games.sqlite").exists():
        with closing(Store(tmp_path / "games.sqlite")) as store:
            assert store.tournaments() == []


def test_agents_lists_the_engine_and_its_options() -> None:
    runner = CliRunner()
    overview = runner.invoke(app, ["agents"], env=WIDE)
    assert overview.exit_code == 0
    row = next(line for line in overview.output.splitlines() if line.startswith("│ engine "))
    assert "cmd, start, time, depth, nodes, iters" in row
    table = runner.invoke(app, ["agents", "engine"], env=WIDE)
    assert table.exit_code == 0, table.output
    rows = [
        [cell.strip() for cell in line.split("│")[1:-1]] for line in table.output.splitlines() if "│" in line
    ]
    assert [row[0] for row in rows] == ["cmd", "start", "time", "depth", "nodes", "iters"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("engine", "engine: cmd is required: the program to run, e.g. engine:cmd=./my_engine"),
        ("engine:cmd=./no-such-engine", "engine: cmd: no such program './no-such-engine' (from "),
        (
            "engine:cmd=no-such-engine-anywhere",
            "engine: cmd: no program 'no-such-engine-anywhere' on the PATH",
        ),
        ("engine:cmd=(python3 'unclosed)", 'engine: cmd "python3 \'unclosed" cannot be split into words'),
        ("engine:cmd=./engine.c", "engine: cmd: './engine.c' is not an executable file (chmod +x it"),
        ("engine:cmd=./engines", "engine: cmd: './engines' is not an executable file"),  # a folder
        ("engine:cmd=./x,start=0", "engine: start must be at least 0.1, got 0.0"),
        (  # a long path: its end shown, the program's name
            f"engine:cmd=./{'d' * 80}/my_engine",
            f"engine: cmd: no such program '...{'d' * 47}/my_engine' (from ",
        ),
    ],
)
def test_a_bad_spec_ends_the_match_command_with_one_line(
    spec: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "engine.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "engines").mkdir()
    result = CliRunner().invoke(app, ["match", spec, "random", "--game", "tictactoe", "-n", "2"])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.startswith(f"Error: {message}"), result.stderr
    assert result.stderr.count("\n") == 1
    with pytest.raises(AgentSpecError):
        make_agent(spec)


def test_a_program_missing_from_the_path_is_written_with_dot_slash_only_if_it_is_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AgentSpecError) as caught:
        engine_command("pyhton3 my_engine.py")  # a typo: no such file here either
    assert str(caught.value) == "engine: cmd: no program 'pyhton3' on the PATH"
    (tmp_path / "my_engine").write_text("#!/bin/sh\n")
    with pytest.raises(AgentSpecError) as caught:
        engine_command("my_engine --fast")
    assert str(caught.value) == (
        "engine: cmd: no program 'my_engine' on the PATH "
        "(one in the current directory is written ./my_engine)"
    )


@pytest.mark.parametrize(
    ("cmd", "message"),
    [
        (" \t", "engine: cmd is required"),  # as Settings(cmd=...) may be given in Python
        ('""', "engine: cmd '\"\"': its program's name is empty"),
        ("'' --fast", "engine: cmd \"'' --fast\": its program's name is empty"),
    ],
)
def test_a_command_naming_no_program_is_refused(cmd: str, message: str) -> None:
    with pytest.raises(AgentSpecError) as caught:
        engine_command(cmd)
    assert str(caught.value).startswith(message)


def test_the_web_server_runs_no_program_a_page_names_unless_allowed_paths() -> None:
    game = parse_game("tictactoe")
    for spec in ("engine:cmd=sh", "engine:cmd=(python3 -c pass)"):
        with pytest.raises(
            WebInputError, match="loads or runs code named by a path; start serve with --allow-paths"
        ):
            check_agent(spec, game)
    assert check_agent("engine:cmd=sh", game, allow_paths=True) == "engine:cmd=sh"
