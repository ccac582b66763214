"""boardlab's agents as engines (``boardlab engine SPEC``): the protocol's answers line by line,
``go`` and ``info`` read back to what was written, every command it cannot follow ending it in
one line, and boardlab's own engine agent playing it: the same moves as the agent in process."""

from __future__ import annotations

import io
import os
import random
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardlab.agents.base import make_agent
from boardlab.agents.decision import Decision, Limit, SearchInfo
from boardlab.games import Reason, parse_game
from boardlab.interop.engine import EngineAgent, ProtocolError, go_line, read_info
from boardlab.interop.engine_server import EngineServerError, info_line, read_go, serve_engine
from boardlab.play.session import Session
from scripts import load_script


def served(spec: str, *commands: str, seed: int | None = 0) -> list[str]:
    """The lines ``boardlab engine SPEC`` answers to ``commands``."""
    out = io.StringIO()
    serve_engine(spec, [c + "\n" for c in commands], out, seed)
    return out.getvalue().splitlines()


def engine_cmd(spec: str) -> str:
    """The engine agent's spec for ``boardlab engine SPEC`` run by this Python (seed 0; a
    minute to start, for a first compile)."""
    command = shlex.join([sys.executable, "-m", "boardlab", "engine", spec, "--seed", "0"])
    return f"engine:cmd=({command}),start=120"


# --- the protocol's answers ----------------------------------------------------------------------


def test_the_engine_answers_the_handshake_the_game_and_each_go_with_a_legal_move() -> None:
    lines = served(
        "alphabeta:depth=4",
        "boardlab 1",
        "# a comment, and an empty line",
        "",
        "game tictactoe",
        "newgame",
        "position X../.O./... X 2",
        "go depth 4",
        "quit",
        "position this is never read",
    )
    assert lines[:3] == ["name boardlab alphabeta:depth=4", "ready", "ready"]
    info, move = lines[3:]
    assert move.startswith("move ") and read_info(info.split()[1:]).depth == 4
    state = parse_game("tictactoe").parse_position("X../.O./... X 2")
    assert state.is_legal(state.parse_move(move.split()[1]))


def test_commands_ending_in_cr_lf_with_blanks_around_are_read_alike() -> None:
    """A driver built on Windows ends its lines in CR LF."""
    commands = ["boardlab 1", " game  nim:misere=false ", "newgame", "position  0-0-3-0 X 4 ", "go  depth 2 "]
    out = io.StringIO()
    serve_engine("greedy", [c + "\r\n" for c in commands], out)
    assert out.getvalue().splitlines() == ["name boardlab greedy", "ready", "ready", "move 3:3"]


def test_a_game_it_cannot_play_is_refused_and_a_new_game_accepted_after() -> None:
    lines = served(
        "qlearning",
        "boardlab 1",
        "game chess",
        "game quixo",
        "game tictactoe",
        "position .../.../... X 0",
        "go",
    )
    assert lines[2].startswith("refuse unknown game 'chess'")
    assert lines[3].startswith("refuse qlearning: no model is shipped for quixo")
    assert lines[4] == "ready" and lines[5].startswith("move ")


def test_an_engine_agent_failing_to_start_for_a_game_is_a_refusal() -> None:
    engine = shlex.join([sys.executable, str(Path(__file__).parent / "protocol_engines.py"), "refuses"])
    lines = served(f"engine:cmd=({engine})", "boardlab 1", "game tictactoe")
    assert (
        lines[2]
        == "refuse failed to start: engine refused the game tictactoe: this engine plays nothing today"
    )


def test_the_agent_is_kept_for_the_same_game_and_built_again_for_another() -> None:
    out = io.StringIO()
    commands = ["boardlab 1", "game tictactoe", "game tictactoe", "game nim", "position 0-1-0-0 X 5", "go"]
    serve_engine("greedy", [c + "\n" for c in commands], out)
    assert out.getvalue().splitlines()[2:] == ["ready", "ready", "ready", "move 2:1"]
    kept = served("greedy", "boardlab 1", "game nim", "position 0-1-0-0 X 5", "game nim", "go")
    assert kept[2:] == ["ready", "ready", "move 2:1"]  # the same game: its position too


def test_newgame_clears_the_agents_memory_as_in_process() -> None:
    """A search remembers the positions it met until newgame: the engine's searches are the
    agent's own, node for node, a game after another."""
    spec, position = "alphabeta:depth=5", "......./......./......./......./......./...X... O 1"
    game = parse_game("connect4")
    own = make_agent(spec, seed=0, game=game)
    own.prepare(game)
    expected = []
    for _ in range(2):
        own.new_game()
        decision = own.act(game.parse_position(position), Limit(depth=5))
        expected += [info_line(decision), f"move {decision.move}"]
    commands = ["newgame", f"position {position}", "go depth 5"]
    assert served(spec, "boardlab 1", "game connect4", *commands, *commands)[3:] == expected


