"""Child processes that never outlive boardlab, and SIGTERM handled like Ctrl-C.

Work that may hang or crash (an agent's move, a whole arena game) runs in a child process
that the main process can stop at any time. Those children are forked by multiprocessing's
forkserver (:func:`worker_context`), which exits by itself when the main process dies; each
child calls :func:`die_with_parent` first, so that on Linux the kernel kills it when its
parent (the forkserver) goes, even after ``kill -9`` of the main process and even in the
middle of a compiled search. A child also stops when its pipe to the main process closes.

Long commands stop the same way on Ctrl-C and on SIGTERM: :func:`sigterm_as_interrupt` turns
SIGTERM into KeyboardInterrupt, :func:`stop_requests` turns both into a flag checked between
steps, and within :meth:`Termination.interruptible` (work that can be dropped: an evaluation,
the final games, a search) into KeyboardInterrupt again; either way the command saves its work
and exits 130 (Ctrl-C) or 143 (SIGTERM). Compiled loops cannot see a Python signal handler run,
so a long compiled call runs in :func:`stoppable_call`: a helper thread (the search releases the
GIL) that the main thread stops through a flag the search reads.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.process
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from boardlab.core.spec import shorten

PR_SET_PDEATHSIG = 1
TERMINATED_EXIT = 143
"""Exit status after SIGTERM (128 + 15), as a shell reports a process killed by it."""
INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C (128 + 2)."""


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux; elsewhere nothing).

    Called first thing in a child process. If the parent is already gone (the child was
    adopted by init), the child exits at once.
    """
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() == 1:
        os._exit(1)


def own_process_group() -> None:
    """Make this child the leader of a new process group, so that :func:`end_group` also ends
    whatever it starts (an agent's own helper processes); called first in a child that runs
    agents, after :func:`die_with_parent`.

    The group also gets a guard (Linux): a small forked process that ends the whole group as
    soon as this child dies, however it dies. When the main process is killed with ``kill -9``
    nobody is left to call :func:`end_group`, and what an agent started would live on.
    """
    with contextlib.suppress(OSError, AttributeError):
        os.setpgid(0, 0)
    if sys.platform.startswith("linux"):
        _fork_group_guard()


def _fork_group_guard() -> None:
    leader = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        return
    try:  # the guard: no file of its host's kept open (its pipes must close when the host dies)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != leader:  # the host died before the guard was armed
            os.killpg(0, signal.SIGKILL)
        while True:
            signal.pause()
    finally:
        os._exit(0)


def end_group(pid: int | None) -> None:
    """SIGKILL the process group ``pid`` (led by that child, see :func:`own_process_group`): what
    an agent started dies with its host, even after the host is gone (a group's number stays its
    own while any member lives). Nothing if no such group is left, or for the pid None of a
    process never started."""
    if pid is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        os.killpg(pid, signal.SIGKILL)


class ProcessStartError(RuntimeError):
    """Child processes cannot be started for this program; the message says why and what to do."""


def main_module_problem() -> str | None:
    """Why child processes cannot start, in one line, where the program's main module cannot be
    imported again (each child does, to see the agents and games it registered): a script read
    from standard input (``python -``), whose ``__file__`` is ``<stdin>``. None otherwise (a
    file, or no main file at all: ``python -c``, a notebook)."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not isinstance(path, str):
        return None
    # as multiprocessing finds it: relative to where the program started
    if os.path.isfile(os.path.join(getattr(multiprocessing.process, "ORIGINAL_DIR", None) or "", path)):
        return None
    return (
        f"worker processes cannot import this program's main module again (it was read from "
        f"{shorten(path, 60)}, not a file): run it from a file"
    )


def worker_context() -> multiprocessing.context.SpawnContext | multiprocessing.context.ForkServerContext:
    """Forkserver where available (children forked from a warm, thread-free server), else spawn.

    Plain fork is avoided: the main process may hold threads and locks (numba, the progress
    bar). The server imports every game and agent module once (:mod:`boardlab.arena._preload`);
    it is started here, shielded from Ctrl-C (see :func:`_start_forkserver`).

    Every child process boardlab starts comes from here, so a program whose main module cannot
    be imported again (:func:`main_module_problem`) is refused here, in one line, with
    :class:`ProcessStartError`, before a server or child starts and fails with tracebacks.
    """
    if (problem := main_module_problem()) is not None:
        raise ProcessStartError(problem)
    _quiet_resource_tracker()
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", "boardlab.arena._preload"])
    _start_forkserver()
    return context


def _start_forkserver() -> None:
    """Start the forkserver, if it is not running, with SIGINT blocked (as multiprocessing starts
    its resource tracker).

    The server is in the terminal's process group, so Ctrl-C reaches it too; it ignores Ctrl-C
    only once its modules are imported, and a Ctrl-C in the seconds before that ended it with a
    traceback. Started with SIGINT blocked, it drops such a Ctrl-C when it ignores the signal
    (the processes it forks ignore Ctrl-C too: it is the main process's to answer). A Ctrl-C
    meant for this process while the server starts is answered when the block ends.
    """
    from multiprocessing import forkserver, resource_tracker

    # the server needs the tracker, whose own start unblocks SIGINT: started first, unshielded
    resource_tracker.ensure_running()
    if not hasattr(signal, "pthread_sigmask"):
        forkserver.ensure_running()
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


TRACKER_WARNING = "ignore:resource_tracker:UserWarning"


def _quiet_resource_tracker() -> None:
    """Keep the resource tracker from warning of "leaked semaphores" after ``kill -9``.

    The tracker outlives a killed main process by a moment and removes the pool's semaphores
    itself; its warning is noise about a death the user caused. It starts with the main
    process's warning options, so the filter goes there before the first pool.
    """
    if TRACKER_WARNING not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_WARNING)


