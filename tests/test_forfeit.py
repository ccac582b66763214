"""Agents that break never take a match or a terminal game down: they forfeit, play goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import broken_players
import pytest
from reliability import count, session_members
from typer.testing import CliRunner

from boardlab.agents.base import AGENTS, Agent, register
from boardlab.arena import ArenaError, Store, TournamentConfig, match, run_tournament, runner, tournament
from boardlab.arena.play import move_limit
from boardlab.games import Reason
from boardlab.play.referee import MAX_MOVE_TIMEOUT, MIN_MOVE_TIMEOUT
from boardlab.ui.cli import app


class GarbageAgent(Agent):
    """Answers a value that is no move of any game."""

    name = "test-garbage"

    def choose(self, state: Any) -> Any:
        return object()


class IllegalAgent(Agent):
    """Answers a well-formed move that is not legal here, as soon as there is one."""

    name = "test-illegal"

    def choose(self, state: Any) -> Any:
        legal = set(state.legal_indices())
        illegal = [a for a in range(state.kernel.num_actions) if a not in legal]
        return state.game.move_of(illegal[0]) if illegal else state.legal_moves()[0]


class ExitAgent(Agent):
    """Calls sys.exit in its move."""

    name = "test-exit"

    def choose(self, state: Any) -> Any:
        raise SystemExit(5)


class SleepyAgent(Agent):
    """Answers a legal move after 0.3 s."""

    name = "test-sleepy"

    def choose(self, state: Any) -> Any:
        time.sleep(0.3)
        return state.legal_moves()[0]


TEST_AGENTS = (GarbageAgent, IllegalAgent, ExitAgent, SleepyAgent)


@pytest.fixture(autouse=True)
def test_agents() -> Iterator[None]:
    for cls in TEST_AGENTS:
        register(cls)
    yield
    for cls in TEST_AGENTS:
        AGENTS.unregister(cls.name)


def _loser(record: Any) -> str:
    return record.second_spec if record.winner == 0 else record.first_spec


def test_default_move_limits() -> None:
    assert move_limit("random") == MIN_MOVE_TIMEOUT
    assert move_limit("alphabeta:time=3") == 30.0
    assert move_limit("mcts:time=0.1") == MIN_MOVE_TIMEOUT
    assert move_limit("random", 2.5) == 2.5
    assert move_limit("alphabeta:time=3", 0) is None
    with pytest.raises(ArenaError, match="move timeout"):
        move_limit("random", float("nan"))
    assert move_limit("no-such-agent") == move_limit("alphabeta:time=x") == MIN_MOVE_TIMEOUT  # refused later
    assert move_limit("random", MAX_MOVE_TIMEOUT) == MAX_MOVE_TIMEOUT  # both ends are accepted
    for outside in (-0.001, MAX_MOVE_TIMEOUT + 1, True, "5", float("inf")):
        with pytest.raises(ArenaError, match="move timeout must be 0 \\(no limit\\) to 86400 seconds"):
            move_limit("random", outside)


@pytest.mark.parametrize(
    ("spec", "detail"),
    [
        ("test-garbage", "answered <object object at"),
        ("test-illegal", "not a legal move"),
        ("test-exit", "called sys.exit(5)"),
    ],
)
def test_bad_answers_forfeit_in_this_process(spec: str, detail: str) -> None:
    run = match(spec, "random", 2, game="tictactoe", opening_plies=0, workers=0)
    assert run.complete and len(run.records) == 2
    for record in run.records:
        assert record.outcome.reason is Reason.FORFEIT and _loser(record) == spec
        assert detail in record.outcome.detail
        assert len(record.move_times) == len(record.moves) - len(record.opening)
    assert run.summary().forfeits == (2, 0)


def test_a_move_over_the_limit_forfeits_even_when_it_comes() -> None:
    run = match("test-sleepy", "random", 2, game="tictactoe", workers=0, move_timeout=0.1)
    assert all(r.outcome.reason is Reason.FORFEIT and _loser(r) == "test-sleepy" for r in run.records)
    assert "over its limit of 0.1 s per move" in run.records[0].outcome.detail
    relaxed = match("test-sleepy", "random", 2, game="tictactoe", workers=0, move_timeout=0)
    assert all(r.outcome.reason is not Reason.FORFEIT for r in relaxed.records)


def test_broken_course_players_forfeit_and_the_others_play_on(tmp_path: Path) -> None:
    broken = [broken_players.spec(name) for name in broken_players.BROKEN]
    specs = ["random", "greedy", *broken]
    config = TournamentConfig(tuple(specs), 1, seed=4, opening_plies=1)
    with Store(tmp_path / "arena.sqlite") as store:
        run = run_tournament(config, store, workers=2, move_timeout=2.0)
        stored = store.games(config.tournament_id)
    assert run.complete and not run.interrupted and len(stored) == config.total_games
    details = dict(zip(broken, broken_players.BROKEN.values(), strict=True))
    for record in run.records:
        pair = {record.first_spec, record.second_spec}
        if pair == {"random", "greedy"}:
            assert record.outcome.reason is not Reason.FORFEIT
            continue
        assert record.outcome.reason is Reason.FORFEIT, record
        loser = _loser(record)
        assert loser in broken and details[loser] in record.outcome.detail, record.outcome
        assert record.plies == len(record.moves) >= len(record.opening) == 1
    summary = run.summary()
    assert sum(summary.forfeits) == config.total_games - 1
    count("games checked", len(run.records))
    assert summary.forfeits[:2] == (0, 0)


@pytest.mark.parametrize("kind", list(broken_players.BROKEN_ON_IMPORT))
def test_a_player_breaking_while_imported_is_refused_before_play(tmp_path: Path, kind: str) -> None:
    spec = broken_players.module_spec(broken_players.write_module(tmp_path, kind), import_timeout=0.5)
    tic = time.monotonic()
    with pytest.raises(ArenaError, match=r"course: (cannot import|importing) ") as caught:
        tournament(["random", spec], 1, workers=1)
    assert time.monotonic() - tic < 30
    assert broken_players.IMPORT_FAILURES[kind] in str(caught.value)
    assert "\n" not in str(caught.value)
    count("inputs tried")


def _run_boardlab(args: list[str], timeout: float = 90) -> tuple[subprocess.CompletedProcess[str], list[int]]:
    """Run the CLI in its own session; its result and the processes of the session left alive."""
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", *args]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    time.sleep(0.2)
    left = session_members(process.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), left


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_player_hanging_while_imported_ends_the_command_with_one_line(tmp_path: Path, command: str) -> None:
    spec = broken_players.module_spec(broken_players.write_module(tmp_path, "hangs"))
    specs = ["random", spec] if command == "match" else ["random", "greedy", spec]
    args = [command, *specs, "-n", "2", "-j", "2", "--db", str(tmp_path / "a.sqlite")]
    tic = time.monotonic()
    result, left = _run_boardlab([*args, "--out", str(tmp_path / "out")])
    assert time.monotonic() - tic < 60
    assert not left, f"processes left behind: {left}"
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and "took over 1 s" in lines[0], result.stderr
    count("inputs tried")


def test_the_match_command_reports_forfeits(tmp_path: Path) -> None:
    hanging = broken_players.spec("HangingPlayer")
    args = ["match", "random", hanging, "-n", "2", "-j", "1", "--move-timeout", "0.5"]
    args += ["--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path / "out"), "--opening-plies", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2 games forfeited:" in result.stdout
    assert "no move within 0.5 s (stopped)" in result.stdout
    assert "forfeits" in result.stdout.splitlines()[2] or "forfeits" in result.stdout


@pytest.mark.parametrize(
    ("name", "timeout"), [("HangingPlayer", 0.5), ("RaisingPlayer", 5), ("DyingPlayer", 5)]
)
def test_a_broken_agent_forfeits_in_the_terminal_game(name: str, timeout: float) -> None:
    args = ["play", "--agent", broken_players.spec(name), "--move-timeout", str(timeout), "--human-first"]
    result = CliRunner().invoke(app, args, input="a1a5\nquit\n")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "forfeits after 1 move" in text and "you win" in text
    assert broken_players.BROKEN[name] in text
    assert "AgentForfeit" not in text  # the player's own failure, not the adapter's wrapping of it


def test_a_bad_move_timeout_is_refused() -> None:
    for value in ("nan", "-1", "1e9"):
        result = CliRunner().invoke(app, ["play", "--move-timeout", value])
        assert result.exit_code == 2 and "--move-timeout must be" in result.stderr


def test_a_player_hanging_while_imported_is_refused_by_the_terminal_game(tmp_path: Path) -> None:
    spec = broken_players.module_spec(broken_players.write_module(tmp_path, "hangs"), import_timeout=0.5)
    result = CliRunner().invoke(app, ["play", "--agent", spec], input="quit\n")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("Error: course: importing") and "took over 0.5 s" in result.stderr


def test_each_agent_is_held_to_its_own_limit_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    limits = {"test-sleepy": 0.1, "random": 60.0}
    monkeypatch.setattr(runner, "move_limit", lambda spec, timeout=None: limits[spec])
    run = match("random", "test-sleepy", 2, game="tictactoe", workers=0, opening_plies=0)  # both colours
    assert all(r.outcome.reason is Reason.FORFEIT and _loser(r) == "test-sleepy" for r in run.records)
