"""The uniformly random agent: the baseline every other agent must beat."""

from __future__ import annotations

from typing import Any

from boardlab.agents.base import Agent


class RandomAgent(Agent):
    """Plays a uniformly random legal move."""

    name = "random"
    summary = "uniformly random legal move"

    def choose(self, state: Any) -> Any:
        return self.rng.choice(state.legal_moves())
