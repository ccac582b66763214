"""The agent contract as checks an agent from any package can run on itself.

``check_agent(spec_or_agent)`` plays a few seeded random positions of each game the agent plays
and checks, with one message per broken promise (:class:`AgentConformanceError`, naming the
agent, the game and the position), that every answer is a :class:`Decision` whose move is one of
the position's legal move objects, whose value is None or a number in [-1, 1], whose policy,
where it gives one, covers the game's whole action space with finite, non-negative
probabilities summing to 1 on the legal actions and nothing elsewhere, and whose search info has
fields of the declared types; that the same seed makes the same moves (where the agent's budget
is not a time, which the clock decides); and that no two options differ by case alone (option
keys are read whatever their case).

    from boardlab.agents.conformance import check_agent
    check_agent("flatmc:playouts=20", positions=5)
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError, make_agent, parse_spec
from boardlab.agents.decision import Decision, Limit, SearchInfo
from boardlab.core.spec import one_line, options_of, shorten
from boardlab.games import GAMES, Game, parse_game
from boardlab.games.base import State

POLICY_TOLERANCE = 1e-4
"""How far a policy's sum over the legal actions may be from 1 (float32 rounding)."""
MAX_OPENING_PLIES = 12
"""The most random moves played from the start to reach a position checked."""


class AgentConformanceError(AssertionError):
    """An agent breaks a promise of the agent contract; the message names the position."""


def check_agent(
    agent: str | Agent,
    games: Sequence[str | Game] | None = None,
    positions: int = 5,
    seed: int = 0,
    limit: Limit | None = None,
) -> None:
    """Every check of the agent contract on ``agent`` (a spec, or an agent built in Python).

    ``games`` (game specs or Games) are those to check; by default each available game the agent
    accepts (a game it refuses, by its ``games`` or its settings, is left out; one named in
    ``games`` is checked or the refusal raised). ``positions`` random positions of each game are
    decided, the first the game's start, within ``limit`` (default: the agent's own budget);
    AgentConformanceError names the first broken promise and the position.
    """
    cls, settings = _class_and_settings(agent)
    check_option_names(cls)
    for game in _games(cls, settings, games):
        player = _build(agent, cls, settings, seed, game)
        twin = _build(agent, cls, settings, seed, game) if reproducible(cls, settings) else None
        for state in random_positions(game, positions, seed):
            for who in (player, twin):
                if who is not None:
                    who.new_game()
            decision = check_decision(player, state, limit)
            if twin is not None:
                again = twin.act(state, limit)
                _ensure(
                    again.move == decision.move,
                    player,
                    state,
                    f"the same seed ({seed}) chose {again.move} once and {decision.move} once: "
                    "draw every random choice from self.rng (or a generator seeded by self.seed)",
                )


def check_option_names(cls: type[Agent]) -> None:
    """AgentConformanceError where two options of ``cls`` differ by case alone (a spec's keys
    are read whatever their case, so one of them could not be given)."""
    names = [o.name for o in options_of(cls.Settings)]
    folded = [name.casefold() for name in names]
    clashing = sorted({name for name, key in zip(names, folded, strict=True) if folded.count(key) > 1})
    if clashing:
        raise AgentConformanceError(
            f"agent {cls.name}: options {', '.join(clashing)} differ by case alone; a spec's option "
            "keys are read whatever their case"
        )


def check_decision(agent: Agent, state: State, limit: Limit | None = None) -> Decision:
    """``agent``'s decision for ``state``, checked against the contract (see the module)."""
    try:
        decision = agent.act(state, limit)
    except Exception as error:  # the agent's own failure (a Decision it built refused) is a finding
        _ensure(False, agent, state, f"act() raised {type(error).__name__}: {one_line(str(error))}")
    _ensure(
        isinstance(decision, Decision),
        agent,
        state,
        f"act() answered {shorten(repr(decision))} ({type(decision).__name__}), not a Decision",
    )
    legal = state.legal_moves()
    _ensure(
        any(type(decision.move) is type(move) and decision.move == move for move in legal),
        agent,
        state,
        f"the move {shorten(repr(decision.move))} ({type(decision.move).__name__}) is not one of the "
        "position's legal moves (state.legal_moves(), or state.move_from_index(action))",
    )
    _check_value(agent, state, decision.value)
    if decision.policy is not None:
        _check_policy(agent, state, decision.policy)
    if decision.info is not None:
        _check_info(agent, state, decision.info)
    return decision


def _check_value(agent: Agent, state: State, value: Any) -> None:
    if value is None:
        return
    number = isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
    _ensure(
        number and math.isfinite(value) and -1.0 <= value <= 1.0,
        agent,
        state,
        f"the value {shorten(repr(value))} is not None or a number in [-1, 1] (the side to move's "
        "expected result)",
    )


