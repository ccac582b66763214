"""The agent contract checker: it passes the shipped agents and flatmc, and names the broken
promise and the position for agents broken on purpose."""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from example_packages import EXAMPLES

from boardlab.agents.base import Agent, agent_class, agent_names, make_agent
from boardlab.agents.conformance import AgentConformanceError, check_agent, check_option_names
from boardlab.agents.decision import Decision, Limit, SearchInfo
from boardlab.core.spec import option

sys.path.insert(0, str(EXAMPLES / "flatmc"))

from boardlab_flatmc import FlatMonteCarlo


class Sound(Agent):
    """The first legal move, with a uniform policy, a value and a search info."""

    name = "sound"

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return Decision(
            state.legal_moves()[0], self.policy(state), 0.0, SearchInfo(nodes=1, engine=self.name)
        )

    def policy(self, state: Any) -> np.ndarray:
        mask = state.legal_mask()
        return mask / mask.sum()


class TextMove(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return Decision(str(state.legal_moves()[0]))


class BareMove(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Any:
        return state.legal_moves()[0]


class Illegal(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        taken = state.move_from_index(int(np.flatnonzero(~state.legal_mask())[0])) if state.ply else None
        return Decision(taken if taken is not None else state.legal_moves()[0])


class ShortPolicy(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return replace(super().act(state), policy=np.ones(3) / 3)


class NegativePolicy(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        policy = self.policy(state) * 2
        policy[np.flatnonzero(state.legal_mask())[0]] = -1.0
        decision = super().act(state)
        object.__setattr__(decision, "policy", policy)  # past the Decision's own check
        return decision


class RefusedPolicy(Sound):
    """Builds a Decision with a negative policy, which Decision itself refuses."""

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return replace(super().act(state), policy=-self.policy(state))


class SpreadPolicy(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        n = state.kernel.num_actions
        return replace(super().act(state), policy=np.full(n, 1 / n))


class BadValue(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        decision = super().act(state)
        object.__setattr__(decision, "value", 2.5)  # past the Decision's own check
        return decision


class BadInfo(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return replace(super().act(state), info=SearchInfo(nodes=-1, pv=["a1"], engine=self.name))  # type: ignore[arg-type]


class Unseeded(Sound):
    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return Decision(random.choice(state.legal_moves()))  # the module's generator, not self.rng


@pytest.mark.parametrize(
    ("cls", "promise"),
    [
        (TextMove, r"the move '.*' \(str\) is not one of the position's legal moves"),
        (BareMove, r"act\(\) answered .*, not a Decision"),
        (Illegal, r"the move Cell\(.*\) \(Cell\) is not one of the position's legal moves"),
        (ShortPolicy, r"the policy is ndarray of shape \(3,\), not an array over the game's 9 actions"),
        (NegativePolicy, r"the policy holds negative probabilities"),
        (RefusedPolicy, r"act\(\) raised ValueError: a policy's entries are non-negative, got -"),
        (SpreadPolicy, r"the policy gives illegal actions a probability"),
        (BadValue, r"the value 2.5 is not None or a number in \[-1, 1\]"),
        (BadInfo, r"info has nodes=-1 \(None or a whole number >= 0\); pv=\['a1'\] \(a tuple of moves"),
        (Unseeded, r"the same seed \(0\) chose .* once and .* once"),
    ],
)
def test_a_broken_promise_is_named_with_the_position(cls: type[Agent], promise: str) -> None:
    with pytest.raises(
        AgentConformanceError, match=rf"^agent sound on tictactoe, position '[^']*': {promise}"
    ):
        check_agent(cls(seed=0), games=["tictactoe"], positions=6)


def test_a_sound_agent_passes_on_every_game() -> None:
    check_agent(Sound(seed=0), positions=3)


SHIPPED = {
    "random": None,
    "greedy": None,
    "mcts:iters=16": ["tictactoe", "connect4"],
    "alphabeta:depth=1": ["tictactoe"],
    "minimax:depth=1": ["tictactoe"],
    "hybrid:time=0.05": ["tictactoe"],
    "alphazero:sims=8": ["tictactoe"],
    "perfect": ["tictactoe", "nim"],
    "optimal": None,
    "qlearning": ["tictactoe"],
    "mcrl": ["tictactoe"],
    "nimga": None,
    "rules": None,
    "neat": None,
}
"""Each agent boardlab ships, as the spec checked and the games it is checked on (None: all)."""

CHECKED_ELSEWHERE = {
    "course": "a course player's file (tests/test_course_players.py, tests/test_interop_course.py)",
    "engine": "a program to run (tests/test_engine_agent.py)",
    "openspiel": "the bridges extra (tests/test_bridge_openspiel.py)",
}
"""Built-in agents that need something from outside to play, and where their tests are."""


def test_every_built_in_agent_is_checked_here_or_has_a_place_named() -> None:
    built_in = {name for name in agent_names() if agent_class(name).__module__.startswith("boardlab.")}
    assert {spec.split(":")[0] for spec in SHIPPED} | set(CHECKED_ELSEWHERE) == built_in


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("spec", "games"), SHIPPED.items())
def test_the_shipped_agents_pass(spec: str, games: list[str] | None) -> None:
    check_agent(spec, games=games, positions=3)


def test_the_example_package_agent_passes() -> None:
    check_agent(FlatMonteCarlo(seed=0, playouts=8), games=["tictactoe", "connect4"], positions=3)


def test_options_that_differ_by_case_alone_are_refused() -> None:
    from dataclasses import dataclass
    from typing import ClassVar

    @dataclass(frozen=True)
    class Twins:
        depth: int = option(1, "one")
        Depth: int = option(2, "the other")

    class Twinned(Sound):
        name = "twinned"
        Settings: ClassVar[type] = Twins

    with pytest.raises(
        AgentConformanceError, match=r"^agent twinned: options Depth, depth differ by case alone"
    ):
        check_option_names(Twinned)


def test_a_game_the_agent_refuses_by_name_is_an_error_and_one_it_does_not_play_is_left_out() -> None:
    from boardlab.agents.base import AgentSpecError

    with pytest.raises(AgentSpecError, match="plays only nim"):
        check_agent("optimal", games=["tictactoe"])
    check_agent(make_agent("optimal", seed=0), positions=2)