def describe_exit(exitcode: int | None) -> str:
    """``exit code 3`` or ``signal 9 (SIGKILL)`` for a finished process's exit code."""
    if exitcode is None:
        return "an unknown exit status"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "?"
        return f"signal {-exitcode} ({name})"
    return f"exit code {exitcode}"


@dataclass
class Termination:
    """What stopped a block of long work: set by :func:`stop_requests` and :func:`sigterm_as_interrupt`."""

    received: bool = False
    """SIGTERM arrived."""
    requested: bool = False
    """Ctrl-C or SIGTERM arrived."""
    raising: bool = False
    """Within :meth:`interruptible`: a signal raises KeyboardInterrupt as well as setting the flag."""

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        """Within the block a signal (or one already received) raises KeyboardInterrupt.

        For work that may be dropped and redone (an evaluation, the final games): it stops at
        once instead of at its end. Outside the block only the flag is set again.
        """
        if self.requested:
            raise KeyboardInterrupt
        was, self.raising = self.raising, True
        _RAISING.append(self)
        try:
            yield
        finally:
            _RAISING.remove(self)
            self.raising = was

    @property
    def exit_code(self) -> int:
        """143 after SIGTERM, else 130 (Ctrl-C)."""
        return TERMINATED_EXIT if self.received else INTERRUPTED_EXIT

    @property
    def how(self) -> str:
        """``Terminated`` after SIGTERM, else ``Interrupted``: the first word of the message."""
        return "Terminated" if self.received else "Interrupted"

    def __bool__(self) -> bool:
        return self.requested

    def __getitem__(self, index: int) -> bool:
        """``flag[0]``: :attr:`requested`, so the object reads like a one-item list flag."""
        if index != 0:
            raise IndexError(index)
        return self.requested


_RAISING: list[Termination] = []
"""The terminations whose :meth:`~Termination.interruptible` block is running."""


def raise_if_stopping() -> None:
    """KeyboardInterrupt if a signal came within an interruptible block and was lost.

    The handler's KeyboardInterrupt is swallowed when it lands in a callback from C (numba's
    compiler calls back into Python): places that wait or loop call this to raise it again.
    """
    if any(t.requested for t in _RAISING):
        raise KeyboardInterrupt