def _check_policy(agent: Agent, state: State, policy: Any) -> None:
    size = state.kernel.num_actions
    _ensure(
        isinstance(policy, np.ndarray) and policy.shape == (size,),
        agent,
        state,
        f"the policy is {_described(policy)}, not an array over the game's {size} actions "
        "(state.kernel.num_actions)",
    )
    _ensure(
        np.issubdtype(policy.dtype, np.number) and bool(np.all(np.isfinite(policy))),
        agent,
        state,
        "the policy holds values that are not finite numbers",
    )
    _ensure(bool(np.all(policy >= 0)), agent, state, "the policy holds negative probabilities")
    legal = state.legal_mask()
    _ensure(
        not policy[~legal].any(),
        agent,
        state,
        "the policy gives illegal actions a probability (it is zero outside state.legal_mask())",
    )
    total = float(policy[legal].sum())
    _ensure(
        abs(total - 1.0) <= POLICY_TOLERANCE,
        agent,
        state,
        f"the policy sums to {total:.6g} over the legal actions, not 1",
    )


def _check_info(agent: Agent, state: State, info: Any) -> None:
    _ensure(
        isinstance(info, SearchInfo),
        agent,
        state,
        f"info is {_described(info)}, not a SearchInfo",
    )
    problems = [
        f"{name}={shorten(repr(getattr(info, name)))} ({what})"
        for name, what, fits in (
            ("depth", "a whole number >= 0", _count(info.depth)),
            ("nodes", "None or a whole number >= 0", info.nodes is None or _count(info.nodes)),
            ("seconds", "a number >= 0", _real(info.seconds) and info.seconds >= 0),
            ("score", "None or a finite number", info.score is None or _real(info.score)),
            ("pv", "a tuple of moves in notation", _texts(info.pv)),
            ("engine", "a text", isinstance(info.engine, str)),
            (
                "plies_to_end",
                "None or a whole number >= 0",
                info.plies_to_end is None or _count(info.plies_to_end),
            ),
        )
        if not fits
    ]
    _ensure(not problems, agent, state, f"info has {'; '.join(problems)}")


def reproducible(cls: type[Agent], settings: Any) -> bool:
    """True where the same seed must make the same moves: the agent's budget is not a time (a
    search stopped by the clock may reach further one time than another)."""
    return not cls.default_limit(settings).time


def random_positions(game: Game, count: int, seed: int) -> list[State]:
    """``count`` positions of ``game``, unfinished: its start, then positions a few random moves
    on (seeded by ``seed``)."""
    rng = random.Random(f"agent-conformance:{seed}:{game.spec}")
    found = [game.initial()] if count > 0 else []
    while len(found) < count:
        state = game.initial()
        for _ in range(rng.randint(1, MAX_OPENING_PLIES)):
            following = state.play(rng.choice(state.legal_moves()))
            if following.is_over:
                break
            state = following
        found.append(state)
    return found


def _class_and_settings(agent: str | Agent) -> tuple[type[Agent], Any]:
    if isinstance(agent, Agent):
        return type(agent), agent.settings
    if isinstance(agent, str):
        return parse_spec(agent)
    raise TypeError(f"check_agent takes an agent spec or an Agent, not {type(agent).__name__}")


def _games(cls: type[Agent], settings: Any, named: Sequence[str | Game] | None) -> list[Game]:
    """The games to check: those named (each refused one raises), else each available game the
    agent accepts."""
    if named is not None:
        chosen = [game if isinstance(game, Game) else parse_game(game) for game in named]
        for game in chosen:
            cls.check_game(settings, game)
        return chosen
    accepted = []
    for name in GAMES.available():
        game = parse_game(name)
        try:
            cls.check_game(settings, game)
        except AgentSpecError:
            continue  # a game it does not play (its games, a model it lacks): not its promise
        accepted.append(game)
    if not accepted:
        raise AgentConformanceError(
            f"agent {cls.name} accepts none of the games {', '.join(GAMES.available())}"
        )
    return accepted


def _build(agent: str | Agent, cls: type[Agent], settings: Any, seed: int, game: Game) -> Agent:
    """An agent of the spec (or the same class and settings as the agent given), seeded, prepared."""
    built = make_agent(agent, seed=seed, game=game) if isinstance(agent, str) else cls(seed, settings)
    built.prepare(game)
    return built


def _ensure(condition: Any, agent: Agent, state: State, promise: str) -> None:
    if not condition:
        raise AgentConformanceError(
            f"agent {agent.spec} on {state.game.spec}, position {state.to_text()!r}: {promise}"
        )


def _described(value: Any) -> str:
    shape = getattr(value, "shape", None)
    return f"{type(value).__name__} of shape {shape}" if shape is not None else type(value).__name__


def _count(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 0


def _real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _texts(value: Any) -> bool:
    return isinstance(value, tuple) and all(isinstance(move, str) for move in value)


__all__ = ["AgentConformanceError", "check_agent", "check_decision", "check_option_names", "random_positions"]
