"""A tournament killed mid-run (SIGTERM, SIGKILL) leaves no process behind and resumes exactly.

The command runs in its own session, so every process it starts (the main process, the
forkserver, the resource tracker, the workers) can be found in /proc by its session id.
``BOARDLAB_KILL_ROUNDS`` sets how many SIGTERM + SIGKILL rounds to run (default 1).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability import count, session_members

from boardlab.arena import Store, TournamentConfig, run_tournament

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")

SPECS = ("greedy", "mcts:iters=60", "random")
GAMES_PER_PAIR = 8
SEED = 11
ROUNDS = int(os.environ.get("BOARDLAB_KILL_ROUNDS", "1"))


def _stored(db: Path) -> list[int]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=10) as conn:
            return [i for (i,) in conn.execute("SELECT game_index FROM games ORDER BY game_index")]
    except sqlite3.OperationalError:  # tables not created yet
        return []


def _start(db: Path, out: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", "tournament", *SPECS]
    command += ["-n", str(GAMES_PER_PAIR), "--seed", str(SEED), "-j", "2", "--game", "quixo:size=4"]
    command += ["--db", str(db), "--out", str(out)]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "COLUMNS": "200"},
    )


def _kill_mid_run(db: Path, out: Path, signum: int) -> tuple[int, str]:
    """Start the tournament, wait for a new stored game, send ``signum``; exit code and stderr."""
    before = len(_stored(db))
    process = _start(db, out)
    deadline = time.monotonic() + 120
    while len(_stored(db)) <= before and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the tournament ended before it could be killed"
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    gone = time.monotonic() + 15
    while session_members(process.pid) and time.monotonic() < gone:
        time.sleep(0.1)
    left = session_members(process.pid)
    for pid in left:  # clean up before failing
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left behind after {signal.Signals(signum).name}: {left}"
    count("kills survived")
    return process.returncode, stderr


def test_killed_tournaments_leave_nothing_behind_and_resume(tmp_path: Path) -> None:
    db, out = tmp_path / "arena.sqlite", tmp_path / "out"
    total = GAMES_PER_PAIR * len(SPECS) * (len(SPECS) - 1) // 2
    for _ in range(ROUNDS):
        if len(_stored(db)) >= total - 3:  # start again so that each round kills a run mid-way
            db.unlink()
            for extra in tmp_path.glob("arena.sqlite-*"):
                extra.unlink()
        code, stderr = _kill_mid_run(db, out, signal.SIGTERM)
        assert code == 143, stderr
        assert "Terminated:" in stderr and "Run the same command again to resume" in stderr
        assert "Traceback" not in stderr
        code, stderr = _kill_mid_run(db, out, signal.SIGKILL)
        assert code == -signal.SIGKILL
    finished = _start(db, out)
    _, stderr = finished.communicate(timeout=600)
    assert finished.returncode == 0, stderr
    stored = _stored(db)
    assert stored == list(range(total)), "games lost or doubled"
    config = TournamentConfig(SPECS, GAMES_PER_PAIR, "quixo:size=4", SEED, 2)
    with Store(db) as store:
        resumed = store.games(config.tournament_id)
    with Store() as fresh_store:
        fresh = run_tournament(config, fresh_store, workers=0).records
    assert [r.game_content() for r in resumed] == [r.game_content() for r in fresh]
    count("games checked", total)
