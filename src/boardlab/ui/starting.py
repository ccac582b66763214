"""Ctrl-C while the ``boardlab`` command starts: one line and exit 130, no traceback.

Importing this module (the first thing :mod:`boardlab.ui.cli` does) makes SIGINT end the
process at once with ``Interrupted while starting; nothing was done.``: no command has begun,
so there is nothing to save. The process ends with ``os._exit``: a ``SystemExit`` raised in the
middle of some module's import can be swallowed there, and the command would go on after saying
it stopped. :func:`done` (called once the command line's modules are loaded, and again as the
command begins) gives back Python's own handler, which the commands' Ctrl-C handling builds on;
:func:`arm` (called by the ``boardlab`` script's entry point) takes SIGINT again for the time
the command line is built and read. Nothing is installed outside the main thread, or where the
handler is not Python's default (an embedding program's own, or SIGINT ignored by a shell that
started the command in the background).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from types import FrameType

MESSAGE = "Interrupted while starting; nothing was done."
CODE = 130


def _stop(signum: int, frame: FrameType | None) -> None:
    with contextlib.suppress(Exception):  # a closed or broken stream: the exit comes all the same
        if sys.stdout is not None:
            sys.stdout.flush()
        sys.stderr.write(MESSAGE + "\n")
        sys.stderr.flush()
    os._exit(CODE)


def _install() -> bool:
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    signal.signal(signal.SIGINT, _stop)
    return True


_installed = _install()


def arm() -> None:
    """Take SIGINT again until :func:`done`, as importing this module did (where it may)."""
    global _installed
    _installed = _installed or _install()


def done() -> None:
    """Give SIGINT back to Python's default handler, if this module took it."""
    global _installed
    if _installed and signal.getsignal(signal.SIGINT) is _stop:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _installed = False


__all__ = ["CODE", "MESSAGE", "arm", "done"]
