"""The agent protocol and the registry that builds agents from spec strings.

An agent is built from a spec such as ``alphabeta:depth=5,eval=lines3`` or
``mcts:iters=5000``: a registered name, then ``key=value`` options. Each agent class declares
its options once, as the fields of a frozen ``Settings`` dataclass (made with
:func:`boardlab.core.spec.option`); parsing, checking, the spec text and the help table derive
from it. Every agent takes a ``seed`` (ties and random choices come from it) and honours a
per-move budget.

Agents are found through the ``boardlab.agents`` entry-point group (``name =
"module:Class"`` in a package's metadata), so any installed package can add agents;
:func:`register` adds one at run time.
"""

from __future__ import annotations

import functools
import numbers
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from boardlab.agents.decision import Decision, Limit, check_limit
from boardlab.core.machine import memory_problem
from boardlab.core.registry import Registry
from boardlab.core.spec import (
    SpecError,
    build_options,
    check_options,
    format_value,
    options_of,
    spec_text,
    split_spec,
    unknown_option,
)
from boardlab.games.base import GameOverError, State

ENTRY_POINT_GROUP = "boardlab.agents"


class AgentSpecError(SpecError):
    """An unknown agent name, a bad option in an agent spec, or an agent used on a game it cannot play."""


class NotAStateError(TypeError):
    """An agent asked to decide for something that is not a game's State (a string, a board)."""


Method = TypeVar("Method", bound=Callable[..., Any])


