"""Huge counts and memory-hungry options are refused up front, or streamed: never a MemoryError."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from reliability import catches
from typer.testing import CliRunner

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.arena import ArenaError, Store, TournamentConfig, run_tournament
from boardlab.arena.schedule import MAX_GAMES_PER_PAIR, iter_schedule
from boardlab.core import machine
from boardlab.games import parse_game
from boardlab.ui.cli import app


def _one_line_error(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_a_trillion_games_is_a_one_line_error(tmp_path: Path) -> None:
    common = ["--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path)]
    line = _one_line_error(["match", "random", "greedy", "--games", "1000000000000", *common])
    assert f"--games must be at most {MAX_GAMES_PER_PAIR}" in line
    line = _one_line_error(["tournament", "random", "greedy", "-n", "9" * 40, *common])
    assert "--games-per-pair must be at most" in line and len(line) < 200


def test_the_schedule_is_read_lazily() -> None:
    config = TournamentConfig(("random", "greedy", "random"), MAX_GAMES_PER_PAIR, game="tictactoe")
    assert config.total_games == 3 * MAX_GAMES_PER_PAIR
    first = next(iter(iter_schedule(config)))
    assert first.index == 0
    with Store() as store:
        run = run_tournament(config, store, workers=0, max_games=3)
    assert run.played == 3 and [r.index for r in run.records] == [0, 1, 2] and not run.complete


def test_tables_larger_than_the_memory_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine, "available_memory", lambda: 2**30)
    game = parse_game("tictactoe")
    with pytest.raises(AgentSpecError, match=r"alphabeta:tt=26 needs 2.0 GiB .* 1.0 GiB available"):
        make_agent("alphabeta:tt=26", game=game)
    make_agent("alphabeta:tt=24", game=game)
    config = TournamentConfig(("alphabeta:tt=24", "alphabeta:tt=23"), 1, game="tictactoe")
    with Store() as store, pytest.raises(ArenaError, match="in 2 processes"):
        run_tournament(config, store, workers=2)
    line = _one_line_error(["play", "--game", "tictactoe", "--agent", "alphabeta:tt=26"])
    assert "needs 2.0 GiB of memory" in line


def test_the_spec_layer_caps_the_table_size() -> None:
    with pytest.raises(AgentSpecError, match="tt must be at most 30"):
        make_agent("alphabeta:tt=40")


def _boardlab(*args: str, **options: Any) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", *args]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "COLUMNS": "120"}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, **options)


def test_the_terminal_game_refuses_unreadable_and_huge_lines() -> None:
    lines = b"a1\n\xff\xfe\xc3(\n" + b"x" * 1_000_000 + b"\nquit\n"
    process = _boardlab("play", "--game", "tictactoe", "--agent", "random", stdin=subprocess.PIPE)
    stdout, stderr = process.communicate(lines, timeout=120)
    assert process.returncode == 0, stderr
    text = stdout.decode()
    assert "Refused: cannot read move" in text
    assert "Refused: input of 1000000 characters is not a move" in text
    assert "Game left unfinished after 2 moves." in text
    assert len(stdout) < 5_000 and b"Traceback" not in stderr


def test_perft_stops_at_ctrl_c() -> None:
    warm = _boardlab("perft", "--depth", "2")  # compiles and caches the kernel: no compile to wait for
    warm.communicate(timeout=300)
    assert warm.returncode == 0
    process = _boardlab("perft", "--depth", "8", start_new_session=True)
    deadline = time.monotonic() + 120
    while not catches(process.pid, signal.SIGTERM) and time.monotonic() < deadline:
        time.sleep(0.02)  # until the counts have started (they answer SIGTERM and Ctrl-C alike)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=20)
    finally:
        process.kill()  # a perft that missed the signal must not outlive the test
    assert process.returncode == 130 and b"Interrupted." in stderr
