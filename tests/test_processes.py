"""The process helpers of boardlab.core.processes on their own: a child that dies with its parent,
a process group ended whatever its members do with SIGTERM, no warning of leaked semaphores
after ``kill -9``, exit statuses in words, and a program read from standard input refused in
one line wherever boardlab would start a child process.

Each process started here runs in its own session, so that one left behind can be found."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability import session_members

from boardlab.core.processes import describe_exit, end_group

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")

PARENT_OF_A_SLEEPER = """
import os, time
from boardlab.core.processes import die_with_parent

if os.fork() == 0:
    die_with_parent()
    print(os.getpid(), flush=True)  # armed
    time.sleep(60)
    os._exit(0)
time.sleep(60)
"""

KILLED_HOLDING_A_LOCK = """
import os, signal
from boardlab.core.processes import worker_context

lock = worker_context().Lock()  # a semaphore the resource tracker knows
os.kill(os.getpid(), signal.SIGKILL)
"""

IGNORES_SIGTERM = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(60)
"""


def _left_after(session: int, seconds: float = 10.0) -> list[int]:
    """The live members of ``session`` once they had ``seconds`` to go; those left are killed."""
    deadline = time.monotonic() + seconds
    while session_members(session) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = session_members(session)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.timeout(60)
def test_a_child_dies_with_its_parent() -> None:
    # even when nothing tells it (a compiled search reads no pipe): the kernel kills it
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_OF_A_SLEEPER], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert child in session_members(parent.pid)
        parent.kill()
        parent.wait(10)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert _left_after(parent.pid) == []


@pytest.mark.timeout(60)
def test_a_group_ends_even_where_it_ignores_sigterm() -> None:
    member = subprocess.Popen(
        [sys.executable, "-c", IGNORES_SIGTERM], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert member.stdout is not None and member.stdout.readline() == "ready\n"
        end_group(member.pid)  # a new session leads a group of the same number
        assert member.wait(10) == -signal.SIGKILL
    finally:
        if member.poll() is None:
            member.kill()
            member.wait()
    end_group(member.pid)  # a group already gone: nothing
    end_group(None)  # a process never started: nothing


@pytest.mark.timeout(60)
def test_kill_9_leaves_no_warning_of_leaked_semaphores() -> None:
    # the tracker removes them itself: its warning would be noise about a death the user caused
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_HOLDING_A_LOCK],
        capture_output=True,
        text=True,
        timeout=50,  # the output ends when the forkserver and the tracker are gone too
        start_new_session=True,
    )
    assert killed.returncode == -signal.SIGKILL
    assert killed.stderr == ""


@pytest.mark.parametrize(
    ("exitcode", "words"),
    [
        (None, "an unknown exit status"),
        (0, "exit code 0"),
        (4, "exit code 4"),
        (-9, "signal 9 (SIGKILL)"),
        (-15, "signal 15 (SIGTERM)"),
        (-200, "signal 200 (?)"),
    ],
)
def test_an_exit_status_in_words(exitcode: int | None, words: str) -> None:
    assert describe_exit(exitcode) == words


# --- a script read from standard input --------------------------------------------------------------

STDIN_REFUSED = (
    "worker processes cannot import this program's main module again (it was read from <stdin>, "
    "not a file): run it from a file"
)

# each script tries one way boardlab starts child processes, then says whether the forkserver
# (which would import the main module and fail with tracebacks) was ever started
STDIN_STARTS = {
    "an agent in a child process": (
        "from boardlab.core.processes import ProcessStartError\n"
        "from boardlab.play.referee import AgentProcess\n"
        "try:\n"
        "    AgentProcess('tictactoe', 'random', 0, 5.0)\n"
        "except ProcessStartError as err:\n"
        "    print('refused:', err)\n"
    ),
    "the web server's worker pool": (
        "from boardlab.core.processes import ProcessStartError\n"
        "from boardlab.play.agent_pool import AgentPool\n"
        "try:\n"
        "    AgentPool(2)\n"
        "except ProcessStartError as err:\n"
        "    print('refused:', err)\n"
    ),
    "the web server": (
        "from boardlab.ui.web.app import ServeSettings\n"
        "from boardlab.ui.web.server import ServeError, serve\n"
        "try:\n"
        "    serve(ServeSettings(), port=0)\n"
        "except ServeError as err:\n"
        "    print('refused:', err)\n"
    ),
    "a course module's import check": (
        "from boardlab.agents.base import AgentSpecError\n"
        "from boardlab.interop.course import check_import\n"
        "try:\n"
        "    check_import('json')\n"
        "except AgentSpecError as err:\n"
        "    print('refused:', err)\n"
    ),
}
STDIN_PREFIXES = {
    "an agent in a child process": "",
    "the web server's worker pool": "",
    "the web server": "",
    "a course module's import check": "course: cannot check that 'json' imports cleanly: ",
}
FORKSERVER_PID = (
    "from multiprocessing import forkserver\n"
    "print('forkserver started:', forkserver._forkserver._forkserver_pid is not None)\n"
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("start", sorted(STDIN_STARTS))
def test_a_script_on_stdin_is_refused_in_one_line_before_any_child(start: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-"],
        input=STDIN_STARTS[start] + FORKSERVER_PID,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
        cwd=tmp_path,
        start_new_session=True,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines() == [
        f"refused: {STDIN_PREFIXES[start]}{STDIN_REFUSED}",
        "forkserver started: False",
    ]
