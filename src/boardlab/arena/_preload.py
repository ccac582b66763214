"""Imported once by the forkserver that forks the arena's worker processes.

It imports modules only (numba, the modules of every registered game and agent), so that
each forked worker starts with them loaded instead of paying the imports in every process.
It names no game and compiles nothing: each worker warms the game and agents of its own
tournament when it starts (:func:`boardlab.arena.play.warm_up`). Nothing here starts threads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numba  # noqa: F401 - the largest import of a worker

from boardlab.agents.base import agent_class, agent_names
from boardlab.arena import play  # noqa: F401 - what the workers run
from boardlab.games import GAMES, game_class
from boardlab.play import pool  # noqa: F401 - the worker's entry point


def load_modules() -> None:
    """Import the module of every registered game and agent.

    Only a speed-up: a module that fails to import is left for the worker to meet and report
    with the game it concerns, instead of breaking the server that forks every worker.
    """
    loaders: list[tuple[Callable[[str], type], str]] = [(game_class, name) for name in GAMES]
    with contextlib.suppress(Exception):
        loaders += [(agent_class, name) for name in agent_names()]
    for load, name in loaders:
        with contextlib.suppress(Exception):
            load(name)


load_modules()
