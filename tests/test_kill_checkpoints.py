"""Training and black-box runs killed mid-run (SIGTERM, SIGKILL, SIGKILL during the checkpoint
write that SIGTERM starts), then resumed with ``--resume``: nothing lost or doubled.

Each kill is followed by checks that the checkpoint loads and never goes back; the last run
finishes from it, and its counts (episodes and learning-curve points, fitness calls) must be
those of one unbroken run, with no temporary file and no process left behind. Every command
runs in its own session, so that any process it leaves can be found. ``BOARDLAB_KILL_ROUNDS``
sets how many rounds of kills each command gets: all three kinds per round when it is above 1;
the default single round (CI) gives the black-box run two kinds and training one, SIGTERM,
as each start of a command costs seconds (training compiles its kernels).
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import types
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from reliability import count, session_members

from boardlab.core.processes import raise_if_stopping, sigterm_as_interrupt, stop_requests, stoppable_call
from boardlab.labs.evolve import EvolutionResult
from boardlab.models.table import read_header

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")

ROUNDS = int(os.environ.get("BOARDLAB_KILL_ROUNDS", "1"))
KILLS = ("SIGTERM", "SIGKILL", "SIGTERM+SIGKILL")
"""SIGTERM alone (the command saves and exits 143), SIGKILL at a random moment, and SIGKILL a
few milliseconds after SIGTERM, while the checkpoint SIGTERM asked for is being written."""


def _kills(order: tuple[str, ...], single_round: int) -> list[str]:
    """The kills of every round, in ``order``: all of them, or the first ``single_round`` in a
    single round."""
    return list(order) * ROUNDS if ROUNDS > 1 else list(order[:single_round])


def _start(args: list[str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", *args]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "COLUMNS": "200"},
    )


def _finish(process: subprocess.Popen[str], timeout: float = 300) -> tuple[int, str]:
    """Wait for ``process``; its exit code and output, after checking its session is empty."""
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    gone = time.monotonic() + 15
    while session_members(process.pid) and time.monotonic() < gone:
        time.sleep(0.1)
    left = session_members(process.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left behind: {left}"
    return process.returncode, stdout + stderr


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time used so far by process ``pid`` (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a SIGTERM handler installed (its caught-signals mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0")
    return bool(int(mask, 16) & (1 << (signal.SIGTERM - 1)))


def _kill_mid_run(args: list[str], started: Callable[[int], bool], kill: str, rng: random.Random) -> None:
    """Run the command, wait until ``started(pid)`` then a random moment, and kill it as ``kill`` says."""
    process = _start(args)
    deadline = time.monotonic() + 120
    while not started(process.pid) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(rng.uniform(0.0, 0.8))
    assert process.poll() is None, "the run ended before it could be killed: " + "".join(
        process.communicate()
    )
    if kill == "SIGKILL":
        process.send_signal(signal.SIGKILL)
    else:
        process.send_signal(signal.SIGTERM)
        if kill == "SIGTERM+SIGKILL":
            time.sleep(rng.uniform(0.0, 0.02))
            process.send_signal(signal.SIGKILL)
    code, output = _finish(process)
    if kill == "SIGTERM" or code == 143:  # SIGTERM ran to its end before SIGKILL came
        assert code == 143, output
        assert "Traceback" not in output and "resume" in output and "Terminated" in output.title(), output
    else:
        assert code == -signal.SIGKILL, output
    count("kills survived")


def _no_temporaries(folder: Path) -> None:
    assert sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp")) == []


# --- the shared signal handling -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("signum", "code", "word"), [(signal.SIGTERM, 143, "Terminated"), (signal.SIGINT, 130, "Interrupted")]
)
def test_stop_requests_turn_both_signals_into_a_flag(signum: int, code: int, word: str) -> None:
    before = signal.getsignal(signum)
    with stop_requests() as stop:
        assert not stop
        os.kill(os.getpid(), signum)
        time.sleep(0.01)  # the handler runs between bytecodes of the main thread
        assert stop and stop[0] and stop.exit_code == code and stop.how == word
    assert signal.getsignal(signum) is before


def test_sigterm_as_interrupt_raises_keyboard_interrupt() -> None:
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt() as termination:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)
    assert termination.received and termination.exit_code == 143


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_swallowed_by_a_callback_from_c_is_raised_again(signum: int) -> None:
    # numba's compiler calls back into Python; an interrupt raised there is only reported
    def compare(a: int, b: int) -> int:
        os.kill(os.getpid(), signum)
        time.sleep(0.05)  # the handler runs here, inside the callback
        return 0

    qsort = ctypes.CDLL(None).qsort  # a C function that calls back into Python
    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(compare)
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt() as termination:
        two = (ctypes.c_int * 2)(1, 2)
        qsort(two, 2, ctypes.sizeof(ctypes.c_int), callback)  # swallows the KeyboardInterrupt
        assert termination.requested
        raise_if_stopping()
    assert termination.received == (signum == signal.SIGTERM)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_numba_compile_is_raised_after_it(signum: int) -> None:
    # raised inside numba's compiler it broke the compiler ("no compiled object yet for
    # <Library ...>" on the next call) or crashed the process at exit
    from numba.core.compiler_lock import global_compiler_lock

    compiled = False
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt() as termination:
        with global_compiler_lock:  # as a compile holds it
            os.kill(os.getpid(), signum)
            for _ in range(20):
                time.sleep(0.01)  # the handler runs between these, and must not raise
            assert termination.requested
            compiled = True
        for _ in range(500):
            time.sleep(0.01)  # the signal comes again once the lock is free, and raises here
    assert compiled and termination.received == (signum == signal.SIGTERM)


def _signal_self(signum: int) -> None:
    os.kill(os.getpid(), signum)
    time.sleep(0.01)  # the handler runs between bytecodes of the main thread


def test_a_signal_before_an_interruptible_block_stops_it_at_its_start() -> None:
    entered = False
    with stop_requests() as stop:
        _signal_self(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt), stop.interruptible():
            entered = True
    assert not entered


def test_after_an_interruptible_block_a_signal_only_sets_the_flag_again() -> None:
    with stop_requests() as stop:
        with stop.interruptible():
            pass
        _signal_self(signal.SIGTERM)  # raises here if the block left the handler raising
        assert stop.requested and stop.exit_code == 143
        raise_if_stopping()  # the block is over: nothing raised either


def test_a_block_stopped_by_a_signal_leaves_no_stop_behind() -> None:
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
        _signal_self(signal.SIGINT)
        time.sleep(1)
    raise_if_stopping()  # later work in the same process is not stopped by it


def test_sigterm_then_ctrl_c_is_still_a_termination() -> None:
    with stop_requests() as stop:
        _signal_self(signal.SIGTERM)
        _signal_self(signal.SIGINT)
    assert stop.exit_code == 143 and stop.how == "Terminated"


def test_the_flag_reads_like_a_one_item_list() -> None:
    with stop_requests() as stop:
        assert list(stop) == [False]
        with pytest.raises(IndexError):
            stop[1]
        _signal_self(signal.SIGINT)
        assert list(stop) == [True]


def test_outside_the_main_thread_nothing_is_installed() -> None:
    before = signal.getsignal(signal.SIGTERM)
    seen: list[object] = []

    def work() -> None:
        with stop_requests() as stop:  # signal.signal would fail here
            seen.extend([bool(stop), signal.getsignal(signal.SIGTERM)])

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(10)
    assert seen == [False, before]


def test_only_lost_interrupts_go_unreported(monkeypatch: pytest.MonkeyPatch) -> None:
    reported: list[BaseException] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: reported.append(unraisable.exc_value))
    hook = sys.unraisablehook
    lost, broken = KeyboardInterrupt(), ValueError("broken")
    with stop_requests():
        for error in (lost, broken):
            sys.unraisablehook(types.SimpleNamespace(exc_value=error))
    assert reported == [broken]
    assert sys.unraisablehook is hook


def _until_stopped(stop: np.ndarray, seen: list[int], seconds: float = 10.0) -> str:
    """Wait like a compiled search for ``stop[0]`` (at most ``seconds``); note what it saw."""
    deadline = time.monotonic() + seconds
    while not stop[0] and time.monotonic() < deadline:
        time.sleep(0.005)
    seen.append(int(stop[0]))
    return "finished"


def test_a_stoppable_call_answers_or_raises_as_its_function_does() -> None:
    stop = np.zeros(1, dtype=np.int64)
    assert stoppable_call(lambda a, b: a + b, stop, 2, 3) == 5

    def fails() -> None:
        raise ValueError("the search broke")

    with pytest.raises(ValueError, match="the search broke"):
        stoppable_call(fails, stop)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("signals", [1, 2])
def test_a_signal_stops_a_stoppable_call_through_its_flag(signals: int) -> None:
    # on Python 3.11 and 3.12 an interrupted Thread.join marks the thread stopped: the search ran on
    stop = np.zeros(1, dtype=np.int64)
    seen: list[int] = []

    def search() -> str:
        time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGTERM)  # arrives while the main thread waits for the search
        answer = _until_stopped(stop, seen)
        if signals == 2:  # pressed again while the search gives up
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
        return answer

    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
        stoppable_call(search, stop)
    assert seen == [1]  # the search was told to stop, and had returned before the raise
    assert stop[0] == 0  # the next search is not stopped at once
    seen.clear()
    assert stoppable_call(lambda: _until_stopped(stop, seen, 0.2), stop) == "finished" and seen == [0]


@pytest.mark.timeout(60)
def test_a_signal_swallowed_before_a_stoppable_call_stops_it_too() -> None:
    stop = np.zeros(1, dtype=np.int64)
    seen: list[int] = []
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt() as termination:
        termination.requested = True  # as a signal whose KeyboardInterrupt a callback from C lost
        stoppable_call(_until_stopped, stop, stop, seen)
    assert seen == [1]


# --- boardlab train ------------------------------------------------------------------------------

EVAL_EVERY = 250


def _train_args(out: Path, episodes: int) -> list[str]:
    args = ["train", "qlearning", "--game", "tictactoe", "--episodes", str(episodes), "--out", str(out)]
    args += [
        "--eval-every",
        str(EVAL_EVERY),
        "--eval-games",
        "4",
        "--against",
        "random",
        "--final-games",
        "0",
    ]
    return args + (["--resume"] if (out / "model.npz").exists() else [])


def _episodes(model: Path) -> int:
    """Episodes of the checkpoint (0 if none yet); read_header fails if it cannot be loaded."""
    return int(read_header(model)["episodes"]) if model.exists() else 0


def test_killed_training_resumes_with_nothing_lost_or_doubled(tmp_path: Path) -> None:
    out, rng = tmp_path / "run", random.Random(5)
    model = out / "model.npz"
    episodes = 0
    for kill in _kills(("SIGTERM", "SIGTERM+SIGKILL", "SIGKILL"), 1):
        before = model.stat().st_mtime_ns if model.exists() else None

        def started(pid: int, before: int | None = before) -> bool:
            # a checkpoint written, and the loop that handles SIGTERM running
            return model.exists() and model.stat().st_mtime_ns != before and _catches_sigterm(pid)

        _kill_mid_run(_train_args(out, 10**9), started, kill, rng)
        now = _episodes(model)
        assert now >= episodes, "the checkpoint went back"
        episodes = now
    target = (episodes // EVAL_EVERY + 4) * EVAL_EVERY
    code, output = _finish(_start(_train_args(out, target)))
    assert code == 0, output
    header = read_header(model)
    assert header["episodes"] == target
    points = Counter((r["episode"], r.get("opponent", "mistakes")) for r in header["curve"])
    assert max(points.values()) == 1, "a curve point recorded twice"
    assert {e for e, _ in points} >= set(range(0, target + 1, EVAL_EVERY)), "a curve point lost"
    assert json.loads((out / "summary.json").read_text())["episodes"] == target
    _no_temporaries(out)


# --- boardlab blackbox ---------------------------------------------------------------------------


STARTUP_CPU_SECONDS = 1.5
"""More than the imports of ``boardlab blackbox`` take (it writes no checkpoint in its first 5 s)."""


def _blackbox_args(out: Path, max_calls: int) -> list[str]:
    args = ["blackbox", "--strategy", "ga", "--instance", "10", "--max-calls", str(max_calls)]
    return [*args, "--out", str(out), "--resume"]


def _calls(checkpoint: Path) -> tuple[int, float]:
    """Calls spent and best fitness of the checkpoint ((0, 0) if none yet); it must load."""
    if not checkpoint.exists():
        return 0, 0.0
    with np.load(checkpoint, allow_pickle=False) as data:
        return int(data["calls"]), float(data["best_fitness"])


def test_killed_blackbox_runs_resume_with_nothing_lost_or_doubled(tmp_path: Path) -> None:
    out, rng = tmp_path / "run", random.Random(7)
    checkpoint = out / "checkpoint_a10_ga.npz"
    calls, best = 0, 0.0
    for kill in _kills(KILLS, 2):
        _kill_mid_run(_blackbox_args(out, 10**9), _evolving, kill, rng)
        now, fitness = _calls(checkpoint)
        assert now >= calls and fitness >= best, "the checkpoint went back"
        calls, best = now, fitness
    budget = calls + 20_000
    code, output = _finish(_start(_blackbox_args(out, budget)))
    assert code == 0, output
    (summary,) = json.loads((out / "blackbox_ga.json").read_text())
    assert calls < summary["calls"] <= budget, summary
    assert summary["best_fitness"] >= best
    assert _calls(checkpoint) == (summary["calls"], summary["best_fitness"])
    _no_temporaries(out)
    whole = tmp_path / "whole"
    code, output = _finish(_start(_blackbox_args(whole, budget)))
    assert code == 0, output
    finished = [json.loads((folder / "finished_a10_ga.json").read_text()) for folder in (out, whole)]
    assert finished[0] == finished[1], "the run killed and resumed is not the uninterrupted one"


def test_a_blackbox_run_over_every_instance_killed_after_the_first_resumes_without_running_it_again(
    tmp_path: Path,
) -> None:
    out, alone, rng = tmp_path / "run", tmp_path / "alone", random.Random(11)
    every = ["blackbox", "--strategy", "ga", "--max-calls", "100000", "--resume"]
    finished = out / "finished_a1_ga.json"

    def instance_1_finished(pid: int) -> bool:  # and the command, resumed, handles SIGTERM again
        return finished.exists() and _catches_sigterm(pid)

    for kill in _kills(KILLS, 1):  # once instance 1 has finished, while the next ones run
        _kill_mid_run([*every, "--out", str(out)], instance_1_finished, kill, rng)
        record = json.loads(finished.read_text())["result"]
    code, output = _finish(_start([*every, "--out", str(out)]))
    assert code == 0, output
    assert "a=1 ga (finished before)" in output
    summary = json.loads((out / "blackbox_ga.json").read_text())
    assert [row["instance"] for row in summary] == [1, 2, 5, 10]
    assert summary[0] == {
        "instance": 1,
        "strategy": "ga",
        "seed": 0,
        **EvolutionResult.from_record(record).summary(),
    }
    code, output = _finish(_start([*every, "--instance", "1", "--out", str(alone)]))
    assert code == 0, output
    assert json.loads((alone / "blackbox_ga.json").read_text()) == summary[:1]  # as if never killed
    _no_temporaries(out)


def _evolving(pid: int) -> bool:
    """True once the black-box command has used more CPU than its start-up takes and handles
    SIGTERM (a fresh checkout's imports, compiling their bytecode, may take longer)."""
    return _cpu_seconds(pid) > STARTUP_CPU_SECONDS and _catches_sigterm(pid)


# --- boardlab solve ------------------------------------------------------------------------------


def test_a_terminated_quixo_solve_keeps_its_finished_class_pairs(tmp_path: Path) -> None:
    from boardlab.games.quixo.table import read_table

    folder = tmp_path / "tables"

    def some_tables(pid: int) -> bool:
        return folder.is_dir() and len(list(folder.glob("*.qtb"))) >= 3

    _kill_mid_run(
        ["solve", "quixo", "--size", "4", "--dir", str(folder)], some_tables, "SIGTERM", random.Random(3)
    )
    kept = sorted(folder.glob("*.qtb"))
    assert kept and len(kept) < 81
    for table in kept:
        _, a, b = table.stem.split("_")
        read_table(folder, 4, int(a), int(b), True)  # whole and checksummed
    _no_temporaries(folder)