@pytest.mark.parametrize(
    ("commands", "message"),
    [
        (["boardlab 2"], r"protocol version '2' is not spoken here \(version 1 is\)"),
        (["boardlab 1", "position X../.../... O 1"], "position before a game was accepted"),
        (["boardlab 1", "game tictactoe", "go"], "go before a position"),
        (  # said once, whether the game's words say it or not
            ["boardlab 1", "game tictactoe", "position X../... O 1"],
            r"^cannot read position 'X\.\./\.\.\. O 1': expected 9 cells",
        ),
        (
            ["boardlab 1", "game nim", "position 1-2 X"],
            r"^cannot read position '1-2 X': this game has 4 piles",
        ),
        (["boardlab 1", "game tictactoe", "position XXX/OO./... O 5", "go"], "go on a finished game"),
        (
            ["boardlab 1", "game tictactoe", "position X../.../... O 1", "go speed 3"],
            "unknown go word 'speed'",
        ),
        (["boardlab 1", "go"], "go before a game was accepted"),
        (["boardlab 1", "bestmove"], "unknown command 'bestmove'"),
        (["boardlab 1", "game chess", "newgame"], "newgame before a game was accepted"),
        (  # a game refused: the one before is gone with it
            ["boardlab 1", "game tictactoe", "position X../.../... O 1", "game chess", "go"],
            "go before a game was accepted",
        ),
        (
            ["boardlab 1", "game tictactoe", "position X../.../... O 1", "game nim", "go"],
            "go before a position",
        ),
    ],
)
def test_a_command_it_cannot_follow_is_an_error_saying_which(commands: list[str], message: str) -> None:
    with pytest.raises(EngineServerError, match=message) as caught:
        served("greedy", *commands)
    assert "\n" not in str(caught.value)


# --- go and info, written and read ---------------------------------------------------------------

MILLISECONDS = st.integers(1, 10**7).map(lambda ms: ms / 1000)
COUNTS = st.integers(1, 10**6)


