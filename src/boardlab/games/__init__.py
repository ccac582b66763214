"""Game rules. Each game is a :class:`Game` (its options and metadata) making immutable
:class:`State` objects, with a compiled :class:`Kernel` for searches and learners.

Build games from specs: ``parse_game("connect4:width=8,height=7")`` gives the Game,
``new_game("quixo:size=4")`` its starting position. Adding a game is its package and one
entry point in the ``boardlab.games`` group (or ``GAMES.register``); the conformance suite
(:mod:`boardlab.games.conformance`) then checks it.

A game class also names its exact play (:mod:`boardlab.games.exact`): ``exact_play(game)``
gives the perfect-play knowledge of a game variant, ``endgame_for(game)`` the tables solved
ahead that a searching agent may read at every move.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardlab.core.registry import Registry, failure_text
from boardlab.core.spec import SpecError, build_options, split_spec
from boardlab.games.base import (
    DRAW,
    LOSS,
    ONGOING,
    WIN,
    Game,
    GameError,
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    Kernel,
    MoveParseError,
    Outcome,
    PositionParseError,
    Reason,
    State,
)
from boardlab.games.exact import ExactPlay, ExactPlayError, OutOfTime, UncoveredPosition
from boardlab.games.small_solver import DEFAULT_LIMIT

UnknownGameError = GameOptionError

GAMES: Registry[type[Game]] = Registry(
    "game",
    "boardlab.games",
    GameOptionError,
    base=Game,
    hint="; a game of another package is found once that package is installed "
    "(pip install -e ./mygame; docs/games.md, Adding a game)",
)
"""The games: the ``boardlab.games`` entry points (``name = "module:GameClass"``) and those
added at run time with ``GAMES.register(name, cls)``."""


def _load_provider(game: Game, target: str) -> type[ExactPlay]:
    """The exact-play class ``target`` (``module:Class``) that ``game`` names; ExactPlayError
    saying why when it cannot be imported."""
    module, _, attr = target.partition(":")
    try:
        provider = getattr(importlib.import_module(module), attr)
    except Exception as err:  # a game's own code, which may fail in any way
        raise ExactPlayError(
            f"the exact play {target} of {game.name} could not be loaded: {failure_text(err)}"
        ) from None
    if not (isinstance(provider, type) and issubclass(provider, ExactPlay)):
        raise ExactPlayError(f"the exact play {target} of {game.name} is not an ExactPlay subclass")
    return provider


def game_class(name: str) -> type[Game]:
    """The Game class registered under ``name``."""
    return GAMES.get(name)


def exact_providers(game: Game | str) -> list[type[ExactPlay]]:
    """The exact-play providers registered for a game (a Game, a spec or a name), in order;
    ExactPlayError when one of them cannot be imported."""
    game = parse_game(game)
    return [_load_provider(game, target) for target in game.exact_play]


def exact_play(
    game: Game | str,
    *,
    tables: Path | str | None = None,
    limit: int = DEFAULT_LIMIT,
    accept: Callable[[type[ExactPlay]], bool] | None = None,
) -> ExactPlay:
    """The exact play of a game variant: the first registered provider (among those
    ``accept`` takes) that serves it. ``tables`` is the folder of solved tables, ``limit``
    the most positions a solve on demand may hold. ExactPlayError, saying why each provider
    refused, when none serves it."""
    game = parse_game(game)
    providers = [p for p in exact_providers(game) if accept is None or accept(p)]
    if not providers:
        raise ExactPlayError(f"no exact play for {game.name}")
    reasons = []
    for provider in providers:
        try:
            return provider.open(game, tables=tables, limit=limit)
        except ExactPlayError as err:
            reasons.append(str(err))
    raise ExactPlayError("; ".join(reasons))


def endgame_for(game: Game, directory: Path | str | None = None) -> ExactPlay | None:
    """The tables solved ahead for ``game`` on this machine (from ``directory``, default where
    the game keeps them), or None when it has none. Their answers are lookups, cheap enough
    for a searching agent to ask at every move it makes in a covered position."""
    try:
        return exact_play(game, tables=directory, accept=lambda provider: provider.lookup)
    except ExactPlayError:
        return None


def available_games() -> list[str]:
    """Names of the registered games that load, sorted: a game whose entry point does not load
    is left out, with one warning line on standard error saying why."""
    return GAMES.available()


def parse_game(spec: str | Game = "quixo") -> Game:
    """The Game of a spec such as ``quixo``, ``quixo:size=4`` or ``nim:piles=3-4-5,misere=false``."""
    if isinstance(spec, Game):
        return spec
    try:
        GAMES.check_not_a_path(spec)
        name, texts = split_spec(spec)
        cls = game_class(name)
        return build_options(cls, name, texts)
    except GameOptionError:
        raise
    except SpecError as err:
        raise GameOptionError(str(err)) from None


def new_game(spec: str | Game = "quixo") -> Any:
    """The starting position of the game of ``spec``."""
    return parse_game(spec).initial()


__all__ = [
    "DRAW",
    "GAMES",
    "LOSS",
    "ONGOING",
    "WIN",
    "ExactPlay",
    "ExactPlayError",
    "Game",
    "GameError",
    "GameOptionError",
    "GameOverError",
    "IllegalMoveError",
    "Kernel",
    "MoveParseError",
    "OutOfTime",
    "Outcome",
    "PositionParseError",
    "Reason",
    "State",
    "UncoveredPosition",
    "UnknownGameError",
    "available_games",
    "endgame_for",
    "exact_play",
    "exact_providers",
    "game_class",
    "new_game",
    "parse_game",
]
