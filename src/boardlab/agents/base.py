"""The agent protocol and the registry that builds agents from spec strings.

An agent is built from a spec such as ``alphabeta:depth=5,eval=lines3`` or
``mcts:iters=5000``: a registered name, then ``key=value`` parameters. Every agent takes a
``seed`` (ties and random choices come from it) and honours a per-move budget.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar


class AgentSpecError(ValueError):
    """An unknown agent name or a bad parameter in an agent spec."""


@dataclass(frozen=True)
class Param:
    """One parameter an agent accepts in its spec."""

    name: str
    kind: type
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None

    def convert(self, agent: str, text: str) -> Any:
        """The parameter's value from its text, or AgentSpecError saying what is accepted."""
        if self.choices and text not in self.choices:
            raise AgentSpecError(
                f"{agent}: {self.name}={text!r} is not accepted; choose one of {', '.join(self.choices)}"
            )
        try:
            value = _parse_bool(text) if self.kind is bool else self.kind(text)
        except ValueError:
            raise AgentSpecError(f"{agent}: {self.name} must be {self.kind.__name__}, got {text!r}") from None
        if self.minimum is not None and value < self.minimum:
            raise AgentSpecError(f"{agent}: {self.name} must be at least {self.minimum}, got {text}")
        return value


class Agent(ABC):
    """Chooses a move for a state within its budget.

    Subclasses set ``name`` and ``params`` (the accepted spec parameters) and implement
    :meth:`choose`. Parameters arrive as keyword arguments already converted to their types.
    """

    name: ClassVar[str] = "agent"
    summary: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        known = {p.name: p for p in self.params}
        for key in options:
            if key not in known:
                raise AgentSpecError(_unknown_param_message(self.name, key, self.params))
        self.options = {p.name: options.get(p.name, p.default) for p in self.params}
        for key, value in self.options.items():
            setattr(self, key, value)

    @property
    def spec(self) -> str:
        """The spec string that rebuilds this agent (non-default parameters only)."""
        changed = [
            f"{p.name}={self.options[p.name]}" for p in self.params if self.options[p.name] != p.default
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    @abstractmethod
    def choose(self, state: Any) -> Any:
        """A legal move for ``state`` (which must not be over)."""

    def new_game(self) -> None:  # noqa: B027 - optional hook
        """Called before each game; agents holding per-game memory reset it here."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec} seed={self.seed}>"


def _parse_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def _unknown_param_message(agent: str, key: str, params: tuple[Param, ...]) -> str:
    accepted = ", ".join(p.name for p in params) or "no parameters"
    return f"{agent}: unknown parameter {key!r}; accepted: {accepted}"


REGISTRY: dict[str, type[Agent]] = {}


def register(cls: type[Agent]) -> type[Agent]:
    """Class decorator adding an agent to the registry under its ``name``."""
    REGISTRY[cls.name] = cls
    return cls


def _ensure_loaded() -> None:
    # importing the modules registers their agents
    from boardlab.agents import alphabeta, greedy, hybrid, mcts, random_agent  # noqa: F401
    from boardlab.interop import course  # noqa: F401


def parse_spec(spec: str) -> tuple[type[Agent], dict[str, Any]]:
    """The agent class and converted parameters of a spec string."""
    _ensure_loaded()
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in REGISTRY:
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {', '.join(sorted(REGISTRY))}")
    cls = REGISTRY[name]
    known = {p.name: p for p in cls.params}
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq:
            raise AgentSpecError(f"{name}: parameter {item!r} must be written key=value")
        if key not in known:
            raise AgentSpecError(_unknown_param_message(name, key, cls.params))
        options[key] = known[key].convert(name, text.strip())
    return cls, options


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from a spec string such as ``alphabeta:depth=5,eval=lines3``."""
    cls, options = parse_spec(spec)
    return cls(seed=seed, **options)


def list_agents() -> list[type[Agent]]:
    """Every registered agent class, sorted by name."""
    _ensure_loaded()
    return [REGISTRY[name] for name in sorted(REGISTRY)]


AgentFactory = Callable[[int | None], Agent]