@given(
    st.builds(
        Limit,
        time=st.none() | MILLISECONDS,
        depth=st.none() | COUNTS,
        nodes=st.none() | COUNTS,
        iterations=st.none() | COUNTS,
        clock=st.none() | MILLISECONDS,
        increment=st.none() | MILLISECONDS | st.just(0.0),
        moves_to_go=st.none() | COUNTS,
    )
)
def test_a_go_line_reads_back_as_the_limit_it_was_written_from(limit: Limit) -> None:
    line = go_line(limit)
    assert read_go(line.split()[1:]) == limit


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ("time", "'time' has no value"),
        ("time 1 time 2", "'time' given twice"),
        ("time x", "go time must be a number of seconds, got 'x'"),
        ("time nan", "go time must be a number of seconds"),
        ("depth 2.5", "go depth must be a whole number"),
        ("depth 0", "a depth limit is a positive whole number"),
        ("clock -1", "a clock is a positive number of seconds"),
    ],
)
def test_a_go_line_that_is_no_budget_is_refused(words: str, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        read_go(words.split())


@given(
    st.none() | st.floats(-1, 1),
    st.none() | st.builds(SearchInfo, depth=st.integers(0, 99), nodes=st.integers(0, 10**9), pv=st.tuples()),
)
def test_an_info_line_reads_back_as_the_decision_it_was_written_from(
    value: float | None, search: SearchInfo | None
) -> None:
    decision = Decision("b2", value=value, info=search)
    line = info_line(decision)
    if line is None:
        assert value is None and (search is None or not (search.depth or search.nodes))
        return
    info = read_info(line.split()[1:])
    assert info.value == (None if value is None else pytest.approx(value, abs=5e-5))
    assert (info.depth, info.nodes) == (
        (search.depth or None, search.nodes or None) if search is not None else (None, None)
    )


def test_an_info_line_carries_the_principal_variation() -> None:
    decision = Decision("4", value=-0.5, info=SearchInfo(depth=3, nodes=120, pv=("4", "3", "5")))
    assert info_line(decision) == "info value -0.5 depth 3 nodes 120 pv 4 3 5"


# --- boardlab playing boardlab --------------------------------------------------------------------


@pytest.mark.timeout(300)
def test_the_engine_agent_playing_boardlabs_engine_makes_the_agents_own_moves() -> None:
    spec = "alphabeta:depth=4"
    engine = make_agent(engine_cmd(spec))
    assert isinstance(engine, EngineAgent)
    game = parse_game("connect4")
    own = make_agent(spec, seed=0, game=game)  # asked the same positions in the same order
    engine.prepare(game)
    own.prepare(game)
    rng = random.Random(5)
    for _ in range(12):
        state = game.initial()
        for _ in range(rng.randrange(12)):
            state = state.play(rng.choice(state.legal_moves()))
        if state.is_over:
            continue
        engine.new_game()
        own.new_game()
        theirs = engine.act(state, Limit(depth=4))
        assert theirs.move == own.act(state, Limit(depth=4)).move
        assert theirs.info is not None and theirs.info.engine == f"boardlab {spec}"
    engine.close()


@pytest.mark.timeout(300)
def test_a_game_between_boardlab_and_its_own_engine_is_played_to_the_end() -> None:
    game = parse_game("tictactoe")
    session = Session(
        game.initial(), (make_agent(engine_cmd("alphabeta:depth=9")), make_agent("alphabeta:depth=9", seed=0))
    )
    assert session.prepare_agents() is None
    outcome = session.run()
    assert outcome.winner is None and outcome.reason is Reason.DRAW  # perfect play on both sides
    assert all(turn.decision is not None for turn in session.turns)


# --- the command ------------------------------------------------------------------------------------


def run_engine(*args: str, stdin: str) -> subprocess.CompletedProcess[Any]:
    return subprocess.run(
        [sys.executable, "-m", "boardlab", "engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.timeout(300)
def test_the_command_answers_on_stdout_and_ends_at_quit_or_the_end_of_its_input() -> None:
    commands = "boardlab 1\ngame nim:misere=false\nnewgame\nposition 0-0-3-0 X 4\ngo\nquit\n"
    done = run_engine("greedy", stdin=commands)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines() == ["name boardlab greedy", "ready", "ready", "move 3:3"]  # the win
    assert run_engine("greedy", stdin="boardlab 1\n").returncode == 0  # the end of its input


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("args", "stdin", "error"),
    [
        (["alphabeta:depth=x"], "", "Error: alphabeta: depth must be a whole number"),
        (["nobody"], "", "Error: unknown agent 'nobody'"),
        (["greedy"], "boardlab 1\ngame nim\nposition 1-2 X\n", "Error: cannot read position"),
        (["greedy"], "hello\n", "Error: unknown command 'hello'"),
    ],
)
def test_the_command_ends_a_command_it_cannot_follow_with_one_line_and_status_2(
    args: list[str], stdin: str, error: str
) -> None:
    done = run_engine(*args, stdin=stdin)
    assert done.returncode == 2 and done.stderr.startswith(error) and len(done.stderr.splitlines()) == 1


@pytest.mark.timeout(300)
def test_the_command_reads_bytes_that_are_not_utf8_as_any_other_character() -> None:
    """Under a UTF-8 locale Python's standard input is strict about bytes: a driver writing
    Latin-1 (in a comment here, in a position below) meets the protocol's answers all the same."""
    commands = b"boardlab 1\n# caf\xe9\ngame nim:misere=false\nposition 0-0-3-0 X 4\ngo\nposition \xe9 X 0\n"
    done = subprocess.run(
        [sys.executable, "-m", "boardlab", "engine", "greedy"],
        input=commands,
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert done.stdout.decode().splitlines() == ["name boardlab greedy", "ready", "ready", "move 3:3"]
    assert done.returncode == 2 and done.stderr.decode().startswith(
        "Error: cannot read position '\ufffd X 0'"
    )


@pytest.mark.timeout(300)
def test_the_command_ends_with_status_1_when_its_agent_fails_while_deciding() -> None:
    engine = shlex.join([sys.executable, str(Path(__file__).parent / "protocol_engines.py"), "garbage"])
    spec = f"engine:cmd=({engine})"  # boardlab's engine agent, behind boardlab's engine
    done = run_engine(spec, stdin="boardlab 1\ngame tictactoe\nposition .../.../... X 0\ngo\n")
    assert done.returncode == 1 and done.stdout.splitlines() == [f"name boardlab {spec}", "ready", "ready"]
    assert (
        done.stderr
        == f"Error: {spec}: engine sent 'bestmove e2e4' after go (expected info or move NOTATION; "
        "write debug output to stderr or start the line with #)\n"
    )


@pytest.mark.timeout(300)
def test_the_protocol_benchmark_times_each_agent_in_process_and_behind_the_protocol(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = load_script("benchmarks/engine_protocol.py")
    states = script.positions(5, seed=1)
    assert len(states) == 5 and not any(state.is_over for state in states) and min(s.ply for s in states) >= 2
    monkeypatch.setattr(sys, "argv", ["engine_protocol.py", "--positions", "3"])
    script.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("│")]
    assert [row.split("│")[1:3] for row in rows][:2] == [
        [" random            ", " in process      "],
        [" random            ", " boardlab engine "],
    ]
    assert len(rows) == 7 and "connect4_engine.c" in rows[-1]