def _quiet_lost_interrupts(previous: Callable[[Any], Any]) -> Callable[[Any], Any]:
    # the swallowed KeyboardInterrupt's "Exception ignored" report: the stop goes on regardless
    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)

    return hook


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[Termination]:
    """Within the block, SIGTERM raises KeyboardInterrupt in the main thread, as Ctrl-C does.

    Long work then stops the same way for both (stored work kept, workers stopped); the
    yielded :class:`Termination` says which signal it was. A signal whose KeyboardInterrupt
    was swallowed (it landed in a callback from C) is remembered: :func:`raise_if_stopping`
    raises it again. Outside the main thread this does nothing (signals can only be handled
    there).
    """
    with stop_requests() as termination, termination.interruptible():
        yield termination


def _compiling() -> bool:
    """True while this thread holds numba's compiler lock (an exception raised there leaves the
    compiler's state broken: a later call fails, or the process crashes at exit)."""
    lock_module = sys.modules.get("numba.core.compiler_lock")  # no numba loaded: no compile
    return lock_module is not None and bool(lock_module.global_compiler_lock.is_locked())


def _signal_again_after_compiling(signum: int) -> None:
    """Send ``signum`` to this process again once the compiler lock is free, from a helper
    thread: the handler then raises where it is safe."""
    lock = sys.modules["numba.core.compiler_lock"].global_compiler_lock

    def resend() -> None:
        with lock:  # waits for the compile under way
            pass
        os.kill(os.getpid(), signum)

    threading.Thread(target=resend, name="signal-after-compile", daemon=True).start()


@contextlib.contextmanager
def stop_requests() -> Iterator[Termination]:
    """Within the block, Ctrl-C and SIGTERM only set a flag: the yielded :class:`Termination`.

    For work that checks the flag between steps and saves before it stops (training), so that
    no exception lands in the middle of a compiled call or a checkpoint write. The previous
    handlers come back when the block ends. Outside the main thread nothing is installed.
    """
    termination = Termination()
    if not _main_thread():
        yield termination
        return

    def on_signal(signum: int, frame: object) -> None:
        termination.requested = True
        termination.received = termination.received or signum == signal.SIGTERM
        if termination.raising and _compiling():
            _signal_again_after_compiling(signum)
        elif termination.raising:  # again at each signal: work that swallowed one still stops
            raise KeyboardInterrupt

    previous = {signum: signal.signal(signum, on_signal) for signum in (signal.SIGINT, signal.SIGTERM)}
    hook, sys.unraisablehook = sys.unraisablehook, _quiet_lost_interrupts(sys.unraisablehook)
    try:
        yield termination
    finally:
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)


R = TypeVar("R")

STOP_POLL_SECONDS = 0.05
"""How often the main thread looks up from a :func:`stoppable_call` (signal handlers run then)."""


def _wait_through_interrupts(event: threading.Event) -> None:
    """Wait for ``event``, through further Ctrl-C and SIGTERM (the stop is already under way)."""
    while True:
        with contextlib.suppress(KeyboardInterrupt):
            event.wait()
            return


def stoppable_call(function: Callable[..., R], stop: np.ndarray, *args: Any) -> R:
    """``function(*args)``, run so that Ctrl-C and SIGTERM reach it: in a helper thread while the
    main thread waits; a KeyboardInterrupt in the main thread sets ``stop[0] = 1``, which the
    compiled ``function`` (``nogil=True``) checks every few thousand nodes to give up, and is
    raised again once the helper has returned. Outside the main thread it is a plain call."""
    if not _main_thread():
        return function(*args)
    box: list[Any] = []
    # the helper's own word that it returned, not Thread.join: on Python 3.11 and 3.12 a join
    # interrupted by a signal handler's exception marks the running thread as stopped, and every
    # later join returns at once (the search would run on, its stop word cleared)
    returned = threading.Event()

    def call() -> None:
        try:
            box.append((True, function(*args)))
        except BaseException as error:  # handed to the main thread
            box.append((False, error))
        finally:
            returned.set()

    helper = threading.Thread(target=call, name="boardlab-search", daemon=True)
    helper.start()
    try:
        while not returned.wait(STOP_POLL_SECONDS):
            raise_if_stopping()
    except BaseException:
        stop[0] = 1
        _wait_through_interrupts(returned)
        stop[0] = 0
        raise
    ok, value = box[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]
