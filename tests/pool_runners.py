"""Runners and agents for the worker pool's tests, named as ``pool_runners:NAME`` in a
:class:`~boardlab.play.pool.GameJobs`.

Only the worker processes import this module (they find this folder on their path as the test
process does): importing it registers the agents below there, before the workers warm up, so
that the arena's own runner (:data:`play_task`) can build them. The test process names them by
spec only.
"""

from __future__ import annotations

import os
import time
from typing import Any

from boardlab.agents.base import AGENTS, Agent, register
from boardlab.arena.play import play_task
from boardlab.play.pool import TaskError
from boardlab.play.session import Report

Limits = tuple[float | None, float | None]


class HangingAgent(Agent):
    """Never answers."""

    name = "pool-hangs"

    def choose(self, state: Any) -> Any:
        while True:
            time.sleep(0.05)


class HangingPrepareAgent(Agent):
    """Never finishes preparing for a game."""

    name = "pool-hangs-preparing"

    def prepare(self, game: Any) -> None:
        while True:
            time.sleep(0.05)

    def choose(self, state: Any) -> Any:
        return state.legal_moves()[0]


class DyingPrepareAgent(Agent):
    """Ends its process while preparing for a game."""

    name = "pool-dies-preparing"

    def prepare(self, game: Any) -> None:
        os._exit(6)

    def choose(self, state: Any) -> Any:
        return state.legal_moves()[0]


for _agent in (HangingAgent, HangingPrepareAgent, DyingPrepareAgent):
    if _agent.name not in AGENTS.names():
        register(_agent)


def refuses(task: str, limits: Limits, report: Report) -> str:
    """A runner that cannot play any task."""
    raise TaskError(f"task {task} cannot be played")


def fails(task: str, limits: Limits, report: Report) -> str:
    """A runner with a bug of its own."""
    raise ValueError("a bug in the runner")


def exits(task: str, limits: Limits, report: Report) -> str:
    """A runner whose process ends while no agent's clock runs."""
    os._exit(7)


def echoes(task: str, limits: Limits, report: Report) -> str:
    """A runner that answers each task with itself and the limits it was given."""
    return f"{task} {list(limits)}"


__all__ = ["echoes", "exits", "fails", "play_task", "refuses"]
