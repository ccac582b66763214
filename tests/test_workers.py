"""The trainers' parallel map (:class:`boardlab.play.pool.Workers`): the serial results in
order, a task's error raised in the caller, and a map stopped half-way (Ctrl-C, a dying worker)
ending at once with no worker left and the next map working. The tasks are standard-library
functions, so the workers need nothing of the tests to run them."""

from __future__ import annotations

import io
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from boardlab.play.pool import PoolError, QuietOrphanStream, Workers


def _alive(workers: Workers) -> list[int]:
    return [h.process.pid for h in workers._helpers if h.process.is_alive()]


def test_results_come_back_in_the_order_of_the_tasks() -> None:
    tasks = [float(n) for n in range(40)]
    with Workers(2) as workers:
        assert workers.map(math.sqrt, tasks) == [math.sqrt(t) for t in tasks]
        assert workers.map(abs, [-3, 4, -5]) == [3, 4, 5]  # the same workers, a second map
    assert workers.map(abs, [-1]) == [1]  # one task: played here
    played_here: list[str] = []
    assert Workers(2).map(played_here.append, ["x"]) == [None] and played_here == ["x"]


def test_a_task_error_is_raised_and_the_workers_are_started_again() -> None:
    with Workers(2) as workers:
        with pytest.raises(ValueError, match="math domain error"):
            workers.map(math.sqrt, [4.0, -1.0, 9.0, 16.0])
        assert not _alive(workers)
        assert workers.map(math.sqrt, [4.0, 9.0]) == [2.0, 3.0]


def test_an_answer_that_cannot_cross_the_pipe_is_an_error_and_the_workers_live_on() -> None:
    with Workers(2) as workers:
        with pytest.raises(PoolError, match="a task's answer could not be sent back: TypeError"):
            workers.map(memoryview, [b"a", b"b"])
        assert workers.map(abs, [-2, -3]) == [2, 3]


def test_a_worker_s_stderr_goes_quiet_once_the_main_process_has_died() -> None:
    main = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    orphaned, alive = io.StringIO(), io.StringIO()
    quiet = QuietOrphanStream(orphaned, main.pid)
    main.kill()
    main.wait()
    assert quiet.write("Traceback ...") == len("Traceback ...") and orphaned.getvalue() == ""
    assert quiet.write('  File "x.py"') == len('  File "x.py"')  # the rest of it, written at once
    assert orphaned.getvalue() == ""
    assert QuietOrphanStream(alive, os.getpid()).write("a warning") == len("a warning")
    assert alive.getvalue() == "a warning"


def test_a_worker_that_dies_is_an_error_not_a_hang() -> None:
    with Workers(2) as workers, pytest.raises(PoolError, match="ended"):
        workers.map(os._exit, [3, 3, 3])
    assert not _alive(workers)


def test_a_worker_killed_while_idle_is_named_at_the_next_map() -> None:
    with Workers(2) as workers:
        workers.map(abs, [1, 2])
        victim = workers._helpers[0].process
        victim.kill()
        victim.join()
        with pytest.raises(PoolError, match="SIGKILL"):
            workers.map(abs, [1, 2, 3])
        assert workers.map(abs, [-4, -5]) == [4, 5]


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """SIGUSR1 raises KeyboardInterrupt, as Ctrl-C does (SIGINT itself may be ignored by a
    suite started in the background)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGUSR1, interrupt)
    yield
    signal.signal(signal.SIGUSR1, previous)


def _signal_main_thread_in(seconds: float) -> None:
    main = threading.main_thread().ident
    assert main is not None
    threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGUSR1)).start()


@pytest.mark.usefixtures("ctrl_c")
def test_an_interrupt_mid_map_stops_it_at_once_and_leaves_no_worker() -> None:
    workers = Workers(2)
    workers.map(abs, [1, 2])  # started
    started = [h.process for h in workers._helpers]
    _signal_main_thread_in(0.5)
    begun = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        workers.map(time.sleep, [60.0] * 4)
    assert time.monotonic() - begun < 10
    assert all(not p.is_alive() for p in started) and not workers._helpers
    assert workers.map(abs, [-1, -2]) == [1, 2]
    workers.close()
    assert not _alive(workers)
