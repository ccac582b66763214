"""Imported once by the forkserver that forks the arena's worker processes.

Importing the agents and playing a few moves of the default game loads numba and the
compiled kernels (from numba's cache) in the server, so that each forked worker starts
warm instead of paying the start-up in every process. Nothing here starts threads.
"""

from __future__ import annotations

from boardlab.agents.alphabeta import compiled_search
from boardlab.agents.base import list_agents
from boardlab.agents.mcts import compiled_mcts
from boardlab.arena.play import play_opening
from boardlab.games.quixo_kernel import kernel


def warm_up() -> None:
    """Load every agent module, the Quixo kernels and the compiled 5x5 searches.

    Warming is only a speed-up: a failure here is left for the worker to meet and report
    with the game it concerns, instead of breaking the server that forks every worker.
    """
    try:
        list_agents()
        play_opening("quixo", 4, 0)
        # the searches are compiled per process (not cached): compile them once here
        compiled_search(kernel(5))
        compiled_mcts(kernel(5))
    except Exception:
        pass


warm_up()
