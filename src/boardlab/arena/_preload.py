"""Imported once by the forkserver that forks the arena's worker processes.

Importing the agents and playing a few moves of the default game loads numba and the
compiled kernels (from numba's cache) in the server, so that each forked worker starts
warm instead of paying the start-up in every process. Nothing here starts threads.
"""

from __future__ import annotations

from boardlab.agents.base import list_agents
from boardlab.arena.play import play_opening


def warm_up() -> None:
    """Load every agent module and the Quixo kernels.

    Warming is only a speed-up: a failure here is left for the worker to meet and report
    with the game it concerns, instead of breaking the server that forks every worker.
    """
    try:
        list_agents()
        play_opening("quixo", 4, 0)
    except Exception:
        pass


warm_up()