def refusing_finished_games(method: Method) -> Method:
    """``method`` (an agent's ``act`` or ``choose``) raising, before any work, NotAStateError
    when what it is given is not a State, and GameOverError when the state is over (by the
    rules or by the game's ply cap)."""
    if getattr(method, "refuses_finished_games", False):
        return method

    @functools.wraps(method)
    def guarded(self: Agent, state: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(state, State):
            shown = repr(state) if len(repr(state)) <= 40 else repr(state)[:37] + "..."
            raise NotAStateError(
                f"agent {self.name} decides for a game's State (e.g. new_game('quixo') or "
                f"game.parse_position(text)), not {shown} ({type(state).__name__})"
            )
        outcome = state.outcome
        if outcome is not None:
            raise GameOverError(
                f"agent {self.name} was asked to move in a finished game "
                f"({outcome.text(state.game.symbols)}); no move can be played"
            )
        return method(self, state, *args, **kwargs)

    guarded.refuses_finished_games = True  # type: ignore[attr-defined]
    return guarded  # type: ignore[return-value]


@dataclass(frozen=True)
class NoSettings:
    """The settings of an agent without options."""


class Agent:
    """Decides a move for a state within a budget.

    Subclasses set ``name``, ``summary`` and ``Settings`` (a frozen dataclass of options)
    and implement :meth:`act` (answering a :class:`Decision` within a :class:`Limit`) or,
    for an agent with nothing more to say than its move, just :meth:`choose`. ``games`` lists
    the games an agent can play (empty: every game). The settings are in ``self.settings``;
    an agent whose spec carries a budget (``time=``, ``depth=``, ``iters=``) states it in
    :meth:`default_limit`.

    Something that is not a State, and a finished game (ended by its rules or its ply cap),
    are refused for every agent in one place: each subclass's own ``act`` and ``choose`` are
    wrapped, when the class is made, to raise NotAStateError or GameOverError before they
    start (:func:`refusing_finished_games`).
    """

    name: ClassVar[str] = "agent"
    summary: ClassVar[str] = ""
    Settings: ClassVar[type] = NoSettings
    games: ClassVar[tuple[str, ...]] = ()

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        self.seed = seed = check_seed(seed)
        self.rng = random.Random(seed)
        """The agent's random generator, Python's :class:`random.Random` seeded by its seed: draw
        every random choice from it (``self.rng.choice(moves)``; weighted,
        ``self.rng.choices(moves, weights=probs)[0]``), so that a seed replays a game."""
        if settings is None:
            known = {o.name for o in options_of(self.Settings)}
            for key, value in options.items():
                if key not in known:
                    error = unknown_option(self.Settings, self.name, key, format_value(value))
                    raise AgentSpecError(str(error))
            settings = self.Settings(**options)
        elif options:
            raise TypeError("give either settings or options, not both")
        try:
            check_options(settings, self.name)
        except SpecError as err:
            raise AgentSpecError(str(err)) from None
        self.settings = settings

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.act is Agent.act and cls.choose is Agent.choose:
            raise TypeError(f"agent class {cls.__name__} must implement act() or choose()")
        for name in ("act", "choose"):
            if name in cls.__dict__:
                setattr(cls, name, refusing_finished_games(cls.__dict__[name]))

    @property
    def spec(self) -> str:
        """The spec string that rebuilds this agent (non-default options only)."""
        return spec_text(self.name, self.settings)

    @classmethod
    def supports(cls, game: Any) -> bool:
        """True if this agent can play ``game`` (a Game)."""
        return not cls.games or game.name in cls.games

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        """AgentSpecError if these settings cannot play ``game`` (e.g. an unknown evaluation)."""
        if not cls.supports(game):
            raise AgentSpecError(f"agent {cls.name} plays only {', '.join(cls.games)}, not {game.name}")

    @classmethod
    def check_whole_game(cls, settings: Any, game: Any, start: Any = None) -> None:
        """AgentSpecError if these settings cannot play a whole game of ``game`` from ``start``
        (default: its first position) to its end. The same as :meth:`check_game` for agents that
        play every position; one that plays only some (``perfect`` from endgame tables) refuses
        here a game it would otherwise forfeit at its first move."""
        cls.check_game(settings, game)

    @classmethod
    def memory_bytes(cls, settings: Any, game: Any) -> int:
        """The memory these settings allocate to play ``game`` (tables, trees), in bytes.

        Checked against the machine's available memory when the agent is made for a game, so
        that an agent asking for more is refused before play starts (0: nothing notable).
        """
        return 0

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        """The budget these settings give a decision when the call gives none (open: none)."""
        return Limit()

    @property
    def limit(self) -> Limit:
        """This agent's default budget per decision."""
        return self.default_limit(self.settings)

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        """The agent's decision for ``state`` within ``limit``; GameOverError if the game is over.

        ``limit`` overrides the agent's default budget in the dimensions it sets; agents
        without a budget ignore it.
        """
        check_limit(limit)
        return Decision(self.choose(state))

    def choose(self, state: Any) -> Any:
        """A legal move for ``state`` within the default budget; GameOverError if the game is over."""
        return self.act(state).move

    def new_game(self) -> None:
        """Called before each game; agents holding per-game memory reset it here."""

    def prepare(self, game: Any) -> None:
        """Compile or load what playing ``game`` needs, before the first move's clock starts.

        Callers that time moves (the arena, the terminal, referees) call it once per game;
        an agent that is not prepared still plays, its first move paying for the work.
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec} seed={self.seed}>"


AGENTS: Registry[type[Agent]] = Registry(
    "agent",
    ENTRY_POINT_GROUP,
    AgentSpecError,
    base=Agent,
    hint="; an agent of another package is found once that package is installed "
    "(pip install -e ./myagent; docs/agents.md, Adding an agent)",
)
"""The agents: the ``boardlab.agents`` entry points and those added with :func:`register`."""


def register(cls: type[Agent]) -> type[Agent]:
    """Class decorator adding an agent to the registry under its ``name``."""
    return AGENTS.register(cls.name, cls)


def agent_names() -> list[str]:
    """Every known agent name, sorted."""
    return AGENTS.names()


def agent_class(name: str) -> type[Agent]:
    """The agent class registered under ``name``."""
    return AGENTS.get(name)


def parse_spec(spec: str) -> tuple[type[Agent], Any]:
    """The agent class and its settings for a spec string."""
    try:
        AGENTS.check_not_a_path(spec)
        name, texts = split_spec(spec)
        cls = agent_class(name)
        return cls, build_options(cls.Settings, name, texts)
    except AgentSpecError:
        raise
    except SpecError as err:
        raise AgentSpecError(str(err)) from None


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int, or None; AgentSpecError unless it is None or a whole number >= 0
    (numpy's generators, which several agents draw from, take no other)."""
    if seed is None:
        return None
    # numpy's integers are Integral, its bool_ is not
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        shown = repr(seed) if len(repr(seed)) <= 40 else repr(seed)[:37] + "..."
        raise AgentSpecError(f"a seed is None or a whole number >= 0, got {shown} ({type(seed).__name__})")
    return int(seed)


def make_agent(spec: str, seed: int | None = None, game: Any = None) -> Agent:
    """Build an agent from a spec such as ``alphabeta:depth=5,eval=lines3``.

    ``seed`` is None or a whole number >= 0. With ``game`` (a Game, or a game spec such as
    ``connect4``), an agent that cannot play it, or that would need more memory than the
    machine has available, is refused with AgentSpecError.
    """
    check_seed(seed)
    cls, settings = parse_spec(spec)
    if game is not None:
        game = _game_of(game)
        cls.check_game(settings, game)
        problem = memory_problem(cls.memory_bytes(settings, game), f"agent {spec_text(cls.name, settings)}")
        if problem is not None:
            raise AgentSpecError(f"{problem}; choose smaller tables")
    return cls(seed=seed, settings=settings)


def check_whole_game(spec: str, game: Any, start: Any = None) -> None:
    """AgentSpecError unless the agent ``spec`` can play a whole game of ``game`` (a Game or a
    game spec) from ``start`` (default: its first position) to its end; see
    :meth:`Agent.check_whole_game`."""
    cls, settings = parse_spec(spec)
    cls.check_whole_game(settings, _game_of(game), start)


def _game_of(game: Any) -> Any:
    """The Game of a Game or a game spec; AgentSpecError for anything else."""
    from boardlab.games import Game, GameOptionError, parse_game

    if isinstance(game, Game):
        return game
    if not isinstance(game, str):
        raise AgentSpecError(f"game is a Game or a game spec such as 'connect4', got {type(game).__name__}")
    try:
        return parse_game(game)
    except GameOptionError as err:
        raise AgentSpecError(f"game {game[:60]!r}: {err}") from None


def memory_of(spec: str, game: Any) -> int:
    """The memory, in bytes, that the agent ``spec`` allocates to play ``game``."""
    cls, settings = parse_spec(spec)
    return int(cls.memory_bytes(settings, game))


def list_agents() -> list[type[Agent]]:
    """Every agent class that loads, sorted by name: an agent whose entry point does not load
    is left out, with one warning line on standard error saying why."""
    return [agent_class(name) for name in AGENTS.available()]
